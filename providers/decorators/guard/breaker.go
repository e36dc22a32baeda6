// Package guard holds the decorators that wrap every provider call from the
// outside, so provider modules know their upstream's protocol and nothing
// else: a circuit breaker with a per-call timeout (Breaker, Do) and an HTTP
// transport with bounded, jittered retries and outbound pacing (Retry).
package guard

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/sony/gobreaker/v2"
)

// Policy configures a Breaker. Zero fields take the defaults noted.
type Policy struct {
	// Timeout bounds each call (default 10s).
	Timeout time.Duration
	// FailureThreshold is how many consecutive failures open the breaker
	// (default 5).
	FailureThreshold uint32
	// OpenFor is how long an open breaker refuses calls before letting a
	// trial call through (default 30s).
	OpenFor time.Duration
	// HalfOpenRequests is how many trial calls a half-open breaker admits
	// (default 1).
	HalfOpenRequests uint32
	// OnStateChange, when set, is told about every state change ("closed",
	// "half-open", "open") of the breaker named name, for metrics and logs.
	// It runs while the breaker holds its lock: it must be quick and must
	// not call the breaker.
	OnStateChange func(name, from, to string)
	// OnCall, when set, is told about every call the breaker let through:
	// the error as Do returns it (nil on success) and how long it took.
	// Calls refused by an open breaker are not reported.
	OnCall func(name string, err error, d time.Duration)
	// RateLimited, when set, is told about every call the upstream
	// answered rate limited (an error with code upstream_rate_limited,
	// but not a call refused unsent during a quiet), with the wait the
	// answer asked for (0 when it named none), and returns how long calls
	// to the upstream are held back: ratelimit.Outbound.RateLimited, which
	// starts the quiet its maintainers ask for. The error then says that
	// wait as its RetryAfter. A module recognises a rate limit however its
	// upstream says it (a 429, an error page sent with 200) and the guard
	// starts the quiet alike; the transport (Retry) sees only the 429s.
	RateLimited func(ctx context.Context, retryAfter time.Duration) time.Duration
}

// DefaultPolicy holds the defaults of Policy's fields, stated once: the
// service's configuration applies them too.
var DefaultPolicy = Policy{Timeout: 10 * time.Second, FailureThreshold: 5, OpenFor: 30 * time.Second, HalfOpenRequests: 1}

func (p Policy) withDefaults() Policy {
	d := DefaultPolicy
	if p.Timeout <= 0 {
		p.Timeout = d.Timeout
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = d.FailureThreshold
	}
	if p.OpenFor <= 0 {
		p.OpenFor = d.OpenFor
	}
	if p.HalfOpenRequests == 0 {
		p.HalfOpenRequests = d.HalfOpenRequests
	}
	return p
}

// Breaker is a circuit breaker for one provider. Only failures that say
// something about the upstream count (providers.IsFailure): a no-match,
// invalid input or a client that went away never trip it. Safe for
// concurrent use; a nil *Breaker lets every call through with no timeout.
type Breaker struct {
	name      string
	policy    Policy
	cb        *gobreaker.CircuitBreaker[any]
	openUntil atomic.Int64 // unix nanos; when the open state ends
	now       func() time.Time
}

// NewBreaker returns a closed breaker named after its provider.
func NewBreaker(name string, p Policy) *Breaker {
	p = p.withDefaults()
	b := &Breaker{name: name, policy: p, now: time.Now}
	b.cb = gobreaker.NewCircuitBreaker[any](gobreaker.Settings{
		Name:        name,
		MaxRequests: p.HalfOpenRequests,
		Timeout:     p.OpenFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= p.FailureThreshold },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			if to == gobreaker.StateOpen {
				b.openUntil.Store(b.now().Add(p.OpenFor).UnixNano())
			}
			if p.OnStateChange != nil {
				p.OnStateChange(name, from.String(), to.String())
			}
		},
		IsSuccessful: func(err error) bool { return !providers.IsFailure(err) },
		IsExcluded:   func(err error) bool { return providers.KindOf(err) == providers.KindCanceled || IsQuiet(err) },
	})
	return b
}

// Name returns the provider name the breaker guards.
func (b *Breaker) Name() string { return b.name }

// State returns "closed", "half-open" or "open".
func (b *Breaker) State() string {
	if b == nil {
		return "closed"
	}
	return b.cb.State().String()
}

// RetryAfter returns how long an open breaker keeps refusing calls.
func (b *Breaker) RetryAfter() time.Duration {
	if b == nil || b.cb.State() != gobreaker.StateOpen {
		return 0
	}
	d := time.Until(time.Unix(0, b.openUntil.Load()))
	if d < time.Second {
		d = time.Second
	}
	return d
}

// Do calls fn through the breaker with the breaker's per-call timeout. An
// open breaker answers at once with KindUnavailable (code
// upstream_unavailable) and RetryAfter; a call that outlives the timeout is
// KindTimeout; other errors pass through as *providers.Error values.
func Do[T any](ctx context.Context, b *Breaker, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	if b == nil {
		v, err := fn(ctx)
		return v, classify(ctx, err)
	}
	v, err := b.cb.Execute(func() (any, error) {
		cctx, cancel := context.WithTimeout(ctx, b.policy.Timeout)
		defer cancel()
		start := time.Now()
		v, err := fn(cctx)
		err = b.rateLimited(ctx, classify(ctx, err))
		if b.policy.OnCall != nil {
			b.policy.OnCall(b.name, err, time.Since(start))
		}
		return v, err
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return zero, &providers.Error{
			Kind: providers.KindUnavailable, Code: providers.CodeUpstreamUnavailable,
			Message:    b.name + " is temporarily unavailable",
			RetryAfter: b.RetryAfter(), Err: err,
		}
	}
	if err != nil {
		return zero, err
	}
	return v.(T), nil
}

// rateLimited tells the policy's RateLimited of a call the upstream
// answered rate limited, and returns err saying how long the quiet lasts.
func (b *Breaker) rateLimited(ctx context.Context, err error) error {
	pe, ok := err.(*providers.Error)
	if b.policy.RateLimited == nil || !ok || pe.Code != providers.CodeUpstreamRateLimited || IsQuiet(err) {
		return err
	}
	quiet := b.policy.RateLimited(ctx, pe.RetryAfter)
	if quiet <= pe.RetryAfter {
		return err
	}
	with := *pe
	with.RetryAfter = quiet
	return &with
}

// classify turns context errors into provider errors: a deadline that
// fired while the caller still waits is the upstream's timeout; a caller
// that went away is a cancellation.
func classify(parent context.Context, err error) error {
	if err == nil {
		return nil
	}
	if parent.Err() != nil && errors.Is(parent.Err(), context.Canceled) {
		return providers.Wrap(err, providers.KindCanceled, providers.CodeCanceled, "the request was canceled")
	}
	var pe *providers.Error
	if errors.As(err, &pe) {
		return pe
	}
	return providers.As(err)
}

// Around runs call through the breaker as Do does: it is the breaker as a
// providers.Around, for the core to apply to a module's calls without
// knowing it is a breaker. A nil *Breaker runs the call as is.
func (b *Breaker) Around(ctx context.Context, call func(context.Context) error) error {
	_, err := Do(ctx, b, func(ctx context.Context) (struct{}, error) { return struct{}{}, call(ctx) })
	return err
}
