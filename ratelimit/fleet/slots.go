package fleet

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/propertyd/propertyd/ratelimit"
	"github.com/redis/go-redis/v9"
)

// DefaultSlotLease is how long a concurrency slot stays taken without being
// renewed. A slot is held for one upstream call (until its body is read),
// and calls may outlast it (a provider's timeout is 10s by default), so the
// holder renews it every third of the lease while its call runs: two
// renewals in a row may be lost (a slow Redis answer, a pause) before the
// slot lapses. An instance that dies holding slots stops renewing them, and
// they come back to the fleet within the lease: five seconds keeps the
// calls queued behind a dead instance within a request's deadline (30s in
// the shipped config), and costs a holder one small command every 1.7s.
const DefaultSlotLease = 5 * time.Second

// DefaultSlotPoll and DefaultSlotMaxPoll bound how often a waiter asks for
// a slot: first after 5ms, then twice as long each time, up to every 50ms
// while the slots stay taken. Waiting by polling needs no connection of its
// own (a subscription would hold one per instance); at most the cap's
// number of callers per instance wait at once (the instance's own
// semaphore is taken first), so a full upstream costs the fleet at most 20
// small commands a second per waiter. A slot freed by this instance wakes
// its own waiters at once; one freed by another instance is seen within
// DefaultSlotMaxPoll, short next to an upstream call.
const (
	DefaultSlotPoll    = 5 * time.Millisecond
	DefaultSlotMaxPoll = 50 * time.Millisecond
)

// slotWaiterTTL is how long a waiter keeps its place in line without
// asking again: a waiter whose instance died is dropped from the line
// after this, so that the ones behind it are not held up for long. It is
// well above DefaultSlotMaxPoll plus a Redis call's timeout; a live waiter
// that misses it only goes to the back of the line.
const slotWaiterTTL = time.Second

// SlotOptions tunes Slots. The zero value uses the defaults.
type SlotOptions struct {
	// Lease is how long a slot stays taken unrenewed (DefaultSlotLease when
	// zero).
	Lease time.Duration
	// Poll and MaxPoll bound a waiter's backoff (DefaultSlotPoll and
	// DefaultSlotMaxPoll when zero).
	Poll, MaxPoll time.Duration
	// OnCount, when set, is told how many of this instance's callers wait
	// for a shared slot and how many hold one, at every change (in order:
	// it is called under a lock, so it must be quick). The metrics gauges
	// hang here.
	OnCount func(waiting, holding int)
}

// Slots is one upstream's concurrency cap kept in Redis: every instance
// that shares the Redis takes its calls' slots from this one set, so at
// most limit calls are in flight to the upstream across the fleet. It is a
// ratelimit.SharedSlots: while Redis cannot be reached, Take says so and
// the Outbound it is shared into caps calls by its own semaphore.
//
// The slots are three sorted sets under <prefix>slots:<name>: the holders'
// tokens scored by when their lease ends, the line of waiters scored by
// when they came (so the slots go first come, first served across the
// fleet), and the waiters scored by when they must ask again to keep their
// place. Each change is a short Lua script reading Redis's own clock, so
// the instances' clocks play no part; each first drops the holders whose
// lease ended and the waiters that stopped asking, so the slots of an
// instance that died come back by themselves. Safe for concurrent use.
type Slots struct {
	c     *Client
	name  string
	keys  []string // holders, line, waiters' deadlines
	limit int
	lease time.Duration
	poll  time.Duration
	max   time.Duration

	mu      sync.Mutex
	wake    chan struct{} // closed, and replaced, when this instance frees a slot
	waiting int           // this instance's callers in line
	holding int           // this instance's calls holding a slot
	onCount func(waiting, holding int)
}

var _ ratelimit.SharedSlots = (*Slots)(nil)

// Slots returns the shared concurrency cap named name (the config's role:
// each role has its own rate_limit) of limit calls in flight at once.
func (c *Client) Slots(name string, limit int, o SlotOptions) *Slots {
	k := c.key("slots", name)
	s := &Slots{
		c: c, name: name, keys: []string{k, k + ":line", k + ":asked"}, limit: limit,
		lease: o.Lease, poll: o.Poll, max: o.MaxPoll, wake: make(chan struct{}), onCount: o.OnCount,
	}
	if s.onCount == nil {
		s.onCount = func(int, int) {}
	}
	if s.lease <= 0 {
		s.lease = DefaultSlotLease
	}
	if s.poll <= 0 {
		s.poll = DefaultSlotPoll
	}
	if s.max <= 0 {
		s.max = DefaultSlotMaxPoll
	}
	s.max = max(s.max, s.poll)
	return s
}

