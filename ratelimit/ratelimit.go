// Package ratelimit holds propertyd's token buckets: inbound per API key,
// weighted by request cost (GCRA on one atomic word each, see bucket), and
// outbound per provider, with a concurrency cap (golang.org/x/time/rate's
// waiting limiter). It is the only package that imports x/time/rate, and
// it hands no rate types to callers.
//
// The buckets here are this process's own. A limiter that keeps budgets
// elsewhere (shared by several instances) returns the same Decision, holding
// its charge through a Hold, paces outbound calls through a SharedRate and
// caps them through SharedSlots; this package knows neither where nor how.
//
// Time is always passed in, so tests use fixed instants instead of sleeping.
package ratelimit

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Limit is a token bucket: Rate tokens per second refill a bucket of Burst.
type Limit struct {
	Rate  float64
	Burst int
}

// Keyed holds one bucket per API key name. Keys are fixed at construction,
// so lookups need no lock; each bucket is one atomic word, so concurrent
// charges to a key never wait on each other, and one key exhausting its
// budget never touches another's.
type Keyed struct {
	buckets map[string]*bucket
}

// A bucket is kept by GCRA (the generic cell rate algorithm), the same
// token bucket as the budgets a fleet shares in Redis, so a client sees the
// same headers wherever its budget lives: the bucket is its theoretical
// arrival time (TAT), the instant at which it would be full again. With T
// the interval of one token (1/rate), a bucket of burst B holds
// B - (TAT - now)/T tokens at now (B once TAT is past); a charge of n
// tokens moves TAT to max(TAT, now) + n*T and is allowed when that is at
// most B*T ahead of now; giving n tokens back moves TAT n*T earlier. One
// compare-and-swap per charge: no lock and no allocation on a request's
// path (x/time/rate's reservations took a mutex three times and allocated).
//
// A request is charged at the time it arrived, and one that waited for a
// core may be charged after a request that arrived later: a bucket charges
// at the latest time it has been given, as x/time/rate did, so that the
// late one does not find the bucket emptier than it is (with a burst a
// millisecond's worth, it would be refused).
type bucket struct {
	tat    atomic.Int64 // nanoseconds since epoch
	latest atomic.Int64 // the latest now a charge was made at
	limit  Limit
	// interval is limit.IntervalNanos(), kept: every charge and every
	// reading needs it, and it costs two divisions.
	interval float64
	window   time.Duration // limit.Window(), for every Decision
}

// epoch keeps the nanosecond counts in an int64 for three centuries.
var epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// grace absorbs float rounding: a charge that fits but for rounding fits.
// It is a microsecond, as in the budgets shared in Redis, or a millionth of
// a token when that is less (at a billion tokens a second a microsecond
// would be a thousand tokens). TATs are whole nanoseconds, rounded down,
// so a charge of n tokens may cost up to a nanosecond less than n*T: the
// client's side of the rounding.
const grace = float64(time.Microsecond)

// graceOf is the grace of a bucket whose token interval is t.
func graceOf(t float64) float64 { return min(grace, t/1e6) }

// maxTau caps B*T (about 146 years) so that a TAT always fits an int64; a
// bucket that slow never refills in practice.
const maxTau = float64(1 << 62)

// IntervalNanos is T, the nanoseconds one token of l takes to refill:
// 1/rate, capped so that B*T stays within maxTau (a rate of zero or less
// never refills in practice). Budgets kept elsewhere by the same algorithm
// (ratelimit/fleet) refill at it too.
func (l Limit) IntervalNanos() float64 {
	t := maxTau
	if l.Rate > 0 {
		t = 1e9 / l.Rate
	}
	if l.Burst > 0 {
		t = min(t, maxTau/float64(l.Burst))
	}
	return t
}

