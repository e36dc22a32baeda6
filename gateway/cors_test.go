package gateway_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/gateway"
)

const (
	allowedOrigin = "https://app.example.com"
	otherOrigin   = "https://evil.example.net"
)

// preflight is what a browser sends before a cross-origin GET with the key
// and a conditional header: OPTIONS, the origin, the method and headers it
// means to use, and no key.
func (s *stack) preflight(target, origin string) response {
	s.t.Helper()
	return s.do("OPTIONS", target, "", "X-API-Key", "", "Origin", origin,
		"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "x-api-key,if-none-match")
}

func headerList(r response, name string) []string {
	var out []string
	for _, v := range r.header.Values(name) {
		for _, part := range strings.Split(v, ",") {
			out = append(out, strings.ToLower(strings.TrimSpace(part)))
		}
	}
	return out
}

func wantListed(t *testing.T, r response, header string, names ...string) {
	t.Helper()
	got := headerList(r, header)
	for _, n := range names {
		found := false
		for _, g := range got {
			found = found || g == strings.ToLower(n)
		}
		if !found {
			t.Errorf("%s = %q does not list %s: a page could not use it", header, r.header.Values(header), n)
		}
	}
}

func wantNoCORS(t *testing.T, what string, r response) {
	t.Helper()
	for name := range r.header {
		if strings.HasPrefix(strings.ToLower(name), "access-control-") {
			t.Errorf("%s: answered with %s: %q, want no CORS header", what, name, r.header.Get(name))
		}
	}
}

// TestAPreflightFromAnAllowedOriginIsAnsweredAndCostsNothing: a browser's
// preflight from an allowed origin gets 204 with what it asked to send
// allowed (the key, If-None-Match) and for a while, before any key is
// checked, and it charges nothing.
func TestAPreflightFromAnAllowedOriginIsAnsweredAndCostsNothing(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStack(t, stackOptions{burst: 20, rate: 1, now: func() time.Time { return now },
		cors: gateway.CORS{AllowedOrigins: []string{"http://localhost:3000", allowedOrigin}}})
	if r := s.get("/v1/properties/search"); r.header.Get("X-RateLimit-Remaining") != "19" {
		t.Fatalf("search: X-RateLimit-Remaining %s, want 19", r.header.Get("X-RateLimit-Remaining"))
	}
	for _, target := range []string{"/v1/properties/search", "/v1/properties/1", "/v1/properties/1/flood", "/v1/properties/batch"} {
		for i := 0; i < 12; i++ {
			r := s.preflight(target, allowedOrigin)
			if r.status != 204 {
				t.Fatalf("preflight of %s: %d %s, want 204", target, r.status, r.body)
			}
			if got := r.header.Get("Access-Control-Allow-Origin"); got != allowedOrigin {
				t.Fatalf("preflight of %s: Access-Control-Allow-Origin %q, want %q", target, got, allowedOrigin)
			}
			wantListed(t, r, "Access-Control-Allow-Headers", "X-API-Key", "If-None-Match")
			wantListed(t, r, "Access-Control-Allow-Methods", "GET", "POST")
			if r.header.Get("Access-Control-Max-Age") == "" {
				t.Errorf("preflight of %s: no Access-Control-Max-Age: a browser would ask before every request", target)
			}
			if c := r.header.Get("X-Request-Cost"); c != "" {
				t.Fatalf("preflight of %s was charged %s", target, c)
			}
		}
	}
	if r := s.get("/v1/properties/search", "Origin", allowedOrigin); r.header.Get("X-RateLimit-Remaining") != "18" {
		t.Fatalf("after 48 preflights, search: X-RateLimit-Remaining %s, want 18 (the preflights charged nothing)",
			r.header.Get("X-RateLimit-Remaining"))
	}
}

// TestAnAllowedOriginReadsAnswersAndErrors: a page of an allowed origin
// may read the answer, the budget headers and the ETag, and every error a
// request of it can meet (401, 404, 429) as well: the CORS headers are on
// those too.
func TestAnAllowedOriginReadsAnswersAndErrors(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStack(t, stackOptions{burst: 4, rate: 1, now: func() time.Time { return now },
		cors: gateway.CORS{AllowedOrigins: []string{allowedOrigin}}})
	id := int(s.get(lookupURL("123 N Main St", "Springfield", "IL", "")).data()["id"].(float64))
	// The record's answer is ready now, so a GET without Origin would be
	// served in front of the app; one with an Origin must be answered with
	// the CORS headers all the same.
	if r := s.get(fmt.Sprintf("/v1/properties/%d", id)); r.status != 200 || r.header.Get("Vary") == "" {
		t.Fatalf("GET without Origin: %d, Vary %q; want 200 saying the answer varies with Origin", r.status, r.header.Get("Vary"))
	}
	exposed := []string{"ETag", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit",
		"X-Request-Cost", "X-Request-ID", "Retry-After"}
	check := func(what string, r response, status int) {
		t.Helper()
		if r.status != status {
			t.Fatalf("%s: status %d, want %d: %s", what, r.status, status, r.body)
		}
		if got := r.header.Get("Access-Control-Allow-Origin"); got != allowedOrigin {
			t.Errorf("%s: Access-Control-Allow-Origin %q, want %q: the page could not read the answer", what, got, allowedOrigin)
		}
		wantListed(t, r, "Access-Control-Expose-Headers", exposed...)
	}
	r := s.get(fmt.Sprintf("/v1/properties/%d", id), "Origin", allowedOrigin)
	check("a warm GET", r, 200)
	if r.header.Get("ETag") == "" {
		t.Fatal("a warm GET without an ETag")
	}
	check("a 404 of a path naming no endpoint", s.get("/v1/nope", "Origin", allowedOrigin), 404)
	check("a 401 without a key", s.get("/v1/properties/search", "Origin", allowedOrigin, "X-API-Key", ""), 401)
	check("the last token", s.get("/v1/properties/search", "Origin", allowedOrigin), 200)
	r = s.get("/v1/properties/search", "Origin", allowedOrigin)
	check("a 429", r, 429)
	if r.header.Get("Retry-After") == "" {
		t.Fatal("a 429 without Retry-After")
	}
}

// TestOtherOriginsAndPlainOptionsGetNoCORS: a request from an origin not
// listed gets no CORS header and its preflight is answered as any OPTIONS
// (401 without a key, else the 405 of a method no route serves), and so is
// an OPTIONS that is no preflight; with no origin configured, nothing
// changes at all.
func TestOtherOriginsAndPlainOptionsGetNoCORS(t *testing.T) {
	for _, origins := range [][]string{{allowedOrigin}, nil} {
		t.Run(fmt.Sprintf("allowed %v", origins), func(t *testing.T) {
			s := newStack(t, stackOptions{cors: gateway.CORS{AllowedOrigins: origins}})
			id := int(s.get(lookupURL("123 N Main St", "Springfield", "IL", "")).data()["id"].(float64))
			target := fmt.Sprintf("/v1/properties/%d", id)
			for _, h := range [][]string{{"Origin", otherOrigin}, {"Origin", "null"}, {"Origin", allowedOrigin + ".evil.net"}} {
				r := s.get(target, h...)
				if r.status != 200 {
					t.Fatalf("GET from %s: %d", h[1], r.status)
				}
				wantNoCORS(t, "GET from "+h[1], r)
				// A browser's preflight carries no key: it meets the key
				// check, like any keyless request, and learns nothing.
				r = s.preflight(target, h[1])
				wantProblem(t, r, 401, "unauthorized")
				wantNoCORS(t, "preflight from "+h[1], r)
				// With a key, it is the 405 of any method no route serves.
				r = s.do("OPTIONS", target, "", "Origin", h[1], "Access-Control-Request-Method", "GET")
				wantProblem(t, r, 405, "method_not_allowed")
				wantNoCORS(t, "preflight with a key from "+h[1], r)
				if r.header.Get("Allow") != "GET, HEAD" {
					t.Errorf("preflight with a key from %s: Allow %q, want GET, HEAD", h[1], r.header.Get("Allow"))
				}
			}
			r := s.do("OPTIONS", target, "", "Origin", allowedOrigin)
			wantProblem(t, r, 405, "method_not_allowed")
			if r.header.Get("Allow") != "GET, HEAD" || r.header.Get("Access-Control-Allow-Methods") != "" {
				t.Errorf("an OPTIONS without Access-Control-Request-Method: Allow %q, Access-Control-Allow-Methods %q; want the 405 of any unserved method",
					r.header.Get("Allow"), r.header.Get("Access-Control-Allow-Methods"))
			}
			if origins == nil {
				wantNoCORS(t, "a preflight with no origin configured", s.preflight(target, allowedOrigin))
			}
		})
	}
}

func TestCheckOrigin(t *testing.T) {
	for _, ok := range []string{"https://app.example.com", "http://localhost:3000", "http://127.0.0.1:8081", "https://[::1]:8443", "*"} {
		if err := gateway.CheckOrigin(ok); err != nil {
			t.Errorf("CheckOrigin(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "app.example.com", "https://app.example.com/", "https://app.example.com/app", "ftp://files.example.com",
		"https://*.example.com", "https://user@app.example.com", "https://app.example.com?x", "https://", "localhost:3000"} {
		if err := gateway.CheckOrigin(bad); err == nil {
			t.Errorf("CheckOrigin(%q) = nil, want an error: a browser never sends that Origin", bad)
		}
	}
}
