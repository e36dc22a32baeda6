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
// This is the same bucket as ratelimit.Keyed (x/time/rate) keeps in memory,
// so the headers a client sees do not change with where the budget lives.
// Hand-written rather than taken from a GCRA library because a budget here
// must also say how many tokens a refused request left (X-RateLimit-
// Remaining is exact on a 429 too), take the caller's time, and give tokens
// back (RefundTo), which such libraries do not.

// epoch keeps the microsecond counts small, so that a float64 holds them to
// a few hundredths of a microsecond.
var epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// grace absorbs float rounding (microseconds): a charge that fits but for
// a rounding error fits.
const grace = 1.0

// expireMargin keeps a budget's key this long (milliseconds) past the
// instant its bucket is full again, so that instances whose clocks differ
// a little still see it; after that the key is gone, which reads as full.
const expireMargin = 60000

// reserveScript charges ARGV[4] tokens to the budget KEYS[1] at ARGV[1]
// when the charge fits within ARGV[5] microseconds of waiting (0: now) and
// the cost is at most the burst. It returns {1 if charged, the TAT after}.
// ARGV[2] is the token interval, ARGV[3] the burst.
var reserveScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local maxwait = tonumber(ARGV[5])
local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
if tat < now then tat = now end
local after = tat + cost * interval
if cost > burst or after - burst * interval - now > maxwait + ` + strconv.FormatFloat(grace, 'f', -1, 64) + ` then
  return {0, string.format('%.17g', tat)}
end
redis.call('SET', KEYS[1], string.format('%.17g', after), 'PX', math.ceil((after - now) / 1000) + ` + strconv.Itoa(expireMargin) + `)
return {1, string.format('%.17g', after)}
`)

// refundScript gives ARGV[3] tokens of interval ARGV[2] back to the budget
// KEYS[1] at ARGV[1] and returns the TAT after; a bucket given back more
// than it misses is full.
var refundScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1]) - tonumber(ARGV[3]) * tonumber(ARGV[2])
if tat <= now then
  redis.call('DEL', KEYS[1])
  return string.format('%.17g', now)
end
redis.call('SET', KEYS[1], string.format('%.17g', tat), 'PX', math.ceil((tat - now) / 1000) + ` + strconv.Itoa(expireMargin) + `)
return string.format('%.17g', tat)
`)

// micros is t in microseconds since epoch.
func micros(t time.Time) float64 { return float64(t.Sub(epoch).Microseconds()) }

// interval is the microseconds one token of l takes to refill.
func interval(l ratelimit.Limit) float64 { return 1e6 / l.Rate }

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// reserve runs reserveScript for cost tokens of budget key (limit l) at
// now, waiting at most maxWait. It returns whether the tokens were charged
// and the budget's TAT after.
func (c *Client) reserve(ctx context.Context, key string, l ratelimit.Limit, cost int, now time.Time, maxWait time.Duration) (bool, float64, error) {
	res, err := reserveScript.Run(ctx, c.rdb, []string{key},
		strconv.FormatInt(int64(micros(now)), 10), fmtFloat(interval(l)), l.Burst, cost,
		maxWait.Microseconds()).Slice()
	if err != nil {
		return false, 0, err
	}
	if len(res) != 2 {
		return false, 0, fmt.Errorf("reserve script answered %v", res)
	}
	ok, _ := res[0].(int64)
	s, _ := res[1].(string)
	tat, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false, 0, fmt.Errorf("reserve script answered %v", res)
	}
	return ok == 1, tat, nil
}

// refund runs refundScript, giving tokens back to budget key (limit l) at
// now, and returns the TAT after.
func (c *Client) refund(ctx context.Context, key string, l ratelimit.Limit, tokens int, now time.Time) (float64, error) {
	s, err := refundScript.Run(ctx, c.rdb, []string{key},
		strconv.FormatInt(int64(micros(now)), 10), fmtFloat(interval(l)), tokens).Text()
	if err != nil {
		return 0, err
	}
	tat, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("refund script answered " + s)
	}
	return tat, nil
}

// state is what a budget of limit l whose TAT is tat holds at now: the
// whole tokens left and how long until it is full. Both are what
// ratelimit.Keyed reports for the same bucket, rounding aside: the time to
// full is rounded to the microsecond, so a whole number of seconds stays
// whole in X-RateLimit-Reset.
func state(l ratelimit.Limit, tat float64, now time.Time) (remaining int, reset time.Duration) {
	backlog := max(tat-micros(now), 0)
	t := interval(l)
	tokens := math.Floor((float64(l.Burst)*t - backlog + grace) / t)
	remaining = int(min(max(tokens, 0), float64(l.Burst)))
	return remaining, time.Duration(math.Round(backlog)) * time.Microsecond
}

// retryAfter is how long until cost tokens fit in a budget of limit l whose
// TAT is tat, from now.
func retryAfter(l ratelimit.Limit, tat float64, cost int, now time.Time) time.Duration {
	t := interval(l)
	wait := max(tat, micros(now)) + float64(cost)*t - float64(l.Burst)*t - micros(now)
	return time.Duration(math.Ceil(max(wait, 0))) * time.Microsecond
}
