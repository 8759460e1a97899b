package main

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/kinds"
)

// sampleFormat is one journal format that `simulate` and `demo` write:
// its generator's Kind (internal/sample/kinds lists them).
type sampleFormat = sample.Kind

// sampleFormats are the formats written, in the order they are shown.
var sampleFormats = func() []*sampleFormat {
	var out []*sampleFormat
	for _, k := range kinds.All() {
		out = append(out, &k)
	}
	return out
}()

// lookupSampleFormat returns the sample format named name, or nil.
func lookupSampleFormat(name string) *sampleFormat {
	for _, f := range sampleFormats {
		if f.Format == name {
			return f
		}
	}
	return nil
}

// sampleFormatNames lists the names of sampleFormats.
func sampleFormatNames() []string {
	names := make([]string, len(sampleFormats))
	for i, f := range sampleFormats {
		names[i] = f.Format
	}
	return names
}

// countOf is "4 jobs", "1 run".
func countOf(f *sampleFormat, n int) string { return plural(n, f.Unit, f.Units) }

// mixSeed is the seed of a round of a format whose file names come from
// the seed alone: the simulator's seed and round, and the round's start.
func mixSeed(seed int64, round int, start time.Time) int64 {
	return seed + int64(round) + start.UnixMilli()*0x9e3779b1
}
