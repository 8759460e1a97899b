package audit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeJournal(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestFileReadsAJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session_20260223T143022Z_pod.jsonl")
	content, _ := crash()
	writeJournal(t, path, content)
	mt := time.Date(2026, 2, 23, 14, 31, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(path, mt, mt))

	r, err := File(path, DefaultConfig())
	require.NoError(t, err)
	assert.Equal(t, path, r.Path)
	assert.Equal(t, int64(len(content)), r.Size)
	assert.True(t, r.ModTime.Equal(mt))
	assert.Equal(t, auditString(t, content, DefaultConfig()).CompletedAfterCheckpoint, r.CompletedAfterCheckpoint)
}

// unreadableCase checks the report and the error of a file that cannot be
// read.
func assertUnreadable(t *testing.T, r Report, err error, kind Kind, problem string) {
	t.Helper()
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.ErrorIs(t, err, kind)
	assert.Equal(t, SeverityUnreadable, r.Severity)
	assert.False(t, r.UsableForRecovery)
	assert.Equal(t, Corrupt, r.Level())
	require.NotEmpty(t, r.Problems)
	assert.Contains(t, r.Problems[0], problem)
}

func TestFileUnreadable(t *testing.T) {
	dir := t.TempDir()
	t.Run("missing", func(t *testing.T) {
		r, err := File(filepath.Join(dir, "nope.jsonl"), DefaultConfig())
		assertUnreadable(t, r, err, ErrNotFound, "no such file or directory")
		assert.False(t, err.(*Error).Retryable())
	})
	t.Run("a directory", func(t *testing.T) {
		r, err := File(dir, DefaultConfig())
		assertUnreadable(t, r, err, ErrNotRegular, "not a regular file (directory)")
	})
	t.Run("a named pipe is not opened (it would block)", func(t *testing.T) {
		fifo := filepath.Join(dir, "pipe.jsonl")
		mkfifo(t, fifo)
		r, err := File(fifo, DefaultConfig())
		assertUnreadable(t, r, err, ErrNotRegular, "not a regular file (named pipe)")
	})
	t.Run("a read that fails part way", func(t *testing.T) {
		if _, err := os.Stat("/proc/self/mem"); err != nil {
			t.Skip("no /proc/self/mem on this system")
		}
		// A regular file whose read at offset 0 fails with EIO, for root too.
		r, err := File("/proc/self/mem", DefaultConfig())
		assertUnreadable(t, r, err, ErrIO, "read failed at offset 0: input/output error")
		assert.True(t, err.(*Error).Retryable())
	})
	t.Run("permission denied", func(t *testing.T) {
		path := filepath.Join(dir, "secret.jsonl")
		writeJournal(t, path, journal(cleanSession(1)...))
		require.NoError(t, os.Chmod(path, 0))
		r, err := fileAsUnprivileged(t, path)
		assertUnreadable(t, r, err, ErrPermission, "permission denied")
		assert.Equal(t, "permission denied", r.Problems[0])
	})
}

// failingReader returns data, then an error.
type failingReader struct {
	data string
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReaderErrorPartWay(t *testing.T) {
	cause := errors.New("connection reset")
	data := journal(cleanSession(3)[:3]...)
	r, err := Reader(&failingReader{data: data, err: cause}, "remote", DefaultConfig())
	assert.ErrorIs(t, err, ErrIO)
	assert.ErrorIs(t, err, cause)
	assert.Equal(t, "audit: read remote: i/o error: connection reset", err.Error())
	assert.Equal(t, SeverityUnreadable, r.Severity)
	assert.Equal(t, 3, r.TotalLines, "the lines read so far are counted")
	assert.Equal(t, int64(len(data)), r.Size)
	assert.Equal(t, []string{"read failed at offset " + itoa(len(data)) + ": connection reset"}, r.Problems)
}

func itoa(n int) string { return strconv.Itoa(n) }

// endlessLine streams one line of n bytes of a JSON-looking body.
type endlessLine struct{ left int64 }

func (e *endlessLine) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), e.left)
	for i := range n {
		p[i] = 'x'
	}
	if n == e.left {
		p[n-1] = '\n'
	}
	e.left -= n
	return int(n), nil
}

func TestLongLineIsNeverHeldWhole(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxLineBytes = 1 << 20
	const size = 256 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Reader(io.MultiReader(strings.NewReader(journal(sessionStart(0))), &endlessLine{left: size}), "long", cfg)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "a 256 MiB line is streamed, not buffered")
	assert.Equal(t, 2, r.TotalLines)
	assert.True(t, r.TailTruncated, "the over-long last line is the invalid tail")
	assert.Equal(t, size-1, r.TailBytes)
	assert.Equal(t, []string{"line at offset " + itoa(len(journal(sessionStart(0)))) + " is longer than 1048576 bytes"}, r.Problems)
	assert.Equal(t, strings.Repeat("x", PreviewChars-1)+"…", r.TailPreview)
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	cases := map[string]func(*Config){
		"threshold below 0":   func(c *Config) { c.CorruptionThreshold = -0.1 },
		"threshold above 1":   func(c *Config) { c.CorruptionThreshold = 1.5 },
		"threshold NaN":       func(c *Config) { c.CorruptionThreshold = nan() },
		"file alert 0":        func(c *Config) { c.FileSizeAlert = 0 },
		"job alert negative":  func(c *Config) { c.JobDirSizeAlert = -1 },
		"max line too small":  func(c *Config) { c.MaxLineBytes = 10 },
		"max line too large":  func(c *Config) { c.MaxLineBytes = 2 << 30 },
		"details negative":    func(c *Config) { c.MaxDetails = -1 },
		"no schema versions":  func(c *Config) { c.Formats.Settings = format.Settings{"Known_Schema_Versions": ","} },
		"bad schema versions": func(c *Config) { c.Formats.Settings = format.Settings{"Known_Schema_Versions": "0"} },
		"unknown setting":     func(c *Config) { c.Formats.Settings = format.Settings{"Known_Schema_Version": "1"} },
	}
	for name, mod := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig()
			mod(&cfg)
			err := cfg.Validate()
			assert.ErrorIs(t, err, ErrInvalid)
			_, ferr := File("/nonexistent", cfg)
			assert.ErrorIs(t, ferr, ErrInvalid, "File checks the config first")
			_, rerr := Reader(strings.NewReader(""), "x", cfg)
			assert.ErrorIs(t, rerr, ErrInvalid)
			_, terr := Tree([]string{"."}, cfg, func(Report) {})
			assert.ErrorIs(t, terr, ErrInvalid)
		})
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

