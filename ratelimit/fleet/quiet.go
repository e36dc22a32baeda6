package fleet

import (
	"context"
	"time"

	"github.com/propertyd/propertyd/ratelimit"
	"github.com/redis/go-redis/v9"
)

// Quiet is one upstream's quiet period kept in Redis: the first instance
// answered rate limited by the upstream starts it, and every instance that
// shares the Redis reads it before each call, so the fleet as a whole
// leaves the upstream alone for as long as its maintainers ask. It is a
// ratelimit.SharedQuiet: while Redis cannot be reached, Until says so and
// each instance keeps its own quiet.
//
// The quiet is one key, <prefix>quiet:<name>, that expires when the quiet
// ends: Redis's clock and its expiry keep the time, so the instances'
// clocks play no part except in reading how much is left. Safe for
// concurrent use.
type Quiet struct {
	c    *Client
	name string
	key  string
}

var _ ratelimit.SharedQuiet = (*Quiet)(nil)

// Quiet returns the shared quiet period named name (the config's role).
func (c *Client) Quiet(name string) *Quiet {
	return &Quiet{c: c, name: name, key: c.key("quiet", name)}
}

// holdScript makes KEYS[1] live at least ARGV[1] milliseconds from now,
// keeping a longer life it already has.
var holdScript = redis.NewScript(`
local left = redis.call('PTTL', KEYS[1])
if left < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 0`)

// Until returns when the quiet ends by this instance's clock: now plus what
// Redis has left of the key (the zero time when there is no quiet).
func (q *Quiet) Until(ctx context.Context) (time.Time, bool) {
	if !q.c.Up() {
		return time.Time{}, false
	}
	cctx, cancel := context.WithTimeout(ctx, q.c.timeout)
	left, err := q.c.rdb.PTTL(cctx, q.key).Result()
	cancel()
	if err != nil {
		q.c.blame(ctx, err)
		return time.Time{}, false
	}
	if left <= 0 {
		// -2 (no key) or -1 (no expiry, which Hold never leaves): no
		// quiet.
		return time.Time{}, true
	}
	return q.c.now().Add(left), true
}

// Hold makes the quiet last at least d from now for the fleet.
func (q *Quiet) Hold(ctx context.Context, d time.Duration) {
	if !q.c.Up() || d <= 0 {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, q.c.timeout)
	defer cancel()
	if err := holdScript.Run(cctx, q.c.rdb, []string{q.key}, d.Milliseconds()).Err(); err != nil {
		q.c.blame(ctx, err)
	}
}