// State is what a GCRA bucket of limit l holds when its TAT leads now by
// backlog: the whole tokens left, and reset, how long until it holds one
// token more than that (0 when it is full). With no token left, reset is
// when a request of cost 1 fits, which is what Retry-After says of a
// refused request of cost 1: a client that backs off by either waits as
// long. (It was the time until the bucket is full, a burst's worth of
// refill: 30 s where a request of cost 1 fitted again after 1.) A client
// given remaining and reset can spend no more than remaining within reset,
// the "effective window" of the RateLimit field (see the README).
//
// Keyed reports it, and so do budgets kept elsewhere by the same algorithm
// (ratelimit/fleet), so the rate-limit headers do not depend on where a
// budget lives. precision is how exact backlog is: 0 in this process
// (whole nanoseconds), a microsecond for a clock read in microseconds;
// reset is rounded to it, so that a whole number of seconds stays whole in
// the headers, and a token short of a whole by less than it counts as
// whole.
func (l Limit) State(backlog, precision time.Duration) (remaining int, reset time.Duration) {
	return l.stateAt(l.IntervalNanos(), backlog, precision)
}

// stateAt is State for a token interval t already known.
func (l Limit) stateAt(t float64, backlog, precision time.Duration) (remaining int, reset time.Duration) {
	backlog = max(backlog, 0)
	g := max(float64(precision), graceOf(t))
	tokens := math.Floor((float64(l.Burst)*t - float64(backlog) + g) / t)
	remaining = int(min(max(tokens, 0), float64(l.Burst)))
	if remaining >= l.Burst {
		return remaining, 0
	}
	reset = l.retryAfterAt(t, backlog, remaining+1) // the next token: the same sum as Retry-After's
	if precision > 0 {
		reset = reset.Round(precision)
	}
	return remaining, reset
}

// Window is how long a bucket of limit l takes to fill from empty: Burst
// tokens at Rate (about 146 years for a rate of zero or less, which never
// refills in practice). With Burst, it is the quota policy a client is
// told of (RateLimit-Policy).
func (l Limit) Window() time.Duration {
	return time.Duration(math.Ceil(float64(max(l.Burst, 0)) * l.IntervalNanos()))
}

// RetryAfter is how long until cost tokens fit in a GCRA bucket of limit l
// whose TAT leads now by backlog.
func (l Limit) RetryAfter(backlog time.Duration, cost int) time.Duration {
	return l.retryAfterAt(l.IntervalNanos(), backlog, cost)
}

// retryAfterAt is RetryAfter for a token interval t already known.
func (l Limit) retryAfterAt(t float64, backlog time.Duration, cost int) time.Duration {
	wait := float64(max(backlog, 0)) + float64(cost)*t - float64(l.Burst)*t
	return time.Duration(math.Ceil(max(wait, 0)))
}

func newBucket(l Limit) *bucket {
	b := &bucket{limit: l, interval: l.IntervalNanos(), window: l.Window()}
	b.tat.Store(math.MinInt64 / 2) // long past: the bucket starts full
	b.latest.Store(math.MinInt64 / 2)
	return b
}

func nanos(t time.Time) int64 { return int64(t.Sub(epoch)) }

// at is the time a charge or a reading at now is made at: now, or the
// latest time a charge was made at when that is later.
func (b *bucket) at(now int64) int64 { return max(now, b.latest.Load()) }

// backlog is how far TAT leads now (see at): 0 when the bucket is full.
func (b *bucket) backlog(now int64) time.Duration {
	tat := b.tat.Load()
	return time.Duration(max(tat-b.at(now), 0))
}

// state is what the bucket holds at now (see Limit.State).
func (b *bucket) state(now int64) (remaining int, reset time.Duration) {
	return b.limit.stateAt(b.interval, b.backlog(now), 0)
}

// charge takes cost tokens at now when they fit. It returns whether they
// were taken and the backlog after (before, when refused).
func (b *bucket) charge(cost int, now int64) (bool, time.Duration) {
	for l := b.latest.Load(); now > l && !b.latest.CompareAndSwap(l, now); l = b.latest.Load() {
	}
	most := float64(b.limit.Burst)*b.interval + graceOf(b.interval) // how far TAT may lead now
	for {
		old := b.tat.Load()
		// latest is read after the TAT: a charge publishes its time before
		// its TAT, so a TAT seen here comes with a time at least its own.
		at := b.at(now)
		lead := max(old-at, 0)
		after := float64(lead) + float64(cost)*b.interval
		if after > most {
			return false, time.Duration(lead)
		}
		ahead := int64(after) // whole nanoseconds, rounded down
		if b.tat.CompareAndSwap(old, at+ahead) {
			return true, time.Duration(ahead)
		}
	}
}

