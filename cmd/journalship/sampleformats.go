package main

import (
	"fmt"
	"strings"
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

// simulatedHelp lists each format's name and what simulate writes of it
// (Kind.Simulated), for simulate's help.
func simulatedHelp() string {
	var b strings.Builder
	for _, f := range sampleFormats {
		name := f.Format
		if len(name) > 10 {
			fmt.Fprintf(&b, "  %s\n", name)
			name = ""
		}
		for _, l := range strings.Split(f.Simulated, "\n") {
			fmt.Fprintf(&b, "  %-10s %s\n", name, l)
			name = ""
		}
	}
	return b.String()
}

// rootsHelp is each format's name in layout ("%s=DIR"), joined by sep.
func rootsHelp(layout, sep string) string {
	parts := make([]string, len(sampleFormats))
	for i, f := range sampleFormats {
		parts[i] = fmt.Sprintf(layout, f.Format)
	}
	return strings.Join(parts, sep)
}

// unitsHelp is what one count of each format is: "jobs (Cortex Plane),
// runs (Codelia), sessions (OrbitMesh), ...".
func unitsHelp() string {
	parts := make([]string, len(sampleFormats))
	for i, f := range sampleFormats {
		parts[i] = f.Units + " (" + f.Title + ")"
	}
	return strings.Join(parts, ", ")
}

// demoRootsHelp is each format's root under the demo's directory.
func demoRootsHelp() string {
	parts := make([]string, len(sampleFormats))
	for i, f := range sampleFormats {
		parts[i] = "DIR/" + f.DemoRoot
	}
	return strings.Join(parts, ", ")
}

// demoUnitsHelp is "Cortex Plane jobs in DIR/sessions, ...".
func demoUnitsHelp() string {
	parts := make([]string, len(sampleFormats))
	for i, f := range sampleFormats {
		parts[i] = f.Title + " " + f.Units + " in DIR/" + f.DemoRoot
	}
	return strings.Join(parts, ", ")
}

// seededByStart names the formats whose file names come from the seed
// alone ("Codelia, OrbitMesh and Claude Code").
func seededByStart() string {
	var names []string
	for _, f := range sampleFormats {
		if f.SeedWithStart {
			names = append(names, f.Title)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// wrap breaks text into lines of at most width columns, at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(text) {
		switch {
		case col == 0:
		case col+1+len(w) > width:
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}
