package finalize

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPartialLineOutlivesTheJournal: retention deletes a journal once its
// truncated_tail entry is in Loki, so the entry holds the partial line
// byte for byte: as text, or in base64 when the write was cut inside a
// character.
func TestPartialLineOutlivesTheJournal(t *testing.T) {
	e := newEnv(t)
	tail := `{"type":"TOOL_RESULT","out":"price ` + "\xe2\x82"
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\n"+tail, 20*time.Minute)
	o, err := e.finalizer(t, nil, nil).File(context.Background(), path)
	require.NoError(t, err)
	require.True(t, o.Finished)
	var marker tailEntry
	for _, en := range e.entries(t, 3) {
		if en.Stream["event_type"] == "truncated_tail" {
			require.NoError(t, json.Unmarshal([]byte(en.Line), &marker))
		}
	}
	assert.Empty(t, marker.Text)
	got, err := base64.StdEncoding.DecodeString(marker.TextBase64)
	require.NoError(t, err)
	assert.Equal(t, tail, string(got))
}

// TestPartialLineTooLongIsDeadLettered: a partial line longer than
// Max_Line_Bytes goes whole to the dead-letter file, with the reason, as
// a journal line that long does; the file summary still says the journal
// was cut.
func TestPartialLineTooLongIsDeadLettered(t *testing.T) {
	e := newEnv(t)
	tail := `{"type":"TOOL_RESULT","out":"` + strings.Repeat("y", 300<<10)
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\n"+tail, 20*time.Minute)
	o, err := e.finalizer(t, nil, nil).File(context.Background(), path)
	require.NoError(t, err)
	require.True(t, o.Finished)
	got := e.entries(t, 2)
	require.Len(t, got, 2, "the line and the file summary")
	for _, en := range got {
		assert.NotEqual(t, "truncated_tail", en.Stream["event_type"])
	}
	f, err := os.Open(e.dl)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	var found bool
	for sc.Scan() {
		var dl struct{ Reason, Line, Stage string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &dl))
		if strings.Contains(dl.Reason, "exceeds Max_Line_Bytes") {
			assert.Equal(t, "pipeline", dl.Stage, "refused before Loki, as a journal line that long")
			var marker tailEntry
			require.NoError(t, json.Unmarshal([]byte(dl.Line), &marker))
			assert.Equal(t, tail, marker.Text)
			found = true
		}
	}
	assert.True(t, found, "the partial line is in the dead-letter file")
}
