package audit

import (
	"bufio"
	"slices"
	"sync"

	"github.com/journalship/journalship/integrity"
	"github.com/valyala/fastjson"
)

// scratch is the reusable working memory of one audit: the read buffer,
// the validator with its parser caches, the arena and a parser for the
// fields the validator does not extract.
type scratch struct {
	br       *bufio.Reader
	v        *integrity.Validator
	versions []int64 // the validator's KnownSchemaVersions
	arena    *integrity.Arena
	fj       fastjson.Parser
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{br: bufio.NewReaderSize(nil, readBufSize), arena: integrity.NewArena(arenaSize)}
}}

// getScratch returns scratch memory whose validator follows cfg.
func getScratch(cfg integrity.Config) (*scratch, error) {
	s := scratchPool.Get().(*scratch)
	if s.v == nil || !slices.Equal(s.versions, cfg.KnownSchemaVersions) {
		v, err := integrity.New(cfg)
		if err != nil {
			scratchPool.Put(s)
			return nil, &Error{Op: "config", Kind: ErrInvalid, Err: err}
		}
		s.v, s.versions = v, slices.Clone(cfg.KnownSchemaVersions)
	}
	return s, nil
}

// putScratch returns s to the pool, dropping its reference to the input.
func putScratch(s *scratch) {
	s.br.Reset(nil)
	scratchPool.Put(s)
}
