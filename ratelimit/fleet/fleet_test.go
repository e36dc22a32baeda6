package fleet_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
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

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// instance is one propertyd's view of the shared Redis: its Client, what it
// logged and the states it reported.
type instance struct {
	c      *fleet.Client
	logs   *lockedBuffer
	states *stateLog
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type stateLog struct {
	mu sync.Mutex
	s  []bool
}

func (s *stateLog) add(up bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s = append(s.s, up)
}

func (s *stateLog) all() []bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]bool(nil), s.s...)
}

// open connects an instance to the Redis at u under prefix, probing every
// 20ms while Redis is down.
func open(t *testing.T, u, prefix string, o fleet.Options) *instance {
	t.Helper()
	in := &instance{logs: &lockedBuffer{}, states: &stateLog{}}
	o.Prefix = prefix
	o.Logger = slog.New(slog.NewTextHandler(in.logs, nil))
	o.OnState = in.states.add
	if o.Backoff == nil {
		o.Backoff = func(int) time.Duration { return 20 * time.Millisecond }
	}
	c, err := fleet.Open(context.Background(), u, o)
	if err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
	t.Cleanup(func() { c.Close() })
	in.c = c
	return in
}

// pinned is open with the budget scripts taking the callers' time instead
// of Redis's clock, for tests that step a budget through fixed instants.
func pinned(t *testing.T, u, prefix string, o fleet.Options) *instance {
	t.Helper()
	in := open(t, u, prefix, o)
	fleet.UseCallersClock(in.c)
	return in
}

// headers is what a client sees of a decision: the X-RateLimit-* values and
// Retry-After, in whole seconds rounded up as the gateway writes them.
type headers struct {
	allowed, impossible    bool
	limit, remaining       int
	resetSecs, retryAfterS int64
}

func seen(d ratelimit.Decision) headers {
	up := func(x time.Duration) int64 { return int64((x + time.Second - 1) / time.Second) }
	return headers{d.Allowed, d.Impossible, d.Limit, d.Remaining, up(d.Reset), up(d.RetryAfter)}
}

// A budget kept in Redis answers every request as the in-process bucket
// does: the same allowed/refused, the same X-RateLimit-* headers and
// Retry-After, refunds included, so moving a deployment to Redis changes
// nothing a client sees. Redis's clock is pinned to the instants the
// in-process bucket is given, seconds apart.
func TestSharedBudgetAnswersLikeTheInProcessBucket(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	in := pinned(t, u, prefix, fleet.Options{})
	type step struct {
		at     time.Duration // after t0
		key    string
		cost   int
		refund int // when >= 0, RefundTo(refund) right after an allowed reserve
	}
	limits := map[string]ratelimit.Limit{
		"slow":  {Rate: 1, Burst: 10},
		"third": {Rate: 3, Burst: 7},
		"tiny":  {Rate: 0.001, Burst: 6},
		"half":  {Rate: 0.5, Burst: 20},
	}
	steps := []step{
		{0, "slow", 6, -1}, {0, "slow", 6, -1}, {0, "slow", 4, -1}, {0, "slow", 1, -1},
		{time.Second, "slow", 1, -1}, {1500 * time.Millisecond, "slow", 2, -1}, {3 * time.Second, "slow", 11, -1},
		{10 * time.Second, "slow", 10, 1}, {10 * time.Second, "slow", 9, 0}, {10 * time.Second, "slow", 10, -1},
		{0, "third", 2, -1}, {0, "third", 2, -1}, {0, "third", 2, -1}, {0, "third", 2, -1},
		{time.Second / 3, "third", 2, -1}, {time.Second, "third", 3, 1}, {2 * time.Second, "third", 7, -1},
		{0, "tiny", 6, 1}, {0, "tiny", 6, -1}, {0, "tiny", 5, -1}, {0, "tiny", 1, 0}, {0, "tiny", 1, -1},
		{0, "half", 20, 0}, {0, "half", 20, 6}, {time.Second, "half", 6, -1}, {2 * time.Second, "half", 1, -1},
		{0, "nobody", 1, -1},
	}
	local := ratelimit.NewKeyed(limits)
	shared := in.c.Budgets(limits)
	for i, s := range steps {
		now := t0.Add(s.at)
		want, got := local.Reserve(s.key, s.cost, now), shared.Reserve(s.key, s.cost, now)
		if seen(got) != seen(want) {
			t.Fatalf("step %d (%s costs %d at +%v): Redis answered %+v, the in-process bucket %+v",
				i, s.key, s.cost, s.at, seen(got), seen(want))
		}
		if d := got.RetryAfter - want.RetryAfter; d > time.Millisecond || d < -time.Millisecond {
			t.Fatalf("step %d: retry after %v in Redis, %v in process", i, got.RetryAfter, want.RetryAfter)
		}
		if s.refund >= 0 && want.Allowed {
			wc, gc := want.RefundTo(s.refund, now), got.RefundTo(s.refund, now)
			if seen(got) != seen(want) || gc != wc {
				t.Fatalf("step %d: after RefundTo(%d) Redis says %+v (charged %d), in process %+v (charged %d)",
					i, s.refund, seen(got), gc, seen(want), wc)
			}
		}
	}
	if !in.c.Up() {
		t.Fatalf("the budgets fell back to local buckets: %s", in.logs)
	}
}

