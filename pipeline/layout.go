package pipeline

import (
	"fmt"
	"slices"
	"strings"
)

// Key is a value the pipeline can attach to an entry, as a stream label or
// as structured metadata.
type Key string

// The keys. Those marked high-cardinality may not be stream labels.
const (
	KeyEventType     Key = "event_type"     // bounded: known types, "other", "corrupt"
	KeyNode          Key = "node"           // bounded by the cluster's nodes
	KeyIntegrity     Key = "integrity"      // bounded: valid, schema_invalid, corrupt
	KeyJobID         Key = "job_id"         // high-cardinality
	KeySessionID     Key = "session_id"     // high-cardinality
	KeySeq           Key = "seq"            // high-cardinality
	KeyPod           Key = "pod"            // high-cardinality
	KeyAgentID       Key = "agent_id"       // high-cardinality
	KeyModel         Key = "model"          // unbounded in principle
	KeyStepIndex     Key = "step_index"     // high-cardinality
	KeyInvocationID  Key = "invocation_id"  // high-cardinality
	KeyToolName      Key = "tool_name"      // unbounded in principle
	KeyFile          Key = "file"           // high-cardinality
	KeyOffset        Key = "byte_offset"    // high-cardinality; not "offset", a LogQL keyword
	KeySessionStart  Key = "session_start"  // high-cardinality
	KeySchemaVersion Key = "schema_version" // bounded but rarely useful
	KeyAnnotations   Key = "annotations"    // comma-separated annotation kinds
	KeyFormat        Key = "format"         // bounded: the registered formats and "unknown"
	KeyRunID         Key = "run_id"         // high-cardinality
	KeyState         Key = "state"          // bounded: a format's derived states
	KeyRole          Key = "role"           // bounded: the neutral roles (format.Role), one meaning in every format
	KeyEndReason     Key = "end_reason"     // bounded by the runtimes: how a line that ends a session or run says it ended
	// Token usage of a response, in every format's terms.
	KeyTokensIn         Key = "tokens_in"
	KeyTokensOut        Key = "tokens_out"
	KeyTokensCacheRead  Key = "tokens_cache_read"
	KeyTokensCacheWrite Key = "tokens_cache_write"
)

var allKeys = []Key{KeyEventType, KeyNode, KeyIntegrity, KeyJobID, KeySessionID, KeySeq, KeyPod,
	KeyAgentID, KeyModel, KeyStepIndex, KeyInvocationID, KeyToolName, KeyFile, KeyOffset,
	KeySessionStart, KeySchemaVersion, KeyAnnotations, KeyFormat, KeyRunID, KeyState, KeyRole, KeyEndReason,
	KeyTokensIn, KeyTokensOut, KeyTokensCacheRead, KeyTokensCacheWrite}

var boundedKeys = []Key{KeyEventType, KeyNode, KeyIntegrity, KeySchemaVersion, KeyFormat, KeyState, KeyRole}

// Layout decides which keys become stream labels and which structured
// metadata. Annotation details (violations, seq_gap, ...) are always
// structured metadata.
type Layout struct {
	Labels   []Key
	Metadata []Key
	// AllowHighCardinality lets high-cardinality keys be labels. Off by
	// default: a label per job or session would create a stream per job,
	// which Loki cannot sustain with millions of jobs.
	AllowHighCardinality bool
}

// DefaultLayout: labels format, event_type and node (plus the static
// labels, such as service_name); everything else as structured metadata.
func DefaultLayout() Layout {
	return Layout{
		Labels: []Key{KeyFormat, KeyEventType, KeyNode},
		Metadata: []Key{KeyJobID, KeySessionID, KeyRunID, KeySeq, KeyPod, KeyAgentID, KeyModel, KeyStepIndex,
			KeyInvocationID, KeyToolName, KeyFile, KeyOffset, KeyIntegrity, KeyState, KeyRole, KeyEndReason,
			KeyTokensIn, KeyTokensOut, KeyTokensCacheRead, KeyTokensCacheWrite, KeyAnnotations},
	}
}

// ParseKeys parses a comma-separated key list of the plugin's settings.
func ParseKeys(s string) ([]Key, error) {
	var out []Key
	for _, part := range strings.Split(s, ",") {
		k := Key(strings.TrimSpace(part))
		if k == "" {
			continue
		}
		if !slices.Contains(allKeys, k) {
			return nil, fmt.Errorf("pipeline: unknown key %q (known: %s)", k, keyList(allKeys))
		}
		out = append(out, k)
	}
	return out, nil
}

func keyList(ks []Key) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// Validate refuses unknown keys, a key in both lists, and high-cardinality
// labels unless allowed.
func (l Layout) Validate() error {
	for _, k := range l.Labels {
		if !slices.Contains(allKeys, k) {
			return fmt.Errorf("pipeline: unknown label key %q", k)
		}
		if slices.Contains(l.Metadata, k) {
			return fmt.Errorf("pipeline: key %q is both a label and metadata", k)
		}
		if !l.AllowHighCardinality && !slices.Contains(boundedKeys, k) {
			return fmt.Errorf("pipeline: %q as a stream label would create a stream per value; keep it in structured metadata or set Allow_High_Cardinality_Labels (bounded keys: %s)", k, keyList(boundedKeys))
		}
	}
	for _, k := range l.Metadata {
		if !slices.Contains(allKeys, k) {
			return fmt.Errorf("pipeline: unknown metadata key %q", k)
		}
	}
	return nil
}
