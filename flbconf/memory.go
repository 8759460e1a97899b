package flbconf

import (
	"strings"
)

// checkTailMemory reports, for each tail input routed to a journalship
// output, settings that let Fluent Bit's memory grow without bound:
//
//   - chunks kept in memory (storage.type memory, tail's default) without
//     Mem_Buf_Limit: while Loki is down tail keeps reading and the queued
//     chunks grow until the process is killed (a warning);
//   - no Ignore_Older: tail follows every journal under Path, old ones
//     included, each with a descriptor, an inotify watch and a read buffer
//     of at least Buffer_Chunk_Size, so a node's whole history costs
//     memory and descriptors (a note; Ignore_Active_Older_Files On also
//     lets go of journals once idle that long).
func checkTailMemory(f *File, outputs []Section) []Finding {
	var found []Finding
	for _, in := range f.Sections {
		if in.Kind != "INPUT" || in.Plugin() != "tail" || !routedToAny(in, outputs) {
			continue
		}
		add := func(key string, sev Severity, msg string) {
			found = append(found, Finding{Path: f.Path, Line: lineOf(in, key), Section: "INPUT tail", Key: key, Severity: sev, Msg: msg})
		}
		st, _ := in.Get("storage.type")
		if !strings.EqualFold(strings.TrimSpace(st), "filesystem") {
			if limit, _ := in.Get("Mem_Buf_Limit"); strings.TrimSpace(limit) == "" {
				add("storage.type", Warning, "chunks are kept in memory and Mem_Buf_Limit is not set: while Loki is down tail keeps reading and memory grows without bound; set storage.type filesystem (and storage.path in [SERVICE]), or Mem_Buf_Limit")
			}
		}
		if older, _ := in.Get("Ignore_Older"); strings.TrimSpace(older) == "" {
			add("Ignore_Older", Note, "not set: tail follows every journal under Path, however old, each with a file descriptor, an inotify watch and a read buffer of at least Buffer_Chunk_Size; set Ignore_Older (with Ignore_Active_Older_Files On) and backfill older journals with journalship ship")
		}
	}
	return found
}

// lineOf is the line of the section's entry for key, or the section's own
// line when it has none.
func lineOf(s Section, key string) int {
	for _, e := range s.Entries {
		if strings.EqualFold(e.Key, key) {
			return e.Line
		}
	}
	return s.Line
}