// Three instances on one Redis share a key's budget: burst 20 lets 20
// requests through in total, not 20 from each, and what the rate refills
// is shared too (Redis's clock pinned to the instants given, 5s apart).
func TestInstancesShareOneBudget(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	limits := map[string]ratelimit.Limit{"k": {Rate: 1, Burst: 20}, "other": {Rate: 1, Burst: 20}}
	var budgets []*fleet.Budgets
	for range 3 {
		budgets = append(budgets, pinned(t, u, prefix, fleet.Options{}).c.Budgets(limits))
	}
	allowed := 0
	for i := range 60 {
		if budgets[i%3].Reserve("k", 1, t0).Allowed {
			allowed++
		}
	}
	if allowed != 20 {
		t.Fatalf("three instances let %d requests of a burst-20 key through, want 20 in total", allowed)
	}
	// Five seconds refill five tokens, for the fleet as a whole.
	allowed = 0
	for i := range 30 {
		if budgets[i%3].Reserve("k", 1, t0.Add(5*time.Second)).Allowed {
			allowed++
		}
	}
	if allowed != 5 {
		t.Fatalf("after 5s at 1/s the fleet let %d more through, want 5", allowed)
	}
	if d := budgets[1].Reserve("other", 20, t0); !d.Allowed {
		t.Fatalf("another key was slowed by k: %+v", d)
	}
}

// Refunds made by one instance are seen by the others: a 304 kept at 1 and
// refused input given back whole.
func TestRefundsAreShared(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	limits := map[string]ratelimit.Limit{"k": {Rate: 0.001, Burst: 20}}
	a := open(t, u, prefix, fleet.Options{}).c.Budgets(limits)
	b := open(t, u, prefix, fleet.Options{}).c.Budgets(limits)
	d := a.Reserve("k", 6, t0)
	if got := d.RefundTo(1, t0); got != 1 || d.Remaining != 19 {
		t.Fatalf("a 304 refunded to 1: charged %d, remaining %d; want 1 and 19", got, d.Remaining)
	}
	d = a.Reserve("k", 6, t0)
	if got := d.RefundTo(0, t0); got != 0 || d.Remaining != 19 {
		t.Fatalf("refused input refunded to 0: charged %d, remaining %d; want 0 and 19", got, d.Remaining)
	}
	if d := b.Reserve("k", 19, t0); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("the other instance sees %+v, want the 19 tokens the refunds left", d)
	}
}

