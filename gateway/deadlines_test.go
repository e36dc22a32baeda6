package gateway

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// countedConn counts the deadlines armed on it.
type countedConn struct {
	net.Conn
	reads, writes atomic.Int32
}

func (c *countedConn) SetReadDeadline(t time.Time) error {
	c.reads.Add(1)
	return c.Conn.SetReadDeadline(t)
}

func (c *countedConn) SetWriteDeadline(t time.Time) error {
	c.writes.Add(1)
	return c.Conn.SetWriteDeadline(t)
}

// lazyPipe is a trackedConn over one end of a pipe, and the other end.
func lazyPipe(t *testing.T, slack time.Duration) (*trackedConn, *countedConn, net.Conn) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	cc := &countedConn{Conn: a}
	return &trackedConn{Conn: cc, t: &conns{slack: slack}}, cc, b
}

// fasthttp asks for an idle, a read and a write deadline per request; a
// connection answering request after request arms them about once per
// slack, not three times a request.
func TestDeadlinesAskedPerRequestAreArmedAboutOncePerSlack(t *testing.T) {
	tc, cc, peer := lazyPipe(t, time.Second)
	go func() {
		buf := make([]byte, 1)
		for {
			if _, err := peer.Write([]byte("x")); err != nil {
				return
			}
			if _, err := peer.Read(buf); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	buf := make([]byte, 1)
	for range 1000 {
		now := time.Now()
		tc.SetReadDeadline(now.Add(2 * time.Minute)) // idle, waiting for the next request
		if _, err := tc.Read(buf); err != nil {
			t.Fatal(err)
		}
		tc.SetReadDeadline(now.Add(35 * time.Second)) // the rest of the request: already read
		tc.SetWriteDeadline(now.Add(35 * time.Second))
		if _, err := tc.Write([]byte("y")); err != nil {
			t.Fatal(err)
		}
	}
	// One of each per second begun.
	most := int32(time.Since(start)/time.Second) + 1
	if r, w := cc.reads.Load(), cc.writes.Load(); r < 1 || r > most || w < 1 || w > most {
		t.Errorf("1000 requests armed %d read and %d write deadlines, want 1 to %d of each", r, w, most)
	}
}

// unblockAfter closes tc's pipe after d, so that a read or write that no
// deadline ends fails the test then rather than hanging it.
func unblockAfter(tc *trackedConn, d time.Duration) (stop func() bool) {
	return time.AfterFunc(d, func() { tc.Conn.Close() }).Stop
}

// readTimesOut reads from tc and reports whether it failed with a timeout
// within limit.
func readTimesOut(t *testing.T, tc *trackedConn, limit time.Duration) bool {
	t.Helper()
	defer unblockAfter(tc, 2*limit)()
	start := time.Now()
	_, err := tc.Read(make([]byte, 1))
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v, want a timeout or data", err)
	}
	if err != nil && time.Since(start) > limit {
		t.Fatalf("read timed out after %s, want within %s", time.Since(start), limit)
	}
	return err != nil
}

// A deadline earlier than the armed one is armed at the next read: a
// request's read timeout, shorter than the idle timeout before it, holds.
func TestAnEarlierReadDeadlineIsArmedAtTheNextRead(t *testing.T) {
	tc, _, _ := lazyPipe(t, time.Second)
	tc.SetReadDeadline(time.Now().Add(2 * time.Minute))
	tc.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	if !readTimesOut(t, tc, 2*time.Second) {
		t.Fatal("the read did not time out")
	}
}

// A deadline later than the armed one by more than the slack, or none at
// all, replaces it: the next read waits for its data.
func TestALaterOrNoDeadlineReplacesTheArmedOne(t *testing.T) {
	for name, next := range map[string]time.Time{"later": time.Now().Add(time.Minute), "none": {}} {
		t.Run(name, func(t *testing.T) {
			tc, _, peer := lazyPipe(t, 100*time.Millisecond)
			tc.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			if !readTimesOut(t, tc, 2*time.Second) {
				t.Fatal("the first read did not time out")
			}
			tc.SetReadDeadline(next)
			go func() {
				time.Sleep(50 * time.Millisecond)
				peer.Write([]byte("x"))
			}()
			if readTimesOut(t, tc, time.Second) {
				t.Fatal("the read timed out under the deadline it replaced")
			}
		})
	}
}

// A write deadline holds: a client that reads nothing does not hold a
// connection's writer past it.
func TestAWriteDeadlineIsArmedAtTheNextWrite(t *testing.T) {
	tc, _, _ := lazyPipe(t, time.Second)
	tc.SetWriteDeadline(time.Now().Add(30 * time.Millisecond))
	defer unblockAfter(tc, 4*time.Second)()
	start := time.Now()
	_, err := tc.Write([]byte("nobody reads this"))
	if !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("write = %v after %s, want a timeout after about 30ms", err, time.Since(start))
	}
}

func TestDeadlineSlackIsASixteenthOfTheShortestTimeoutAtMostASecond(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{
		35 * time.Second: time.Second, 8 * time.Second: 500 * time.Millisecond, 0: 0,
	} {
		if got := deadlineSlack(in); got != want {
			t.Errorf("deadlineSlack(%s) = %s, want %s", in, got, want)
		}
	}
}
