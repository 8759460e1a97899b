package audit

import (
	"bufio"
	"sync"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// scratch is the reusable working memory of one audit: the read buffer,
// the arena and the judges made so far (a judge keeps parser caches worth
// reusing from file to file).
type scratch struct {
	br     *bufio.Reader
	arena  *integrity.Arena
	judges map[format.Format]format.Judge
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{br: bufio.NewReaderSize(nil, readBufSize), arena: integrity.NewArena(arenaSize),
		judges: map[format.Format]format.Judge{}}
}}

// getScratch returns pooled scratch memory.
func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// judge returns the scratch's judge of f, made on first use. The map is
// bounded: it is cleared when it holds more formats than a registry has.
func (s *scratch) judge(f format.Format) format.Judge {
	j, ok := s.judges[f]
	if !ok {
		if len(s.judges) >= maxJudges {
			clear(s.judges)
		}
		j = f.NewJudge()
		s.judges[f] = j
	}
	return j
}

// maxJudges bounds the judges one scratch keeps (a few registries' worth).
const maxJudges = 32

// putScratch returns s to the pool, dropping its reference to the input.
func putScratch(s *scratch) {
	s.br.Reset(nil)
	scratchPool.Put(s)
}
