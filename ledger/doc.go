// Package ledger is journalship's durable record of what has been shipped.
//
// After Loki has accepted a batch, the shipper (the Fluent Bit plugin or the
// `journalship ship` CLI) calls [Ledger.Record] with the byte ranges of the
// journal files the batch came from. The ledger merges adjacent and
// overlapping ranges per file, so a file that was shipped front to back is a
// single row however many batches it took. A retention agent and the CLI, in
// other processes, read the ledger while it is written to decide when every
// byte of a file is shipped ([FileState.Watermark], [Ledger.MarkFinished]) and
// drop the rows of deleted files ([Ledger.Forget]).
//
// The store is one SQLite database (modernc.org/sqlite, no cgo) in WAL
// journal mode with synchronous=FULL. Every write is one IMMEDIATE
// transaction, so a crash at any point leaves either all of a call's
// segments or none of them, and a reader never sees a half-applied call.
// Writers of one process are serialized in Go before they touch SQLite;
// writers of different processes are serialized by SQLite's write lock and
// wait up to [Config.BusyTimeout] for it. Readers never wait for writers.
//
// Errors are *[Error] values carrying a [Kind]; [Error.Retryable] tells a
// locked database or an I/O failure (retry later) from a bad argument or a
// corrupt database (retrying cannot help).
package ledger
