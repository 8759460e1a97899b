package output

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/journalship/journalship/internal/flblog"
)

type level int

const (
	levelError level = iota
	levelWarn
	levelInfo
	levelDebug
)

var levels = map[string]level{"error": levelError, "warn": levelWarn, "warning": levelWarn, "info": levelInfo, "debug": levelDebug}

var levelTags = [...]string{"error", " warn", " info", "debug"}

// logger writes lines the way Fluent Bit does:
// [2026/11/22 03:00:00.123456789] [ warn] [output:journalship:journalship.0] message
type logger struct {
	mu    *sync.Mutex
	w     io.Writer
	level level
	name  string
}

var stderrMu sync.Mutex

func newLogger(l level, instance int) *logger {
	return &logger{mu: &stderrMu, w: os.Stderr, level: l, name: fmt.Sprintf("output:%s:%s.%d", PluginName, PluginName, instance)}
}

func (l *logger) logf(lv level, format string, args ...any) {
	if lv > l.level {
		return
	}
	msg := fmt.Sprintf(format, args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	flblog.Write(l.w, levelTags[lv], l.name, msg)
}

func (l *logger) Errorf(format string, args ...any) { l.logf(levelError, format, args...) }
func (l *logger) Warnf(format string, args ...any)  { l.logf(levelWarn, format, args...) }
func (l *logger) Infof(format string, args ...any)  { l.logf(levelInfo, format, args...) }
func (l *logger) Debugf(format string, args ...any) { l.logf(levelDebug, format, args...) }