// give puts n tokens back; a bucket given more than it misses is full.
func (b *bucket) give(n int) {
	b.tat.Add(-int64(float64(n) * b.interval))
}

// NewKeyed returns buckets for the given key names, each starting full. A
// rate of zero or less never refills: the burst is all there is.
func NewKeyed(limits map[string]Limit) *Keyed {
	k := &Keyed{buckets: make(map[string]*bucket, len(limits))}
	for name, l := range limits {
		k.buckets[name] = newBucket(l)
	}
	return k
}

// Decision is the outcome of charging a request to a key. Limit, Remaining
// and Reset feed the X-RateLimit-* headers whatever the outcome.
type Decision struct {
	// Allowed is true when the tokens were taken.
	Allowed bool
	// Impossible is true when the cost exceeds the key's burst: the request
	// can never pass, however long the client waits.
	Impossible bool
	// RetryAfter is how long until the cost would fit, when not Allowed.
	RetryAfter time.Duration
	// Limit is the bucket size (burst).
	Limit int
	// Remaining is the whole number of tokens left after this decision.
	Remaining int
	// Reset is how long until the bucket holds one token more than
	// Remaining, 0 when it is full (see Limit.State).
	Reset time.Duration
	// Window is how long the bucket takes to fill from empty (see
	// Limit.Window).
	Window time.Duration

	cost int // the tokens the decision still charges
	b    *bucket
	hold Hold // the charge, when a limiter outside this package made the decision
}

// Hold is the charge of an allowed decision made by a limiter outside this
// package, such as budgets shared by several instances, so that RefundTo
// can lower it there.
type Hold interface {
	// Lower gives give tokens back to the budget at now and returns the
	// budget's state after it. ok is false when nothing could be given back
	// (the budget could not be reached): the charge then stands.
	Lower(give int, now time.Time) (remaining int, reset time.Duration, ok bool)
}

// Holding returns d, an allowed decision charging cost tokens, with its
// charge held by h: RefundTo then lowers it through h. It is for limiters
// outside this package; a refused decision holds nothing and is returned as
// it is.
func (d Decision) Holding(h Hold, cost int) Decision {
	if d.Allowed {
		d.hold, d.cost = h, cost
	}
	return d
}

// Reserve charges cost tokens to key at now. A refused request consumes
// nothing. An unknown key gets a zero Decision with Impossible set.
func (k *Keyed) Reserve(key string, cost int, now time.Time) Decision {
	b, ok := k.buckets[key]
	if !ok {
		return Decision{Impossible: true}
	}
	d := Decision{Limit: b.limit.Burst, Window: b.window, b: b}
	at := nanos(now)
	if cost > b.limit.Burst {
		d.Impossible = true
		d.Remaining, d.Reset = b.state(at)
		return d
	}
	allowed, backlog := b.charge(cost, at)
	d.Remaining, d.Reset = b.limit.stateAt(b.interval, backlog, 0)
	if !allowed {
		d.RetryAfter = b.limit.retryAfterAt(b.interval, backlog, cost)
		return d
	}
	d.Allowed, d.cost = true, cost
	return d
}

// RefundTo lowers the charge of an allowed decision to keep tokens, giving
// back the rest: a 304 Not Modified served from stored data costs 1, not
// the full weight of its sections. It is a no-op when the decision was not
// allowed or keep is not below what it still charges. It returns the charge
// that stands, which is what the client paid: 0 for a refused decision, and
// the charge before the refund when a Hold could not give tokens back.
func (d *Decision) RefundTo(keep int, now time.Time) (charged int) {
	keep = max(keep, 0)
	if !d.Allowed || keep >= d.cost {
		return d.charged()
	}
	if d.hold != nil {
		if remaining, reset, ok := d.hold.Lower(d.cost-keep, now); ok {
			d.Remaining, d.Reset, d.cost = remaining, reset, keep
		}
		return d.cost
	}
	d.b.give(d.cost - keep)
	d.cost = keep
	d.Remaining, d.Reset = d.b.state(nanos(now))
	return d.cost
}

