package guard

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
	"github.com/propertyd/propertyd/ratelimit"
)

// Retry is an http.RoundTripper that paces calls to one upstream and retries
// transient failures (HTTP 429 and 5xx other than 501, and transport errors)
// a bounded number of times with jittered exponential backoff, honouring
// Retry-After (hashicorp/go-retryablehttp's shape: policies are function
// fields with exported defaults). It never retries once the request's context
// is done, nor a request whose body cannot be replayed. Safe for concurrent
// use once built.
type Retry struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Max is how many retries follow the first attempt (0: none).
	Max int
	// MinWait and MaxWait bound the backoff (defaults 200ms and 5s). A
	// Retry-After longer than MaxWait is not waited for: the response goes
	// back to the caller, which reports it with its RetryAfter.
	MinWait, MaxWait time.Duration
	// CheckRetry decides whether to retry; nil means DefaultCheckRetry.
	CheckRetry func(ctx context.Context, resp *http.Response, err error) bool
	// Backoff computes the wait before retry attempt (1-based); nil means
	// DefaultBackoff.
	Backoff func(min, max time.Duration, attempt int, resp *http.Response) time.Duration
	// Sleep waits d or until ctx ends; nil means a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Limiter paces attempts and caps concurrent ones; nil means no limit.
	Limiter *ratelimit.Outbound
	// OnAttempt, when set, is told about every attempt sent upstream. Every
	// attempt is also counted in the request's providers.Observation.
	OnAttempt func(req *http.Request)
	// Now is the clock of the Limiter's quiet and of the Retry-After
	// dates of a 429 that starts it; nil means time.Now. (Backoff reads
	// its own: DefaultBackoff's is time.Now.)
	Now func() time.Time
}

// DefaultCheckRetry retries transport errors, 429 and 5xx except 501, and
// never when ctx is done.
func DefaultCheckRetry(ctx context.Context, resp *http.Response, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		return true
	}
	return resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented)
}

// DefaultBackoff waits the response's Retry-After when it has one, else
// min*2^(attempt-1) with full jitter, capped at max.
func DefaultBackoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := upstream.RetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return d
		}
	}
	d := min << (attempt - 1)
	if d > max || d <= 0 {
		d = max
	}
	return min/2 + rand.N(d-min/2+1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RoundTrip implements http.RoundTripper.
func (r *Retry) RoundTrip(req *http.Request) (*http.Response, error) {
	base := r.Base
	if base == nil {
		base = http.DefaultTransport
	}
	check, backoff, sleep := r.CheckRetry, r.Backoff, r.Sleep
	if check == nil {
		check = DefaultCheckRetry
	}
	if backoff == nil {
		backoff = DefaultBackoff
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	minW, maxW := r.MinWait, r.MaxWait
	if minW <= 0 {
		minW = 200 * time.Millisecond
	}
	if maxW <= 0 {
		maxW = 5 * time.Second
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		if attempt > 0 && req.Body != nil && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(ctx)
			req.Body = body
		}
		release, err := r.Limiter.Acquire(ctx)
		if qe, ok := errors.AsType[*ratelimit.QuietError](err); ok {
			return nil, quietError(qe, r.now())
		}
		if err != nil {
			return nil, err
		}
		if r.OnAttempt != nil {
			r.OnAttempt(req)
		}
		providers.CallsFrom(ctx).Add(1)
		resp, err := base.RoundTrip(req)
		if err != nil {
			release()
		} else {
			resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
		}
		if err == nil && resp.StatusCode == http.StatusTooManyRequests {
			ra := upstream.Delay(resp.Header, r.now())
			if quiet := r.Limiter.RateLimited(ctx, ra); quiet > 0 {
				// The upstream asks for quiet: no retry, and the
				// answer says how long the quiet lasts.
				resp.Header.Set("Retry-After", strconv.Itoa(int((quiet+time.Second-1)/time.Second)))
				return resp, nil
			}
		}
		replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
		if attempt >= r.Max || !replayable || !check(ctx, resp, err) {
			return resp, err
		}
		wait := backoff(minW, maxW, attempt+1, resp)
		if wait > maxW {
			return resp, err // the upstream asks for longer than we wait
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return resp, err
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// now is the clock the quiet is read by.
func (r *Retry) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// quietError is the error of a call not sent because the upstream is kept
// quiet until qe.Until: rate limited, retry after the quiet. It wraps qe,
// so the breaker does not count it against the upstream (nothing was
// asked of it).
func quietError(qe *ratelimit.QuietError, now time.Time) error {
	return &providers.Error{Kind: providers.KindUpstream, Code: providers.CodeUpstreamRateLimited,
		Message:    "the upstream answered rate limited: calls to it are paused for a while",
		Err:        qe,
		RetryAfter: max(qe.Until.Sub(now), time.Second)}
}

// IsQuiet reports whether err is a call not sent because its upstream is
// kept quiet after a rate-limit answer (see ratelimit.Outbound.KeepQuiet).
func IsQuiet(err error) bool {
	_, ok := errors.AsType[*ratelimit.QuietError](err)
	return ok
}

// releasingBody frees the outbound concurrency slot when the body is closed,
// since a slow upstream is still busy until its body has been read.
type releasingBody struct {
	io.ReadCloser
	release func()
	once    sync.Once
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}
