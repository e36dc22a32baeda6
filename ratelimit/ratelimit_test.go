package ratelimit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Reset is when the bucket holds one token more than Remaining: with none
// left, when a request of cost 1 fits, as Retry-After says of a refused
// one; 0 when the bucket is full. A client backing off by either waits
// as long, not the burst's refill.
func TestResetIsTheNextTokenAndMatchesRetryAfterOfCostOne(t *testing.T) {
	l := Limit{Rate: 1, Burst: 30}
	for _, c := range []struct {
		backlog       time.Duration
		remaining     int
		reset         time.Duration
		retryAfterOne time.Duration
	}{
		{0, 30, 0, 0},
		{time.Second, 29, time.Second, 0},
		{1500 * time.Millisecond, 28, 500 * time.Millisecond, 0},
		{29 * time.Second, 1, time.Second, 0},
		{30 * time.Second, 0, time.Second, time.Second},
		{29500 * time.Millisecond, 0, 500 * time.Millisecond, 500 * time.Millisecond},
	} {
		remaining, reset := l.State(c.backlog, 0)
		if remaining != c.remaining || reset != c.reset {
			t.Errorf("backlog %v: remaining %d, reset %v; want %d and %v", c.backlog, remaining, reset, c.remaining, c.reset)
		}
		if got := l.RetryAfter(c.backlog, 1); got != c.retryAfterOne {
			t.Errorf("backlog %v: retry after %v for cost 1, want %v", c.backlog, got, c.retryAfterOne)
		}
	}
	k := NewKeyed(map[string]Limit{"a": l})
	k.Reserve("a", 30, t0)
	d := k.Reserve("a", 1, t0)
	if d.Allowed || d.Remaining != 0 || d.Reset != d.RetryAfter || d.Reset != time.Second {
		t.Fatalf("cost 1 on an empty bucket: %+v; want refused, reset = retry after = 1s", d)
	}
	if d := k.Reserve("a", 6, t0); d.Reset != time.Second || d.RetryAfter != 6*time.Second {
		t.Fatalf("cost 6 on an empty bucket: %+v; want reset 1s (the next token), retry after 6s", d)
	}
}

func TestReserveWeightedCostAndRefusalConsumesNothing(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 1, Burst: 10}})
	d := k.Reserve("a", 6, t0)
	if !d.Allowed || d.Remaining != 4 || d.Limit != 10 {
		t.Fatalf("first request of cost 6: got %+v, want allowed with 4 remaining", d)
	}
	if d.Reset != time.Second || d.Window != 10*time.Second {
		t.Fatalf("reset = %v, window %v; want 1s until a fifth token at 1/s, and 10s to fill 10", d.Reset, d.Window)
	}
	d = k.Reserve("a", 6, t0)
	if d.Allowed || d.Impossible {
		t.Fatalf("second request of cost 6 with 4 left: got %+v, want refused", d)
	}
	if d.RetryAfter != 2*time.Second {
		t.Fatalf("retry after = %v, want 2s", d.RetryAfter)
	}
	if d.Remaining != 4 {
		t.Fatalf("a refused request consumed tokens: remaining %d, want 4", d.Remaining)
	}
	if d := k.Reserve("a", 4, t0); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("cost 4 with 4 left: got %+v", d)
	}
	if d := k.Reserve("a", 1, t0.Add(time.Second)); !d.Allowed {
		t.Fatalf("after 1s one token is back: got %+v", d)
	}
}

func TestCostAboveBurstIsImpossible(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 100, Burst: 5}})
	d := k.Reserve("a", 6, t0)
	if d.Allowed || !d.Impossible {
		t.Fatalf("cost 6 over burst 5: got %+v, want impossible", d)
	}
	if d.Remaining != 5 {
		t.Fatalf("impossible request consumed tokens: %+v", d)
	}
}

func TestUnknownKeyIsImpossible(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 1, Burst: 1}})
	if d := k.Reserve("nobody", 1, t0); d.Allowed || !d.Impossible {
		t.Fatalf("unknown key: %+v", d)
	}
}

