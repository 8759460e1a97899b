package loki

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCA is a CA generated for one test, with certificates it signs.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "journalship test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns PEM certificate and key for a server (127.0.0.1) or client.
func (ca *testCA) issue(t *testing.T, serial int64, server bool) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "journalship test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// newTLSLoki starts a fake Loki over mutual TLS: its certificate is signed by
// ca and it requires a client certificate signed by ca.
func newTLSLoki(t *testing.T, ca *testCA) *fakeLoki {
	t.Helper()
	certPEM, keyPEM := ca.issue(t, 2, true)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	f := &fakeLoki{}
	f.srv = httptest.NewUnstartedServer(f.handler(t))
	f.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	return f
}

func TestMutualTLS(t *testing.T) {
	ca := newTestCA(t)
	f := newTLSLoki(t, ca)
	clientCert, clientKey := ca.issue(t, 3, false)
	caFile := writeFile(t, "ca.pem", string(ca.pem))
	certFile := writeFile(t, "client.pem", string(clientCert))
	keyFile := writeFile(t, "client-key.pem", string(clientKey))
	otherCA := writeFile(t, "other.pem", string(newTestCA(t).pem))

	tests := []struct {
		name   string
		mutate func(*Config)
		ok     bool
	}{
		{"CA and client certificate", func(c *Config) { c.CAFile, c.CertFile, c.KeyFile = caFile, certFile, keyFile }, true},
		{"no client certificate", func(c *Config) { c.CAFile = caFile }, false},
		{"unknown server CA", func(c *Config) { c.CAFile, c.CertFile, c.KeyFile = otherCA, certFile, keyFile }, false},
		{"insecure skip verify", func(c *Config) { c.InsecureSkipVerify, c.CertFile, c.KeyFile = true, certFile, keyFile }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestClient(t, f.srv.URL, tt.mutate)
			res, err := c.Push(context.Background(), fixtureBatch(t))
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, len(fixtureEntries), res.Entries)
				return
			}
			retryable, cause := Classify(err)
			assert.True(t, retryable)
			assert.Equal(t, CauseNetwork, cause, "%v", err)
		})
	}
}

func TestTLSFilesAreCheckedByNew(t *testing.T) {
	garbage := writeFile(t, "garbage.pem", "not a certificate")
	tests := []struct {
		name   string
		mutate func(*Config)
		field  string
	}{
		{"missing CA file", func(c *Config) { c.CAFile = "/nonexistent/ca.pem" }, "CAFile"},
		{"CA file without PEM", func(c *Config) { c.CAFile = garbage }, "CAFile"},
		{"bad key pair", func(c *Config) { c.CertFile, c.KeyFile = garbage, garbage }, "CertFile"},
		{"missing password file", func(c *Config) { c.Username, c.PasswordFile = "u", "/nonexistent/pw" }, "PasswordFile"},
		{"empty token file", func(c *Config) { c.BearerTokenFile = writeFile(t, "tok", "\n") }, "BearerTokenFile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.URL = "https://127.0.0.1:1"
			tt.mutate(&cfg)
			_, err := New(cfg, nil)
			var ce *ConfigError
			require.True(t, errors.As(err, &ce), "got %v", err)
			assert.Equal(t, tt.field, ce.Field)
		})
	}
}
