package fleet

import (
	"context"
	"fmt"
	"time"

	"github.com/propertyd/propertyd/ratelimit"
)

// Rate is one upstream's outbound rate kept in Redis: every instance that
// shares the Redis draws its calls to the upstream from this one bucket. It
// is a ratelimit.SharedRate: while Redis cannot be reached, Wait says so and
// the Outbound it is shared into paces by its own bucket. Safe for
// concurrent use.
type Rate struct {
	c     *Client
	name  string
	key   string
	limit ratelimit.Limit
}

var _ ratelimit.SharedRate = (*Rate)(nil)

// noDeadline is how far ahead a call without a deadline may be booked.
const noDeadline = time.Hour

// Rate returns the shared rate named name (the config's role: each role has
// its own rate_limit) with limit l; a burst below 1 is 1, as in
// ratelimit.NewOutbound.
func (c *Client) Rate(name string, l ratelimit.Limit) *Rate {
	l.Burst = max(l.Burst, 1)
	return &Rate{c: c, name: name, key: c.key("upstream", name), limit: l}
}

// Wait books the next free slot of the shared bucket and sleeps until it
// comes. A slot later than ctx's deadline is not booked: Wait returns an
// error wrapping context.DeadlineExceeded at once, as x/time/rate does. A
// ctx that ends while Wait sleeps gives the slot back.
func (r *Rate) Wait(ctx context.Context) (shared bool, err error) {
	if r.limit.Rate <= 0 || !r.c.Up() {
		return false, nil
	}
	now := r.c.now()
	maxWait := noDeadline
	if dl, ok := ctx.Deadline(); ok {
		maxWait = dl.Sub(now)
	}
	if err := ctx.Err(); err != nil {
		return true, err
	}
	if maxWait < 0 {
		return true, fmt.Errorf("pacing calls to %s: %w", r.name, context.DeadlineExceeded)
	}
	cctx, cancel := context.WithTimeout(ctx, r.c.timeout)
	booked, backlog, err := r.c.reserve(cctx, r.key, r.limit, 1, now, maxWait)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return true, ctx.Err()
		}
		r.c.failed(err)
		return false, nil
	}
	if !booked {
		return true, fmt.Errorf("pacing calls to %s: the next free slot is after the deadline: %w", r.name, context.DeadlineExceeded)
	}
	// The slot booked starts when the bucket held the one token: B - 1
	// tokens' time before the TAT after the booking, counted from Redis's
	// now as the booking was.
	wait := r.limit.RetryAfter(backlogOf(backlog), 0)
	if wait <= 0 {
		return true, nil
	}
	if err := r.c.sleep(ctx, wait); err != nil {
		gctx, cancel := context.WithTimeout(context.Background(), r.c.timeout)
		defer cancel()
		if _, rerr := r.c.refund(gctx, r.key, r.limit, 1, r.c.now()); rerr != nil {
			r.c.failed(rerr)
		}
		return true, err
	}
	return true, nil
}
