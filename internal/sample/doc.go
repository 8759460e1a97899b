// Package sample is what the journal generators share, and what their
// consumers (end-to-end tests, benchmarks, journalship demo and simulate)
// read. Each generator is a subpackage that writes one format's journals
// (cortex, codelia, orbitmesh, claudecode, codex, gosession) and declares
// its [Kind]; package internal/sample/kinds lists them.
//
// A generated [Corpus] holds the journal files ([File]) and the files a
// runtime keeps beside them ([SideFile]), with their ground truth line by
// line ([Line], whose Expect names the annotations the product must attach,
// the Ann constants). The truth is computed by construction, from what the
// generator decided to write, never by parsing with the product's code.
// [Corpus.WriteTo] writes a corpus under a root, [Corpus.Chunks] turns it
// into Fluent Bit chunks, [Corpus.TruthJSON] and [Corpus.GoldenDiff] keep a
// generator's golden copy under its testdata/.
//
// For the generators themselves: a seeded random stream ([Rand]) that gives
// the same bytes on every platform, JSON objects with a fixed key order
// ([Obj], [Marshal]), the checks every generator's Config shares
// ([ValidateShape], [ConfigError]), and the stamp helpers a live writer
// uses to move a line's times to the time of writing ([StampOwnTime],
// [ShiftTimes]).
package sample
