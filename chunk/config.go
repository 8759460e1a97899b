package chunk

// Config names the record keys the decoder extracts.
type Config struct {
	// LogKey is the key holding the log line (tail's Key, default "log").
	LogKey string
	// PathKey is the key holding the source file (tail's Path_Key).
	PathKey string
	// OffsetKey is the key holding the line's byte offset (tail's Offset_Key).
	OffsetKey string
}

// DefaultConfig returns the keys "log", "file" and "offset".
func DefaultConfig() Config {
	return Config{LogKey: "log", PathKey: "file", OffsetKey: "offset"}
}

// Validate reports a *ConfigError when a key is empty or two keys are equal.
func (c Config) Validate() error {
	keys := [...]struct{ field, value string }{
		{"LogKey", c.LogKey},
		{"PathKey", c.PathKey},
		{"OffsetKey", c.OffsetKey},
	}
	for i, k := range keys {
		if k.value == "" {
			return &ConfigError{Field: k.field, Reason: "must not be empty"}
		}
		for _, prev := range keys[:i] {
			if prev.value == k.value {
				return &ConfigError{Field: k.field, Reason: "must differ from " + prev.field + " (both are " + quote(k.value) + ")"}
			}
		}
	}
	return nil
}
