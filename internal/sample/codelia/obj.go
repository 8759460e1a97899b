package codelia

import "github.com/journalship/journalship/internal/sample"

// obj and kv are sample's ordered JSON object and its member, under the
// short names the records are written with.
type (
	obj = sample.Obj
	kv  = sample.KV
)