// Concurrent charges from several instances never overspend the budget.
func TestConcurrentChargesNeverOverspend(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	limits := map[string]ratelimit.Limit{"k": {Rate: 0.001, Burst: 100}}
	var budgets []*fleet.Budgets
	for range 3 {
		budgets = append(budgets, open(t, u, prefix, fleet.Options{}).c.Budgets(limits))
	}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			for range 10 {
				if budgets[i%3].Reserve("k", 1, t0).Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if allowed.Load() != 100 {
		t.Fatalf("allowed %d requests from a shared bucket of 100", allowed.Load())
	}
}

// When Redis goes away the budgets keep answering from the instance's own
// buckets with the same limits, one warning is logged (not one per
// request), the state is reported down once; when Redis is back the probe
// finds it and the budgets are shared again without a restart.
func TestRedisCutFallsBackAndRecovers(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	relayed, relay := relaytest.RelayedURL(t, u, "6379")
	limits := map[string]ratelimit.Limit{"k": {Rate: 0.001, Burst: 10}}
	in := open(t, relayed, prefix, fleet.Options{})
	other := open(t, u, prefix, fleet.Options{}).c.Budgets(limits)
	b := in.c.Budgets(limits)
	if d := b.Reserve("k", 4, t0); !d.Allowed || d.Remaining != 6 {
		t.Fatalf("before the cut: %+v", d)
	}

	relay.Stop()
	for i := range 30 {
		d := b.Reserve("k", 1, t0)
		if i < 10 && (!d.Allowed || d.Remaining != 9-i) {
			t.Fatalf("request %d with Redis cut: %+v, want served from a full local bucket of 10", i, d)
		}
		if i >= 10 && (d.Allowed || d.Limit != 10) {
			t.Fatalf("request %d with Redis cut: %+v, want the local bucket's limit to hold", i, d)
		}
	}
	if in.c.Up() {
		t.Fatal("Up() is true with Redis cut")
	}
	if n := strings.Count(in.logs.String(), "redis unreachable"); n != 1 {
		t.Fatalf("%d warnings for one outage, want 1:\n%s", n, in.logs)
	}
	if got := in.states.all(); len(got) != 2 || got[0] != true || got[1] != false {
		t.Fatalf("states reported %v, want [true false]", got)
	}

	relay.Start()
	waitUp(t, in.c)
	if got := in.states.all(); len(got) != 3 || got[2] != true {
		t.Fatalf("states reported %v, want [true false true]", got)
	}
	if !strings.Contains(in.logs.String(), "redis answers again") {
		t.Fatalf("no notice that Redis is back:\n%s", in.logs)
	}
	// Shared again: the 4 tokens charged before the cut and 6 charged by
	// the other instance now leave nothing to this one.
	if d := other.Reserve("k", 6, t0); !d.Allowed {
		t.Fatalf("the other instance: %+v", d)
	}
	if d := b.Reserve("k", 1, t0); d.Allowed || d.Remaining != 0 {
		t.Fatalf("after Redis came back: %+v, want the shared budget (empty)", d)
	}
}

// waitUp waits (at most 10s) for c's probe to find Redis.
func waitUp(t *testing.T, c *fleet.Client) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !c.Up() {
		if time.Now().After(deadline) {
			t.Fatal("Redis is back but the client still says down after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An instance started while Redis is away serves from its own buckets and
// shares as soon as Redis answers.
func TestStartsWithoutRedis(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	relayed, relay := relaytest.RelayedURL(t, u, "6379")
	relay.Stop()
	in := open(t, relayed, prefix, fleet.Options{})
	if in.c.Up() {
		t.Fatal("Up() with Redis away")
	}
	if !strings.Contains(in.logs.String(), "redis does not answer") {
		t.Fatalf("no warning at start:\n%s", in.logs)
	}
	b := in.c.Budgets(map[string]ratelimit.Limit{"k": {Rate: 1, Burst: 5}})
	if d := b.Reserve("k", 5, t0); !d.Allowed {
		t.Fatalf("without Redis: %+v, want served locally", d)
	}
	relay.Start()
	waitUp(t, in.c)
	if d := b.Reserve("k", 5, t0); !d.Allowed {
		t.Fatalf("Redis back, a full shared bucket: %+v", d)
	}
	if n := len(fleettest.Keys(t, u, prefix)); n != 1 {
		t.Fatalf("%d keys in Redis, want the one budget", n)
	}
}

// A budget's key expires once its bucket is full again (plus a margin), so
// Redis keeps nothing for idle keys.
func TestBudgetKeysExpire(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	in := open(t, u, prefix, fleet.Options{})
	b := in.c.Budgets(map[string]ratelimit.Limit{"k": {Rate: 1, Burst: 5}})
	now := time.Now()
	d := b.Reserve("k", 5, now)
	if len(fleettest.Keys(t, u, prefix)) != 1 {
		t.Fatal("no key after a charge")
	}
	d.RefundTo(0, now)
	if keys := fleettest.Keys(t, u, prefix); len(keys) != 0 {
		t.Fatalf("a full bucket still has keys %v", keys)
	}
}

// Instances share an upstream's outbound rate: each call books the next
// slot of one bucket, so two instances making three calls each at rate 10,
// burst 2 wait 0, 0, 100ms, 200ms, 300ms, 400ms in turn, as one would
// (Redis's clock pinned to the instances' fixed time).
func TestInstancesShareAnOutboundRate(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	var mu sync.Mutex
	var waits []time.Duration
	record := func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return nil
	}
	o := fleet.Options{Now: func() time.Time { return t0 }, Sleep: record}
	a := pinned(t, u, prefix, o).c.Rate("geocoder", ratelimit.Limit{Rate: 10, Burst: 2})
	b := pinned(t, u, prefix, o).c.Rate("geocoder", ratelimit.Limit{Rate: 10, Burst: 2})
	for i := range 6 {
		r := a
		if i%2 == 1 {
			r = b
		}
		shared, err := r.Wait(context.Background())
		if !shared || err != nil {
			t.Fatalf("call %d: shared %v, err %v", i, shared, err)
		}
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond}
	if len(waits) != len(want) {
		t.Fatalf("waits %v, want %v (the first two calls are the burst)", waits, want)
	}
	for i := range want {
		if d := waits[i] - want[i]; d > time.Microsecond || d < -time.Microsecond {
			t.Fatalf("waits %v, want %v", waits, want)
		}
	}
	// A call whose slot would come after its deadline is not booked.
	ctx, cancel := context.WithDeadline(context.Background(), t0.Add(200*time.Millisecond))
	defer cancel()
	if _, err := a.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a slot 500ms away with 200ms left: err %v, want a deadline error", err)
	}
}

// The outbound rate paces through Redis in real time too, and falls back to
// the Outbound's own bucket while Redis is cut.
func TestOutboundFallsBackWhileRedisIsCut(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	relayed, relay := relaytest.RelayedURL(t, u, "6379")
	in := open(t, relayed, prefix, fleet.Options{})
	l := ratelimit.Limit{Rate: 1000, Burst: 1}
	out := ratelimit.NewOutbound(l, 0)
	out.Share(in.c.Rate("flood", l))
	acquire := func() {
		t.Helper()
		release, err := out.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	acquire()
	if len(fleettest.Keys(t, u, prefix)) != 1 {
		t.Fatal("a paced call left no shared bucket in Redis")
	}
	relay.Stop()
	for range 5 {
		acquire()
	}
	if in.c.Up() {
		t.Fatal("Up() with Redis cut")
	}
	if n := strings.Count(in.logs.String(), "redis unreachable"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, in.logs)
	}
}

// A Redis URL that cannot be used is refused without repeating the URL,
// which may hold a password.
func TestBadURLsAreRefusedWithoutThePassword(t *testing.T) {
	for _, u := range []string{"http://:hunter2@h:6379", "redis://:hunter2@h:6379/x", "redis://:hunter2@h:bad/0", "redis://:hunter2@h/0?bogus=1"} {
		err := fleet.CheckURL(u)
		if err == nil {
			t.Errorf("%s accepted", u)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error for a bad URL shows the password: %v", err)
		}
	}
	if err := fleet.CheckURL("redis://:hunter2@127.0.0.1:6379/0"); err != nil {
		t.Fatal(err)
	}
}
