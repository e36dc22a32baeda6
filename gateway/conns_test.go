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
