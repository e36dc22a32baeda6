package guard

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/propertyd/propertyd/providers"
)

var errDown = providers.Errorf(providers.KindUpstream, "upstream_error", "down")

func TestBreakerOpensAfterThresholdAndAnswersAtOnce(t *testing.T) {
	b := NewBreaker("census", Policy{FailureThreshold: 3, OpenFor: time.Minute})
	var calls atomic.Int32
	fail := func(context.Context) (int, error) { calls.Add(1); return 0, errDown }
	for i := 0; i < 3; i++ {
		if _, err := Do(context.Background(), b, fail); providers.CodeOf(err) != "upstream_error" {
			t.Fatalf("call %d: err = %v, want the upstream error", i, err)
		}
	}
	if b.State() != "open" {
		t.Fatalf("state after 3 failures = %s, want open", b.State())
	}
	start := time.Now()
	_, err := Do(context.Background(), b, fail)
	pe := providers.As(err)
	if pe.Kind != providers.KindUnavailable || pe.Code != "upstream_unavailable" {
		t.Fatalf("open breaker answered %v, want upstream_unavailable", err)
	}
	if pe.RetryAfter < 50*time.Second || pe.RetryAfter > time.Minute {
		t.Fatalf("retry after = %v, want about a minute", pe.RetryAfter)
	}
	if calls.Load() != 3 {
		t.Fatalf("open breaker called the upstream: %d calls, want 3", calls.Load())
	}
	if d := time.Since(start); d > 5*time.Millisecond {
		t.Fatalf("open breaker took %v to answer", d)
	}
}

func TestNoMatchAndCancellationNeverTrip(t *testing.T) {
	b := NewBreaker("census", Policy{FailureThreshold: 1})
	for i := 0; i < 5; i++ {
		Do(context.Background(), b, func(context.Context) (int, error) { return 0, providers.ErrNoMatch })
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 5; i++ {
		_, err := Do(ctx, b, func(ctx context.Context) (int, error) { return 0, ctx.Err() })
		if providers.KindOf(err) != providers.KindCanceled {
			t.Fatalf("canceled call: err kind = %v", providers.KindOf(err))
		}
	}
	if b.State() != "closed" {
		t.Fatalf("state = %s after no-matches and cancellations, want closed", b.State())
	}
}

func TestTimeoutIsAFailureOfKindTimeout(t *testing.T) {
	b := NewBreaker("slow", Policy{Timeout: 10 * time.Millisecond, FailureThreshold: 2})
	slow := func(ctx context.Context) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	for i := 0; i < 2; i++ {
		if _, err := Do(context.Background(), b, slow); providers.KindOf(err) != providers.KindTimeout {
			t.Fatalf("hanging upstream: err = %v, want timeout", err)
		}
	}
	if b.State() != "open" {
		t.Fatalf("timeouts did not open the breaker: %s", b.State())
	}
}

func TestBreakerHalfOpensAndCloses(t *testing.T) {
	b := NewBreaker("x", Policy{FailureThreshold: 1, OpenFor: 20 * time.Millisecond})
	Do(context.Background(), b, func(context.Context) (int, error) { return 0, errDown })
	if b.State() != "open" {
		t.Fatal("not open")
	}
	time.Sleep(30 * time.Millisecond)
	if b.State() != "half-open" {
		t.Fatalf("state after OpenFor = %s, want half-open", b.State())
	}
	v, err := Do(context.Background(), b, func(context.Context) (int, error) { return 7, nil })
	if err != nil || v != 7 {
		t.Fatalf("trial call = %d, %v", v, err)
	}
	if b.State() != "closed" {
		t.Fatalf("state after a good trial = %s, want closed", b.State())
	}
}

func newRetryClient(mt *httpmock.MockTransport, max int, waits *[]time.Duration) *http.Client {
	return &http.Client{Transport: &Retry{
		Base: mt, Max: max, MaxWait: 10 * time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil },
	}}
}

