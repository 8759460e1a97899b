package chunk

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	assert.Equal(t, Config{LogKey: "log", PathKey: "file", OffsetKey: "offset"}, c)
	assert.NoError(t, c.Validate())
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantField string // "" means valid
		wantIn    string
	}{
		{"custom keys", Config{LogKey: "message", PathKey: "path", OffsetKey: "pos"}, "", ""},
		{"empty log key", Config{PathKey: "file", OffsetKey: "offset"}, "LogKey", "must not be empty"},
		{"empty path key", Config{LogKey: "log", OffsetKey: "offset"}, "PathKey", "must not be empty"},
		{"empty offset key", Config{LogKey: "log", PathKey: "file"}, "OffsetKey", "must not be empty"},
		{"path equals log", Config{LogKey: "x", PathKey: "x", OffsetKey: "offset"}, "PathKey", `must differ from LogKey (both are "x")`},
		{"offset equals path", Config{LogKey: "log", PathKey: "y", OffsetKey: "y"}, "OffsetKey", "must differ from PathKey"},
		{"offset equals log", Config{LogKey: "z", PathKey: "file", OffsetKey: "z"}, "OffsetKey", "must differ from LogKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantField == "" {
				require.NoError(t, err)
				return
			}
			var ce *ConfigError
			require.True(t, errors.As(err, &ce), "want *ConfigError, got %T", err)
			assert.Equal(t, tt.wantField, ce.Field)
			assert.Contains(t, ce.Error(), tt.wantIn)
			assert.True(t, ce.Permanent())

			d, nerr := NewDecoder(tt.cfg)
			assert.Nil(t, d)
			assert.Equal(t, err, nerr)
		})
	}
}
