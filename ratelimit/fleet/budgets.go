package fleet

import (
	"context"
	"time"

	"github.com/propertyd/propertyd/ratelimit"
)

// Budgets are the API keys' token buckets kept in Redis, so that a key's
// rate and burst hold across every instance that shares the Redis: a key
// with burst 20 gets 20 in total, not 20 from each. It answers like
// ratelimit.Keyed (same Decision, same headers, refunds included) and is
// one while Redis cannot be reached: its own in-process buckets, with the
// same limits, take over until Redis answers again. Safe for concurrent
// use.
type Budgets struct {
	c      *Client
	limits map[string]ratelimit.Limit
	local  *ratelimit.Keyed
}

// Budgets returns the budgets of the given key names, shared through c.
func (c *Client) Budgets(limits map[string]ratelimit.Limit) *Budgets {
	own := make(map[string]ratelimit.Limit, len(limits))
	for k, l := range limits {
		own[k] = l
	}
	return &Budgets{c: c, limits: own, local: ratelimit.NewKeyed(own)}
}

// Reserve charges cost tokens to key, as ratelimit.Keyed.Reserve does: a
// refused request consumes nothing, a cost above the burst is Impossible,
// an unknown key gets a zero Decision with Impossible set. The decision is
// made in Redis, at Redis's clock, when it answers within the Client's
// timeout, else by this instance's own bucket at now: now is the time of
// that fallback only, so that every instance charges a shared budget at one
// clock whatever its own says (see reserveScript).
func (b *Budgets) Reserve(key string, cost int, now time.Time) ratelimit.Decision {
	l, ok := b.limits[key]
	if !ok || l.Rate <= 0 {
		return b.local.Reserve(key, cost, now)
	}
	if !b.c.Up() {
		return b.local.Reserve(key, cost, now)
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.c.timeout)
	defer cancel()
	rkey := b.c.key("key", key)
	allowed, backlog, err := b.c.reserve(ctx, rkey, l, cost, now, 0)
	if err != nil {
		b.c.failed(err)
		return b.local.Reserve(key, cost, now)
	}
	d := ratelimit.Decision{Allowed: allowed, Limit: l.Burst, Window: l.Window()}
	d.Remaining, d.Reset = l.State(backlogOf(backlog), time.Microsecond)
	switch {
	case cost > l.Burst:
		d.Impossible = true
	case !allowed:
		d.RetryAfter = l.RetryAfter(backlogOf(backlog), cost)
	default:
		d = d.Holding(&hold{c: b.c, key: rkey, limit: l}, cost)
	}
	return d
}

// hold is a charge made in Redis, for RefundTo.
type hold struct {
	c     *Client
	key   string
	limit ratelimit.Limit
}

// Lower gives tokens back in Redis, at Redis's clock as the charge was
// made (now serves only this package's tests). When Redis cannot be
// reached the charge stands (ok is false): a refund is never made up
// locally, since the local bucket was not charged.
func (h *hold) Lower(give int, now time.Time) (int, time.Duration, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), h.c.timeout)
	defer cancel()
	backlog, err := h.c.refund(ctx, h.key, h.limit, give, now)
	if err != nil {
		h.c.failed(err)
		return 0, 0, false
	}
	remaining, reset := h.limit.State(backlogOf(backlog), time.Microsecond)
	return remaining, reset, true
}
