// Package fleet is what several propertyd instances share through Redis:
// the API keys' budgets (Budgets), the upstreams' outbound rates (Rate) and
// concurrency caps (Slots), and the leases that make one upstream call per
// key across the fleet (Leases), so that one connection, one health state,
// one warning and one metric cover all of it. It is the only package that
// imports go-redis, and it hands no Redis types to callers. It sits below
// ratelimit because what it shares are limits.
//
// Redis is a help, never a dependency of serving: when it cannot be reached
// every limit falls back to this instance's own buckets and semaphores, with
// the same limits, a warning is logged once, and a probe with a backoff finds Redis
// again, after which the limits are shared again by themselves.
//
// Budgets are kept by GCRA (the generic cell rate algorithm), the token
// bucket written as one timestamp per budget, in a short Lua script so that
// a charge is one atomic round trip. The script reads Redis's clock, as the
// slot scripts do, so the instances of a fleet agree about every budget
// whatever their own clocks say; the time callers pass in is that of the
// fallback to their own buckets.
package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts every Redis key propertyd writes, so that one Redis
// can serve other things too.
const DefaultPrefix = "propertyd:"

// DefaultTimeout bounds one Redis call: a Redis that does not answer in
// time is treated as down rather than holding up requests.
const DefaultTimeout = 250 * time.Millisecond

// DefaultBackoff is the wait before probe attempt n (1, 2, ...) once Redis
// could not be reached: 100ms doubling up to 5s, so a short blip is over in
// a fraction of a second and a long outage costs one ping every 5s.
func DefaultBackoff(attempt int) time.Duration {
	d := 100 * time.Millisecond
	for i := 1; i < attempt && d < 5*time.Second; i++ {
		d *= 2
	}
	return min(d, 5*time.Second)
}

// Options tunes a Client. The zero value uses the defaults.
type Options struct {
	// Prefix starts every key (DefaultPrefix when empty). Instances of one
	// fleet must use the same; deployments sharing a Redis must not.
	Prefix string
	// Timeout bounds each Redis call (DefaultTimeout when zero).
	Timeout time.Duration
	// Backoff is the wait before each probe while Redis is down
	// (DefaultBackoff when nil).
	Backoff func(attempt int) time.Duration
	// Logger receives the warning that Redis went away and the notice that
	// it is back (slog.Default when nil).
	Logger *slog.Logger
	// OnState, when set, is told whether Redis answers: once by Open and
	// again at every change. The metrics gauge hangs here.
	OnState func(up bool)
	// Now returns the current time for Rate, to tell how long a call's
	// deadline leaves it (time.Now when nil). The shared buckets themselves
	// go by Redis's clock.
	Now func() time.Time
	// Sleep waits d or until ctx ends, for Rate (a timer when nil).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client is one connection pool to Redis with its health: Up reports whether
// Redis answers, and the Budgets and Rates built from it fall back to their
// own buckets while it does not. Safe for concurrent use.
type Client struct {
	rdb     *redis.Client
	prefix  string
	timeout time.Duration
	backoff func(int) time.Duration
	log     *slog.Logger
	onState func(bool)
	now     func() time.Time
	sleep   func(context.Context, time.Duration) error

	// callersClock makes the budget scripts take the caller's time instead
	// of reading Redis's clock. Only this package's tests set it, to step a
	// budget through fixed instants.
	callersClock bool

	up      atomic.Bool
	mu      sync.Mutex // guards probing and closed
	probing bool
	closed  bool
	done    chan struct{}
	wg      sync.WaitGroup
}

// CheckURL reports whether rawURL is a Redis URL Open accepts
// (redis://[user:password@]host[:port][/db], rediss:// for TLS, or
// unix:///path). Its message never repeats the URL, which may hold a
// password.
func CheckURL(rawURL string) error {
	_, err := parseURL(rawURL)
	return err
}

func parseURL(rawURL string) (*redis.Options, error) {
	if _, err := url.Parse(rawURL); err != nil {
		return nil, errors.New("is not a URL (want redis://[:password@]host:port/db)")
	}
	o, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, errors.New(err.Error())
	}
	return o, nil
}

