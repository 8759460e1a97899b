package audit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// detailReports covers every detail line of the table.
func detailReports(t *testing.T, cfg Config) []Report {
	t.Helper()
	mk := func(name, content string) Report {
		r, err := Reader(strings.NewReader(content), name, cfg)
		require.NoError(t, err)
		return r
	}
	crashed, _ := crash()
	many := []string{sessionStart(0)}
	for i := range 5 {
		many = append(many, errorEvent(int64(3*i+3)), strings.TrimSuffix(errorEvent(int64(3*i+4)), "}")+`,"seq":"x"}`)
	}
	many = append(many, strings.Repeat("\x00", 8)+"\n"+sessionEnd(30, "completed"))
	unread, err := File("missing/session.jsonl", cfg)
	require.Error(t, err)
	return []Report{
		mk("job/crashed.jsonl", crashed),
		mk("job/garbage.jsonl", journal(sessionStart(0), "garbage", "{", errorEvent(1), sessionEnd(2, "completed"))),
		unread,
		mk("job/many.jsonl", journal(many...)),
		mk("job/future.jsonl", journal(strings.Replace(sessionStart(0), `"buffer_schema_version":1`, `"buffer_schema_version":3`, 1),
			errorEvent(1), errorEvent(1), errorEvent(0), sessionEnd(2, "completed"))),
		mk("job/big.jsonl", journal(sessionStart(0), event("ERROR", 1, `"message":"`+strings.Repeat("z", 5000)+`"`), sessionEnd(2, "completed"))),
		mk("job/odd\nname.jsonl", journal(cleanSession(1)...)),
	}
}

func TestTableAndJSONDetails(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxDetails = 2
	cfg.FileSizeAlert = 4096
	cfg.JobDirSizeAlert = 8192
	jobs := []JobReport{{Dir: "job", Size: 9000, Files: 6, SizeAlert: true}, {Dir: "missing", Files: 1}}
	var table, js bytes.Buffer
	tw, jw := NewTableWriter(&table, cfg), NewJSONWriter(&js)
	for _, r := range detailReports(t, cfg) {
		require.NoError(t, tw.Write(r))
		require.NoError(t, jw.Write(r))
	}
	s, err := tw.Close(jobs)
	require.NoError(t, err)
	_, err = jw.Close(jobs)
	require.NoError(t, err)
	assert.Equal(t, Corrupt, s.Level)
	assert.Equal(t, Summary{Files: 7, Clean: 1, Warnings: 4, Corrupt: 2, Bytes: s.Bytes, Lines: 43, CorruptLines: 3,
		TruncatedTails: 1, MissingSeqs: 19, JobDirsOverAlert: jobs[:1], Level: Corrupt}, s)
	golden(t, "details_table.golden", table.Bytes())
	golden(t, "details_json.golden", js.Bytes())
}

func TestTableWithoutFiles(t *testing.T) {
	var b bytes.Buffer
	tw := NewTableWriter(&b, DefaultConfig())
	s, err := tw.Close(nil)
	require.NoError(t, err)
	assert.Equal(t, Clean, s.Level)
	assert.Equal(t, "no journal files found\n\n0 files, 0 lines: 0 clean, 0 with warnings, 0 corrupt\n", b.String())
}

func TestJobAlertAloneIsAWarning(t *testing.T) {
	var s Summary
	s.Add(auditString(t, journal(cleanSession(1)...), DefaultConfig()))
	assert.Equal(t, Clean, s.Level)
	s.AddJobs([]JobReport{{Dir: "j", Size: 60 << 20, Files: 9, SizeAlert: true}})
	assert.Equal(t, Warning, s.Level)
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, assert.AnError }

func TestWritersReportWriteErrors(t *testing.T) {
	r := auditString(t, journal(cleanSession(1)...), DefaultConfig())
	tw := NewTableWriter(failWriter{}, DefaultConfig())
	assert.ErrorIs(t, tw.Write(r), assert.AnError)
	_, err := tw.Close(nil)
	assert.ErrorIs(t, err, assert.AnError)
	assert.ErrorIs(t, NewJSONWriter(failWriter{}).Write(r), assert.AnError)
}

func TestSizes(t *testing.T) {
	assert.Equal(t, "999 B", mib(999))
	assert.Equal(t, "4.0 KiB", mib(4096))
	assert.Equal(t, "10.0 MiB", mib(10<<20))
	assert.Equal(t, "50.5 MiB", mib(50<<20+1<<19))
}
