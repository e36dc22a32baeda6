package gateway

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// unusedGrace is how long a connection that has sent nothing is given,
// during a shutdown, to send its first request before it is closed.
const unusedGrace = time.Second

// conns tracks the server's connections, to close at shutdown those that
// never sent a byte. fasthttp counts a new connection as busy from the
// moment it starts waiting for the first request, so Shutdown would wait
// for it until the read timeout or the shutdown timeout, whichever came
// first: one client that opened a connection and sent nothing (an HTTP
// client's spare connection from a dial race, a browser's preconnect, a
// load balancer's pre-opened pool) made every shutdown last the whole
// shutdown_timeout and end in error. Connections between requests are
// idle to fasthttp and closed by it; those in a request are waited for.
type conns struct {
	mu   sync.Mutex
	open map[*trackedConn]time.Time // accepted at
	// slack is how much earlier than asked a connection's deadline may
	// fire (see trackedConn): zero arms every deadline asked for.
	slack time.Duration
}

// deadlineSlack is the slack for connections whose shortest timeout is
// shortest: a sixteenth of it, at most a second.
func deadlineSlack(shortest time.Duration) time.Duration {
	return min(shortest/16, time.Second)
}

// listen wraps ln so that its connections are tracked.
func (t *conns) listen(ln net.Listener) net.Listener {
	return trackedListener{Listener: ln, t: t}
}

// closeUnused closes the connections that have read nothing and were
// accepted at least grace before now.
func (t *conns) closeUnused(now time.Time, grace time.Duration) {
	t.mu.Lock()
	var unused []*trackedConn
	for c, at := range t.open {
		if !c.used.Load() && now.Sub(at) >= grace {
			unused = append(unused, c)
		}
	}
	t.mu.Unlock()
	for _, c := range unused {
		_ = c.Close()
	}
}

// closeUnusedUntil closes unused connections (see closeUnused) every
// tick until done is closed or ctx ends.
func (t *conns) closeUnusedUntil(ctx context.Context, done <-chan struct{}, tick time.Duration) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		t.closeUnused(time.Now(), unusedGrace)
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

type trackedListener struct {
	net.Listener
	t *conns
}

func (l trackedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, t: l.t}
	l.t.mu.Lock()
	if l.t.open == nil {
		l.t.open = map[*trackedConn]time.Time{}
	}
	l.t.open[tc] = time.Now()
	l.t.mu.Unlock()
	return tc, nil
}

// trackedConn notes whether anything was read from it, leaves the tracked
// set when closed, and arms the deadlines asked of it lazily.
//
// fasthttp asks for up to three deadlines per request (idle, read, write),
// each a clock read and a change to a runtime timer: about 3% of a warm
// GET. A deadline asked for here is only noted. It is armed on the
// connection when the next Read or Write starts, and then only when it is
// earlier than the armed one or later by more than the slack. So a
// connection answering request after request re-arms about once per slack,
// a read deadline asked for once a request's first bytes are in costs
// nothing when the rest is already buffered (as for nearly every GET), and
// a timeout fires on time or at most the slack early, never late. The one
// thing a caller could see: a deadline set while a Read or Write is blocked
// in another goroutine does not reach that call. fasthttp sets them from
// the goroutine that reads and writes, and a shutdown closes connections
// rather than moving their deadlines.
type trackedConn struct {
	net.Conn
	t    *conns
	used atomic.Bool
	// Deadlines as Unix nanoseconds, 0 for none: the ones asked for, and
	// the ones armed on the connection.
	readWant, readArmed   atomic.Int64
	writeWant, writeArmed atomic.Int64
}

func (c *trackedConn) Read(b []byte) (int, error) {
	if err := c.arm(&c.readWant, &c.readArmed, c.Conn.SetReadDeadline); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(b)
	if n > 0 && !c.used.Load() {
		c.used.Store(true)
	}
	return n, err
}

func (c *trackedConn) Write(b []byte) (int, error) {
	if err := c.arm(&c.writeWant, &c.writeArmed, c.Conn.SetWriteDeadline); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

func (c *trackedConn) SetDeadline(t time.Time) error {
	c.readWant.Store(unixNano(t))
	c.writeWant.Store(unixNano(t))
	return nil
}

func (c *trackedConn) SetReadDeadline(t time.Time) error {
	c.readWant.Store(unixNano(t))
	return nil
}

func (c *trackedConn) SetWriteDeadline(t time.Time) error {
	c.writeWant.Store(unixNano(t))
	return nil
}

// arm sets the wanted deadline on the connection unless the armed one is
// at most the slack earlier (see trackedConn).
func (c *trackedConn) arm(want, armed *atomic.Int64, set func(time.Time) error) error {
	w, a := want.Load(), armed.Load()
	if w == a || (a != 0 && w > a && w-a <= int64(c.t.slack)) {
		return nil
	}
	t := time.Time{}
	if w != 0 {
		t = time.Unix(0, w)
	}
	if err := set(t); err != nil {
		return err
	}
	armed.Store(w)
	return nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func (c *trackedConn) Close() error {
	c.t.mu.Lock()
	delete(c.t.open, c)
	c.t.mu.Unlock()
	return c.Conn.Close()
}
