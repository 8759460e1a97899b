package ledger

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	require.NoError(t, c.Validate())
	require.Equal(t, DefaultPath, c.Path)
	require.Equal(t, 10*time.Second, c.BusyTimeout)
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"default", DefaultConfig(), true},
		{"zero timeout means default", Config{Path: "x.db"}, true},
		{"empty path", Config{BusyTimeout: time.Second}, false},
		{"nul in path", Config{Path: "a\x00b"}, false},
		{"negative timeout", Config{Path: "x.db", BusyTimeout: -time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.ok {
				require.NoError(t, err)
				return
			}
			requireKind(t, err, ErrInvalid)
		})
	}
}

func TestConfigBusyMillis(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want int64
	}{
		{0, 10000},
		{time.Nanosecond, 1},
		{1500 * time.Microsecond, 2},
		{3 * time.Second, 3000},
	}
	for _, tt := range tests {
		c := Config{Path: "x", BusyTimeout: tt.in}.withDefaults()
		require.Equal(t, tt.want, c.busyMillis(), "timeout %v", tt.in)
	}
}
