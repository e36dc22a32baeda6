package guard

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/propertyd/propertyd/providers"
)

// hookLog records what a breaker's hooks were told.
type hookLog struct {
	mu      sync.Mutex
	changes []string // "name from->to"
	calls   []string // "name code"
}

func (h *hookLog) policy(p Policy) Policy {
	p.OnStateChange = func(name, from, to string) {
		h.mu.Lock()
		h.changes = append(h.changes, name+" "+from+"->"+to)
		h.mu.Unlock()
	}
	p.OnCall = func(name string, err error, d time.Duration) {
		h.mu.Lock()
		h.calls = append(h.calls, name+" "+providers.CodeOf(err))
		h.mu.Unlock()
	}
	return p
}

func TestBreakerReportsEveryStateChange(t *testing.T) {
	h := &hookLog{}
	b := NewBreaker("census", h.policy(Policy{FailureThreshold: 1, OpenFor: 20 * time.Millisecond}))
	Do(context.Background(), b, func(context.Context) (int, error) { return 0, errDown })
	time.Sleep(30 * time.Millisecond)
	Do(context.Background(), b, func(context.Context) (int, error) { return 1, nil })
	want := []string{"census closed->open", "census open->half-open", "census half-open->closed"}
	if len(h.changes) != len(want) {
		t.Fatalf("state changes reported = %v, want %v", h.changes, want)
	}
	for i := range want {
		if h.changes[i] != want[i] {
			t.Fatalf("state changes reported = %v, want %v", h.changes, want)
		}
	}
}

func TestBreakerReportsCallsItLetThroughOnly(t *testing.T) {
	h := &hookLog{}
	b := NewBreaker("fema-nfhl", h.policy(Policy{FailureThreshold: 1, OpenFor: time.Minute}))
	Do(context.Background(), b, func(context.Context) (int, error) { return 0, providers.ErrNoMatch })
	Do(context.Background(), b, func(context.Context) (int, error) { return 0, errDown })
	_, err := Do(context.Background(), b, func(context.Context) (int, error) { return 0, nil })
	if providers.CodeOf(err) != "upstream_unavailable" {
		t.Fatalf("third call: %v, want the open breaker's refusal", err)
	}
	want := []string{"fema-nfhl address_not_found", "fema-nfhl upstream_error"}
	if len(h.calls) != 2 || h.calls[0] != want[0] || h.calls[1] != want[1] {
		t.Fatalf("calls reported = %v, want %v (a refused call is not a call)", h.calls, want)
	}
}

func TestBreakerReportsTimeoutsAsTimeouts(t *testing.T) {
	h := &hookLog{}
	b := NewBreaker("slow", h.policy(Policy{Timeout: 5 * time.Millisecond}))
	Do(context.Background(), b, func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, ctx.Err() })
	if len(h.calls) != 1 || h.calls[0] != "slow upstream_timeout" {
		t.Fatalf("calls reported = %v, want one upstream_timeout", h.calls)
	}
}

func TestRetryCountsEveryAttemptInTheTripsCalls(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", "http://up/x", httpmock.ResponderFromMultipleResponses([]*http.Response{
		httpmock.NewStringResponse(503, "busy"),
		httpmock.NewStringResponse(200, "ok"),
	}))
	var waits []time.Duration
	var attempts int
	client := newRetryClient(mt, 2, &waits)
	client.Transport.(*Retry).OnAttempt = func(*http.Request) { attempts++ }
	obs := new(providers.Calls)
	req, _ := http.NewRequestWithContext(providers.WithCalls(context.Background(), obs), "GET", "http://up/x", nil)
	resp, err := client.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v", resp, err)
	}
	resp.Body.Close()
	if obs.Count() != 2 || attempts != 2 {
		t.Fatalf("counted %d upstream calls, OnAttempt told %d times; want 2 each (one retry)", obs.Count(), attempts)
	}
	// A request without an observation is sent all the same.
	mt.RegisterResponder("GET", "http://up/y", httpmock.NewStringResponder(200, "ok"))
	if resp, err := client.Get("http://up/y"); err != nil {
		t.Fatalf("unobserved request: %v", err)
	} else {
		resp.Body.Close()
	}
}
