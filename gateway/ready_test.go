package gateway

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/ratelimit"
)

// The table in front of the cache answers only for the id it holds, and
// only until the body's TTL: two ids sharing a slot each get their own
// body, and an expired body is not served from either place.
func TestReadyBodiesAnswerForTheirOwnIDUntilTheirTTL(t *testing.T) {
	c, err := cache.New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := newReadyBodies(c, time.Hour)
	now := time.Now()
	r.put(7, []byte(`{"id":7}`), now)
	r.put(7+hotSlots, []byte(`{"id":4103}`), now) // the same slot
	c.Wait()
	for _, id := range []int64{7, 7 + hotSlots, 7, 7 + hotSlots} {
		rb, ok := r.get(id, now)
		if !ok || rb.id != id || string(rb.body) != `{"id":`+strconv.FormatInt(id, 10)+`}` {
			t.Fatalf("get(%d) = %v %s, want its own body", id, ok, rb.body)
		}
	}
	short := newReadyBodies(c, 20*time.Millisecond)
	short.put(9, []byte(`{"id":9}`), time.Now())
	c.Wait()
	if _, ok := short.get(9, time.Now()); !ok {
		t.Fatal("a fresh body was not found")
	}
	time.Sleep(40 * time.Millisecond)
	if rb, ok := short.get(9, time.Now()); ok {
		t.Fatalf("a body past its TTL was served: %s", rb.body)
	}
	if _, ok := newReadyBodies(nil, time.Hour).get(9, time.Now()); ok {
		t.Fatal("no cache: a body was found")
	}
}

// With the cache off there is nothing to keep ready bodies in: none is
// served, none is kept, and the table in front of the cache is not made.
func TestReadyBodiesKeepNothingWithoutACache(t *testing.T) {
	r := newReadyBodies(nil, time.Hour)
	if r.hot != nil {
		t.Error("a table of hot bodies was allocated with no cache")
	}
	now := time.Now()
	if rb := r.put(7, []byte(`{"id":7}`), now); string(rb.body) != `{"id":7}` || len(rb.etag) == 0 {
		t.Errorf("put returned %q %q, want the body and its ETag for this answer", rb.body, rb.etag)
	}
	if _, ok := r.get(7, now); ok {
		t.Error("a body was served with no cache")
	}
}

