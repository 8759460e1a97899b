package retention

import (
	"fmt"
	"io"
	"sync"

	"github.com/journalship/journalship/internal/flblog"
)

// logger writes lines the way Fluent Bit (and the plugin) do:
// [2026/11/22 03:00:00.123456789] [ info] [retention] message
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) logf(tag, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	flblog.Write(l.w, tag, "retention", msg)
}

func (l *logger) Errorf(format string, args ...any) { l.logf("error", format, args...) }
func (l *logger) Warnf(format string, args ...any)  { l.logf(" warn", format, args...) }
func (l *logger) Infof(format string, args ...any)  { l.logf(" info", format, args...) }
