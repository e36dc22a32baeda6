// Package relaytest is a test kit: a TCP relay in front of a test server
// (PostgreSQL, Redis, any), to take the server away from running code and
// bring it back without touching the server other tests share. The
// database kit (store/postgres/pgtest) relays through it, and the Redis
// tests call it with Redis's port (RelayedURL(t, u, "6379")): the Redis
// kit itself does not import it, so ratelimit, below providers, imports
// nothing above it.
package relaytest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Relay forwards TCP connections from a local address to a test server.
// Stop drops them all and stops listening, Start listens again on the same
// address: a server going away under running code, and coming back,
// without touching the shared server. Hang makes it a black hole instead:
// connections stay open and new ones are accepted, but nothing passes
// either way, as when a firewall drops the server's packets. Its methods
// are safe for concurrent use.
type Relay struct {
	t      testing.TB
	addr   string
	target string

	mu    sync.Mutex
	ln    net.Listener
	conns []net.Conn
	hung  bool
}

// RelayedURL returns a Relay to the server of the URL u (listening), with
// defaultPort when u names none, and u with its host replaced by the
// relay's address. The relay stops when the test ends.
func RelayedURL(t testing.TB, u, defaultPort string) (string, *Relay) {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	target := pu.Host
	if pu.Port() == "" {
		target = net.JoinHostPort(pu.Hostname(), defaultPort)
	}
	r := &Relay{t: t, addr: "127.0.0.1:0", target: target}
	r.Start()
	t.Cleanup(r.Stop)
	pu.Host = r.addr
	return pu.String(), r
}

// Start listens (again) on the relay's address.
func (r *Relay) Start() {
	r.t.Helper()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	r.ln, r.addr = ln, ln.Addr().String()
	r.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if r.isHung() { // a black hole answers nothing, ever
				r.mu.Lock()
				r.conns = append(r.conns, c)
				r.mu.Unlock()
				go func() { io.Copy(io.Discard, c) }()
				continue
			}
			s, err := net.Dial("tcp", r.target)
			if err != nil {
				c.Close()
				continue
			}
			r.mu.Lock()
			if r.ln != ln { // stopped while dialling: this connection is cut too
				r.mu.Unlock()
				c.Close()
				s.Close()
				continue
			}
			r.conns = append(r.conns, c, s)
			r.mu.Unlock()
			go func() { r.copy(s, c); s.Close() }()
			go func() { r.copy(c, s); c.Close() }()
		}
	}()
}

// Hang stops every byte from passing, on the open connections and on the
// ones accepted from now on, until Stop (which also ends Hang).
func (r *Relay) Hang() {
	r.mu.Lock()
	r.hung = true
	r.mu.Unlock()
}

func (r *Relay) isHung() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hung
}

// copy forwards src to dst until either fails, dropping what it reads
// while the relay hangs.
func (r *Relay) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !r.isHung() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Stop closes the listener and every relayed connection, and ends Hang.
func (r *Relay) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hung = false
	if r.ln != nil {
		r.ln.Close()
		r.ln = nil
	}
	for _, c := range r.conns {
		c.Close()
	}
	r.conns = nil
}
