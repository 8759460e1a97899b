package loki

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"time"
)

// writeBufferBytes is the transport's write buffer: a compressed push of
// MaxRequestBytes (1 MiB of protobuf) is 100–250 KB.
const writeBufferBytes = 256 << 10

// newTransport builds the HTTP transport, with TLS from the configuration.
func newTransport(cfg Config) (*http.Transport, error) {
	tc, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	tr.MaxIdleConnsPerHost = 4
	tr.ResponseHeaderTimeout = cfg.Timeout
	tr.IdleConnTimeout = 90 * time.Second
	// A request's headers and a compressed body of up to this size leave
	// in one write; with net/http's 4 KB, a push of more took two.
	tr.WriteBufferSize = writeBufferBytes
	return tr, nil
}

func tlsConfig(cfg Config) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.InsecureSkipVerify} //nolint:gosec // opt-in
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, &ConfigError{Field: "CAFile", Msg: err.Error()}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &ConfigError{Field: "CAFile", Msg: "no PEM certificate in " + cfg.CAFile}
		}
		tc.RootCAs = pool
	}
	if cfg.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, &ConfigError{Field: "CertFile", Msg: err.Error()}
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}
