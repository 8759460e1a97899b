package loki

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tenantBatch holds streams of tenants a and b (the same labels in each)
// and one of no tenant.
func tenantBatch(t *testing.T) *Batch {
	t.Helper()
	b := NewBatch()
	at := time.Unix(1700000000, 0)
	for i, tn := range []string{"team-a", "team-b", "", "team-a"} {
		labels := []Label{{Name: "service_name", Value: "s"}}
		if tn != "" {
			labels = append(labels, Label{Name: TenantLabel, Value: tn})
		}
		require.NoError(t, b.Add(labels, Entry{Timestamp: at.Add(time.Duration(i)), Line: "line of " + tn, Ref: i}))
	}
	return b
}

// TestRequestsCarryOneTenantEach: streams of different tenants never share
// a request, even where requests may hold several streams; each request
// names its tenant in X-Scope-OrgID (Config.TenantID for a stream of
// none), and the tenant is never sent as a label.
func TestRequestsCarryOneTenantEach(t *testing.T) {
	for _, multi := range []bool{false, true} {
		f := newFakeLoki(t, nil)
		c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.MultiStreamRequests = multi; c.TenantID = "fallback" })
		b := tenantBatch(t)
		assert.Equal(t, 3, b.Streams(), "the same labels of two tenants are two streams")
		res, err := c.Push(context.Background(), b)
		require.NoError(t, err)
		assert.Equal(t, 4, res.Entries)
		pushes, headers := f.received()
		require.Len(t, pushes, 3)
		got := map[string]int{}
		for i, p := range pushes {
			tenant := headers[i].Get("X-Scope-OrgID")
			for _, s := range p.Streams {
				assert.NotContains(t, s.Labels, TenantLabel)
				for _, e := range s.Entries {
					want := tenant
					if want == "fallback" {
						want = ""
					}
					assert.Equal(t, "line of "+want, e.Line, "an entry reaches its own tenant")
					got[tenant]++
				}
			}
		}
		assert.Equal(t, map[string]int{"team-a": 2, "team-b": 1, "fallback": 1}, got)
	}
}

// TestSplitRequestsKeepTheirTenant: a request split in halves after a 413
// sends each half to the same tenant.
func TestSplitRequestsKeepTheirTenant(t *testing.T) {
	f := newFakeLoki(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 0 {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c, _ := newTestClient(t, f.srv.URL, nil)
	b := NewBatch()
	labels := []Label{{Name: "service_name", Value: "s"}, {Name: TenantLabel, Value: "team-b"}}
	for i := range 4 {
		require.NoError(t, b.Add(labels, Entry{Timestamp: time.Unix(1700000000, int64(i)), Line: "x", Ref: i}))
	}
	res, err := c.Push(context.Background(), b)
	require.NoError(t, err)
	assert.Equal(t, 4, res.Entries)
	_, headers := f.received()
	require.Greater(t, len(headers), 2)
	for _, h := range headers {
		assert.Equal(t, "team-b", h.Get("X-Scope-OrgID"))
	}
}

// TestBadTenantIsRefusedBeforeSending: a tenant Loki would refuse is an
// InputError naming it; nothing is added.
func TestBadTenantIsRefusedBeforeSending(t *testing.T) {
	for _, bad := range []string{"team a", "a|b", "..", strings.Repeat("x", 151), "é"} {
		b := NewBatch()
		err := b.Add([]Label{{Name: "service_name", Value: "s"}, {Name: TenantLabel, Value: bad}}, Entry{Timestamp: time.Unix(1, 0), Line: "x"})
		var ie *InputError
		require.ErrorAs(t, err, &ie, bad)
		assert.Zero(t, b.Len())
	}
	assert.Empty(t, TenantProblem("Team_a-1.(prod)*'!"))
}
