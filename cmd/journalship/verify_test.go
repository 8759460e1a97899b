package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalship/journalship/internal/sample"
	cortexsample "github.com/journalship/journalship/internal/sample/cortex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureDir writes the Cortex Plane generator's golden corpus into a temp
// directory and makes it the working directory.
func fixtureDir(t *testing.T) *sample.Corpus {
	t.Helper()
	c, err := cortexsample.Generate(cortexsample.FixtureConfig())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, c.WriteTo(dir))
	t.Chdir(dir)
	return c
}

func runV(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runVerify(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestVerifyTableOnTheFixtureCorpus(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(wd, "..", "..", "audit", "testdata", "fixture_table.golden"))
	require.NoError(t, err)
	fixtureDir(t)

	code, out, errs := runV(t, ".")
	assert.Equal(t, exitWarnings, code, "the fixture has a crash, gaps, a torn line: warnings only")
	assert.Equal(t, string(want), out, "the table is audit's golden rendering")
	assert.Regexp(t, `^verified 7 files, 0\.10 MB in \S+ \(\d+\.\d MB/s\)\n$`, errs)
}

func TestVerifyJSON(t *testing.T) {
	c := fixtureDir(t)
	code, out, _ := runV(t, "--json", ".")
	assert.Equal(t, exitWarnings, code)

	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	var files []map[string]any
	var summary map[string]any
	for sc.Scan() {
		var obj map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &obj), sc.Text())
		require.Nil(t, summary, "the summary is the last line")
		if s, ok := obj["summary"]; ok {
			summary = s.(map[string]any)
			continue
		}
		files = append(files, obj)
	}
	require.Len(t, files, len(c.Files))
	require.NotNil(t, summary)
	assert.Equal(t, float64(7), summary["files"])
	assert.Equal(t, float64(3), summary["clean"])
	assert.Equal(t, float64(4), summary["warnings"])
	assert.Equal(t, "warning", summary["level"])
	assert.Equal(t, "warning", files[0]["level"])
	assert.Equal(t, true, files[0]["tail_truncated"])
	assert.Equal(t, filepath.FromSlash(c.Files[0].Rel), files[0]["path"])
}

func TestVerifyExitCodes(t *testing.T) {
	c, err := cortexsample.Generate(cortexsample.FixtureConfig())
	require.NoError(t, err)
	root := t.TempDir()
	write := func(rel string, data []byte) string {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	clean := write("clean/session_a.jsonl", cleanFile(t, c).Data)
	lines := strings.SplitAfter(string(cleanFile(t, c).Data), "\n")
	damaged := lines[0] + strings.Repeat("garbage\n{\n", 3) + strings.Join(lines[1:], "")
	bad := write("bad/session_b.jsonl", []byte(damaged)) // 6 corrupt lines in 29: 21%
	emptyJournal := write("nothing/session_c.jsonl", nil)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "empty"), 0o755))

	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"all clean", []string{clean}, exitClean, "ok "},
		{"a directory of clean files", []string{filepath.Dir(clean)}, exitClean, "1 file, "},
		{"corrupt beyond the threshold", []string{bad}, exitCorrupt, "corruption: 6 of 29 lines (20.7%), over the 10% threshold: not usable for recovery"},
		{"a raised threshold makes it a warning", []string{"--threshold", "0.5", bad}, exitWarnings, "under the 50% threshold: usable for recovery"},
		{"the worst file decides", []string{clean, bad}, exitCorrupt, "1 clean, 0 with warnings, 1 corrupt"},
		{"a path that does not exist is a usage error", []string{clean, filepath.Join(root, "nope")}, exitUsage, ""},
		{"no journal files", []string{filepath.Join(root, "empty")}, exitClean, "no journal files found"},
		{"an empty journal is a warning", []string{emptyJournal}, exitWarnings, "empty: no line yet"},
		{"no path", nil, exitUsage, ""},
		{"unknown flag", []string{"--frobnicate", clean}, exitUsage, ""},
		{"threshold out of range", []string{"--threshold", "1.5", clean}, exitUsage, ""},
		{"threshold not a number", []string{"--threshold", "ten", clean}, exitUsage, ""},
		{"help", []string{"-h"}, exitClean, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runV(t, tc.args...)
			assert.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", out, errs)
			assert.Contains(t, out, tc.out)
			if tc.code == exitUsage {
				assert.Contains(t, errs, "Usage: journalship verify")
				assert.Empty(t, out)
			}
		})
	}
}

// cleanFile returns a corpus file with no fault at all.
func cleanFile(t *testing.T, c *sample.Corpus) sample.File {
	t.Helper()
	for _, f := range c.Files {
		faulty := len(f.PartialTail) > 0 || f.EndReason == ""
		for _, l := range f.Lines {
			faulty = faulty || len(l.Expect) > 0
		}
		if !faulty {
			return f
		}
	}
	t.Fatal("no clean file in the corpus")
	return sample.File{}
}

// TestVerifyFormatFlags: --format judges every file by one format (a
// Codelia run outside its layout), a bad --format or --format-roots is a
// usage error.
func TestVerifyFormatFlags(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(wd, "..", "..", "format", "codelia", "testdata", "spec-example.jsonl"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	code, out, _ := runV(t, "--json", "--format", "codelia", path)
	assert.Equal(t, exitClean, code, out)
	assert.Contains(t, out, `"format":"codelia","detected_by":"setting"`)

	code, _, errs := runV(t, "--format", "nosuch", path)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `unknown format "nosuch"`)
	code, _, errs = runV(t, "--format-roots", "codelia", path)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--format-roots")
}

// TestVerifySecrets: verify --secrets names each secret's line, byte
// offset and rule, never the secret; clean files exit 0; a bad rule file
// is a usage error naming the setting.
func TestVerifySecrets(t *testing.T) {
	ghp := "ghp_dzqb5jebzo6esrq1jbdgd75u8aegzsjdak3s"
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{\"a\":\"ok\"}\n{\"out\":\"key "+ghp+" here\"}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte("{\"b\":\"nothing to see\"}\n"), 0o644))

	code, out, _ := runCLI("verify", "--secrets", "--json", dir)
	assert.Equal(t, 1, code)
	assert.NotContains(t, out, ghp)
	dec := json.NewDecoder(strings.NewReader(out))
	var a, b secretReport
	require.NoError(t, dec.Decode(&a))
	require.NoError(t, dec.Decode(&b))
	assert.Equal(t, []secretFinding{{Line: 2, Offset: 23, Rule: "github-pat"}}, a.Findings)
	assert.Equal(t, 1, b.Lines)
	assert.Empty(t, b.Findings)

	code, out, _ = runCLI("verify", "--secrets", "--redact-allow-rules", "github-pat", dir)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "2 files, 0 secrets would be redacted")

	code, _, errs := runCLI("verify", "--secrets", "--redact-rules", filepath.Join(dir, "missing.toml"), dir)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "Rules")
}
