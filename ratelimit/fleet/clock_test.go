package fleet_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/ratelimit/fleet"
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
)

// Two instances whose clocks differ by 100ms share a key whose burst is
// only 20ms of its rate (100/s, burst 2) as one instance would: a budget in
// Redis is charged at Redis's clock, so the instance behind is not refused
// tokens the bucket holds (a false 429 whose Retry-After is the clocks'
// difference), and the instance ahead is not given tokens the bucket has not
// refilled yet (the fleet over its budget), refunds included.
func TestSkewedClocksShareABudgetAsOneInstance(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	redisNow := fleettest.Clock(t, u)
	l := ratelimit.Limit{Rate: 100, Burst: 2}
	tick := time.Second / 100
	// A charge that fits but for a microsecond of float rounding fits, so
	// the times a decision reports may be that much longer.
	const rounding = 2 * time.Microsecond
	limits := map[string]ratelimit.Limit{"k": l}
	const skew = 50 * time.Millisecond
	behind := open(t, u, prefix, fleet.Options{}).c.Budgets(limits)
	ahead := open(t, u, prefix, fleet.Options{}).c.Budgets(limits)
	type instance struct {
		name string
		b    *fleet.Budgets
		skew time.Duration
	}
	be, ah := instance{"behind", behind, -skew}, instance{"ahead", ahead, skew}

	// phase runs reqs on a full bucket and checks that the fleet charged no
	// more than one bucket holds over the time Redis's clock moved, and that
	// every refusal is one a single bucket would make: its Retry-After is at
	// most the cost's refill time (a false 429 waits for the skew).
	type req struct {
		in         instance
		cost, keep int // keep >= 0: RefundTo(keep) once allowed
	}
	phase := func(name string, reqs ...req) (allowed []bool) {
		t.Helper()
		time.Sleep(time.Duration(3*l.Burst) * tick) // the bucket is full again by any clock
		start := redisNow()
		charged := 0
		for i, r := range reqs {
			now := time.Now().Add(r.in.skew)
			d := r.in.b.Reserve("k", r.cost, now)
			allowed = append(allowed, d.Allowed)
			if !d.Allowed {
				if d.Remaining >= r.cost || d.RetryAfter > time.Duration(r.cost)*tick+rounding || d.Reset > time.Duration(l.Burst)*tick+rounding {
					t.Errorf("%s, request %d (%s, cost %d): refused with remaining %d, Retry-After %v, reset %v; "+
						"one instance would have waited at most %v", name, i, r.in.name, r.cost, d.Remaining,
						d.RetryAfter, d.Reset, time.Duration(r.cost)*tick)
				}
				continue
			}
			if d.Reset > time.Duration(l.Burst)*tick+rounding {
				t.Errorf("%s, request %d (%s): X-RateLimit-Reset from %v, more than the whole burst (%v)",
					name, i, r.in.name, d.Reset, time.Duration(l.Burst)*tick)
			}
			charged += r.cost
			if r.keep >= 0 {
				charged -= r.cost - d.RefundTo(r.keep, now)
			}
		}
		elapsed := redisNow().Sub(start)
		if most := l.Burst + int((elapsed+rounding)/tick); charged > most {
			t.Errorf("%s: the fleet charged %d tokens in %v of Redis's clock; one instance holds at most %d",
				name, charged, elapsed, most)
		}
		return allowed
	}

	// The instance behind, then the one ahead: the one ahead finds the
	// bucket the one behind emptied still empty.
	phase("behind then ahead", req{be, 1, -1}, req{be, 1, -1}, req{ah, 1, -1}, req{ah, 1, -1})
	// The instance ahead empties the bucket; once it is full again the one
	// behind gets the whole burst.
	phase("ahead empties", req{ah, 1, -1}, req{ah, 1, -1})
	if got := phase("behind after a refill", req{be, 1, -1}, req{be, 1, -1}); !got[0] || !got[1] {
		t.Errorf("the instance behind was refused a full bucket (allowed %v): a false 429", got)
	}
	// Refunds: a 304 kept at 1 and refused input at 0 give back what one
	// instance would, whoever charges next.
	// (The one ahead asking 2 of the 1 left is refused, unless a token
	// refilled meanwhile: then it may take both, and the 1 after may not.)
	if got := phase("refunds", req{be, 2, 1}, req{ah, 2, -1}, req{ah, 1, -1}); !got[0] || (!got[1] && !got[2]) {
		t.Errorf("after a refund to 1 of a full bucket, the token left was refused (allowed %v)", got)
	}
	if got := phase("refund to 0", req{ah, 2, 0}, req{be, 2, -1}); !got[0] || !got[1] {
		t.Errorf("refused input refunded to 0 left the bucket short (allowed %v)", got)
	}
	// Many requests in turn, for a while: every refusal is a true one, and
	// the fleet gets no more than the rate.
	var many []req
	for i := range 200 {
		many = append(many, req{[]instance{be, ah}[i%2], 1, -1})
	}
	phase("in turn", many...)
}

// Two instances whose clocks differ by 100ms pace calls to an upstream as
// one instance would: at rate 10/s, burst 2, six calls in turn wait 0, 0,
// 100ms, 200ms, 300ms and 400ms (less the time Redis's clock moved while
// they were booked), not the clocks' difference more or less.
func TestSkewedClocksShareAnOutboundRate(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	redisNow := fleettest.Clock(t, u)
	var mu sync.Mutex
	var waits []time.Duration
	record := func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return nil
	}
	l := ratelimit.Limit{Rate: 10, Burst: 2}
	skewed := func(d time.Duration) *fleet.Rate {
		o := fleet.Options{Now: func() time.Time { return time.Now().Add(d) }, Sleep: record}
		return open(t, u, prefix, o).c.Rate("geocoder", l)
	}
	rates := []*fleet.Rate{skewed(-50 * time.Millisecond), skewed(50 * time.Millisecond)}
	start := redisNow()
	for i := range 6 {
		if shared, err := rates[i%2].Wait(context.Background()); !shared || err != nil {
			t.Fatalf("call %d: shared %v, err %v", i, shared, err)
		}
	}
	elapsed := redisNow().Sub(start)
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond}
	if len(waits) != len(want) {
		t.Fatalf("waits %v, want %v (the first two calls are the burst)", waits, want)
	}
	for i := range want {
		if waits[i] > want[i] || waits[i] < want[i]-elapsed {
			t.Fatalf("waits %v, want %v less at most the %v the bookings took", waits, want, elapsed)
		}
	}
}
