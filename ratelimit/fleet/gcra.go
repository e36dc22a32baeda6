package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/propertyd/propertyd/ratelimit"
	"github.com/redis/go-redis/v9"
)

// A budget is stored as its theoretical arrival time (TAT): the instant at
// which the bucket would be full again, in microseconds since epoch, as a
// decimal string. With T the interval of one token (1/rate), a bucket of
// burst B holds B - (TAT - now)/T tokens at now (B when TAT is past), and a
// charge of n tokens moves TAT to max(TAT, now) + n*T, allowed when that is
// at most B*T ahead of now. Giving n tokens back moves TAT n*T earlier.
//
// now is Redis's clock, read by the script itself (TIME), never the
// instance's: instances whose clocks differ would disagree about where now
// stands against a TAT, and a burst shorter than their difference (2 tokens
// at 100/s is 20ms) would make the instance behind refuse tokens the bucket
// holds (a false 429) and the one ahead grant tokens it does not hold yet.
// A script answers with the backlog, TAT - now, so that the remaining
// tokens, the time to full and Retry-After are computed from Redis's now
// too, whatever the instance's clock. (TIME before a write is allowed since
// Redis 5 replicates a script by its effects, the only way in Redis 7; the
// slot scripts rely on the same.)
//
// This is the same bucket as ratelimit.Keyed keeps in memory (in nanoseconds),
// so the headers a client sees do not change with where the budget lives.
// Hand-written rather than taken from a GCRA library because a budget here
// must also say how many tokens a refused request left (X-RateLimit-
// Remaining is exact on a 429 too) and give tokens back (RefundTo), which
// such libraries do not.

// epoch keeps the microsecond counts small, so that a float64 holds them to
// a few hundredths of a microsecond.
var epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// grace absorbs float rounding (microseconds): a charge that fits but for
// a rounding error fits.
const grace = 1.0

// expireMargin keeps a budget's key this long (milliseconds) past the
// instant its bucket is full again; after that the key is gone, which
// reads as full. The scripts read the clock the key expires by, so it
// could go at that very instant; the margin is kept for instances of
// earlier versions, which charge at their own clocks, while a fleet is
// upgraded one instance at a time, and costs only idle keys kept a minute.
const expireMargin = 60000

// gcraNow is the start of every budget script: now, Redis's clock in
// microseconds since epoch. ARGV[1] is empty but for tests of this
// package, which give the caller's time there to pin the clock (see
// Client.callersClock).
var gcraNow = `
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = (tonumber(t[1]) - ` + strconv.FormatInt(epoch.Unix(), 10) + `) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
end
`

// reserveScript charges ARGV[4] tokens to the budget KEYS[1] at now when
// the charge fits within ARGV[5] microseconds of waiting (0: now) and the
// cost is at most the burst. It returns {1 if charged, the backlog after}:
// the TAT's lead over now in microseconds (0 when the bucket is full).
// ARGV[2] is the token interval, ARGV[3] the burst.
var reserveScript = redis.NewScript(gcraNow + `
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local maxwait = tonumber(ARGV[5])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local after = tat + cost * interval
if cost > burst or after - burst * interval - now > maxwait + ` + strconv.FormatFloat(grace, 'f', -1, 64) + ` then
  return {0, string.format('%.17g', tat - now)}
end
redis.call('SET', KEYS[1], string.format('%.17g', after), 'PX', math.ceil((after - now) / 1000) + ` + strconv.Itoa(expireMargin) + `)
return {1, string.format('%.17g', after - now)}
`)

// refundScript gives ARGV[3] tokens of interval ARGV[2] back to the budget
// KEYS[1] at now and returns the backlog after (see reserveScript); a
// bucket given back more than it misses is full.
var refundScript = redis.NewScript(gcraNow + `
local tat = tonumber(redis.call('GET', KEYS[1]) or now) - tonumber(ARGV[3]) * tonumber(ARGV[2])
if tat <= now then
  redis.call('DEL', KEYS[1])
  return '0'
end
redis.call('SET', KEYS[1], string.format('%.17g', tat), 'PX', math.ceil((tat - now) / 1000) + ` + strconv.Itoa(expireMargin) + `)
return string.format('%.17g', tat - now)
`)

// micros is t in microseconds since epoch.
func micros(t time.Time) float64 { return float64(t.Sub(epoch).Microseconds()) }

// interval is the microseconds one token of l takes to refill: the
// in-process bucket's interval, in the scripts' unit.
func interval(l ratelimit.Limit) float64 { return l.IntervalNanos() / 1e3 }

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// clockArg is the scripts' ARGV[1]: empty, so that they read Redis's
// clock, unless c.callersClock pins them to now.
func (c *Client) clockArg(now time.Time) string {
	if !c.callersClock {
		return ""
	}
	return strconv.FormatInt(int64(micros(now)), 10)
}

// reserve runs reserveScript for cost tokens of budget key (limit l),
// waiting at most maxWait. It returns whether the tokens were charged and
// the budget's backlog after, in microseconds from Redis's now. now is only
// the caller's time for c.callersClock.
func (c *Client) reserve(ctx context.Context, key string, l ratelimit.Limit, cost int, now time.Time, maxWait time.Duration) (bool, float64, error) {
	res, err := reserveScript.Run(ctx, c.rdb, []string{key},
		c.clockArg(now), fmtFloat(interval(l)), l.Burst, cost, maxWait.Microseconds()).Slice()
	if err != nil {
		return false, 0, err
	}
	if len(res) != 2 {
		return false, 0, fmt.Errorf("reserve script answered %v", res)
	}
	ok, _ := res[0].(int64)
	s, _ := res[1].(string)
	backlog, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false, 0, fmt.Errorf("reserve script answered %v", res)
	}
	return ok == 1, backlog, nil
}

// refund runs refundScript, giving tokens back to budget key (limit l), and
// returns the backlog after. now is only the caller's time for
// c.callersClock.
func (c *Client) refund(ctx context.Context, key string, l ratelimit.Limit, tokens int, now time.Time) (float64, error) {
	s, err := refundScript.Run(ctx, c.rdb, []string{key},
		c.clockArg(now), fmtFloat(interval(l)), tokens).Text()
	if err != nil {
		return 0, err
	}
	backlog, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("refund script answered " + s)
	}
	return backlog, nil
}

// backlogOf is a script's backlog (TAT - now, in microseconds of Redis's
// clock, exact to a few hundredths of one) as a duration. What a budget
// holds is then what ratelimit.Keyed reports for the same bucket
// (ratelimit.Limit.State at a microsecond's precision, and RetryAfter).
func backlogOf(micros float64) time.Duration {
	return time.Duration(math.Round(max(micros, 0) * 1e3))
}
