package gateway

import (
	"bufio"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// warmGetHeader is the header of a warm GET as the bench's client sends it.
func warmGetHeader(tb testing.TB) *fasthttp.RequestHeader {
	tb.Helper()
	var h fasthttp.RequestHeader
	raw := "GET /v1/properties/123456 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: fasthttp\r\nX-API-Key: a-key-of-some-forty-characters-0123456789\r\n\r\n"
	if err := h.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
		tb.Fatal(err)
	}
	return &h
}

// The framing check runs on every request, the warm GET's included: it
// must allocate nothing.
func TestFramingCheckAllocatesNothing(t *testing.T) {
	h := warmGetHeader(t)
	if err := framingError(h); err != nil {
		t.Fatalf("a warm GET's header is refused: %v", err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = framingError(h) }); n != 0 {
		t.Fatalf("framingError allocates %v times per request, want 0", n)
	}
}

func BenchmarkFramingError(b *testing.B) {
	h := warmGetHeader(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = framingError(h)
	}
}
