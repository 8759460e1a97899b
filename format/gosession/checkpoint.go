package gosession

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/journalship/journalship/integrity"
)

// Checkpoint is one checkpoint of a session: the files the agent was
// about to change, saved so that a rewind can restore them
// (docs/formats/go-session.md, Checkpoints). The finalizer ships each once
// as a checkpoint entry; the blobs are never read.
type Checkpoint struct {
	// ID is the manifest's checkpoint_id (seed 002), else its
	// user_message_uuid (Goat's checkpoint spec), else the directory's
	// name.
	ID string
	// Time is the manifest's created_at, when HasTime.
	Time    time.Time
	HasTime bool
	// Files is the number of entries of the manifest's files (0 when it
	// has none or files is not an array).
	Files int
	// Manifest is the manifest's path.
	Manifest string
}

// Checkpoints lists the checkpoints of a session directory whose
// checkpoints/<id>/manifest.json reads as one complete JSON object of at
// most DefaultMaxMetadataBytes, by time (then directory name). A manifest
// absent, half-written, invalid or too large is left out, to be tried
// again at a later scan; a missing checkpoints directory is no checkpoint.
// The error is the directory's, when it cannot be listed.
func Checkpoints(sessionDir string) ([]Checkpoint, error) {
	return ReadCheckpoints(sessionDir, DefaultMaxMetadataBytes)
}

// ReadCheckpoints is Checkpoints with manifests of at most maxBytes
// (Config.MaxMetadataBytes).
func ReadCheckpoints(sessionDir string, maxBytes int64) ([]Checkpoint, error) {
	root := filepath.Join(sessionDir, CheckpointsDir)
	entries, err := os.ReadDir(root)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil, nil
	case err != nil:
		return nil, err
	}
	var out []Checkpoint
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		manifest := filepath.Join(root, e.Name(), ManifestFile)
		b, _, ok := readStable(manifest, maxBytes)
		if !ok {
			continue
		}
		cp, ok := ParseManifest(b)
		if !ok {
			continue
		}
		if cp.ID == "" {
			cp.ID = e.Name()
		}
		cp.Manifest = manifest
		out = append(out, cp)
	}
	slices.SortStableFunc(out, func(a, b Checkpoint) int { return a.Time.Compare(b.Time) })
	return out, nil
}

var manifestPaths = integrity.MustPaths("checkpoint_id", "user_message_uuid", "created_at", "files")

const (
	cpID = iota
	cpUserMessage
	cpCreatedAt
	cpFiles
)

// ParseManifest reads a manifest's content: ok is false unless it is one
// complete JSON object. The ID is "" when the manifest names none, and
// Manifest is not set.
func ParseManifest(b []byte) (cp Checkpoint, ok bool) {
	var c integrity.Capture
	if c.Scan(b, manifestPaths) != "" {
		return Checkpoint{}, false
	}
	cp.ID = str(&c, cpID, cpUserMessage)
	cp.Time, cp.HasTime = timeOf(&c, cpCreatedAt)
	if c.Get(cpFiles).Kind == integrity.JSONArray {
		cp.Files = count(c.Raw(cpFiles))
	}
	return cp, true
}