// serveReady answers only the plainest warm GET of a record, as the Fiber
// chain would; anything else it leaves to the app untouched and uncharged.
func TestServeReadyTakesOnlyThePlainWarmGetOfARecord(t *testing.T) {
	c, err := cache.New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key := "the-key"
	g := New(Config{Answers: c, AnswerTTL: time.Hour, Keys: []Key{
		{Name: "one", SHA256: sha256.Sum256([]byte(key)), Limit: ratelimit.Limit{Rate: 1e-6, Burst: 3}},
	}})
	body := []byte(`{"data":{"id":7}}`)
	rb := g.ready.put(7, body, time.Now())
	c.Wait()
	request := func(method, uri string, headers ...string) *fasthttp.RequestCtx {
		rctx := &fasthttp.RequestCtx{}
		rctx.Request.Header.SetMethod(method)
		rctx.Request.Header.SetRequestURI(uri)
		for i := 0; i+1 < len(headers); i += 2 {
			rctx.Request.Header.Set(headers[i], headers[i+1])
		}
		return rctx
	}
	untouched := func(rctx *fasthttp.RequestCtx) bool {
		return rctx.Response.StatusCode() == 200 && len(rctx.Response.Body()) == 0 &&
			rctx.Response.Header.Len() <= 1 // Content-Type's default only
	}
	for _, r := range []struct{ method, uri, key string }{
		{"GET", "/v1/properties/7?include=flood", key},
		{"GET", "/v1/properties/7?", key},
		{"GET", "/v1/properties/07", key},
		{"GET", "/v1/properties/+7", key},
		{"GET", "/V1/properties/7", key},
		{"GET", "/v1/properties/7/", key},
		{"GET", "/v1/properties/", key},
		{"GET", "/v1/properties/8", key}, // no ready body
		{"GET", "/v1/properties/1234567890123456789", key},
		{"GET", "http://example.com/v1/properties/7", key},
		{"POST", "/v1/properties/7", key},
		{"GET", "/v1/properties/7", ""},
		{"GET", "/v1/properties/7", "wrong"},
	} {
		rctx := request(r.method, r.uri, "X-API-Key", r.key)
		if g.serveFast(rctx) || !untouched(rctx) {
			t.Errorf("%s %s (key %q) was answered in front of the app: %d %q", r.method, r.uri, r.key, rctx.Response.StatusCode(), rctx.Response.Header.String())
		}
	}
	rctx := request("GET", "/v1/properties/7", "X-API-Key", key, "X-Request-ID", "abc")
	if !g.serveFast(rctx) {
		t.Fatal("the plain warm GET was left to the app")
	}
	// The names as sent: fasthttp's Peek would look up its own spelling
	// (X-Request-Id), not the API's.
	sent := func(rctx *fasthttp.RequestCtx) map[string]string {
		m := map[string]string{}
		rctx.Response.Header.VisitAll(func(k, v []byte) { m[string(k)] = string(v) })
		return m
	}
	want := map[string]string{"Content-Type": "application/json", "X-Request-ID": "abc", "X-Request-Cost": "1",
		"X-RateLimit-Limit": "3", "X-RateLimit-Remaining": "2", "ETag": string(rb.etag),
		"Cache-Control": "private, no-cache", "Vary": "X-API-Key"}
	got := sent(rctx)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("the warm GET's %s: %q, want %q", k, got[k], v)
		}
	}
	if rctx.Response.StatusCode() != 200 || string(rctx.Response.Body()) != string(body) {
		t.Fatalf("the warm GET's answer: %d %s", rctx.Response.StatusCode(), rctx.Response.Body())
	}
	rctx = request("GET", "/v1/properties/7", "X-API-Key", key, "If-None-Match", `"x", `+string(rb.etag))
	if !g.serveFast(rctx) || rctx.Response.StatusCode() != 304 || len(rctx.Response.Body()) != 0 ||
		sent(rctx)["X-RateLimit-Remaining"] != "1" {
		t.Fatalf("a matching If-None-Match: %d %q", rctx.Response.StatusCode(), rctx.Response.Header.String())
	}
	// VisitAll shows fasthttp's default Content-Type, which it writes
	// only with content or when set: what is written is what counts.
	if wire := rctx.Response.Header.String(); strings.Contains(wire, "Content-Type:") || sent(rctx)["ETag"] != string(rb.etag) {
		t.Errorf("the warm GET's 304 is %q; want its ETag and no Content-Type (it has no content)", wire)
	}
	// The budget (burst 3, refilling once in about 12 days) is spent: the
	// refused request is answered 429 in front of the app too, charging
	// nothing, with the problem the app would send.
	rctx = request("GET", "/v1/properties/7", "X-API-Key", key)
	if !g.serveFast(rctx) {
		t.Fatal("the third request within the burst was left to the app")
	}
	for i := range 2 {
		id := fmt.Sprintf("refused-%d", i)
		rctx = request("GET", "/v1/properties/7", "X-API-Key", key, "X-Request-ID", id)
		if !g.serveFast(rctx) {
			t.Fatal("a request over the budget was left to the app")
		}
		got := sent(rctx)
		var p map[string]any
		if err := json.Unmarshal(rctx.Response.Body(), &p); err != nil || rctx.Response.StatusCode() != 429 ||
			p["code"] != "rate_limited" || p["request_id"] != id || p["status"] != 429.0 ||
			got["Content-Type"] != "application/problem+json" || got["X-Request-ID"] != id || got["Retry-After"] == "" ||
			got["X-Request-Cost"] != "0" || got["X-RateLimit-Remaining"] != "0" {
			t.Fatalf("a request over the budget: %d %q %s", rctx.Response.StatusCode(), rctx.Response.Header.String(), rctx.Response.Body())
		}
	}
}

// sentHeader is the value of the response header name as set, whatever
// the spelling (Peek looks up fasthttp's own: Etag, not ETag).
func sentHeader(rctx *fasthttp.RequestCtx, name string) string {
	var v string
	rctx.Response.Header.VisitAll(func(k, value []byte) {
		if strings.EqualFold(string(k), name) {
			v = string(value)
		}
	})
	return v
}