// slotNow is the start of every slot script: Redis's clock in milliseconds,
// and the holders whose lease ended and the waiters that stopped asking
// dropped. KEYS are Slots.keys.
const slotNow = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
  redis.call('ZREM', KEYS[2], gone)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
`

// takeScript gives the waiter ARGV[1] a slot of ARGV[2] for ARGV[3]
// milliseconds when one is free and no waiter that came earlier is still
// waiting for it; else it puts the waiter in line (keeping its place if it
// was) for ARGV[4] milliseconds. It returns 1 when the slot was given. Each
// key lives twice as long as the longest entry it was given, so a role
// nobody calls leaves nothing behind.
var takeScript = redis.NewScript(slotNow + `
local limit, lease, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], now, ARGV[1])
end
if redis.call('ZRANK', KEYS[2], ARGV[1]) < limit - redis.call('ZCARD', KEYS[1]) then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], 2 * lease)
  return 1
end
redis.call('ZADD', KEYS[3], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[2], 2 * ttl)
redis.call('PEXPIRE', KEYS[3], 2 * ttl)
return 0`)

// renewSlotScript extends the slot of ARGV[1] by ARGV[2] milliseconds from
// now if it still holds one; it returns 1 when it did. A slot whose lease
// ended is not given back: it may be another's by now.
var renewSlotScript = redis.NewScript(slotNow + `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[2]))
return 1`)

// leaveScript takes ARGV[1] out of the slots altogether: its slot if it
// holds one, its place in line if it waits.
var leaveScript = redis.NewScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 0`)

// Take waits in line for a slot and returns its release once it has one.
// When ctx ends first it leaves the line and returns an error wrapping
// ctx's. When Redis cannot be reached, or stops answering while Take waits,
// it returns at once with shared false and nothing held.
func (s *Slots) Take(ctx context.Context) (release func(), shared bool, err error) {
	c := s.c
	if s.limit <= 0 || !c.Up() {
		return nil, false, nil
	}
	token := newToken()
	wait := s.poll
	s.count(1, 0)
	defer s.count(-1, 0)
	for {
		if err := ctx.Err(); err != nil {
			s.leave(token)
			return nil, true, fmt.Errorf("waiting for a call slot to %s: %w", s.name, err)
		}
		if !c.Up() {
			// Another call found Redis gone; the place in line lapses.
			return nil, false, nil
		}
		s.mu.Lock()
		wake := s.wake
		s.mu.Unlock()
		cctx, cancel := context.WithTimeout(ctx, c.timeout)
		got, err := takeScript.Run(cctx, c.rdb, s.keys, token, s.limit,
			s.lease.Milliseconds(), slotWaiterTTL.Milliseconds()).Int()
		cancel()
		if err != nil {
			if cerr := c.blame(ctx, err); cerr != nil {
				// The script may have run: whatever it gave is given back.
				s.leave(token)
				return nil, true, fmt.Errorf("waiting for a call slot to %s: %w", s.name, cerr)
			}
			return nil, false, nil
		}
		if got == 1 {
			s.count(0, 1)
			return s.hold(token), true, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-wake:
		case <-ctx.Done():
		}
		t.Stop()
		wait = min(2*wait, s.max)
	}
}

// hold renews the slot of token while its call runs and returns its
// release, which stops the renewal, frees the slot and wakes this
// instance's waiters. Failures are not errors: a slot that cannot be
// renewed or freed lapses by itself within the lease.
func (s *Slots) hold(token string) func() {
	c := s.c
	stop := c.renewEvery(s.lease/3, func(ctx context.Context) (bool, error) {
		n, err := renewSlotScript.Run(ctx, c.rdb, s.keys, token, s.lease.Milliseconds()).Int()
		return n == 1, err
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			stop()
			s.leave(token)
			s.count(0, -1)
		})
	}
}

// leave takes token out of the slots in Redis, when Redis answers, and
// wakes this instance's waiters: a slot or a place in line is free.
func (s *Slots) leave(token string) {
	c := s.c
	if c.Up() {
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		if err := leaveScript.Run(ctx, c.rdb, s.keys, token).Err(); err != nil {
			c.failed(err)
		}
		cancel()
	}
	s.mu.Lock()
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// count moves this instance's numbers of waiters and holders by dw and dh
// and reports them.
func (s *Slots) count(dw, dh int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting += dw
	s.holding += dh
	s.onCount(s.waiting, s.holding)
}
