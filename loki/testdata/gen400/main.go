// Command gen400 writes loki/testdata/answers/*.txt: the answers Loki v3.7.8
// gives to a push, rendered by Loki's own code (its error formats, its
// label rendering, its service_name discovery, util.GroupedErrors and
// push.HTTPError), for the fixture batch of loki/reject_test.go.
//
// It imports Loki itself, so it runs with the tools/loki module's
// dependencies, from a scratch directory (tools/loki is left untouched):
//
//	d=$(mktemp -d) && cp tools/loki/go.mod tools/loki/go.sum loki/testdata/gen400/main.go "$d" &&
//	  (cd "$d" && go run . "$OLDPWD/loki/testdata/answers")
//
// GroupedErrors iterates a map: the order of grouped messages may change
// from one run to the next.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-kit/log"
	"github.com/gogo/protobuf/proto"
	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/model/labels"

	lokipush "github.com/grafana/loki/pkg/push"

	"github.com/grafana/loki/v3/pkg/chunkenc"
	"github.com/grafana/loki/v3/pkg/loghttp/push"
	"github.com/grafana/loki/v3/pkg/logproto"
	"github.com/grafana/loki/v3/pkg/logql/syntax"
	"github.com/grafana/loki/v3/pkg/util"
	"github.com/grafana/loki/v3/pkg/util/flagext"
	"github.com/grafana/loki/v3/pkg/validation"
)

// The fixture batch, as loki/reject_test.go builds it (streams A, B, C).
var (
	base    = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	streamA = `{job="journalship", session="s-1"}`
	streamB = `{"agent.name"="claude", host="h1"}`
	streamC = `{job="x", note="it's; \"quoted\", {x}", service_name="api"}`
)

type entry struct {
	stream string
	ts     time.Time
	line   string
	md     lokipush.LabelsAdapter
}

var entries = []entry{
	0: {streamA, base.Add(100 * time.Millisecond), "a0", nil},
	1: {streamA, base.Add(200 * time.Millisecond), "a1", nil},
	2: {streamA, base.Add(300 * time.Millisecond), "a2", nil},
	3: {streamA, base.Add(time.Second + 1), "a3", nil},
	4: {streamB, base.Add(500 * time.Millisecond), "b0", lokipush.LabelsAdapter{{Name: "trace_id", Value: "t1"}}},
	5: {streamB, base.Add(2500 * time.Millisecond), strings.Repeat("x", 300), nil},
	6: {streamB, base.Add(3500 * time.Millisecond), "b2", lokipush.LabelsAdapter{{Name: "trace_id", Value: "t2"}, {Name: "user", Value: "u"}}},
	7: {streamC, base.Add(100 * time.Millisecond), "c0", nil},
	8: {streamC, base.Add(5 * time.Second), "c1", lokipush.LabelsAdapter{{Name: "k", Value: "v"}, {Name: "k2", Value: "v2"}}},
	9: {streamC, base.Add(6 * time.Second), "c2", nil},
}

type limits struct{ discover []string }

func (l limits) OTLPConfig(string) push.OTLPConfig {
	return push.DefaultOTLPConfig(push.GlobalOTLPConfig{})
}
func (l limits) DiscoverServiceName(string) []string { return l.discover }

