package sample

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// MaxModelLen bounds a model identifier's length in bytes (every
// generator's).
const MaxModelLen = 200

// ValidateShape checks what every generator's Config holds: a count
// (named field) within [min, max], a start time in years [1970, 9000] and
// the model list. It reports the first invalid field as a *ConfigError.
func ValidateShape(field string, n, min, max int, start time.Time, models []string) error {
	if n < min || n > max {
		return &ConfigError{Field: field, Reason: fmt.Sprintf("%d is outside [%d, %d]", n, min, max)}
	}
	if start.IsZero() {
		return &ConfigError{Field: "Start", Reason: "is zero"}
	}
	if y := start.UTC().Year(); y < 1970 || y > 9000 {
		return &ConfigError{Field: "Start", Reason: fmt.Sprintf("year %d is outside [1970, 9000]", y)}
	}
	return validateModels(models)
}

func validateModels(models []string) error {
	if len(models) == 0 {
		return &ConfigError{Field: "Models", Reason: "is empty"}
	}
	seen := make(map[string]bool, len(models))
	for i, m := range models {
		switch {
		case m == "":
			return &ConfigError{Field: fmt.Sprintf("Models[%d]", i), Reason: "is empty"}
		case len(m) > MaxModelLen:
			return &ConfigError{Field: fmt.Sprintf("Models[%d]", i), Reason: fmt.Sprintf("is longer than %d bytes", MaxModelLen)}
		case !utf8.ValidString(m):
			return &ConfigError{Field: fmt.Sprintf("Models[%d]", i), Reason: "is not valid UTF-8"}
		case seen[m]:
			return &ConfigError{Field: fmt.Sprintf("Models[%d]", i), Reason: fmt.Sprintf("duplicates %q", m)}
		}
		seen[m] = true
	}
	return nil
}
