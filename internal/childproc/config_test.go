package childproc

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	valid := DefaultConfig()
	valid.Name, valid.Binary = "srv", "/x/srv"
	with := func(change func(*Config)) Config {
		c := valid
		change(&c)
		return c
	}
	errCheck := errors.New("server-specific")
	cases := map[string]struct {
		change func(*Config)
		field  string // "" for a valid config
	}{
		"ok":                  {func(*Config) {}, ""},
		"ok with config":      {func(c *Config) { c.ConfigName = "srv.yaml" }, ""},
		"no name":             {func(c *Config) { c.Name = "" }, "Name"},
		"name not a file":     {func(c *Config) { c.Name = "a/b" }, "Name"},
		"no binary":           {func(c *Config) { c.Binary = "" }, "Binary"},
		"config in a subdir":  {func(c *Config) { c.ConfigName = "d/srv.yaml" }, "ConfigName"},
		"config dot dot":      {func(c *Config) { c.ConfigName = ".." }, "ConfigName"},
		"no ports":            {func(c *Config) { c.Ports = 0 }, "Ports"},
		"relative ready path": {func(c *Config) { c.ReadyPath = "ready" }, "ReadyPath"},
		"zero timeout":        {func(c *Config) { c.StartTimeout = 0 }, "StartTimeout"},
		"negative grace":      {func(c *Config) { c.StopGrace = -time.Second }, "StopGrace"},
		"no attempts":         {func(c *Config) { c.Attempts = 0 }, "Attempts"},
	}
	for name, tc := range cases {
		cfg := with(tc.change)
		err := cfg.Validate()
		var ce *ConfigError
		if tc.field == "" {
			assert.NoError(t, err, name)
		} else if assert.ErrorAs(t, err, &ce, name) {
			assert.Equal(t, tc.field, ce.Field, name)
			assert.Equal(t, cfg.Name, ce.Name, name)
			assert.False(t, ce.Retryable(), name)
		}
	}
	checked := with(func(c *Config) { c.Check = func() error { return errCheck } })
	assert.ErrorIs(t, checked.Validate(), errCheck, "Check runs after the common checks")
	checked.Binary = ""
	assert.NotErrorIs(t, checked.Validate(), errCheck, "and only when they pass")
}

func TestDefaultsFillZeroFields(t *testing.T) {
	got := Config{Name: "srv", Binary: "/x", Ports: 2}.withDefaults()
	want := DefaultConfig()
	want.Name, want.Binary, want.Ports = "srv", "/x", 2
	assert.Equal(t, want, got)
	require.NoError(t, got.Validate())
}

func TestErrorsNameTheServer(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&ConfigError{Name: "loki", Field: "Binary", Reason: "empty"}, "invalid loki config Binary: empty"},
		{&BinaryNotFoundError{Name: "loki", Path: "/b", Hint: "run `make loki` first", Err: errors.New("gone")}, "loki binary \"/b\" not usable (run `make loki` first): gone"},
		{&StartError{Name: "loki", Phase: PhaseExited, Dir: "/d", Err: errors.New("exit 1"), LogTail: "bye\n"}, "start loki (exited, dir /d): exit 1\n--- tail of loki.log ---\nbye\n"},
		{&StopError{Name: "loki", Op: "kill", Err: errors.New("no")}, "stop loki: kill: no"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tc.err.Error())
	}
}
