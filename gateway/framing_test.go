package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// serveRaw serves the stack's gateway on a real listener, for requests
// written byte by byte (a Go client would not send them), and returns its
// address.
func (s *stack) serveRaw() string {
	s.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	go s.gw.Serve(ln) //nolint:errcheck // returns at the shutdown below
	s.t.Cleanup(func() { _ = s.gw.Shutdown(context.Background()) })
	return ln.Addr().String()
}

// exchange writes raw on a new connection to addr and reads until the
// server closes it (or for two seconds): the first response, and every
// byte the server sent after it. closed says whether the server closed
// the connection, and said so in the response (Connection: close).
func exchange(t *testing.T, addr, raw string) (r response, after []byte, closed bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	all, err := io.ReadAll(conn)
	eof := err == nil // io.ReadAll ends without an error at EOF only
	br := bufio.NewReader(bytes.NewReader(all))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no response to %q: %v (read %q)", raw, err, all)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the response to %q: %v", raw, err)
	}
	r = response{status: resp.StatusCode, header: resp.Header, body: body}
	_ = json.Unmarshal(body, &r.json)
	after, _ = io.ReadAll(br)
	return r, after, eof && resp.Close
}

// A request with two Content-Length headers is one whose end a proxy in
// front and we may place differently: here the last said the body is
// empty, and what the first counted as the body was a second request, a
// GET /healthz the proxy never saw. It is refused with a 400 and the
// connection closed, and nothing after it is read as a request.
func TestConflictingContentLengthsAreRefusedAndNothingAfterIsServed(t *testing.T) {
	s := newStack(t, stackOptions{})
	addr := s.serveRaw()
	smuggled := "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"
	r, after, closed := exchange(t, addr, "POST /v1/properties/batch HTTP/1.1\r\nHost: test\r\n"+
		"Content-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(smuggled))+"\r\nContent-Length: 0\r\n\r\n"+smuggled)
	wantProblem(t, r, http.StatusBadRequest, "bad_request")
	if len(after) > 0 {
		t.Fatalf("after the 400 the server sent %q: the bytes after the headers were served as a second request", after)
	}
	if !closed {
		t.Fatal("the connection was left open after two Content-Length headers; it must be closed, and the 400 say so")
	}
}

// Every request whose framing RFC 9112 calls invalid, or that we refuse
// where the RFC lets us (README, "HTTP"), is answered with a problem and
// its connection closed; none reaches a handler (the geocoder is never
// called), and no body is read for it.
func TestMalformedRequestsAreRefusedAndTheirConnectionClosed(t *testing.T) {
	s := newStack(t, stackOptions{})
	addr := s.serveRaw()
	batch := `{"addresses":[{"street":"123 N Main St","city":"Springfield","state":"IL"}]}`
	post := "POST /v1/properties/batch HTTP/1.1\r\nHost: test\r\nX-API-Key: " + testKey + "\r\nContent-Type: application/json\r\n"
	cl := "Content-Length: " + strconv.Itoa(len(batch)) + "\r\n"
	chunked := strconv.FormatInt(int64(len(batch)), 16) + "\r\n" + batch + "\r\n0\r\n\r\n"
	for _, tc := range []struct {
		name, raw string
		status    int
		code      string
	}{
		{"two identical Content-Length headers", post + cl + cl + "\r\n" + batch, 400, "bad_request"},
		{"Content-Length then Transfer-Encoding", post + cl + "Transfer-Encoding: chunked\r\n\r\n" + chunked, 400, "bad_request"},
		{"Transfer-Encoding then Content-Length", post + "Transfer-Encoding: chunked\r\n" + cl + "\r\n" + chunked, 400, "bad_request"},
		{"a transfer coding other than chunked", post + "Transfer-Encoding: gzip\r\n\r\n" + chunked, 400, "bad_request"},
		{"chunked not the last coding", post + "Transfer-Encoding: chunked, gzip\r\n\r\n" + chunked, 400, "bad_request"},
		{"an HTTP/1.1 request without Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "bad_request"},
		{"two Host headers", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "bad_request"},
		{"two Host headers in HTTP/1.0", "GET /healthz HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n", 400, "bad_request"},
		{"HTTP/9.9", "GET /healthz HTTP/9.9\r\nHost: test\r\n\r\n", 505, "http_version_not_supported"},
		{"HTTP/2.0 in the clear", "GET /healthz HTTP/2.0\r\nHost: test\r\n\r\n", 505, "http_version_not_supported"},
		{"a version that is not HTTP/d.d", "GET /healthz HTTP/1.10\r\nHost: test\r\n\r\n", 400, "bad_request"},
		{"a version in lower case", "GET /healthz http/1.1\r\nHost: test\r\n\r\n", 400, "bad_request"},
		{"header lines ended by a bare LF", "GET /healthz HTTP/1.1\r\nHost: test\nAccept: */*\n\n", 400, "bad_request"},
		{"the header section ended by a bare LF", "GET /healthz HTTP/1.1\r\nHost: test\r\n\n", 400, "bad_request"},
		{"a bare CR inside a header line", "GET /healthz HTTP/1.1\r\nHost: test\rX-Smuggled: 1\r\n\r\n", 400, "bad_request"},
		{"a bare CR in the request target", "GET /healthz\rx HTTP/1.1\r\nHost: test\r\n\r\n", 400, "bad_request"},
		{"a folded header line", "GET /healthz HTTP/1.1\r\nHost: test\r\nAccept: text/plain,\r\n */*\r\n\r\n", 400, "bad_request"},
		{"a space before a header's colon", "GET /healthz HTTP/1.1\r\nHost : test\r\n\r\n", 400, "bad_request"},
		{"a tab before a header's colon", "GET /healthz HTTP/1.1\r\nHost: test\r\nContent-Length\t: 0\r\n\r\n", 400, "bad_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, after, closed := exchange(t, addr, tc.raw)
			wantProblem(t, r, tc.status, tc.code)
			if len(after) > 0 {
				t.Fatalf("after the %d the server sent %q", tc.status, after)
			}
			if !closed {
				t.Fatalf("the connection was left open after a %d, or the answer did not say it closes", tc.status)
			}
		})
	}
	if n := s.geo.calls.Load(); n != 0 {
		t.Fatalf("the geocoder was called %d times: a refused batch reached its handler", n)
	}
}

// What RFC 9112 allows is served as before: HTTP/1.0 without Host, an
// empty Host, a later HTTP/1.x minor as HTTP/1.1, header names in any
// case, a chunked body alone, and requests one after another on a kept-
// alive connection.
func TestWellFramedRequestsAreServed(t *testing.T) {
	s := newStack(t, stackOptions{})
	addr := s.serveRaw()
	for _, tc := range []struct {
		name, raw string
		status    int
	}{
		{"HTTP/1.0 without Host", "GET /healthz HTTP/1.0\r\n\r\n", 200},
		{"HTTP/1.0 with headers and no Host", "GET /healthz HTTP/1.0\r\nAccept: */*\r\n\r\n", 200},
		{"an empty Host", "GET /healthz HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n", 200},
		{"HTTP/1.2, served as HTTP/1.1", "GET /healthz HTTP/1.2\r\nHost: test\r\n\r\n", 200},
		{"names in any case", "GET /healthz HTTP/1.1\r\nHOST: test\r\nconnection: close\r\n\r\n", 200},
		{"a chunked body", "POST /v1/properties/batch HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" +
			"transfer-encoding: Chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _, _ := exchange(t, addr, tc.raw)
			if r.status != tc.status {
				t.Fatalf("status = %d, want %d; body %s", r.status, tc.status, r.body)
			}
		})
	}

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := range 3 {
		if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("request %d on a kept-alive connection: %v %v", i+1, resp, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
