package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"
)

// A shutdown waits for the requests in flight, not for connections that
// never sent one: with a client's spare connection open and silent, and
// another connection idle after a request, Shutdown returns within about
// a second, not at its deadline.
func TestShutdownDoesNotWaitForConnectionsThatSentNothing(t *testing.T) {
	s := newStack(t, stackOptions{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.gw.Serve(ln) }()

	silent, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	used, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer used.Close()
	fmt.Fprintf(used, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(used), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %v %v", resp, err)
	}
	resp.Body.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.gw.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown after %v: %v; want it done without waiting for the silent connection", time.Since(start).Round(time.Millisecond), err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Shutdown took %v, want about a second (the grace a silent connection gets)", d)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	// The silent connection was closed by the server.
	_ = silent.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := silent.Read(make([]byte, 1)); err == nil {
		t.Fatalf("the silent connection is still open (read %d bytes)", n)
	}
}

// A client that starts a request on a kept-alive connection and stops
// mid-way is cut at the read timeout (the request timeout and five
// seconds), not at the two minutes an idle connection is given: the
// connection's deadlines are armed lazily, and still hold.
func TestAClientThatStopsMidRequestIsCutAtTheReadTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a five-second timeout")
	}
	s := newStack(t, stackOptions{requestTimeout: 10 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.gw.Serve(ln) //nolint:errcheck // shut down below
	defer s.gw.Shutdown(context.Background())

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for range 3 { // a connection in use, its idle deadline armed
		fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /healthz: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHo")
	start := time.Now()
	conn.SetReadDeadline(start.Add(30 * time.Second))
	_, err = br.ReadByte()
	took := time.Since(start)
	// The read timeout is 5.01 s; a deadline may fire up to a sixteenth of
	// it early.
	if err == nil || took < 4500*time.Millisecond || took > 8*time.Second {
		t.Fatalf("the half-sent request's connection ended after %s (%v), want about 5 s", took, err)
	}
}