func TestRefundToZeroRestoresTokens(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 1, Burst: 3}})
	d := k.Reserve("a", 3, t0)
	d.RefundTo(0, t0.Add(500*time.Millisecond))
	if d.Remaining != 3 {
		t.Fatalf("after refund remaining = %d, want 3", d.Remaining)
	}
	if d2 := k.Reserve("a", 3, t0); !d2.Allowed {
		t.Fatalf("refunded tokens not usable: %+v", d2)
	}
}

func TestRefundToKeepsTheGivenCharge(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 0.001, Burst: 6}})
	d := k.Reserve("a", 6, t0)
	d.RefundTo(1, t0)
	if d.Remaining != 5 {
		t.Fatalf("after refunding to 1 remaining = %d, want 5", d.Remaining)
	}
	d.RefundTo(1, t0) // the charge is 1 already: nothing more is given back
	if d.Remaining != 5 {
		t.Fatalf("a second refund changed remaining to %d", d.Remaining)
	}
	if d2 := k.Reserve("a", 6, t0); d2.Allowed {
		t.Fatal("the kept token was given back too")
	}
	if d3 := k.Reserve("a", 5, t0); !d3.Allowed {
		t.Fatalf("the refunded tokens are not usable: %+v", d3)
	}
	denied := k.Reserve("a", 1, t0)
	denied.RefundTo(0, t0) // a refused decision holds nothing to refund
	if denied.Allowed || denied.Remaining != 0 {
		t.Fatalf("refund of a refused decision: %+v", denied)
	}
}

func TestKeysAreIndependent(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 1, Burst: 2}, "b": {Rate: 1, Burst: 2}})
	k.Reserve("a", 2, t0)
	if d := k.Reserve("a", 1, t0); d.Allowed {
		t.Fatal("key a should be exhausted")
	}
	if d := k.Reserve("b", 2, t0); !d.Allowed {
		t.Fatalf("key b slowed by key a: %+v", d)
	}
}

func TestConcurrentReservesNeverOverspend(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 0.001, Burst: 100}})
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				if k.Reserve("a", 1, t0).Allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != 100 {
		t.Fatalf("allowed %d requests from a bucket of 100", allowed.Load())
	}
}

func TestOutboundCapsConcurrency(t *testing.T) {
	o := NewOutbound(Limit{}, 2)
	var cur, peak atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := o.Acquire(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			n := cur.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
			cur.Add(-1)
			release()
		}()
	}
	wg.Wait()
	if peak.Load() > 2 {
		t.Fatalf("peak concurrency %d, want <= 2", peak.Load())
	}
}

func TestOutboundHonoursContext(t *testing.T) {
	o := NewOutbound(Limit{Rate: 0.0001, Burst: 1}, 1)
	release, err := o.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := o.Acquire(ctx); err == nil {
		t.Fatal("second acquire with the only slot taken should fail when ctx ends")
	}
}

// RefundTo reports the charge that stands, which the gateway sends as
// X-Request-Cost: what was kept, the whole charge when nothing was given
// back, nothing for a refused request.
func TestRefundToReportsTheChargeThatStands(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 0.001, Burst: 6}})
	d := k.Reserve("a", 6, t0)
	if got := d.RefundTo(6, t0); got != 6 {
		t.Fatalf("refund to the full charge: charged %d, want 6", got)
	}
	if got := d.RefundTo(1, t0); got != 1 {
		t.Fatalf("refund to 1: charged %d", got)
	}
	if got := d.RefundTo(0, t0); got != 0 || d.Remaining != 6 {
		t.Fatalf("refund to 0: charged %d, remaining %d; want 0 and 6", got, d.Remaining)
	}
	if got := d.RefundTo(0, t0); got != 0 || d.Remaining != 6 {
		t.Fatalf("a second refund to 0: charged %d, remaining %d", got, d.Remaining)
	}
	k.Reserve("a", 6, t0)
	refused := k.Reserve("a", 1, t0)
	if got := refused.RefundTo(0, t0); got != 0 {
		t.Fatalf("a refused request was charged %d", got)
	}
}

