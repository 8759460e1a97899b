package audit

import "github.com/journalship/journalship/format"

// Summary tallies the reports of one run, for the last lines of the table
// and the final JSON object.
type Summary struct {
	Files            int         `json:"files"`
	Clean            int         `json:"clean"`
	Warnings         int         `json:"warnings"`
	Corrupt          int         `json:"corrupt"`
	Bytes            int64       `json:"bytes"`
	Lines            int         `json:"lines"`
	CorruptLines     int         `json:"corrupt_lines"`
	TruncatedTails   int         `json:"truncated_tails"`
	MissingSeqs      int64       `json:"missing_seqs"`
	JobDirsOverAlert []JobReport `json:"job_dirs_over_alert"`
	// Level is the worst file's level, at least Warning when a job
	// directory is over its size alert.
	Level Level `json:"level"`
}

// Add counts one report.
func (s *Summary) Add(r Report) {
	s.Files++
	s.Bytes += r.Size
	s.Lines += r.TotalLines
	s.CorruptLines += r.CorruptLines
	s.MissingSeqs = format.AddCounts(s.MissingSeqs, r.MissingSeqs)
	if r.TailTruncated {
		s.TruncatedTails++
	}
	l := r.Level()
	switch l {
	case Clean:
		s.Clean++
	case Warning:
		s.Warnings++
	default:
		s.Corrupt++
	}
	s.Level = max(s.Level, l)
}

// AddJobs records the job directories over their size alert.
func (s *Summary) AddJobs(jobs []JobReport) {
	if s.JobDirsOverAlert == nil {
		s.JobDirsOverAlert = []JobReport{}
	}
	for _, j := range jobs {
		if j.SizeAlert {
			s.JobDirsOverAlert = append(s.JobDirsOverAlert, j)
			s.Level = max(s.Level, Warning)
		}
	}
}