// lokiLabels returns each fixture stream's labels as the distributor sees
// them after push.ParseLokiRequest (service_name added).
func lokiLabels() map[string]labels.Labels {
	req := &logproto.PushRequest{}
	for _, s := range []string{streamA, streamB, streamC} {
		req.Streams = append(req.Streams, logproto.Stream{Labels: s, Entries: []logproto.Entry{{Timestamp: base, Line: "x"}}})
	}
	raw, err := proto.Marshal(req)
	check(err)
	hr := httptest.NewRequest(http.MethodPost, "/loki/api/v1/push", strings.NewReader(string(snappy.Encode(nil, raw))))
	hr.Header.Set("Content-Type", "application/x-protobuf")
	var l validation.Limits
	l.RegisterFlags(flag.NewFlagSet("limits", flag.PanicOnError))
	parsed, _, err := push.ParseLokiRequest("tenant-1", hr, limits{l.DiscoverServiceName}, nil, 100<<20, 100<<20, nil, nil, log.NewNopLogger())
	check(err)
	out := map[string]labels.Labels{}
	for i, s := range parsed.Streams {
		ls, err := syntax.ParseLabels(s.Labels)
		check(err)
		out[req.Streams[i].Labels] = ls
	}
	return out
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// body renders an error the way the distributor's push handler answers it.
func body(msg string, status int) string {
	w := httptest.NewRecorder()
	push.HTTPError(w, msg, status, log.NewNopLogger())
	return w.Body.String()
}

func grouped(errs ...error) string {
	var g util.GroupedErrors
	for _, e := range errs {
		g.Add(e)
	}
	return g.Error()
}

// ingesterBody is pkg/ingester/stream.go errorForFailedEntries (unexported)
// with the same format strings.
func ingesterBody(tenant string, stream labels.Labels, total int, failed []entry, errs []error) string {
	var buf strings.Builder
	for i, e := range failed {
		fmt.Fprintf(&buf, "entry with timestamp %s ignored, reason: '%s',\n", e.ts.String(), errs[i].Error())
	}
	fmt.Fprintf(&buf, "user '%s', total ignored: %d out of %d for stream: %s", tenant, len(errs), total, stream.String())
	return buf.String()
}

func rfc(t time.Time) string { return t.Format(time.RFC3339) }

func main() {
	dir := os.Args[1]
	L := lokiLabels()
	A, B, C := L[streamA], L[streamB], L[streamC]
	tooOld := func(ls labels.Labels, e entry, cutoff time.Time) error {
		return fmt.Errorf(validation.GreaterThanMaxSampleAgeErrorMsg, ls, rfc(e.ts), rfc(cutoff))
	}
	cutoff := base.Add(250 * time.Millisecond)
	files := map[string]string{
		"too_old_single.txt": body(tooOld(A, entries[3], base.Add(2*time.Second)).Error(), 400),
		"too_old_grouped.txt": body(grouped(
			tooOld(A, entries[0], cutoff), tooOld(A, entries[1], cutoff),
			fmt.Errorf(validation.TooFarInFutureErrorMsg, C, rfc(entries[9].ts)),
		), 400),
		"mixed.txt": body(grouped(
			fmt.Errorf(validation.LineTooLongErrorMsg, 256, B, len(entries[5].line)),
			fmt.Errorf(validation.StructuredMetadataTooLargeErrorMsg, B, util.StructuredMetadataSize(entries[6].md), 10),
			fmt.Errorf(validation.StructuredMetadataTooManyErrorMsg, C, len(entries[8].md), 1),
		), 400),
		"disallowed.txt": body(grouped(
			fmt.Errorf(validation.DisallowedStructuredMetadataErrorMsg, B),
			fmt.Errorf(validation.DisallowedStructuredMetadataErrorMsg, B),
			fmt.Errorf(validation.DisallowedStructuredMetadataErrorMsg, C),
		), 400),
		"stream_level.txt": body(grouped(
			fmt.Errorf(validation.LabelValueTooLongErrorMsg, C.String(), C.Get("note")),
			fmt.Errorf(validation.MissingEnforcedLabelsErrorMsg, "team,env", "tenant-1", B.String(), "default"),
		), 400),
		"label_names.txt": body(fmt.Errorf(validation.MaxLabelNamesPerSeriesErrorMsg, A.String(), 16, 15).Error(), 400),
		"ingester_too_far_behind.txt": body(ingesterBody("tenant-1", A, 4, entries[0:2], []error{
			chunkenc.ErrTooFarBehind(entries[0].ts, base.Add(time.Hour)),
			chunkenc.ErrTooFarBehind(entries[1].ts, base.Add(time.Hour)),
		}), 400),
		"ingester_truncated.txt": body(truncatedIngester(C), 400),
		"ingester_rate_limited.txt": body(ingesterBody("tenant-1", B, 3, []entry{entries[4], entries[6]}, []error{
			&validation.ErrStreamRateLimit{RateLimit: flagext.ByteSize(3 << 20), Labels: B.String(), Bytes: flagext.ByteSize(4)},
			chunkenc.ErrOutOfOrder,
		}), 400),
		"unparseable.txt":    body(fmt.Errorf("couldn't parse labels: %w", parseErr()).Error(), 400),
		"unknown_stream.txt": body(tooOld(labels.FromStrings("job", "other", "service_name", "other"), entries[3], base.Add(2*time.Second)).Error(), 400),
		"count_mismatch.txt": body(grouped(tooOld(A, entries[3], base.Add(2*time.Second)), tooOld(A, entries[3], base.Add(2*time.Second)), tooOld(A, entries[3], base.Add(2*time.Second))), 400),
		"missing_labels.txt": body(validation.MissingLabelsErrorMsg, 400),
		"blocked.txt":        body(fmt.Sprintf(validation.BlockedIngestionErrorMsg, "tenant-1", base.Add(24*time.Hour).Format(time.RFC3339), 260), 260),
		"rate_limited.txt":   body(fmt.Sprintf(validation.RateLimitedErrorMsg, "tenant-1", 4<<20, 10, 12345), 429),
		"stream_limit.txt":   body(fmt.Sprintf(validation.StreamLimitErrorMsg, A.String(), "tenant-1"), 429),
	}
	for name, text := range files {
		check(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
}

// truncatedIngester lists one refused entry of stream C (sharded) while two
// were refused: the list was cut at ingester.max-ignored-stream-errors.
func truncatedIngester(C labels.Labels) string {
	sharded := labels.NewBuilder(C).Set("__stream_shard__", "1").Labels()
	full := ingesterBody("tenant-1", sharded, 3, entries[7:9], []error{chunkenc.ErrOutOfOrder, chunkenc.ErrOutOfOrder})
	first := strings.Index(full, "\n") + 1
	return full[:first] + full[strings.LastIndex(full, "\n")+1:]
}

func parseErr() error {
	_, err := syntax.ParseLabels(`{job="x",}x`)
	return err
}