// fakeHold is a Hold with function fields.
type fakeHold struct {
	lower func(give int, now time.Time) (int, time.Duration, bool)
}

var _ Hold = fakeHold{}

func (f fakeHold) Lower(give int, now time.Time) (int, time.Duration, bool) {
	return f.lower(give, now)
}

// A decision made elsewhere is refunded through its Hold, which is told how
// many tokens to give back; when the Hold cannot give them back the charge
// stands and the decision is unchanged.
func TestRefundToGoesThroughTheHold(t *testing.T) {
	var gave []int
	works := true
	h := fakeHold{lower: func(give int, _ time.Time) (int, time.Duration, bool) {
		if !works {
			return 0, 0, false
		}
		gave = append(gave, give)
		return 10 - 6 + give, time.Second, true
	}}
	d := Decision{Allowed: true, Limit: 10, Remaining: 4, Reset: 6 * time.Second}.Holding(h, 6)
	works = false
	if got := d.RefundTo(1, t0); got != 6 || d.Remaining != 4 || d.Reset != 6*time.Second {
		t.Fatalf("a refund the hold could not make: charged %d, %+v; want the charge of 6 to stand", got, d)
	}
	works = true
	if got := d.RefundTo(1, t0); got != 1 || d.Remaining != 9 || d.Reset != time.Second {
		t.Fatalf("refund to 1: charged %d, %+v", got, d)
	}
	if got := d.RefundTo(0, t0); got != 0 {
		t.Fatalf("refund to 0: charged %d", got)
	}
	if len(gave) != 2 || gave[0] != 5 || gave[1] != 1 {
		t.Fatalf("the hold was asked to give back %v, want [5 1]", gave)
	}
	refused := Decision{Limit: 10}.Holding(h, 6)
	if got := refused.RefundTo(0, t0); got != 0 || len(gave) != 2 {
		t.Fatalf("a refused decision held a charge: %d", got)
	}
}

// fakeShared is a SharedRate with a function field.
type fakeShared struct {
	wait func(ctx context.Context) (bool, error)
}

var _ SharedRate = fakeShared{}

func (f fakeShared) Wait(ctx context.Context) (bool, error) { return f.wait(ctx) }

