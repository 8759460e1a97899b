package flbconf

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agext/levenshtein"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/output"
)

// Severity of a Finding: an error makes `journalship check-config` fail.
type Severity string

// Severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Note    Severity = "note"
)

// Finding is one problem of a configuration, at a line.
type Finding struct {
	Path     string
	Line     int
	Section  string // "OUTPUT journalship", "INPUT tail"
	Key      string
	Severity Severity
	Msg      string
}

func (f Finding) String() string {
	key := ""
	if f.Key != "" {
		key = " " + f.Key + ":"
	}
	return fmt.Sprintf("%s:%d: %s: [%s]%s %s", f.Path, f.Line, f.Severity, f.Section, key, f.Msg)
}

// genericOutputKeys are the keys Fluent Bit 5.1.1 itself takes in any
// [OUTPUT] (src/flb_output.c), lower case.
var genericOutputKeys = []string{"name", "match", "match_regex", "alias", "log_level", "log_suppress_interval",
	"retry_limit", "workers", "storage.total_limit_size", "tls", "tls.verify", "net.connect_timeout"}

// Check reports, for every output section of the journalship plugin:
// keys neither Fluent Bit nor the plugin knows (with the closest setting),
// keys set twice, values the plugin refuses (the same parser as at start,
// so conflicting settings too), a Retry_Limit that drops chunks, and
// tail inputs routed to it whose records lack the keys the plugin reads
// (Path_Key, Offset_Key, Key / Log_Key);
// tail inputs routed to it that share their offset database (DB) with
// another tail input; tail inputs routed to it with a tag per file
// (checkTailTag); and tail inputs routed to it whose memory is not
// bounded (checkTailMemory).
func Check(f *File) []Finding {
	var out []Finding
	var outputs []Section
	for _, s := range f.Sections {
		if s.Kind == "OUTPUT" && s.Plugin() == output.PluginName {
			out = append(out, checkOutput(f, s)...)
			outputs = append(outputs, s)
		}
	}
	out = append(out, checkSharedDB(f, outputs)...)
	out = append(out, checkTailTag(f, outputs)...)
	return append(out, checkTailMemory(f, outputs)...)
}

// checkSharedDB reports a tail input whose DB is another tail input's when
// either is routed to a journalship output. At start each tail input
// deletes from its database the offsets of every file it does not tail
// itself (Fluent Bit's stale-file cleanup), so with a shared database the
// other input forgets how far it read and, with Read_from_Head, reads
// every journal again from its first line.
func checkSharedDB(f *File, outputs []Section) []Finding {
	var found []Finding
	first := map[string]Section{} // cleaned DB path -> the first tail input using it
	for _, in := range f.Sections {
		if in.Kind != "INPUT" || in.Plugin() != "tail" {
			continue
		}
		db, _ := in.Get("DB")
		if db = strings.TrimSpace(db); db == "" {
			continue
		}
		key := filepath.Clean(db)
		prev, shared := first[key]
		if !shared {
			first[key] = in
			continue
		}
		if !routedToAny(in, outputs) && !routedToAny(prev, outputs) {
			continue
		}
		found = append(found, Finding{Path: f.Path, Line: dbLine(in), Section: "INPUT tail", Key: "DB", Severity: Error,
			Msg: fmt.Sprintf("%s is also the DB of the tail input on line %d: at start each tail input deletes the offsets of the files it does not tail from its DB, so the other one reads its files again from the start; give each tail input its own DB", db, prev.Line)})
	}
	return found
}

func routedToAny(in Section, outputs []Section) bool {
	return slices.ContainsFunc(outputs, func(out Section) bool { return routes(in, out) })
}

// dbLine is the line of the section's DB entry (the section's own line
// when it has none).
func dbLine(s Section) int {
	for _, e := range s.Entries {
		if strings.EqualFold(e.Key, "DB") {
			return e.Line
		}
	}
	return s.Line
}

