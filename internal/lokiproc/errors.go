package lokiproc

import "github.com/journalship/journalship/internal/childproc"

// The errors of Start and Stop are childproc's; they name "loki".

// ConfigError reports an invalid Config field. It is permanent.
type ConfigError = childproc.ConfigError

// BinaryNotFoundError reports that the Loki executable is missing or not
// executable. It is permanent; `make loki` builds the default binary.
type BinaryNotFoundError = childproc.BinaryNotFoundError

// StartError reports that Loki did not become ready, with the tail of
// Dir/loki.log; see StartError.Retryable.
type StartError = childproc.StartError

// StartPhase says where Start failed (childproc.PhaseSetup and so on).
type StartPhase = childproc.StartPhase

// StopError reports a failure to stop Loki or to remove its temp dir.
type StopError = childproc.StopError
