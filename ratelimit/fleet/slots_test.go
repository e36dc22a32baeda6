package fleet_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers/kits/relaytest"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/ratelimit/fleet"
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
)

// shortSlots lapse 300ms unrenewed, so that a dead holder's slots come
// back within a test.
var shortSlots = fleet.SlotOptions{Lease: 300 * time.Millisecond}

// upstream counts the calls in flight at a fake upstream and the most
// there ever were at once.
type upstream struct {
	inFlight, most, calls atomic.Int32
}

// call is one upstream call lasting d.
func (u *upstream) call(d time.Duration) {
	n := u.inFlight.Add(1)
	for m := u.most.Load(); n > m && !u.most.CompareAndSwap(m, n); m = u.most.Load() {
	}
	time.Sleep(d)
	u.inFlight.Add(-1)
	u.calls.Add(1)
}

// outbound is an instance's limiter for the upstream role "flood" with a
// concurrency cap of limit, shared through in.
func outbound(in *instance, limit int, o fleet.SlotOptions) *ratelimit.Outbound {
	out := ratelimit.NewOutbound(ratelimit.Limit{}, limit)
	out.ShareSlots(in.c.Slots("flood", limit, o))
	return out
}

// through makes one call to up through out, waiting for its slot at most
// wait.
func through(out *ratelimit.Outbound, up *upstream, d, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	release, err := out.Acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	up.call(d)
	return nil
}

// Three instances with a concurrency cap of 2 never have more than 2 calls
// in flight to the upstream between them, however many callers each has,
// and every caller gets its turn.
func TestSharedConcurrencyCapHoldsForTheFleet(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	var outs []*ratelimit.Outbound
	var counts [3]struct {
		mu                      sync.Mutex
		waiting, holding, waits int
	}
	for i := range 3 {
		outs = append(outs, outbound(open(t, u, prefix, fleet.Options{}), 2, fleet.SlotOptions{OnCount: func(w, h int) {
			c := &counts[i]
			c.mu.Lock()
			defer c.mu.Unlock()
			c.waiting, c.holding, c.waits = w, h, max(c.waits, w)
		}}))
	}
	var up upstream
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			for range 3 {
				if err := through(outs[i%3], &up, 10*time.Millisecond, 20*time.Second); err != nil {
					t.Errorf("caller %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if up.most.Load() != 2 || up.calls.Load() != 90 {
		t.Fatalf("three instances capped at 2 had %d calls in flight at once and made %d of 90: the upstream would see %d connections from the fleet",
			up.most.Load(), up.calls.Load(), up.most.Load())
	}
	if keys := fleettest.Keys(t, u, prefix); len(keys) != 0 {
		t.Fatalf("slots all given back, yet Redis keeps %v", keys)
	}
	for i := range counts {
		c := &counts[i]
		c.mu.Lock()
		if c.waiting != 0 || c.holding != 0 || c.waits == 0 {
			t.Errorf("instance %d reported %d waiting and %d holding once done (at most %d waiting); want 0, 0 and some waiting under load",
				i, c.waiting, c.holding, c.waits)
		}
		c.mu.Unlock()
	}
}

// The slots go first come, first served across instances: a caller that
// has waited longest is not passed by callers of another instance that
// poll more often, when a third instance frees the slot.
func TestSharedSlotsGoInTurn(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	holder := open(t, u, prefix, fleet.Options{}).c.Slots("flood", 1, fleet.SlotOptions{})
	a := open(t, u, prefix, fleet.Options{}).c.Slots("flood", 1, fleet.SlotOptions{})
	b := open(t, u, prefix, fleet.Options{}).c.Slots("flood", 1, fleet.SlotOptions{Poll: time.Millisecond, MaxPoll: time.Millisecond})
	release, _, err := holder.Take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	take := func(s *fleet.Slots, name string) {
		defer wg.Done()
		r, shared, err := s.Take(context.Background())
		if err != nil || !shared {
			t.Errorf("%s: shared %v, %v", name, shared, err)
			return
		}
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		r()
	}
	wg.Add(1)
	go take(a, "first") // slow to poll (up to 50ms), but first in line
	time.Sleep(100 * time.Millisecond)
	for range 3 {
		wg.Add(1)
		go take(b, "later")
	}
	time.Sleep(100 * time.Millisecond)
	release()
	wg.Wait()
	if len(order) != 4 || order[0] != "first" {
		t.Fatalf("slots went %v; want the caller that waited longest first", order)
	}
}

// An instance that dies holding slots (it neither renews nor frees them)
// holds up the fleet for one lease at most: its slots come back by
// themselves.
func TestDeadHoldersSlotsComeBack(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	dead := open(t, u, prefix, fleet.Options{})
	s := dead.c.Slots("flood", 2, shortSlots)
	for range 2 {
		if _, shared, err := s.Take(context.Background()); err != nil || !shared {
			t.Fatalf("take: shared %v, %v", shared, err)
		}
	}
	dead.c.Close() // gone without freeing its slots
	live := open(t, u, prefix, fleet.Options{}).c.Slots("flood", 2, shortSlots)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := range 2 {
		release, shared, err := live.Take(ctx)
		if err != nil || !shared {
			t.Fatalf("slot %d of a dead instance never came back: shared %v, %v", i, shared, err)
		}
		defer release()
	}
	if d := time.Since(start); d > 2*shortSlots.Lease {
		t.Fatalf("a dead instance's slots came back after %v; want within the lease (%v)", d, shortSlots.Lease)
	}
}

// A live holder renews its slot: a call slower than the lease keeps it,
// and no other instance gets a slot too many.
func TestSlowCallsKeepTheirSlot(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	a := open(t, u, prefix, fleet.Options{}).c.Slots("flood", 1, shortSlots)
	b := open(t, u, prefix, fleet.Options{}).c.Slots("flood", 1, shortSlots)
	release, _, err := a.Take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*shortSlots.Lease)
	defer cancel()
	if r, _, err := b.Take(ctx); err == nil {
		r()
		t.Fatal("a slot held for three leases by a live call was given to another instance: two calls in flight with a cap of 1")
	}
	release()
	r, shared, err := b.Take(context.Background())
	if err != nil || !shared {
		t.Fatalf("after the release: shared %v, %v", shared, err)
	}
	r()
}

// A caller whose context ends while it waits for a slot returns at once
// with its context's error (which the outbound path reports as a timeout
// or a cancelled request), and leaves the line: the callers behind it are
// not held up.
func TestWaitingForASlotHonoursTheContext(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	holder := open(t, u, prefix, fleet.Options{}).c.Slots("flood", 1, fleet.SlotOptions{})
	waiter := outbound(open(t, u, prefix, fleet.Options{}), 1, fleet.SlotOptions{})
	release, _, err := holder.Take(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	if _, err := waiter.Acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while waiting: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Fatalf("a cancelled wait returned %v after the cancel; want at once", d-100*time.Millisecond)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := waiter.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline while waiting: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Fatalf("a wait past its deadline returned after %v; want at the deadline (100ms)", d)
	}

	// The callers that gave up left the line: a slot freed now goes to a
	// new caller at once, not after the line forgets them.
	release()
	start = time.Now()
	r, err := waiter.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r()
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Fatalf("a free slot took %v to take: the callers that gave up still held places in line", d)
	}
}

