package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/secretsample"
	"github.com/journalship/journalship/internal/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantedSecret is a real secret format and the text a journal holds it
// in.
type plantedSecret struct{ rule, text, secret string }

// plantedSecrets are one example of each family of secret an agent meets
// (Gitleaks' own examples), and a connection string.
func plantedSecrets(t *testing.T) []plantedSecret {
	t.Helper()
	var out []plantedSecret
	for _, rule := range []string{"aws-access-token", "github-pat", "github-fine-grained-pat", "slack-bot-token",
		"slack-webhook-url", "private-key", "jwt", "stripe-access-token", "openai-api-key", "anthropic-api-key", "gitlab-pat"} {
		es := secretsample.Of(rule)
		require.NotEmpty(t, es, rule)
		for _, f := range es[0].Gitleaks {
			if f.Rule == rule {
				out = append(out, plantedSecret{rule, es[0].Sample, f.Secret})
				break
			}
		}
	}
	return append(out, plantedSecret{"connection-string-password",
		"DATABASE_URL=postgres://orders:Zq7-vT4pLm9xK2@db.internal:5432/orders", "Zq7-vT4pLm9xK2"})
}

// plant puts secrets into every other line of every file of c, where a
// runtime writes what an agent saw (its longest free-text string), in
// turn as the text itself and as a JSON document held in that string
// (escaped JSON inside JSON); it returns each planted line's place
// (path@offset) and secret.
func plant(t *testing.T, c *sample.Corpus, root string, secrets []plantedSecret) map[string]plantedSecret {
	t.Helper()
	planted := map[string]plantedSecret{}
	n := 0
	for fi := range c.Files {
		f := &c.Files[fi]
		var data []byte
		for li := range f.Lines {
			l := &f.Lines[li]
			l.Offset = int64(len(data))
			if li%2 == 1 && !l.Corrupt {
				s := secrets[n%len(secrets)]
				text := s.text + " "
				if n/len(secrets)%2 == 1 { // each secret in both shapes, in turn
					doc, err := json.Marshal(map[string]any{"tool": "read_file", "env": map[string]string{"SECRET": s.text}})
					require.NoError(t, err)
					text = string(doc)
				}
				if out, ok := secretsample.Inject([]byte(l.Text), text); ok {
					l.Text = string(out)
					planted[filepath.Join(root, f.Rel)+"@"+strconv.FormatInt(l.Offset, 10)] = s
					n++
				}
			}
			data = append(append(data, l.Text...), '\n')
		}
		f.Data = append(data, f.PartialTail...)
	}
	require.Greater(t, n, 2*len(secrets), "every secret planted, in both shapes")
	return planted
}

// TestNoSecretReachesLoki plants real secrets in the journals of every
// format and ships them through the plugin into a real Loki: no secret is
// in any entry or its metadata, or in the dead letters; each line that
// held one is in Loki, still JSON, annotated redacted; every other line
// is byte-exact.
func TestNoSecretReachesLoki(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	corpus := mixedCorpus(t)
	root := filepath.Join(t.TempDir(), "node")
	secrets := plantedSecrets(t)
	planted := plant(t, corpus, root, secrets)
	require.NoError(t, corpus.WriteTo(root))
	dl := filepath.Join(t.TempDir(), "deadletter.jsonl")
	shipCorpus(t, corpus, root, delivery{url: loki.URL, node: "node-secrets", tag: "node.s", seed: 5,
		maxLines: 8, retryEvery: 9, formats: []chunk.Format{chunk.FormatV2}, props: []string{"Dead_Letter_Path", dl}})

	q := &lokiquery.Client{URL: loki.URL}
	got, err := q.WaitFor(context.Background(), verify.Selector+` | node="node-secrets"`, time.Now().Add(-6*time.Hour), time.Now().Add(time.Minute), corpus.Lines(), 30*time.Second)
	require.NoError(t, err)
	original := map[string]string{}
	for _, f := range corpus.Files {
		for _, l := range f.Lines {
			original[filepath.Join(root, f.Rel)+"@"+strconv.FormatInt(l.Offset, 10)] = l.Text
		}
	}
	seen := map[string]bool{}
	for _, e := range got {
		place := e.Metadata["file"] + "@" + e.Metadata["byte_offset"]
		seen[place] = true
		for _, s := range secrets {
			assert.NotContains(t, e.Line, s.secret, "%s: %s in Loki", place, s.rule)
			for k, v := range e.Metadata {
				assert.NotContains(t, v, s.secret, "%s: %s in metadata %s", place, s.rule, k)
			}
		}
		s, ok := planted[place]
		if !ok {
			assert.Equal(t, original[place], e.Line, "%s: a line without a secret is byte-exact", place)
			continue
		}
		assert.Contains(t, e.Line, "<REDACTED-SECRET:", "%s: %s", place, s.rule)
		assert.Contains(t, e.Metadata["annotations"], "redacted", place)
		assert.True(t, json.Valid([]byte(e.Line)), "%s stays JSON", place)
	}
	assert.Len(t, seen, corpus.Lines(), "every line is in Loki")
	if data, err := os.ReadFile(dl); err == nil {
		for _, s := range secrets {
			assert.NotContains(t, string(data), s.secret, "%s in the dead letters", s.rule)
		}
	}
	rules := map[string]bool{}
	for _, e := range got {
		for _, part := range strings.Split(e.Metadata["redacted"], ",") {
			if _, rule, ok := strings.Cut(part, " "); ok {
				rules[rule] = true
			}
		}
	}
	for _, s := range secrets {
		assert.True(t, rules[s.rule], "%s found and named", s.rule)
	}
}
