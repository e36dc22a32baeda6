package fleet_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers/kits/relaytest"
	"github.com/propertyd/propertyd/ratelimit/fleet"
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
)

// shortLeases live 300ms unrenewed, so that takeovers happen within a test.
var shortLeases = fleet.LeaseOptions{TTL: 300 * time.Millisecond, Poll: 5 * time.Millisecond}

// Two instances never hold one key's lease at once: of many goroutines on
// two clients taking and releasing one key, at most one is inside at a
// time, and each gets its turn.
func TestLeaseIsExclusiveAcrossInstances(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	ins := []*instance{open(t, u, prefix, fleet.Options{}), open(t, u, prefix, fleet.Options{})}
	leases := []*fleet.Leases{ins[0].c.Leases(shortLeases), ins[1].c.Leases(shortLeases)}
	var inside, most, turns atomic.Int32
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := leases[i%2].Lease(context.Background(), "geo:1 main st")
			if err != nil {
				t.Errorf("lease: %v", err)
				return
			}
			n := inside.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(20 * time.Millisecond)
			inside.Add(-1)
			turns.Add(1)
			release()
		}()
	}
	wg.Wait()
	if most.Load() != 1 || turns.Load() != 10 {
		t.Fatalf("%d holders at once and %d of 10 turns: two instances would both call the upstream for one key",
			most.Load(), turns.Load())
	}
	// A held lease is renewed past its TTL: a call slower than the TTL
	// keeps the others waiting.
	release, _ := leases[0].Lease(context.Background(), "slow")
	ctx, cancel := context.WithTimeout(context.Background(), 3*shortLeases.TTL)
	defer cancel()
	if _, err := leases[1].Lease(ctx, "slow"); err == nil {
		t.Fatalf("a lease held and renewed for three TTLs was taken by another instance\n%s\n%s", ins[0].logs, ins[1].logs)
	}
	release()
	if _, err := leases[1].Lease(context.Background(), "slow"); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// An instance that dies holding a lease stops renewing it, and a waiter
// takes the key over within the TTL instead of waiting for ever.
func TestWaiterTakesOverFromADeadHolder(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	dead := open(t, u, prefix, fleet.Options{})
	if _, err := dead.c.Leases(shortLeases).Lease(context.Background(), "k"); err != nil {
		t.Fatal(err)
	}
	dead.c.Close() // gone without releasing: no renewal, no release
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	release, err := open(t, u, prefix, fleet.Options{}).c.Leases(shortLeases).Lease(ctx, "k")
	if err != nil {
		t.Fatalf("the waiter never took over a dead holder's lease: %v", err)
	}
	defer release()
	if d := time.Since(start); d > 2*shortLeases.TTL {
		t.Fatalf("takeover after %v, want within the TTL (%v)", d, shortLeases.TTL)
	}
}

// A holder whose lease lapsed and was taken over does not free the new
// holder's lease when it releases its own.
func TestReleaseByANonOwnerDoesNothing(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	a := open(t, u, prefix, fleet.Options{}).c.Leases(shortLeases)
	b := open(t, u, prefix, fleet.Options{}).c.Leases(shortLeases)
	releaseA, err := a.Lease(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	// The lease goes away under a (as when it lapses) and b takes it.
	if _, err := fleettest.Clear(context.Background(), u, prefix); err != nil {
		t.Fatal(err)
	}
	releaseB, err := b.Lease(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer releaseB()
	releaseA()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := a.Lease(ctx, "k"); err == nil {
		t.Fatal("the old holder's release freed the new holder's lease: two instances would call at once")
	}
}

// With Redis cut, Lease neither blocks nor fails: it returns as held, and
// calls are coalesced within each instance only; a waiter whose Redis goes
// away meanwhile stops waiting too.
func TestLeaseDoesNotBlockWithoutRedis(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	relayed, relay := relaytest.RelayedURL(t, u, "6379")
	holder := open(t, u, prefix, fleet.Options{}).c.Leases(shortLeases)
	in := open(t, relayed, prefix, fleet.Options{})
	waiter := in.c.Leases(shortLeases)
	release, err := holder.Lease(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	got := make(chan error, 1)
	go func() {
		r, err := waiter.Lease(context.Background(), "k")
		if err == nil {
			r()
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	relay.Stop()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("a waiter whose Redis went away failed: %v; want it to go ahead as held", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a waiter whose Redis went away is still waiting after 2s")
	}
	start := time.Now()
	r, err := waiter.Lease(context.Background(), "k")
	if err != nil || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("lease with Redis cut: %v after %v; want held at once", err, time.Since(start))
	}
	r()
	if n := strings.Count(in.logs.String(), "redis unreachable"); n != 1 {
		t.Fatalf("%d warnings for one outage, want 1:\n%s", n, in.logs)
	}
}
