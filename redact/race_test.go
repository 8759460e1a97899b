//go:build race

package redact

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// pooled scratch space is allocated again.
const raceEnabled = true
