package gateway

import (
	"bufio"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// readFastHeaders finds what fasthttp's Peek finds for each of its four
// headers (the first value, nil when absent), on requests parsed from the
// bytes a client sends: names in any case, repeated, empty, or absent.
func TestReadFastHeadersFindsWhatPeekFinds(t *testing.T) {
	for _, raw := range []string{
		"GET /v1/properties/7 HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /v1/properties/7 HTTP/1.1\r\nHost: x\r\nX-API-Key: k1\r\nX-Request-ID: r1\r\nIf-None-Match: \"e\"\r\nOrigin: https://a.example\r\n\r\n",
		"GET /v1/properties/7 HTTP/1.1\r\nHost: x\r\nx-api-key: k1\r\nX-API-KEY: k2\r\nx-request-id: r1\r\nX-Request-Id: r2\r\nif-none-match: W/\"e\", \"f\"\r\nORIGIN: null\r\n\r\n",
		"GET /v1/properties/7 HTTP/1.1\r\nHost: x\r\nX-API-Key:\r\nX-Request-ID: \r\nUser-Agent: t\r\nAccept: */*\r\nX-API-Keys: no\r\nOrigins: no\r\n\r\n",
		"GET /v1/properties/7 HTTP/1.1\r\nHost: x\r\nX-Api-Kez: no\r\nCookie: a=b\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n",
		// An empty first value wins over a later one, as with Peek: the
		// chain answers 401 to that key, so the fast path must not find
		// the second.
		"GET /v1/properties/7 HTTP/1.1\r\nHost: x\r\nX-API-Key:\r\nX-API-Key: k2\r\nIf-None-Match:\r\nIf-None-Match: \"e\"\r\n\r\n",
	} {
		var req fasthttp.Request
		if err := req.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		got := readFastHeaders(&req.Header)
		for _, h := range []struct {
			name string
			got  []byte
		}{
			{headerAPIKey, got.key}, {fiber.HeaderXRequestID, got.requestID},
			{fiber.HeaderIfNoneMatch, got.ifNoneMatch}, {fiber.HeaderOrigin, got.origin},
		} {
			want := req.Header.Peek(h.name)
			if string(h.got) != string(want) || (h.got == nil) != (want == nil) {
				t.Errorf("%q: %s is %q (nil %v), Peek gives %q (nil %v)", raw, h.name, h.got, h.got == nil, want, want == nil)
			}
		}
	}
}
