package claudecode

import (
	"bufio"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// A subagent transcript replays responses of its session's main transcript
// (a /btw side question copies the parent's messages into its own file):
// they were counted there and count nothing here. Its first lines may
// also name main-transcript lines as their parents. So a subagent file's
// State reads the main transcript once, when it starts
// (docs/formats/claude-code.md, Tokens and cost).

// sidePaths are what Load reads of a main transcript's lines.
var sidePaths = integrity.MustPaths("type", "uuid", "message.id")

const (
	sType = iota
	sUUID
	sMessageID
)

// Load implements format.SideFiles: for a subagent transcript, the
// message.id of its session's main transcript's assistant lines and the
// uuids of its lines. The main transcript is read defensively: absent,
// unreadable or not a regular file, it is unknown; at most
// Config.MaxMainScan bytes are read, whole lines only (a half-written last
// line is left out); lines that are not JSON objects are skipped; each set
// stays within Config.MaxTrackedIDs. What a read learned is kept
// (sidecache.go): another subagent of the session started while the main
// transcript is unchanged learns the same without reading it.
func (s *State) Load(journalPath string) {
	main, ok := MainTranscript(journalPath)
	if !ok || s.maxScan <= 0 {
		return
	}
	f, err := os.Open(main)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	key, cacheable := s.factsKey(main, fi)
	if cacheable {
		if facts, ok := mainFacts.get(key); ok {
			for _, fact := range facts {
				s.learn(fact)
			}
			return
		}
	}
	facts, whole := s.scanMain(f)
	if cacheable && whole {
		mainFacts.put(key, facts)
	}
}

// scanMain learns the facts of the main transcript f (see Load), and
// returns them in order; whole is false when a read failed before the
// end or the bound, or there were more than maxKeptFacts (then none are
// returned: the State's sets are bounded, and the read's memory with
// them).
func (s *State) scanMain(f *os.File) (facts []sideFact, whole bool) {
	r := sideReaders.Get().(*bufio.Reader)
	defer func() { r.Reset(nil); sideReaders.Put(r) }()
	r.Reset(io.LimitReader(f, s.maxScan))
	var c integrity.Capture
	var long []byte // a line longer than the reader's buffer
	skip := false   // the current line outgrew maxSideLine: skipped
	record := true  // the facts are within maxKeptFacts
	for {
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !skip {
				long = append(long, chunk...)
				if skip = len(long) > maxSideLine; skip {
					long = long[:0]
				}
			}
			continue
		}
		if err != nil {
			// The end (a last line without its newline is left out:
			// not a whole line yet) or a failed read, which is not kept.
			return facts, record && errors.Is(err, io.EOF)
		}
		skip = skip || len(long)+len(chunk)-1 > maxSideLine
		line := chunk
		if len(long) > 0 && !skip {
			long = append(long, chunk...)
			line = long
		}
		if !skip {
			facts = s.learnMain(&c, line[:len(line)-1], facts, record)
			if record && len(facts) > maxKeptFacts {
				facts, record = nil, false
			}
		}
		long, skip = long[:0], false
	}
}

// sideReaders keep Load's 64 KB read buffers: a subagent file is loaded
// once, but a node starts many, and a new buffer for each made a third of
// the plugin's garbage collections on the Claude Code corpus inside
// Fluent Bit (tools/flbmeasure).
var sideReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// maxSideLine bounds the main transcript line Load buffers: a longer one
// (a pasted image) is skipped, so one hostile line cannot take the memory
// of its whole size.
const maxSideLine = 16 << 20

// learnMain learns a main transcript line's uuid and, for an assistant
// line, its response, and when record is set appends them to facts.
func (s *State) learnMain(c *integrity.Capture, line []byte, facts []sideFact, record bool) []sideFact {
	if c.Scan(line, sidePaths) != "" {
		return facts
	}
	var learnt [2]sideFact
	n := 0
	if u, ok := format.NonEmptyStr(c, sUUID); ok {
		learnt[n], n = s.learn(sideFact{h: hash(u)}), n+1
	}
	if t, _ := c.Str(sType); string(t) == "assistant" {
		if id, ok := format.NonEmptyStr(c, sMessageID); ok {
			learnt[n], n = s.learn(sideFact{h: hash(id), response: true}), n+1
		}
	}
	if record {
		facts = append(facts, learnt[:n]...)
	}
	return facts
}

// learn remembers one fact of the main transcript, and returns it.
func (s *State) learn(f sideFact) sideFact {
	if !f.response {
		s.addUUID(f.h, uuidMain)
		return f
	}
	if _, ok := s.mainResponses[f.h]; ok {
		return f
	}
	if len(s.mainResponses) >= s.max {
		return f // past the bound: a replay of it is counted again
	}
	if s.mainResponses == nil {
		s.mainResponses = make(map[uint64]struct{})
	}
	s.mainResponses[f.h] = struct{}{}
	return f
}
