package audit

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/journalship/journalship/format/registry"
)

// JobReport sums the audited files of one directory (a job directory in
// the seed's layout, <root>/<job_id>/session_*.jsonl).
type JobReport struct {
	Dir       string `json:"dir"`
	Size      int64  `json:"size"`
	Files     int    `json:"files"`
	SizeAlert bool   `json:"size_alert"` // Size > JobDirSizeAlert
}

// Tree audits every path: a file is audited whatever its name; a
// directory is walked recursively for *.jsonl files, in lexical order,
// without following symlinks (a symlink named on the command line is
// followed, as find -H does). fn receives each report as it is made. A
// file or directory that cannot be read yields a Report with severity
// "unreadable" and the cause in Problems; it does not stop the walk. Tree
// returns the job directories (sorted) and an *Error only for an invalid
// cfg or an empty paths.
func Tree(paths []string, cfg Config, fn func(Report)) ([]JobReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, &Error{Op: "tree", Kind: ErrInvalid, Err: errNoPaths}
	}
	reg, err := registry.New(cfg.Formats)
	if err != nil {
		return nil, &Error{Op: "config", Kind: ErrInvalid, Err: err}
	}
	t := &tree{cfg: cfg, reg: reg, fn: fn, jobs: map[string]*JobReport{}}
	for _, p := range paths {
		t.root(p)
	}
	return t.jobReports(), nil
}

var errNoPaths = errString("no paths given")

type errString string

func (e errString) Error() string { return string(e) }

type tree struct {
	cfg  Config
	reg  *registry.Registry
	fn   func(Report)
	jobs map[string]*JobReport
}

func (t *tree) root(p string) {
	st, err := os.Stat(p)
	switch {
	case err != nil:
		t.unreadable(p, err)
	case st.IsDir():
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			p += string(filepath.Separator) // a named symlink to a directory is followed
		}
		t.walk(p)
	default:
		t.file(p)
	}
}

func (t *tree) walk(root string) {
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			t.unreadable(path, err)
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return nil // not followed
		case d.IsDir():
			return nil
		case strings.HasSuffix(d.Name(), ".jsonl"):
			t.file(path)
		}
		return nil
	})
}

func (t *tree) file(path string) {
	r, _ := file(path, t.cfg, t.reg.Detect) // an unreadable file is in the report
	j := t.jobs[filepath.Dir(path)]
	if j == nil {
		j = &JobReport{Dir: filepath.Dir(path)}
		t.jobs[j.Dir] = j
	}
	j.Files++
	j.Size += r.Size
	t.fn(r)
}

func (t *tree) unreadable(path string, err error) {
	r, _ := unreadable(path, nil, t.cfg, nil, cause(err))
	t.fn(r)
}

func (t *tree) jobReports() []JobReport {
	out := make([]JobReport, 0, len(t.jobs))
	for _, j := range t.jobs {
		j.SizeAlert = j.Size > t.cfg.JobDirSizeAlert
		out = append(out, *j)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Dir < out[k].Dir })
	return out
}