// An Outbound sharing its rate paces by the shared rate while it answers and
// by its own bucket while it does not; the concurrency cap stays its own.
func TestOutboundPacesBySharedRateWhenItAnswers(t *testing.T) {
	o := NewOutbound(Limit{Rate: 0.0001, Burst: 1}, 1)
	var asked atomic.Int64
	reachable := true
	o.Share(fakeShared{wait: func(context.Context) (bool, error) {
		asked.Add(1)
		return reachable, nil
	}})
	for i := range 3 {
		release, err := o.Acquire(context.Background())
		if err != nil {
			t.Fatalf("call %d paced by the shared rate: %v (the local bucket of 1 must not be drawn)", i, err)
		}
		release()
	}
	reachable = false
	release, err := o.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := o.Acquire(ctx); err == nil {
		t.Fatal("with the shared rate unreachable the local bucket (1 token) should pace the second call")
	}
	if asked.Load() != 5 {
		t.Fatalf("the shared rate was asked %d times, want 5", asked.Load())
	}
	// Without a rate there is nothing to share.
	free := NewOutbound(Limit{}, 0)
	free.Share(fakeShared{wait: func(context.Context) (bool, error) { t.Fatal("asked"); return true, nil }})
	if _, err := free.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// fakeSlots is a SharedSlots with a function field.
type fakeSlots struct {
	take func(ctx context.Context) (func(), bool, error)
}

var _ SharedSlots = fakeSlots{}

func (f fakeSlots) Take(ctx context.Context) (func(), bool, error) { return f.take(ctx) }

// An Outbound sharing its concurrency cap holds its own slot and a shared
// one while the shared slots answer, and frees both; while they do not,
// its own semaphore caps alone; a wait cut short gives its own slot back.
func TestOutboundSharesItsConcurrencyCap(t *testing.T) {
	o := NewOutbound(Limit{}, 1)
	var held, freed atomic.Int64
	reachable := true
	var fail error
	o.ShareSlots(fakeSlots{take: func(context.Context) (func(), bool, error) {
		if fail != nil {
			return nil, true, fail
		}
		if !reachable {
			return nil, false, nil
		}
		held.Add(1)
		return func() { freed.Add(1) }, true, nil
	}})
	release, err := o.Acquire(context.Background())
	if err != nil || held.Load() != 1 {
		t.Fatalf("acquire: %v, %d shared slots taken", err, held.Load())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := o.Acquire(ctx); err == nil {
		t.Fatal("the instance's own cap of 1 let a second call wait on the shared slots")
	}
	release()
	if freed.Load() != 1 {
		t.Fatal("the shared slot was not freed with the call")
	}
	reachable = false
	release, err = o.Acquire(context.Background())
	if err != nil {
		t.Fatalf("with the shared slots away: %v, want the instance's own cap", err)
	}
	release()
	fail = context.DeadlineExceeded
	if _, err := o.Acquire(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a shared wait past the deadline: %v", err)
	}
	fail = nil
	reachable = true
	release, err = o.Acquire(context.Background())
	if err != nil {
		t.Fatalf("the own slot of a failed wait was not given back: %v", err)
	}
	release()
	// Without a cap there is nothing to share.
	free := NewOutbound(Limit{}, 0)
	free.ShareSlots(fakeSlots{take: func(context.Context) (func(), bool, error) { t.Fatal("asked"); return nil, true, nil }})
	if _, err := free.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A request that arrived first but is charged after a later one (it
// waited for a core) is charged at the later time: with a burst worth a
// millisecond it would otherwise find the bucket a millisecond emptier than
// it is, and be refused.
func TestALateChargeIsMadeAtTheLatestTime(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 1e6, Burst: 1000}}) // 1 ms of tokens
	if d := k.Reserve("a", 500, t0.Add(10*time.Millisecond)); !d.Allowed || d.Remaining != 500 {
		t.Fatalf("500 of 1000 tokens at +10ms: %+v", d)
	}
	d := k.Reserve("a", 400, t0)
	if !d.Allowed || d.Remaining != 100 || d.Reset != time.Microsecond {
		t.Fatalf("400 of the 500 left, stamped +0 but charged after +10ms: %+v, want allowed with 100 left", d)
	}
	d = k.Reserve("a", 200, t0.Add(5*time.Millisecond))
	if d.Allowed || d.RetryAfter != 100*time.Microsecond || d.Remaining != 100 {
		t.Fatalf("200 with 100 left, stamped +5ms: %+v, want refused for 100us", d)
	}
	if d := k.Reserve("a", 200, t0.Add(10*time.Millisecond+100*time.Microsecond)); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("200 once 100 more refilled: %+v", d)
	}
}

// Charging a key is on every request's path: it must not allocate (a
// garbage collection is a pause in every request's latency).
func TestReserveAndRefundDoNotAllocate(t *testing.T) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 1e6, Burst: 1e6}})
	now := t0
	allocs := testing.AllocsPerRun(1000, func() {
		d := k.Reserve("a", 3, now)
		d.RefundTo(1, now)
	})
	if allocs != 0 {
		t.Fatalf("Reserve and RefundTo made %v allocations, want 0", allocs)
	}
}

func BenchmarkReserve(b *testing.B) {
	k := NewKeyed(map[string]Limit{"a": {Rate: 1e9, Burst: 1e9}})
	now := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			k.Reserve("a", 3, now)
		}
	})
}

