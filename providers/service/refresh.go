package service

import (
	"context"
	"sync"
	"time"
)

// Refresh modes of a section (Section.Refresh; providers.<role>.refresh in
// config.yaml): what a request that finds an expired value does.
const (
	// RefreshBackground serves the expired value at once, as stale, while
	// one refresh runs in the background. It is the default.
	RefreshBackground = "background"
	// RefreshSync fetches a new value first and serves the expired one,
	// as stale, only when that fetch fails.
	RefreshSync = "sync"
)

// RefreshModes lists the valid values of Section.Refresh ("" means
// RefreshBackground).
var RefreshModes = []string{RefreshBackground, RefreshSync}

// maxRefreshFailures bounds how many failed refreshes are remembered (for
// their error code and when to try again); past it an arbitrary one is
// forgotten (its value is then retried on its next request), so an
// outage over a huge key space cannot grow memory without bound.
const maxRefreshFailures = 10000

// refresher runs the background refreshes of expired section values: at
// most one per flight key (the key a synchronous fetch of the same value
// coalesces under, so a request that needs the value joins the refresh),
// at most cap(slots) at once across the service, under a context of its
// own that Close cancels, never under a request's (so a refresh neither
// dies with the request that started it nor counts as its upstream work).
// It remembers the last failure of each key, so a value whose refresh
// failed is served stale with that error and not retried before its time.
// The zero value is unusable; init it. Safe for concurrent use.
type refresher struct {
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	running  map[string]bool
	failures map[string]refreshFailure
}

// refreshFailure is what a failed refresh leaves: its error code and when
// the value may be refreshed again.
type refreshFailure struct {
	code    string
	retryAt time.Time
}

func (r *refresher) init(concurrency int) {
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.slots = make(chan struct{}, concurrency)
	r.running = map[string]bool{}
	r.failures = map[string]refreshFailure{}
}

// start runs refresh(ctx) in a goroutine, and reports whether it did: not
// when a refresh of key is running, when key's last refresh failed and
// its retry time is after now, when every slot is taken, or after close.
func (r *refresher) start(key string, now time.Time, refresh func(ctx context.Context)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.running[key] {
		return false
	}
	if f, ok := r.failures[key]; ok && now.Before(f.retryAt) {
		return false
	}
	select {
	case r.slots <- struct{}{}:
	default:
		return false
	}
	r.running[key] = true
	r.wg.Add(1)
	go func() {
		defer func() {
			r.mu.Lock()
			delete(r.running, key)
			r.mu.Unlock()
			<-r.slots
			r.wg.Done()
		}()
		refresh(r.ctx)
	}()
	return true
}

// failed remembers that refreshing key failed with code, and that it is
// not to be tried again before retryAt.
func (r *refresher) failed(key, code string, retryAt time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, known := r.failures[key]; !known && len(r.failures) >= maxRefreshFailures {
		for k := range r.failures {
			delete(r.failures, k) // any one: map order is arbitrary
			break
		}
	}
	r.failures[key] = refreshFailure{code: code, retryAt: retryAt}
}

// succeeded forgets any failure of key: a new value was stored.
func (r *refresher) succeeded(key string) {
	r.mu.Lock()
	delete(r.failures, key)
	r.mu.Unlock()
}

// lastFailure returns the error code of key's last failed refresh, or ""
// when none failed since a value was last stored.
func (r *refresher) lastFailure(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[key].code
}

// close starts no refresh any more, lets those running finish until ctx
// is done, then cancels them and waits for them to return.
func (r *refresher) close(ctx context.Context) {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		r.cancel()
		<-done
	}
	r.cancel()
}

// Close stops the background refreshes of expired sections: none starts
// any more, those running may finish until ctx is done and are cancelled
// then; Close returns once each has returned. The service still answers
// afterwards, serving expired values stale without refreshing them, so
// call it when the gateway has stopped. Safe to call more than once.
func (s *Service) Close(ctx context.Context) {
	s.bg.close(ctx)
}