// Open connects to the Redis at rawURL and pings it. A Redis that does not
// answer is not an error: the Client starts down (warning logged, probe
// started) and the instance serves with its own buckets until Redis
// answers. Only a URL that cannot be used is an error.
func Open(ctx context.Context, rawURL string, o Options) (*Client, error) {
	ro, err := parseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	c := &Client{
		prefix: o.Prefix, timeout: o.Timeout, backoff: o.Backoff, log: o.Logger,
		onState: o.OnState, now: o.Now, sleep: o.Sleep, done: make(chan struct{}),
	}
	if c.prefix == "" {
		c.prefix = DefaultPrefix
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.backoff == nil {
		c.backoff = DefaultBackoff
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	if c.onState == nil {
		c.onState = func(bool) {}
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.sleep == nil {
		c.sleep = sleep
	}
	// A call either answers quickly or counts as Redis being down: no
	// retries inside the client (the fallback is the retry), one dial
	// attempt, and the call's own deadline honoured. Values the URL sets
	// itself (dial_timeout=..., max_retries=...) are kept.
	if ro.DialTimeout == 0 {
		ro.DialTimeout = c.timeout
	}
	if ro.ReadTimeout == 0 {
		ro.ReadTimeout = c.timeout
	}
	if ro.WriteTimeout == 0 {
		ro.WriteTimeout = c.timeout
	}
	if ro.PoolTimeout == 0 {
		ro.PoolTimeout = c.timeout
	}
	if ro.MaxRetries == 0 {
		ro.MaxRetries = -1
	}
	ro.DialerRetries = 1
	ro.ContextTimeoutEnabled = true
	ro.DisableIdentity = true // CLIENT SETINFO is unknown before Redis 7.2
	c.rdb = redis.NewClient(ro)

	pctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if err := c.rdb.Ping(pctx).Err(); err != nil {
		c.log.Warn("redis does not answer: key budgets and upstream rates are per instance until it does",
			"error", err.Error())
		c.onState(false)
		c.startProbe()
		return c, nil
	}
	c.up.Store(true)
	c.onState(true)
	return c, nil
}

// Up reports whether Redis answered last time it was asked: the limits are
// shared while it does and per instance while it does not.
func (c *Client) Up() bool { return c.up.Load() }

// Close stops the probe and closes the connections. Budgets and Rates built
// from c fall back to their own buckets afterwards. Safe to call twice.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.done)
	c.mu.Unlock()
	c.wg.Wait()
	c.up.Store(false)
	return c.rdb.Close()
}

// failed records that a call to Redis failed with err. The first failure of
// an outage logs one warning, reports the state and starts the probe; the
// calls that fail meanwhile (already in flight) change nothing.
func (c *Client) failed(err error) {
	if !c.up.CompareAndSwap(true, false) {
		return
	}
	c.log.Warn("redis unreachable: key budgets and upstream rates are per instance until it answers again",
		"error", err.Error())
	c.onState(false)
	c.startProbe()
}

// blame sorts out a Redis call that failed with err under the caller's ctx.
// When ctx has ended (its deadline may fire on the connection just before
// ctx's own) the failure says nothing of Redis: blame returns the caller's
// error and Redis stays up. Otherwise it marks Redis failed (see failed)
// and returns nil, and the caller falls back to its own limits.
func (c *Client) blame(ctx context.Context, err error) (callerErr error) {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	c.failed(err)
	return nil
}

// renewEvery calls renew every period, each call bounded by the Client's
// timeout, until the returned stop is called, the Client is closed, or
// renew reports that nothing is left to renew (what it kept alive lapsed
// and is another's now). A renewal that fails marks Redis down (once per
// outage) and is tried again next period: what it keeps alive lapses if
// Redis stays away, which is the point of a lease. stop waits for the
// renewal to end and may be called once.
func (c *Client) renewEvery(period time.Duration, renew func(ctx context.Context) (held bool, err error)) (stop func()) {
	quit := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-c.done:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
			held, err := renew(ctx)
			cancel()
			if err != nil {
				c.failed(err)
				continue
			}
			if !held {
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-stopped
	}
}

// newToken is a random holder token: a lease or a slot is given back only
// by the one that took it.
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// startProbe pings Redis after each Backoff until it answers (then the
// limits are shared again) or the Client is closed. One probe runs at most.
func (c *Client) startProbe() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.probing {
		return
	}
	c.probing = true
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for attempt := 1; ; attempt++ {
			t := time.NewTimer(c.backoff(attempt))
			select {
			case <-c.done:
				t.Stop()
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
			err := c.rdb.Ping(ctx).Err()
			cancel()
			if err == nil {
				break
			}
		}
		c.mu.Lock()
		c.probing = false
		c.mu.Unlock()
		c.up.Store(true)
		c.log.Info("redis answers again: key budgets and upstream rates are shared across instances")
		c.onState(true)
	}()
}

// The client library prints its own lines (a failed dial, each time) to
// stderr in a format of its own; the warning a Client logs once per outage
// says what matters, so those lines go to slog.Default at debug level.
func init() { redis.SetLogger(debugLog{}) }

type debugLog struct{}

func (debugLog) Printf(ctx context.Context, format string, v ...any) {
	slog.Default().DebugContext(ctx, fmt.Sprintf(format, v...), "component", "redis")
}

// key is the Redis key of a budget of kind ("key", "upstream") and name.
func (c *Client) key(kind, name string) string { return c.prefix + kind + ":" + name }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