// An outbound kept quiet after a rate-limit answer starts no call until the
// quiet ends: the longer of its own quiet and the upstream's Retry-After.
// Without KeepQuiet a rate-limit answer changes nothing.
func TestOutboundKeepsQuietAfterARateLimit(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	o := NewOutbound(Limit{}, 1)
	o.KeepQuiet(30*time.Second, nil, clock)
	ctx := context.Background()
	if d := o.RateLimited(ctx, 0); d != 30*time.Second {
		t.Fatalf("RateLimited without Retry-After = %v, want 30s", d)
	}
	now = now.Add(29 * time.Second)
	var qe *QuietError
	if _, err := o.Acquire(ctx); !errors.As(err, &qe) || !qe.Until.Equal(now.Add(time.Second)) {
		t.Fatalf("29 s after a 429: %v; want quiet for 1 s more", err)
	}
	now = now.Add(time.Second)
	release, err := o.Acquire(ctx)
	if err != nil {
		t.Fatalf("30 s after a 429: %v; want the call to start", err)
	}
	release()
	if d := o.RateLimited(ctx, 2*time.Minute); d != 2*time.Minute {
		t.Fatalf("RateLimited with Retry-After 2m = %v, want 2m", d)
	}
	now = now.Add(time.Minute)
	if _, err := o.Acquire(ctx); !errors.As(err, &qe) {
		t.Fatalf("a minute into a 2 minute Retry-After: %v; want quiet", err)
	}
	plain := NewOutbound(Limit{}, 1)
	if d := plain.RateLimited(ctx, time.Minute); d != 0 {
		t.Errorf("an outbound that keeps no quiet kept %v", d)
	}
	if release, err := plain.Acquire(ctx); err != nil {
		t.Errorf("an outbound that keeps no quiet refused a call after a 429: %v", err)
	} else {
		release()
	}
}

// countingQuiet is a SharedQuiet that counts what it is told.
type countingQuiet struct {
	holds []time.Duration
	reads int
}

func (q *countingQuiet) Until(context.Context) (time.Time, bool) { q.reads++; return time.Time{}, true }
func (q *countingQuiet) Hold(_ context.Context, d time.Duration) { q.holds = append(q.holds, d) }

// One rate-limit answer told twice in a row (the transport sees a 429, the
// guard the error the module made of it) is told to the fleet once; an
// answer once the quiet is nearly over, or asking for longer, is told
// again. A quiet kept longer already is what RateLimited says is left.
func TestOutboundTellsTheFleetOfOneRateLimitOnce(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	fleet := &countingQuiet{}
	o := NewOutbound(Limit{}, 1)
	o.KeepQuiet(30*time.Second, fleet, clock)
	ctx := context.Background()
	o.RateLimited(ctx, 0)
	now = now.Add(5 * time.Millisecond)
	if d := o.RateLimited(ctx, 30*time.Second); d != 30*time.Second || len(fleet.holds) != 1 {
		t.Fatalf("the same answer told again: quiet %v, fleet told %v; want 30s, told once", d, fleet.holds)
	}
	now = now.Add(10 * time.Second)
	if d := o.RateLimited(ctx, 0); d != 30*time.Second || len(fleet.holds) != 2 {
		t.Errorf("another answer 10 s into the quiet: quiet %v, fleet told %v; want 30s more, told again", d, fleet.holds)
	}
	o.RateLimited(ctx, 5*time.Minute)
	now = now.Add(time.Minute)
	if d := o.RateLimited(ctx, 0); d != 4*time.Minute || len(fleet.holds) != 3 {
		t.Errorf("an answer a minute into a 5 minute quiet: quiet %v, fleet told %v; want the 4 minutes left, not told", d, fleet.holds)
	}
}

// A call asks the fleet whether it keeps quiet once, after it holds its
// slot and token (each ask is a round trip to Redis): not before waiting
// too.
func TestAcquireAsksTheFleetOnceACall(t *testing.T) {
	fleet := &countingQuiet{}
	o := NewOutbound(Limit{Rate: 1000, Burst: 10}, 1)
	o.KeepQuiet(30*time.Second, fleet, nil)
	for range 3 {
		release, err := o.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if fleet.reads != 3 {
		t.Fatalf("3 calls asked the fleet's quiet %d times, want 3", fleet.reads)
	}
}