// When Redis goes away, even in the middle of calls and waits, the cap
// falls back to each instance's own semaphore at once (the same cap, one
// warning) and nothing fails; once Redis answers again the cap is shared
// again by itself.
func TestSharedSlotsFallBackWhileRedisIsCutAndRecover(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	relayed, relay := relaytest.RelayedURL(t, u, "6379")
	// Short leases: the slot this instance frees while Redis is away stays
	// taken in Redis until its lease ends.
	other := open(t, u, prefix, fleet.Options{}).c.Slots("flood", 2, shortSlots)
	in := open(t, relayed, prefix, fleet.Options{})
	out := outbound(in, 2, shortSlots)
	var up upstream

	// One call of this instance runs and the other instance holds the
	// second slot, so a second call of this instance waits.
	mid, err := out.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	otherRelease, _, err := other.Take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- through(out, &up, 0, 10*time.Second) }()
	select {
	case err := <-waited:
		t.Fatalf("a third call with the fleet's 2 slots taken went through: %v", err)
	case <-time.After(100 * time.Millisecond):
	}

	relay.Stop()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("a caller waiting when Redis went away failed: %v; want it to go ahead on the instance's own cap", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a caller waiting when Redis went away still waits after 2s")
	}
	mid() // a call that held a shared slot ends while Redis is away

	// Per instance now: 2 at once here, whatever the other instance holds.
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if err := through(out, &up, 20*time.Millisecond, 5*time.Second); err != nil {
				t.Errorf("with Redis cut: %v", err)
			}
		})
	}
	wg.Wait()
	if up.most.Load() != 2 {
		t.Fatalf("with Redis cut, %d calls in flight at once; want the instance's own cap of 2", up.most.Load())
	}
	if n := strings.Count(in.logs.String(), "redis unreachable"); n != 1 {
		t.Fatalf("%d warnings for one outage, want 1:\n%s", n, in.logs)
	}

	relay.Start()
	waitUp(t, in.c)
	// Shared again: the other instance's 2 slots leave none here.
	other2, _, err := other.Take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := out.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Redis back and the fleet's 2 slots held elsewhere: %v; want to wait (the shared cap)", err)
	}
	otherRelease()
	other2()
	if err := through(out, &up, 0, time.Second); err != nil {
		t.Fatalf("the fleet's slots free again: %v", err)
	}
}

// An instance started while Redis is away caps by its own semaphore and
// shares the cap once Redis answers.
func TestSlotsWithoutRedisAtStart(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	relayed, relay := relaytest.RelayedURL(t, u, "6379")
	relay.Stop()
	in := open(t, relayed, prefix, fleet.Options{})
	s := in.c.Slots("flood", 1, fleet.SlotOptions{})
	if r, shared, err := s.Take(context.Background()); shared || err != nil || r != nil {
		t.Fatalf("without Redis: shared %v, %v; want nothing shared, no error", shared, err)
	}
	relay.Start()
	waitUp(t, in.c)
	r, shared, err := s.Take(context.Background())
	if !shared || err != nil {
		t.Fatalf("Redis back: shared %v, %v", shared, err)
	}
	r()
}