func TestMaxDetailsBoundsTheLists(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxDetails = 2
	lines := []string{sessionStart(0)}
	for i := range 30 {
		lines = append(lines, errorEvent(int64(2*i+2)), "\x00garbage") // a gap, a corrupt line with a NUL
	}
	lines = append(lines, sessionEnd(100, "completed"))
	r := auditString(t, journal(lines...), cfg)
	assert.Equal(t, 30, r.CorruptLines)
	assert.Len(t, r.CorruptDetails, 2)
	assert.Equal(t, 31, r.SeqGapCount)
	assert.Len(t, r.SeqGaps, 2)
	assert.Equal(t, []string{r.Problems[0], r.Problems[1], "28 more problems not listed"}, r.Problems)
}

func TestLevel(t *testing.T) {
	clean := Report{Severity: "", UsableForRecovery: true, SessionEnded: true, TotalLines: 1}
	assert.Equal(t, Clean, clean.Level())
	warn := []func(*Report){
		func(r *Report) { r.TailTruncated = true },
		func(r *Report) { r.CorruptLines = 1 },
		func(r *Report) { r.SchemaInvalidLines = 1 },
		func(r *Report) { r.SeqGapCount = 1 },
		func(r *Report) { r.DuplicateSeqs = 1 },
		func(r *Report) { r.Regressions = 1 },
		func(r *Report) { r.SessionEnded = false },
		func(r *Report) { r.SizeAlert = true },
		func(r *Report) { r.Problems = []string{"x"} },
	}
	for i, mod := range warn {
		r := clean
		mod(&r)
		assert.Equal(t, Warning, r.Level(), "case %d", i)
	}
	r := clean
	r.Severity = SeverityUnreadable
	assert.Equal(t, Corrupt, r.Level())
	r = clean
	r.UsableForRecovery = false
	assert.Equal(t, Corrupt, r.Level())
	assert.Equal(t, "warning", Warning.String())
	b, err := Corrupt.MarshalText()
	require.NoError(t, err)
	assert.Equal(t, "corrupt", string(b))
}

func TestPreview(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"plain":                 {`{"type":"X"}`, `{"type":"X"}`},
		"backslash":             {`a\"b`, `a\\"b`},
		"controls":              {"a\x00b\tc\x1b", `a\x00b\tc\x1b`},
		"invalid utf8":          {"a\xffb\xc3", `a\xffb\xc3`},
		"unicode":               {"é ✓ 日本", "é ✓ 日本"},
		"line separator":        {"a\u2028b", `a\u2028b`},
		"bom":                   {"\ufeffx", `\ufeffx`},
		"exactly 200":           {strings.Repeat("a", 200), strings.Repeat("a", 200)},
		"201 is cut":            {strings.Repeat("a", 201), strings.Repeat("a", 199) + "…"},
		"escapes are not split": {strings.Repeat("a", 197) + "\x00\x00", strings.Repeat("a", 197) + "…"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Preview([]byte(tc.in))
			assert.Equal(t, tc.want, got)
			assert.LessOrEqual(t, len([]rune(got)), PreviewChars)
		})
	}
}

func TestPreviewNBoundsCharactersWithTheEllipsis(t *testing.T) {
	assert.Equal(t, "ab…", PreviewN([]byte("abcdef"), 3))
	assert.Equal(t, "abc", PreviewN([]byte("abc"), 3))
	assert.Equal(t, `{"a":\x00\n\\ é\xff`, PreviewN([]byte("{\"a\":\x00\n\\ é\xff"), 200))
}

func TestErrorMessages(t *testing.T) {
	e := &Error{Op: "open", Path: "/x.jsonl", Kind: ErrPermission, Err: os.ErrPermission}
	assert.Equal(t, "audit: open /x.jsonl: permission denied: permission denied", e.Error())
	assert.False(t, e.Retryable())
	assert.ErrorIs(t, e, os.ErrPermission)
	assert.Equal(t, "audit: config: invalid argument", (&Error{Op: "config", Kind: ErrInvalid}).Error())
	assert.True(t, ErrIO.Retryable())
}

func TestHasControl(t *testing.T) {
	for n := range 20 {
		for pos := range n {
			for _, c := range []byte{0, 0x06, 0x1f, 0x20, 0x7f, 0x80, 0xff, '\t'} {
				b := []byte(strings.Repeat("a", n))
				b[pos] = c
				want := c < 0x20
				assert.Equal(t, want, hasControl(b), "n=%d pos=%d c=%#x", n, pos, c)
			}
		}
	}
	assert.False(t, hasControl([]byte(strings.Repeat("\u00e9 ~", 9))))
}