func checkOutput(f *File, s Section) []Finding {
	var out []Finding
	add := func(line int, key string, sev Severity, format string, a ...any) {
		out = append(out, Finding{Path: f.Path, Line: line, Section: "OUTPUT " + output.PluginName, Key: key, Severity: sev, Msg: fmt.Sprintf(format, a...)})
	}
	seen := map[string]int{}
	for _, e := range s.Entries {
		k := strings.ToLower(e.Key)
		if first, twice := seen[k]; twice {
			add(e.Line, e.Key, Error, "set again (first on line %d): Fluent Bit hands the plugin the first value only", first)
		} else {
			seen[k] = e.Line
		}
		switch {
		case k == "log_level":
			add(e.Line, e.Key, Note, "Fluent Bit takes this key for the output itself; the plugin never sees it and logs at info")
		case slices.Contains(genericOutputKeys, k) || isSetting(k):
		default:
			add(e.Line, e.Key, Error, "unknown key: neither Fluent Bit nor journalship takes it%s", suggest(k))
		}
	}
	get := func(key string) string { v, _ := s.Get(key); return v }
	if _, err := output.CheckSettings(get); err != nil {
		add(s.Line, "", Error, "%v", err)
	}
	if limit, set := s.Get("Retry_Limit"); !set || !unlimited(limit) {
		shown := "not set (Fluent Bit retries a chunk once)"
		if set {
			shown = strings.TrimSpace(limit)
		}
		add(lineOf(s, "Retry_Limit"), "Retry_Limit", Warning, "%s: a chunk whose retries run out while Loki is down is dropped, and its lines wait for the retention agent's next sweep (or journalship finalize) to be shipped; set Retry_Limit no_limits", shown)
	}
	out = append(out, checkRecordKeys(f, s, get)...)
	return out
}

// unlimited tells whether a Retry_Limit never gives up on a chunk (Fluent
// Bit 5.1.1's flb_output.c: no_limits, false or off).
func unlimited(limit string) bool {
	switch strings.ToLower(strings.TrimSpace(limit)) {
	case "no_limits", "false", "off":
		return true
	}
	return false
}

func isSetting(lower string) bool {
	return slices.ContainsFunc(output.Settings, func(s output.Setting) bool { return strings.ToLower(s.Name) == lower })
}

// suggest names the setting closest to a misspelt key, if one is close.
func suggest(lower string) string {
	best, bestD := "", 0
	for _, s := range output.Settings {
		d := levenshtein.Distance(lower, strings.ToLower(s.Name), nil)
		if best == "" || d < bestD {
			best, bestD = s.Name, d
		}
	}
	if bestD <= max(2, len(lower)/3) {
		return "; did you mean " + best + "?"
	}
	return ""
}

// checkRecordKeys compares each tail input routed to the output with the
// record keys the plugin reads: without them every line is shipped without
// its file (no continuity, no ledger, no retention) or dead-lettered
// without its text.
func checkRecordKeys(f *File, out Section, get func(string) string) []Finding {
	var found []Finding
	keys := chunk.DefaultConfig() // the plugin's defaults for its record keys
	pairs := []struct{ tailKey, tailDefault, setting, pluginDefault, what string }{
		{"Path_Key", "", "Path_Key", keys.PathKey, "the file path"},
		{"Offset_Key", "", "Offset_Key", keys.OffsetKey, "the line's byte offset"},
		{"Key", "log", "Log_Key", keys.LogKey, "the line"}, // tail's Key defaults to log
	}
	for _, in := range f.Sections {
		if in.Kind != "INPUT" || in.Plugin() != "tail" || !routes(in, out) {
			continue
		}
		for _, p := range pairs {
			has, _ := in.Get(p.tailKey)
			if strings.TrimSpace(has) == "" {
				has = p.tailDefault
			}
			plugin := strings.TrimSpace(get(p.setting))
			if plugin == "" {
				plugin = p.pluginDefault
			}
			if has != plugin {
				shown := has
				if shown == "" {
					shown = "none"
				}
				found = append(found, Finding{Path: f.Path, Line: in.Line, Section: "INPUT tail", Key: p.tailKey, Severity: Error,
					Msg: fmt.Sprintf("is %s, but the journalship output (line %d) reads %s from the record key %q (%s): set %s %s here", shown, out.Line, p.what, plugin, p.setting, p.tailKey, plugin)})
			}
		}
	}
	return found
}

// routes tells whether the input's records reach the output: its Tag (a
// `*` in it stands for the file path tail puts there) matched by the
// output's Match wildcard or Match_Regex.
func routes(in, out Section) bool {
	tag, _ := in.Get("Tag")
	if tag == "" {
		tag, _ = in.Get("Name")
	}
	sample := strings.ReplaceAll(tag, "*", "data.sessions.job.session.jsonl")
	if re, ok := out.Get("Match_Regex"); ok {
		r, err := regexp.Compile(re)
		return err == nil && r.MatchString(sample)
	}
	m, _ := out.Get("Match")
	return wildcard(m, sample)
}

// wildcard matches s against a Fluent Bit Match pattern, where `*` stands
// for any run of characters.
func wildcard(pattern, s string) bool {
	if pattern == "" {
		return false
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return s == ""
}
