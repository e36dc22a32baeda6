package gateway

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

type ctxKey struct{}

func TestDeadlineCtxExpires(t *testing.T) {
	parent := context.WithValue(context.Background(), ctxKey{}, "v")
	c := &deadlineCtx{Context: parent, deadline: time.Now().Add(20 * time.Millisecond)}
	defer c.release()
	if d, ok := c.Deadline(); !ok || !d.Equal(c.deadline) {
		t.Fatalf("Deadline() = %v, %v", d, ok)
	}
	if c.Value(ctxKey{}) != "v" {
		t.Fatal("the parent's value is lost")
	}
	if c.Err() != nil {
		t.Fatalf("Err() before the deadline = %v", c.Err())
	}
	select {
	case <-c.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("Done never closed after the deadline")
	}
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err() after the deadline = %v", c.Err())
	}
}

func TestDeadlineCtxDerivedContextsFollowIt(t *testing.T) {
	c := &deadlineCtx{Context: context.Background(), deadline: time.Now().Add(time.Hour)}
	child, cancel := context.WithCancel(c)
	defer cancel()
	if d, ok := child.Deadline(); !ok || !d.Equal(c.deadline) {
		t.Fatalf("a derived context does not see the deadline: %v %v", d, ok)
	}
	c.release()
	select {
	case <-child.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("a derived context outlived the request")
	}
	if !errors.Is(child.Err(), context.Canceled) {
		t.Fatalf("child.Err() = %v, want Canceled", child.Err())
	}
}

func TestDeadlineCtxReleasedBeforeUse(t *testing.T) {
	c := &deadlineCtx{Context: context.Background(), deadline: time.Now().Add(time.Hour)}
	c.release()
	c.release() // twice is fine
	if !errors.Is(c.Err(), context.Canceled) {
		t.Fatalf("Err() after release = %v, want Canceled", c.Err())
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done is open after release")
	}
}

func TestDeadlineCtxDerivesWithoutAGoroutine(t *testing.T) {
	c := &deadlineCtx{Context: context.Background(), deadline: time.Now().Add(time.Hour)}
	defer c.release()
	before := runtime.NumGoroutine()
	var cancels []context.CancelFunc
	for range 100 {
		_, cancel := context.WithCancel(c)
		cancels = append(cancels, cancel)
	}
	if n := runtime.NumGoroutine() - before; n > 10 {
		t.Fatalf("100 derived contexts started %d goroutines", n)
	}
	for _, cancel := range cancels {
		cancel()
	}
}

// The request's context answers the values of its parent, before and
// after its deadline is armed, and nothing else.
func TestDeadlineCtxAnswersItsParentsValues(t *testing.T) {
	type key struct{}
	parent := context.WithValue(context.Background(), key{}, "v")
	c := &deadlineCtx{Context: parent, deadline: time.Now().Add(time.Hour)}
	defer c.release()
	derived, cancel := context.WithCancel(c)
	defer cancel()
	if c.Value(key{}) != "v" || derived.Value(key{}) != "v" {
		t.Fatal("the parent's value is not found through the request's context")
	}
	_ = c.Err() // armed: the timer runs, the value is still answered
	if derived.Value(key{}) != "v" {
		t.Fatal("the value is lost once the deadline is armed")
	}
	if (&deadlineCtx{Context: context.Background()}).Value(struct{}{}) != nil {
		t.Fatal("a context answered an unknown key")
	}
}

// Goroutines arming the context while the request is released: every one of
// them must see it end (a context armed after the release and never
// cancelled would keep an upstream call running past its request's answer),
// and all of them the same context.
func TestDeadlineCtxArmedWhileReleasedEndsForEveryone(t *testing.T) {
	for range 200 {
		c := &deadlineCtx{Context: context.Background(), deadline: time.Now().Add(time.Hour)}
		const n = 4
		dones := make(chan (<-chan struct{}), n)
		start := make(chan struct{})
		for range n {
			go func() {
				<-start
				dones <- c.Done()
			}()
		}
		close(start)
		c.release()
		var first <-chan struct{}
		for range n {
			d := <-dones
			if first == nil {
				first = d
			} else if d != first {
				t.Fatal("two goroutines armed two different contexts")
			}
			select {
			case <-d:
			case <-time.After(2 * time.Second):
				t.Fatal("a context armed as the request was released never ended")
			}
		}
		if !errors.Is(c.Err(), context.Canceled) {
			t.Fatalf("Err() after release = %v, want Canceled", c.Err())
		}
	}
}
