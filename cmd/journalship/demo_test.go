package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/pricing"
)

// TestDemo runs what `make run` runs against a real Loki (failing, not
// skipping, without bin/loki when CI=true) and checks what landed and the
// report: every format's lines are in Loki under its own format label,
// each file detected by its root; each crashed file is marked; tokens by
// format and model, and their dollars, match the journals; every format has its event types,
// annotations and the audit trail of a crashed file in the report; and a
// second ship is a no-op.
func TestDemo(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	var out bytes.Buffer
	d := &demo{out: &out, dir: t.TempDir(), lokiURL: loki.URL}
	require.NoError(t, d.run(context.Background(), 3, 5, false), out.String())
	s := out.String()
	require.Len(t, d.samples, len(sampleFormats), "a sample of every format")

	entries, err := d.query.QueryRange(context.Background(), selector, d.start.Add(-time.Hour), time.Now().Add(time.Minute), 5000, "forward")
	require.NoError(t, err)
	lines, tails, summaries, side := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	for _, e := range entries {
		f := e.Stream["format"]
		require.NotNil(t, lookupSampleFormat(f), "format %q of %s", f, e.Metadata["file"])
		root := filepath.Join(d.dir, lookupSampleFormat(f).DemoRoot)
		assert.True(t, strings.HasPrefix(e.Metadata["file"], root+string(filepath.Separator)), "%s: shipped as %s, from %s's root", e.Metadata["file"], f, f)
		switch entryKind(e) {
		case "truncated_tail":
			tails[f]++
		case "file_summary":
			summaries[f]++
		case kindSide:
			side[f]++
		default:
			lines[f]++
		}
	}
	allLines, allTails, allSummaries, allSide, models := 0, 0, 0, 0, 0
	for _, smp := range d.samples {
		name, wantLines, wantTails := smp.format.Format, 0, 0
		for _, f := range smp.corpus.Files {
			wantLines += len(f.Lines)
			if len(f.PartialTail) > 0 {
				wantTails++
			}
		}
		assert.Equal(t, wantLines, lines[name], "%s: every complete line landed once", name)
		assert.Equal(t, wantTails, tails[name], "%s: every torn last line is marked", name)
		assert.Positive(t, wantTails, "%s: the sample has a crash", name)
		assert.Positive(t, summaries[name], "%s: finished files are summarized", name)
		allLines, allTails, allSummaries, allSide = allLines+wantLines, allTails+wantTails, allSummaries+summaries[name], allSide+side[name]
		models += len(wantUsage(smp.corpus, pricing.Default()))
		if len(wantUsage(smp.corpus, pricing.Default())) == 0 {
			assert.Contains(t, s, fmt.Sprintf("   %-*s (no LLM usage in its records)", nameWidth, name))
		}
		assert.Regexp(t, `\n   `+name+` +\S+ +\d+ +\S+ +\d+ +\S+ +\d+\n`, s, "%s: its event types", name)
		assert.Contains(t, s, "audit trail of a crashed "+name+" "+smp.format.File+"   ")
	}
	assert.Contains(t, s, "shipping again is a no-op: 0 shipped")
	assert.Positive(t, side["go-session"], "Go pkg/session's checkpoints and run summaries")
	assert.Contains(t, s, "   "+itoa(allLines)+" journal lines + "+itoa(allSide)+" records from beside the journals + "+itoa(allTails)+
		" truncated-tail markers + "+itoa(allSummaries)+" file summaries   "+selector)
	marker := regexp.MustCompile(`\n   \d\d:\d\d:\d\d\.\d{3} +truncated_tail +truncated_tail  \d+ bytes cut at offset \d+: \{"`)
	assert.Len(t, marker.FindAllString(s, -1), len(d.samples), "each crashed file's trail shows the cut-off marker")
	assert.NotContains(t, s, "MISMATCH")
	assert.Equal(t, models, strings.Count(s, "   ok\n"), "each format's models, each checked")
	assert.GreaterOrEqual(t, models, 8, "Cortex Plane's and Codelia's three models each, and Claude Code's")
	for _, kind := range []string{"seq_gap", "request_seq_gap", "status_disagrees", "response_replayed"} {
		assert.Contains(t, s, " "+kind+" ", "annotations of every format")
	}
}

// TestDemoTimelineElides: an audit trail shows its first three and last
// four entries and every annotated one, the others counted.
func TestDemoTimelineElides(t *testing.T) {
	var out bytes.Buffer
	d := &demo{out: &out}
	f := lookupSampleFormat("orbitmesh")
	c, err := f.Generate(1, 1, simStart, false)
	require.NoError(t, err)
	path := filepath.Join("/r", c.Files[0].Rel)
	var all []lokiquery.Entry
	for i := range 12 {
		e := lokiquery.Entry{Time: simStart.Add(time.Duration(i) * time.Second), Stream: map[string]string{"event_type": "e" + itoa(i)},
			Metadata: map[string]string{"file": path, "seq": itoa(i)}}
		if i == 5 {
			e.Metadata["annotations"] = "seq_gap"
		}
		all = append(all, e, lokiquery.Entry{Metadata: map[string]string{"file": "/elsewhere"}})
	}
	d.timeline(demoSample{format: f, root: "/r", corpus: c}, all)
	got := out.String()
	assert.Contains(t, got, "audit trail of one orbitmesh session   ")
	for _, shown := range []string{"e0", "e1", "e2", "e5", "e8", "e9", "e10", "e11"} {
		assert.Regexp(t, ` `+shown+`( |\n)`, got)
	}
	assert.Contains(t, got, "…            2 lines\n")
	assert.Contains(t, got, "…            2 lines\n   09:00:08.000")
	assert.NotRegexp(t, ` e[3467]( |\n)`, got)
	assert.Equal(t, 11, strings.Count(got, "\n   "), "a title, eight entries and two elisions")
}

func TestDemoMarkerText(t *testing.T) {
	assert.Equal(t, `71 bytes cut at offset 6463: {"type":"x","inv`,
		markerText(`{"journalship":"truncated_tail","file":"/d/s.jsonl","offset":6463,"bytes":71,"preview":"{\"type\":\"x\",\"inv","last_seq":23}`))
	assert.Equal(t, "not json", markerText("not json"))
	assert.Len(t, []rune(markerText(strings.Repeat("x", 500))), 120)
}

func TestDemoFlags(t *testing.T) {
	for _, bad := range [][]string{{"--jobs", "0"}, {"extra"}, {"--bogus"}} {
		var ue *usageError
		assert.ErrorAs(t, runDemo(bad, io.Discard), &ue, "%q", bad)
	}
	var help bytes.Buffer
	assert.Zero(t, exitStatus(runDemo([]string{"--help"}, &help), io.Discard))
	assert.Contains(t, help.String(), "DIR/codelia")
	assert.Contains(t, help.String(), "DIR/claude/projects")

	// A second demo into the same --dir would count the first's data again.
	used := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(used, "ledger.db"), nil, 0o644))
	var ue *usageError
	err := runDemo([]string{"--dir", used}, io.Discard)
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "not empty")
}