// In front of the app, a large ready body is sent in the coding the
// request accepts, compressed once and kept beside the body, with its
// representation's ETag; a small one is sent as it is, whatever the
// request accepts, and does not vary with Accept-Encoding.
func TestServeReadyCompressesOnlyALargeBody(t *testing.T) {
	c, err := cache.New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key := "the-key"
	g := New(Config{Answers: c, AnswerTTL: time.Hour, Keys: []Key{
		{Name: "one", SHA256: sha256.Sum256([]byte(key)), Limit: ratelimit.Limit{Rate: 1000, Burst: 1000}},
	}})
	small := g.ready.put(7, []byte(`{"data":{"id":7}}`), time.Now())
	large := g.ready.put(8, []byte(`{"data":{"id":8,"pad":"`+strings.Repeat("abc ", 1000)+`"}}`), time.Now())
	c.Wait()
	get := func(id string, headers ...string) *fasthttp.RequestCtx {
		rctx := &fasthttp.RequestCtx{}
		rctx.Request.Header.SetMethod("GET")
		rctx.Request.Header.SetRequestURI("/v1/properties/" + id)
		rctx.Request.Header.Set("X-API-Key", key)
		for i := 0; i+1 < len(headers); i += 2 {
			rctx.Request.Header.Set(headers[i], headers[i+1])
		}
		if !g.serveFast(rctx) {
			t.Fatalf("GET %s %q was left to the app", id, headers)
		}
		return rctx
	}
	r := get("7", "Accept-Encoding", "gzip, br")
	if ce := r.Response.Header.ContentEncoding(); len(ce) > 0 || string(r.Response.Body()) != string(small.body) ||
		sentHeader(r, "Vary") != "X-API-Key" {
		t.Errorf("a small body with Accept-Encoding gzip, br: in %q, Vary %q; want it as it is, varying with the key only", ce, sentHeader(r, "Vary"))
	}
	var sent []byte
	for range 2 {
		r = get("8", "Accept-Encoding", "gzip")
		body := r.Response.Body()
		plain, err := fasthttp.AppendGunzipBytes(nil, body)
		if err != nil || string(plain) != string(large.body) || string(r.Response.Header.ContentEncoding()) != "gzip" {
			t.Fatalf("a large body with Accept-Encoding gzip: in %q, %d bytes (%v); want it in gzip", r.Response.Header.ContentEncoding(), len(body), err)
		}
		if etag := sentHeader(r, "ETag"); etag != strings.TrimSuffix(string(large.etag), `"`)+`-gzip"` {
			t.Errorf("the gzip representation's ETag %s; the body's is %s", etag, large.etag)
		}
		if v := sentHeader(r, "Vary"); v != "X-API-Key, Accept-Encoding" {
			t.Errorf("Vary %q, want X-API-Key, Accept-Encoding", v)
		}
		if sent != nil && &sent[0] != &body[0] {
			t.Error("the compressed body was made again for the second request; want it kept")
		}
		sent = body
	}
	r = get("8", "Accept-Encoding", "gzip", "If-None-Match", sentHeader(r, "ETag"))
	if r.Response.StatusCode() != 304 || len(r.Response.Body()) != 0 || len(r.Response.Header.ContentEncoding()) != 0 {
		t.Errorf("If-None-Match of the gzip ETag: %d with %d bytes in %q; want 304", r.Response.StatusCode(), len(r.Response.Body()), r.Response.Header.ContentEncoding())
	}
	r = get("8", "Accept-Encoding", "br;q=1, gzip;q=0.5")
	if plain, err := fasthttp.AppendUnbrotliBytes(nil, r.Response.Body()); err != nil || string(plain) != string(large.body) {
		t.Errorf("br preferred: in %q (%v); want br", r.Response.Header.ContentEncoding(), err)
	}
	r = get("8")
	if len(r.Response.Header.ContentEncoding()) != 0 || string(r.Response.Body()) != string(large.body) || sentHeader(r, "ETag") != string(large.etag) {
		t.Errorf("no Accept-Encoding: in %q with ETag %s; want the body as it is with its ETag", r.Response.Header.ContentEncoding(), sentHeader(r, "ETag"))
	}
}
