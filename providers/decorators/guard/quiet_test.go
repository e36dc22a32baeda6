package guard

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
	"github.com/propertyd/propertyd/ratelimit"
)

// An upstream whose maintainers ask for quiet after a 429 gets no retry
// and no call until the quiet ends: the 429 goes back at once saying how
// long (Retry-After), and a call in the quiet is answered rate limited
// without being sent, which does not count against the upstream in the
// breaker.
func TestRetryKeepsQuietAfterA429(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("POST", "http://up/x", httpmock.NewStringResponder(429, "rate_limited"))
	lim := ratelimit.NewOutbound(ratelimit.Limit{}, 1)
	lim.KeepQuiet(30*time.Second, nil, clock)
	var waits []time.Duration
	c := &http.Client{Transport: &Retry{Base: mt, Max: 2, Limiter: lim, Now: clock,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}}

	resp, err := c.Post("http://up/x", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "30" || len(waits) != 0 || mt.GetTotalCallCount() != 1 {
		t.Fatalf("a 429: status %d, Retry-After %q after %d retries and %d calls; want it back at once with Retry-After 30",
			resp.StatusCode, resp.Header.Get("Retry-After"), len(waits), mt.GetTotalCallCount())
	}

	now = now.Add(10 * time.Second)
	b := NewBreaker("overpass", Policy{FailureThreshold: 1, OpenFor: time.Minute})
	_, err = Do(context.Background(), b, func(ctx context.Context) (int, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://up/x", nil)
		_, err := upstream.Do(c, req, 1<<10, "the upstream")
		return 0, err
	})
	pe := providers.As(err)
	if pe.Code != providers.CodeUpstreamRateLimited || pe.RetryAfter != 20*time.Second || !IsQuiet(err) {
		t.Fatalf("a call 10 s into the quiet: %v (retry after %v); want upstream_rate_limited, retry after 20 s", err, pe.RetryAfter)
	}
	if mt.GetTotalCallCount() != 1 {
		t.Errorf("the quiet let %d calls through", mt.GetTotalCallCount()-1)
	}
	if b.State() != "closed" {
		t.Errorf("a call not sent for the quiet opened the breaker (threshold 1): %s", b.State())
	}
}

// An upstream that says it is rate limited in an answer the transport takes
// for a success (an Overpass mirror's error page sent with 200, which only
// the module can read) is kept quiet as after a 429: the module's
// upstream_rate_limited error starts the quiet through the breaker and
// says how long it lasts, and the next call in the quiet is answered rate
// limited without being sent. A call refused in the quiet does not start
// it again.
func TestBreakerKeepsQuietAfterARateLimitTheModuleRead(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("POST", "http://up/x", httpmock.NewStringResponder(200, "<html>rate_limited</html>"))
	lim := ratelimit.NewOutbound(ratelimit.Limit{}, 1)
	lim.KeepQuiet(30*time.Second, nil, clock)
	told := 0
	b := NewBreaker("overpass", Policy{FailureThreshold: 5, RateLimited: func(ctx context.Context, ra time.Duration) time.Duration {
		told++
		return lim.RateLimited(ctx, ra)
	}})
	c := &http.Client{Transport: &Retry{Base: mt, Max: 2, Limiter: lim, Now: clock,
		Sleep: func(context.Context, time.Duration) error { t.Error("a rate-limit page was retried"); return nil }}}
	// call plays the module: it reads the page and says rate limited.
	call := func(ctx context.Context) (int, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://up/x", nil)
		a, err := upstream.Do(c, req, 1<<10, "the upstream")
		if err != nil {
			return 0, err
		}
		if strings.Contains(string(a.Body), "rate_limited") {
			return 0, providers.Errorf(providers.KindUpstream, providers.CodeUpstreamRateLimited, "the upstream is rate limited")
		}
		return 1, nil
	}

	_, err := Do(context.Background(), b, call)
	if pe := providers.As(err); pe.Code != providers.CodeUpstreamRateLimited || pe.RetryAfter != 30*time.Second || IsQuiet(err) || told != 1 {
		t.Fatalf("a rate-limit page with 200: %v (retry after %v, limiter told %d times); want upstream_rate_limited, retry after 30 s, told once",
			err, pe.RetryAfter, told)
	}
	now = now.Add(10 * time.Second)
	_, err = Do(context.Background(), b, call)
	if pe := providers.As(err); pe.Code != providers.CodeUpstreamRateLimited || pe.RetryAfter != 20*time.Second || !IsQuiet(err) {
		t.Fatalf("a call 10 s into the quiet: %v (retry after %v); want upstream_rate_limited, retry after 20 s, unsent", err, pe.RetryAfter)
	}
	if n := mt.GetTotalCallCount(); n != 1 || told != 1 {
		t.Errorf("the quiet let %d calls through and told the limiter %d times; want 1 call, told once", n, told)
	}
	now = now.Add(20 * time.Second)
	mt.RegisterResponder("POST", "http://up/x", httpmock.NewStringResponder(200, "{}"))
	if v, err := Do(context.Background(), b, call); err != nil || v != 1 || mt.GetTotalCallCount() != 2 {
		t.Errorf("after the quiet: %v, %v after %d calls; want the call sent and answered", v, err, mt.GetTotalCallCount())
	}
}
