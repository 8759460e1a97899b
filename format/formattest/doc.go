// Package formattest holds the test support the format packages share:
// the readable rendering of a neutral event their golden files hold, the
// golden comparison, the fuzz oracles and checks, and the judge benchmark.
// It is a normal package so that their tests can import it; only _test.go
// files do.
package formattest
