package ledger

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBillsKeepTheFirstClaim: a unit claimed by one journal stays its
// own; another journal's claim of it is answered with the owner, and a
// journal claiming its own unit again (a retry) takes nothing.
func TestBillsKeepTheFirstClaim(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	_, ok, err := l.BillOwner(ctx, 7)
	require.NoError(t, err)
	assert.False(t, ok, "no claim yet")

	taken, err := l.ClaimBills(ctx, []Bill{{Key: 7, Owner: "/a.jsonl"}, {Key: math.MaxUint64, Owner: "/a.jsonl"}})
	require.NoError(t, err)
	assert.Empty(t, taken)
	taken, err = l.ClaimBills(ctx, []Bill{{Key: 7, Owner: "/a.jsonl"}})
	require.NoError(t, err)
	assert.Empty(t, taken, "a retry of its own claim")

	taken, err = l.ClaimBills(ctx, []Bill{{Key: 8, Owner: "/b.jsonl"}, {Key: math.MaxUint64, Owner: "/b.jsonl"}})
	require.NoError(t, err)
	assert.Equal(t, []Bill{{Key: math.MaxUint64, Owner: "/a.jsonl"}}, taken, "the largest key survives the int64 round trip")
	owner, ok, err := l.BillOwner(ctx, 8)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "/b.jsonl", owner)

	taken, err = l.ClaimBills(ctx, []Bill{{Key: 10, Owner: "/c.jsonl"}, {Key: 10, Owner: "/d.jsonl"}})
	require.NoError(t, err)
	assert.Equal(t, []Bill{{Key: 10, Owner: "/c.jsonl"}}, taken, "a unit named twice in one call is its first bill's")
	owner, _, err = l.BillOwner(ctx, 10)
	require.NoError(t, err)
	assert.Equal(t, "/c.jsonl", owner)

	_, err = l.ClaimBills(ctx, []Bill{{Key: 9}})
	assert.ErrorIs(t, err, ErrInvalid)
}

// TestBillsOneWinnerAmongClaimers: journals claiming the same unit at
// once from several ledger handles (processes) agree on one owner.
func TestBillsOneWinnerAmongClaimers(t *testing.T) {
	path := openTest(t).Path()
	ctx := context.Background()
	const claimers = 8
	owners := make([]string, claimers)
	var wg sync.WaitGroup
	for i := range claimers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := Open(Config{Path: path, BusyTimeout: 10 * time.Second})
			if !assert.NoError(t, err) {
				return
			}
			defer l.Close()
			me := fmt.Sprintf("/j/%d.jsonl", i)
			taken, err := l.ClaimBills(ctx, []Bill{{Key: 42, Owner: me}})
			if !assert.NoError(t, err) {
				return
			}
			owners[i] = me
			if len(taken) == 1 {
				owners[i] = taken[0].Owner
			}
		}()
	}
	wg.Wait()
	for _, o := range owners {
		assert.Equal(t, owners[0], o, "every claimer names the same owner")
	}
}

// TestForgetBills removes the claims made before a time only.
func TestForgetBills(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	_, err := l.ClaimBills(ctx, []Bill{{Key: 1, Owner: "/a"}})
	require.NoError(t, err)
	n, err := l.ForgetBills(ctx, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n)
	n, err = l.ForgetBills(ctx, time.Now().Add(time.Second))
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
	_, ok, err := l.BillOwner(ctx, 1)
	require.NoError(t, err)
	assert.False(t, ok)
}

// TestOldClaimsForgottenAsNewAreMade: a claim older than BillsKept is
// dropped by the next claims, without any other call.
func TestOldClaimsForgottenAsNewAreMade(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	old := time.Now().Add(-BillsKept - time.Hour).UnixNano()
	_, err := l.c.db.ExecContext(ctx, `INSERT INTO bills (key, owner, claimed_at) VALUES (1, '/old', ?1)`, old)
	require.NoError(t, err)
	_, err = l.ClaimBills(ctx, []Bill{{Key: 2, Owner: "/new"}})
	require.NoError(t, err)
	_, ok, err := l.BillOwner(ctx, 1)
	require.NoError(t, err)
	assert.False(t, ok, "forgotten")
	_, ok, err = l.BillOwner(ctx, 2)
	require.NoError(t, err)
	assert.True(t, ok)
}

// TestReleaseBills gives up a journal's own claims only.
func TestReleaseBills(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	_, err := l.ClaimBills(ctx, []Bill{{Key: 1, Owner: "/a"}, {Key: 2, Owner: "/b"}})
	require.NoError(t, err)
	require.NoError(t, l.ReleaseBills(ctx, []Bill{{Key: 1, Owner: "/a"}, {Key: 2, Owner: "/a"}}))
	_, ok, err := l.BillOwner(ctx, 1)
	require.NoError(t, err)
	assert.False(t, ok, "released by its owner")
	owner, ok, err := l.BillOwner(ctx, 2)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "/b", owner, "another journal's claim stays")
}