// charged is the charge that stands: nothing unless allowed.
func (d *Decision) charged() int {
	if !d.Allowed {
		return 0
	}
	return d.cost
}

// Outbound paces calls to one upstream: at most Rate calls per second with
// bursts of Burst, and at most Concurrency at once. The zero Rate means no
// pacing; zero Concurrency means no cap. Safe for concurrent use.
type Outbound struct {
	lim    *rate.Limiter
	sem    chan struct{}
	shared SharedRate
	slots  SharedSlots

	// quiet is how long no call may start after the upstream said it was
	// rate limited (0: no quiet kept); quietUntil is when this instance's
	// quiet ends (Unix nanoseconds); fleetQuiet shares it.
	quiet      time.Duration
	quietUntil atomic.Int64
	fleetQuiet SharedQuiet
	now        func() time.Time
}

// SharedQuiet is an upstream's quiet period kept beyond this process, so
// that a rate-limit answer one instance gets silences every instance
// calling the upstream. Implementations are safe for concurrent use.
type SharedQuiet interface {
	// Until returns when the quiet ends, the zero time when there is
	// none. shared is false when the quiet cannot be read: the caller
	// then keeps its own.
	Until(ctx context.Context) (until time.Time, shared bool)
	// Hold makes the quiet last at least d from now, for every instance.
	// A quiet that lasts longer already is kept. Failures are not errors:
	// the instance that saw the answer keeps its own quiet anyway.
	Hold(ctx context.Context, d time.Duration)
}

// QuietError is Acquire's error while the upstream is kept quiet: no call
// may start before Until. The caller answers as the upstream would (rate
// limited, retry after Until), without a call.
type QuietError struct {
	Until time.Time
	// Shared is true when the quiet was started by another instance.
	Shared bool
}

func (e *QuietError) Error() string {
	return "the upstream is kept quiet after a rate-limit answer until " + e.Until.UTC().Format(time.RFC3339)
}

// KeepQuiet makes o start no call for at least d after RateLimited is
// called (an upstream whose maintainers ask for quiet after a rate-limit
// answer), shared through s when s is not nil; now is the clock (nil means
// time.Now). Call it before o is used.
func (o *Outbound) KeepQuiet(d time.Duration, s SharedQuiet, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	o.quiet, o.fleetQuiet, o.now = d, s, now
}

// RateLimited tells o that the upstream answered that it is rate limited,
// asking (retryAfter, 0 when it did not say) for a wait: o keeps quiet for
// the longer of the two and the quiet of KeepQuiet, and tells the fleet.
// It returns how long the quiet lasts, 0 when o keeps none.
//
// One answer may be told twice (the transport sees a 429, then the guard
// sees the error the module made of it): a quiet that this instance
// already keeps to within a second of the one asked for is not told to the
// fleet again.
func (o *Outbound) RateLimited(ctx context.Context, retryAfter time.Duration) time.Duration {
	if o == nil || o.quiet <= 0 {
		return 0
	}
	d := max(o.quiet, retryAfter)
	now := o.now().UnixNano()
	until := now + int64(d)
	prev := o.quietUntil.Load()
	for prev < until && !o.quietUntil.CompareAndSwap(prev, until) {
		prev = o.quietUntil.Load()
	}
	if o.fleetQuiet != nil && until-prev >= int64(time.Second) {
		o.fleetQuiet.Hold(context.WithoutCancel(ctx), d)
	}
	return time.Duration(max(prev, until) - now)
}

// checkQuiet returns a *QuietError while o keeps quiet, by its own clock
// or (fleet) the fleet's, which costs a round trip to it.
func (o *Outbound) checkQuiet(ctx context.Context, fleet bool) error {
	if o.quiet <= 0 {
		return nil
	}
	now := o.now()
	if until := o.quietUntil.Load(); now.UnixNano() < until {
		return &QuietError{Until: time.Unix(0, until)}
	}
	if o.fleetQuiet == nil || !fleet {
		return nil
	}
	if until, shared := o.fleetQuiet.Until(ctx); shared && now.Before(until) {
		return &QuietError{Until: until, Shared: true}
	}
	return nil
}

