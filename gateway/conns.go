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

// trackedConn notes whether anything was read from it, and leaves the
// tracked set when closed.
type trackedConn struct {
	net.Conn
	t    *conns
	used atomic.Bool
}

func (c *trackedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && !c.used.Load() {
		c.used.Store(true)
	}
	return n, err
}

func (c *trackedConn) Close() error {
	c.t.mu.Lock()
	delete(c.t.open, c)
	c.t.mu.Unlock()
	return c.Conn.Close()
}
