package sample

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// GoldenDiff compares the corpus with its golden copy, kept so that a
// change to a generator's output shows as a diff: every file and side
// file under dir, and the truth
// (TruthJSON) in truthFile. It returns one sentence per difference (a file
// missing, stray or different, the truth different), none when the copy
// is exact. With update it first rewrites the copy. internal/sample/kinds'
// TestGolden calls it for every generator that keeps one (Kind.Golden).
func (c *Corpus) GoldenDiff(dir, truthFile string, update bool) ([]string, error) {
	truth, err := c.TruthJSON()
	if err != nil {
		return nil, err
	}
	if update {
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := c.WriteTo(dir); err != nil {
			return nil, err
		}
		if err := os.WriteFile(truthFile, truth, 0o644); err != nil {
			return nil, err
		}
	}
	want, err := os.ReadFile(truthFile)
	if err != nil {
		return nil, err
	}
	var diffs []string
	if !bytes.Equal(want, truth) {
		diffs = append(diffs, fmt.Sprintf("%s differs from the generated truth from line %d", truthFile, firstDiffLine(want, truth)))
	}
	onDisk, err := readTree(dir)
	if err != nil {
		return nil, err
	}
	check := func(rel string, data []byte) {
		got, ok := onDisk[rel]
		switch {
		case !ok:
			diffs = append(diffs, rel+" is missing")
		case !bytes.Equal(got, data):
			diffs = append(diffs, fmt.Sprintf("%s differs from line %d", rel, firstDiffLine(got, data)))
		}
		delete(onDisk, rel)
	}
	for _, f := range c.Files {
		check(f.Rel, f.Data)
	}
	for _, s := range c.Side {
		check(s.Rel, s.Data)
	}
	for rel := range onDisk {
		diffs = append(diffs, rel+" is stray: the corpus has no such file")
	}
	return diffs, nil
}

// readTree reads every file under dir by its slash-separated relative path.
func readTree(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	return out, err
}

// firstDiffLine is the 1-based number of the first line where a and b
// differ.
func firstDiffLine(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return bytes.Count(a[:i], []byte("\n")) + 1
}
