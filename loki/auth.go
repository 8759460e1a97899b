package loki

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// authorizer produces the Authorization header value.
type authorizer struct {
	static string     // basic auth or a fixed bearer token; "" with tokenFile
	token  *tokenFile // nil unless Config.BearerTokenFile is set
}

func newAuthorizer(cfg Config) (*authorizer, error) {
	a := &authorizer{}
	switch {
	case cfg.Username != "":
		pw := cfg.Password
		if cfg.PasswordFile != "" {
			b, err := os.ReadFile(cfg.PasswordFile)
			if err != nil {
				return nil, &ConfigError{Field: "PasswordFile", Msg: err.Error()}
			}
			pw = strings.TrimSpace(string(b))
		}
		a.static = "Basic " + base64.StdEncoding.EncodeToString([]byte(cfg.Username+":"+pw))
	case cfg.BearerToken != "":
		a.static = "Bearer " + cfg.BearerToken
	case cfg.BearerTokenFile != "":
		a.token = &tokenFile{path: cfg.BearerTokenFile}
		if _, _, err := a.token.get(false); err != nil {
			return nil, &ConfigError{Field: "BearerTokenFile", Msg: err.Error()}
		}
	}
	return a, nil
}

// header returns the Authorization value ("" for none).
func (a *authorizer) header() (string, error) {
	if a.token == nil {
		return a.static, nil
	}
	tok, _, err := a.token.get(false)
	if err != nil {
		return "", &RetryableError{Cause: CauseAuth, Err: err}
	}
	return "Bearer " + tok, nil
}

// refresh re-reads a token file after a 401/403 and reports whether the token
// changed, so the request is worth sending again at once.
func (a *authorizer) refresh() bool {
	if a.token == nil {
		return false
	}
	_, changed, err := a.token.get(true)
	return err == nil && changed
}

// tokenFile caches a bearer token file, re-read when its modification time or
// size changes (or when forced).
type tokenFile struct {
	path  string
	mu    sync.Mutex
	token string
	mtime time.Time
	size  int64
	read  bool
}

// get returns the token and whether it differs from the previous one.
func (t *tokenFile) get(force bool) (string, bool, error) {
	fi, err := os.Stat(t.path)
	if err != nil {
		return "", false, fmt.Errorf("bearer token file: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.read && !force && fi.ModTime().Equal(t.mtime) && fi.Size() == t.size {
		return t.token, false, nil
	}
	b, err := os.ReadFile(t.path)
	if err != nil {
		return "", false, fmt.Errorf("bearer token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", false, fmt.Errorf("bearer token file %s is empty", t.path)
	}
	changed := t.read && tok != t.token
	t.token, t.mtime, t.size, t.read = tok, fi.ModTime(), fi.Size(), true
	return tok, changed, nil
}