func TestRetryIsBoundedAndRecovers(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", "http://up/x", httpmock.ResponderFromMultipleResponses([]*http.Response{
		httpmock.NewStringResponse(503, "busy"),
		httpmock.NewStringResponse(502, "bad"),
		httpmock.NewStringResponse(200, "ok"),
	}))
	var waits []time.Duration
	resp, err := newRetryClient(mt, 3, &waits).Get("http://up/x")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v; want 200 after two retries", resp, err)
	}
	if n := mt.GetTotalCallCount(); n != 3 {
		t.Fatalf("upstream calls = %d, want 3", n)
	}
	if len(waits) != 2 {
		t.Fatalf("waited %d times, want 2", len(waits))
	}
}

func TestRetryGivesUpAfterMax(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", "http://up/x", httpmock.NewStringResponder(500, "down"))
	var waits []time.Duration
	resp, err := newRetryClient(mt, 2, &waits).Get("http://up/x")
	if err != nil || resp.StatusCode != 500 {
		t.Fatalf("got %v, %v", resp, err)
	}
	if n := mt.GetTotalCallCount(); n != 3 {
		t.Fatalf("upstream calls = %d, want 1 + 2 retries", n)
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	mt := httpmock.NewMockTransport()
	limited := httpmock.NewStringResponse(429, "slow down")
	limited.Header.Set("Retry-After", "3")
	mt.RegisterResponder("GET", "http://up/x", httpmock.ResponderFromMultipleResponses([]*http.Response{
		limited, httpmock.NewStringResponse(200, "ok"),
	}))
	var waits []time.Duration
	resp, err := newRetryClient(mt, 2, &waits).Get("http://up/x")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v", resp, err)
	}
	if len(waits) != 1 || waits[0] != 3*time.Second {
		t.Fatalf("waits = %v, want [3s] from Retry-After", waits)
	}
}

func TestRetryAfterBeyondMaxWaitIsReturned(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", "http://up/x", func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(429, "later")
		r.Header.Set("Retry-After", "120")
		return r, nil
	})
	var waits []time.Duration
	resp, err := newRetryClient(mt, 3, &waits).Get("http://up/x")
	if err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "120" {
		t.Fatalf("got %v, %v; want the 429 back", resp, err)
	}
	if mt.GetTotalCallCount() != 1 || len(waits) != 0 {
		t.Fatalf("calls %d waits %v: must not wait two minutes", mt.GetTotalCallCount(), waits)
	}
}

func TestNoRetryOn4xxOrDoneContext(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", "http://up/bad", httpmock.NewStringResponder(400, "bad"))
	mt.RegisterResponder("GET", "http://up/err", httpmock.NewErrorResponder(errors.New("reset")))
	var waits []time.Duration
	c := newRetryClient(mt, 3, &waits)
	if resp, _ := c.Get("http://up/bad"); resp.StatusCode != 400 {
		t.Fatal("want 400")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://up/err", nil)
	c.Do(req)
	if n := mt.GetTotalCallCount(); n > 2 {
		t.Fatalf("calls = %d: a 400 or a done context must not be retried", n)
	}
}

func TestRetryReplaysPostBody(t *testing.T) {
	mt := httpmock.NewMockTransport()
	var bodies []string
	n := 0
	mt.RegisterResponder("POST", "http://up/q", func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		n++
		if n == 1 {
			return httpmock.NewStringResponse(504, "busy"), nil
		}
		return httpmock.NewStringResponse(200, "ok"), nil
	})
	var waits []time.Duration
	resp, err := newRetryClient(mt, 2, &waits).Post("http://up/q", "text/plain", strings.NewReader("data=abc"))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v", resp, err)
	}
	if len(bodies) != 2 || bodies[1] != "data=abc" {
		t.Fatalf("bodies = %q, want the body sent twice", bodies)
	}
}
