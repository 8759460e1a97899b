// Package format is the seam between journalship and the journal formats
// it reads. A format is one package (format/cortex, format/codelia, …)
// that implements Format; the registry (format/registry) lists them in one
// place. Everything else (the pipeline, verify, the finalizer, retention,
// the dashboards) works on what this package defines: the format-neutral
// Event a line is judged into, the Path a file's name tells, the sequence
// rule and the per-file State. Nothing outside a format's package names its
// event types or fields.
//
// How to add a format is in docs/adding-a-format.md.
package format