// SharedRate is an upstream's rate kept beyond this process, so that every
// instance calling the upstream draws from one budget. Implementations are
// safe for concurrent use.
type SharedRate interface {
	// Wait returns once one call may start, or with an error when ctx ends
	// first or would end before the call's turn (the error then wraps
	// ctx.Err() or context.DeadlineExceeded). shared is false, and nothing
	// was waited for, when the shared rate cannot be reached: the caller
	// then paces by its own bucket.
	Wait(ctx context.Context) (shared bool, err error)
}

// Share makes o pace by s while s can be reached, and by its own bucket
// (the same Limit) when it cannot. The concurrency cap is ShareSlots'. It
// does nothing on an Outbound without a rate. Call it before o is used.
func (o *Outbound) Share(s SharedRate) {
	if o.lim != nil {
		o.shared = s
	}
}

// SharedSlots is an upstream's concurrency cap kept beyond this process, so
// that every instance calling the upstream takes its calls' slots from one
// set. Implementations are safe for concurrent use.
type SharedSlots interface {
	// Take returns once one of the shared slots is the caller's, with the
	// release that gives it back, or with an error wrapping ctx.Err() (or
	// context.DeadlineExceeded) when ctx ends first. shared is false, and
	// nothing is held, when the shared slots cannot be reached, before or
	// while waiting: the caller then caps by its own semaphore.
	Take(ctx context.Context) (release func(), shared bool, err error)
}

// ShareSlots makes o's concurrency cap hold for every instance sharing s
// while s can be reached, and for this instance alone (the same cap) when it
// cannot. o's own semaphore is still taken first: it is the cap while s is
// away, and it lets no more than the cap of this instance's callers wait on
// s at once. It does nothing on an Outbound without a concurrency cap. Call
// it before o is used.
func (o *Outbound) ShareSlots(s SharedSlots) {
	if o.sem != nil {
		o.slots = s
	}
}

// NewOutbound returns an outbound limiter; see Outbound.
func NewOutbound(l Limit, concurrency int) *Outbound {
	o := &Outbound{}
	if l.Rate > 0 {
		burst := l.Burst
		if burst < 1 {
			burst = 1
		}
		o.lim = rate.NewLimiter(rate.Limit(l.Rate), burst)
	}
	if concurrency > 0 {
		o.sem = make(chan struct{}, concurrency)
	}
	return o
}

// Acquire waits for a concurrency slot and a token, or for ctx to end. The
// caller must call release when the upstream call is over. While o keeps
// quiet (see KeepQuiet) it returns a *QuietError: by its own clock at once,
// before waiting, and by its own and the fleet's once it holds a slot and
// a token (the call that held the slot may have been answered rate
// limited, here or on another instance). The fleet is asked once a call.
func (o *Outbound) Acquire(ctx context.Context) (release func(), err error) {
	release = func() {}
	if o == nil {
		return release, nil
	}
	if err := o.checkQuiet(ctx, false); err != nil {
		return release, err
	}
	release, err = o.take(ctx)
	if err != nil {
		return release, err
	}
	if err := o.checkQuiet(ctx, true); err != nil {
		release()
		return func() {}, err
	}
	return release, nil
}

// take waits for a concurrency slot (o's and the fleet's) and a token.
func (o *Outbound) take(ctx context.Context) (release func(), err error) {
	release = func() {}
	if o.sem != nil {
		select {
		case o.sem <- struct{}{}:
			release = func() { <-o.sem }
		case <-ctx.Done():
			return func() {}, ctx.Err()
		}
		if o.slots != nil {
			free, shared, err := o.slots.Take(ctx)
			if err != nil {
				release()
				return func() {}, err
			}
			if shared {
				local := release
				release = func() { free(); local() }
			}
		}
	}
	if o.lim == nil {
		return release, nil
	}
	if o.shared != nil {
		shared, err := o.shared.Wait(ctx)
		if err != nil {
			release()
			return func() {}, err
		}
		if shared {
			return release, nil
		}
	}
	if err := o.lim.Wait(ctx); err != nil {
		release()
		return func() {}, err
	}
	return release, nil
}
