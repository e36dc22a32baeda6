package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultLeaseTTL is how long a lease lives without being renewed. The
// holder renews it every third of that while its call runs, so two renewals
// in a row may be lost (a slow Redis answer, a pause) before the lease
// lapses; an instance that dies holding one stops renewing, and a waiter
// takes the key over within this time. Five seconds is short next to a
// request's deadline (30s in the shipped config), so the clients waiting on
// a dead holder are answered, and long next to a Redis round trip.
const DefaultLeaseTTL = 5 * time.Second

// DefaultLeasePoll is how often a waiter asks whether the lease it waits
// for is free. Waiting by polling needs no connection of its own (a
// subscription would hold one per instance) and there is one waiter per key
// per instance (calls are coalesced within an instance first), so a fleet
// waiting on a key costs a few small commands per poll interval; a waiter
// learns of a release within the interval, well under an upstream call.
const DefaultLeasePoll = 20 * time.Millisecond

// LeaseOptions tunes Leases. The zero value uses the defaults.
type LeaseOptions struct {
	// TTL is how long a lease lives unrenewed (DefaultLeaseTTL when zero).
	TTL time.Duration
	// Poll is how often a waiter asks again (DefaultLeasePoll when zero).
	Poll time.Duration
}

// Leases gives one instance of the fleet at a time the right to make the
// upstream call of a key (see service.Leases). A lease is a Redis key set only
// if absent, holding a random token, with an expiry the holder renews;
// release deletes it only while it still holds that token, so a holder
// whose lease lapsed and was taken over does not free another's. While
// Redis does not answer, Lease returns at once as held: calls are then
// coalesced within each instance only. Safe for concurrent use.
type Leases struct {
	c    *Client
	ttl  time.Duration
	poll time.Duration
}

// Leases returns the Leases of the fleet on c.
func (c *Client) Leases(o LeaseOptions) *Leases {
	l := &Leases{c: c, ttl: o.TTL, poll: o.Poll}
	if l.ttl <= 0 {
		l.ttl = DefaultLeaseTTL
	}
	if l.poll <= 0 {
		l.poll = DefaultLeasePoll
	}
	return l
}

// renewScript extends the lease KEYS[1] to ARGV[2] milliseconds if it still
// holds the token ARGV[1]; it returns 1 when it did.
var renewScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)

// releaseScript deletes the lease KEYS[1] if it still holds the token
// ARGV[1].
var releaseScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// Lease blocks until this instance holds key's lease, or ctx ends (its
// error is then returned), and returns the function that releases it. When
// Redis does not answer, or stops answering while this one waits, it
// returns at once as held with a release that does nothing.
func (l *Leases) Lease(ctx context.Context, key string) (release func(), err error) {
	c := l.c
	rk := c.key("lease", key)
	token := newToken()
	for {
		if !c.Up() {
			return func() {}, nil
		}
		cctx, cancel := context.WithTimeout(ctx, c.timeout)
		ok, err := c.rdb.SetNX(cctx, rk, token, l.ttl).Result()
		cancel()
		if err != nil {
			if cerr := c.blame(ctx, err); cerr != nil {
				return nil, cerr
			}
			return func() {}, nil
		}
		if ok {
			return l.hold(rk, token), nil
		}
		if err := c.sleep(ctx, l.poll); err != nil {
			return nil, err
		}
	}
}

// hold renews the lease rk while it is held and returns its release, which
// stops the renewal and deletes the lease if it is still ours. Failures
// are not errors: a lease that cannot be renewed lapses, and one that
// cannot be deleted expires by itself.
func (l *Leases) hold(rk, token string) func() {
	c := l.c
	stop := c.renewEvery(l.ttl/3, func(ctx context.Context) (bool, error) {
		n, err := renewScript.Run(ctx, c.rdb, []string{rk}, token, l.ttl.Milliseconds()).Int()
		return n == 1, err
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			stop()
			if !c.Up() {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
			defer cancel()
			if err := releaseScript.Run(ctx, c.rdb, []string{rk}, token).Err(); err != nil {
				c.failed(err)
			}
		})
	}
}
