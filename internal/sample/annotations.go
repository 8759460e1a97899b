package sample

// Annotations carried in Line.Expect (seq gaps are "seq_gap:A-B").
const (
	AnnCorrupt       = "corrupt"
	AnnUnknownType   = "unknown_type"
	AnnSchemaInvalid = "schema_invalid"
	AnnSeqRegression = "seq_regression"
	AnnSeqGapPrefix  = "seq_gap:"
	// AnnCountedElsewhere: a response another journal of the node counts
	// (see Line.Bill).
	AnnCountedElsewhere = "counted_elsewhere"
)
