package flbconf

import "strings"

// checkTailTag notes a tail input routed to a journalship output whose
// Tag holds a `*`: tail then gives each file a tag, and so chunks, of its
// own, and every append to a journal becomes a flush of its own (several
// requests to Loki, a ledger commit). Inside Fluent Bit that costs the
// plugin about six times the CPU of one tag shared by the input's files
// (tools/flbmeasure -tag). A note: it works, at a cost.
func checkTailTag(f *File, outputs []Section) []Finding {
	var found []Finding
	for _, in := range f.Sections {
		if in.Kind != "INPUT" || in.Plugin() != "tail" || !routedToAny(in, outputs) {
			continue
		}
		if tag, _ := in.Get("Tag"); strings.Contains(tag, "*") {
			found = append(found, Finding{Path: f.Path, Line: lineOf(in, "Tag"), Section: "INPUT tail", Key: "Tag", Severity: Note,
				Msg: tag + ": a tag per file, so every append to a journal is a flush of its own (several requests to Loki and a ledger commit, about six times the CPU); give the input one tag without `*`"})
		}
	}
	return found
}
