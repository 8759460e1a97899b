package orbitmesh

import "time"

// testConfig is a valid configuration with a fixed start.
func testConfig(seed int64, sessions int, faults bool) Config {
	return Config{Seed: seed, Sessions: sessions, Start: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		Models: append([]string(nil), DefaultModels...), Faults: faults}
}
