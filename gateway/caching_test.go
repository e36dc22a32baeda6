package gateway_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/gateway"
	"github.com/valyala/fasthttp"
)

// A 304 carries no Content-Type (RFC 9110 section 15.4.5 lists what it
// may repeat; a validating proxy refuses a 304 that describes a body it
// does not have), on every read endpoint, the plain warm GET answered in
// front of the app included, and keeps the ETag and the budget's headers.
func TestNotModifiedCarriesNoContentType(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	record := fmt.Sprintf("/v1/properties/%d", int(created.data()["id"].(float64)))
	for _, target := range []string{
		record, // rendered by the app, then kept ready
		record, // the ready body, in front of the app
		record + "?include=flood",
		record + "/flood",
		lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood",
		"/v1/properties/search?state=IL",
		"/v1/properties/reverse?lat=39.8017&lng=-89.6437",
	} {
		s.get(target)
		s.cache.Wait()
		get := s.get(target)
		for _, method := range []string{"GET", "HEAD"} {
			nm := s.do(method, target, "", "If-None-Match", get.header.Get("ETag"))
			if nm.status != 304 {
				t.Fatalf("%s %s with If-None-Match of the current ETag: %d, want 304", method, target, nm.status)
			}
			if ct, ok := nm.header["Content-Type"]; ok {
				t.Errorf("%s %s: the 304 says Content-Type %q; a 304 has no content to describe", method, target, ct)
			}
			for _, name := range []string{"ETag", "X-Request-Cost", "X-RateLimit-Remaining", "X-Request-Id"} {
				if nm.header.Get(name) == "" {
					t.Errorf("%s %s: the 304 lacks %s", method, target, name)
				}
			}
			if nm.header.Get("ETag") != get.header.Get("ETag") {
				t.Errorf("%s %s: the 304's ETag %q, the 200's %q", method, target, nm.header.Get("ETag"), get.header.Get("ETag"))
			}
		}
	}
}

// varies lists the header names of a response's Vary, over all its lines.
func varies(r response) []string {
	var names []string
	for _, v := range r.header.Values("Vary") {
		for _, name := range strings.Split(v, ",") {
			names = append(names, http.CanonicalHeaderKey(strings.TrimSpace(name)))
		}
	}
	return names
}

// Every answer of a key says how a cache may keep it: a GET's (200 and
// 304) is private, revalidated each time, and varies with X-API-Key, so
// that no cache in front serves one key's answer to another (the key is no
// Authorization header, which RFC 9111 protects); a batch's answer and
// every problem are not stored at all. With CORS on, Vary names both the
// key and Origin.
func TestKeyedAnswersArePrivateAndVaryWithTheKey(t *testing.T) {
	f := newFakeSections()
	for _, cors := range []bool{false, true} {
		opts := stackOptions{burst: 100, rate: 0.001, sections: f.sections(time.Hour, nil)}
		if cors {
			opts.cors = gateway.CORS{AllowedOrigins: []string{"https://app.example"}}
		}
		s := newStack(t, opts)
		created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
		record := fmt.Sprintf("/v1/properties/%d", int(created.data()["id"].(float64)))
		wantVary := []string{"X-Api-Key"}
		if cors {
			wantVary = append(wantVary, "Origin")
		}
		for _, target := range []string{
			record, record, // through the app, then in front of it
			record + "?include=flood", record + "/flood",
			lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood",
			"/v1/properties/search?state=IL", "/v1/properties/reverse?lat=39.8017&lng=-89.6437",
		} {
			s.get(target) // a first answer may say its sections were fetched
			s.cache.Wait()
			get := s.get(target)
			nm := s.get(target, "If-None-Match", get.header.Get("ETag"))
			for _, r := range []response{get, nm} {
				if cc := r.header.Get("Cache-Control"); cc != "private, no-cache" {
					t.Errorf("cors %v: GET %s answered %d with Cache-Control %q; want private, no-cache", cors, target, r.status, cc)
				}
				for _, name := range wantVary {
					if !slices.Contains(varies(r), name) {
						t.Errorf("cors %v: GET %s answered %d with Vary %q; want it to name %s", cors, target, r.status, r.header.Values("Vary"), name)
					}
				}
			}
			if nm.status != 304 {
				t.Errorf("cors %v: GET %s with its ETag: %d, want 304", cors, target, nm.status)
			}
		}
		batch := s.do("POST", "/v1/properties/batch", `{"addresses":[{"street":"123 N Main St","city":"Springfield","state":"IL"}]}`)
		if batch.status != 200 || batch.header.Get("Cache-Control") != "no-store" {
			t.Errorf("cors %v: a batch answered %d with Cache-Control %q; want 200 and no-store", cors, batch.status, batch.header.Get("Cache-Control"))
		}
		for _, r := range []response{
			s.get(record, "X-API-Key", ""),                  // 401
			s.get("/v1/properties/999999"),                  // 404
			s.get("/v1/properties/abc"),                     // 400
			s.get(record + "?include=flood,walkscore,nope"), // 400, refused before any charge
			s.get("/v1/nowhere"),                            // 404 of a path
		} {
			if r.status < 400 || r.header.Get("Cache-Control") != "no-store" {
				t.Errorf("cors %v: a problem (%d %s) says Cache-Control %q; want no-store", cors, r.status, r.json["code"], r.header.Get("Cache-Control"))
			}
		}
		limited := false
		for range 100 { // the burst of 100 runs out
			if r := s.get(record + "?include=flood"); r.status == 429 {
				limited = true
				if r.header.Get("Cache-Control") != "no-store" {
					t.Errorf("cors %v: a 429 says Cache-Control %q; want no-store", cors, r.header.Get("Cache-Control"))
				}
				break
			}
		}
		if !limited {
			t.Errorf("cors %v: the budget never ran out", cors)
		}
	}
}

// decoded is a response's body with its Content-Encoding undone.
func decoded(t *testing.T, r response) []byte {
	t.Helper()
	var b []byte
	var err error
	switch ce := r.header.Get("Content-Encoding"); ce {
	case "":
		return r.body
	case "gzip":
		b, err = fasthttp.AppendGunzipBytes(nil, r.body)
	case "br":
		b, err = fasthttp.AppendUnbrotliBytes(nil, r.body)
	default:
		t.Fatalf("Content-Encoding %q", ce)
	}
	if err != nil {
		t.Fatalf("undoing Content-Encoding %s: %v", r.header.Get("Content-Encoding"), err)
	}
	return b
}

// codedETag is the ETag the representation of a body whose own ETag is
// etag has in coding ce ("" for identity).
func codedETag(etag, ce string) string {
	if ce == "" {
		return etag
	}
	return strings.TrimSuffix(etag, `"`) + "-" + ce + `"`
}

// A large answer is compressed in the coding the request prefers (q-values
// honoured), the same bytes once decompressed, with an ETag of its own
// representation, which If-None-Match matches for that representation
// only; the answer says it varies with Accept-Encoding, and HEAD says what
// GET says. It holds for answers rendered for the request (a record with
// sections), for answers kept ready (a warm lookup) and for a batch, which
// has no ETag.
func TestLargeAnswersAreCompressedAsTheRequestAccepts(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	record := fmt.Sprintf("/v1/properties/%d", int(created.data()["id"].(float64)))
	all := "flood,demographics,amenities,walkscore,housing"
	for _, target := range []string{
		record + "?include=" + all,
		lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=" + all, // kept ready once warm
	} {
		s.get(target)
		s.cache.Wait()
		plain := s.get(target)
		if plain.status != 200 || len(plain.body) < 2048 {
			t.Fatalf("%s: %d with %d bytes; the test wants an answer of 2 KiB or more", target, plain.status, len(plain.body))
		}
		etag := plain.header.Get("ETag")
		for _, c := range []struct{ ae, want string }{
			{"", ""},
			{"gzip", "gzip"},
			{"gzip, deflate, br, zstd", "br"},
			{"br;q=0.5, gzip", "gzip"},
			{"gzip;q=0, br", "br"},
			{"identity;q=1, gzip;q=0.5", ""},
			{"*", "br"},
			{"*;q=0", ""},
			{"identity;q=0, gzip;q=0, br;q=0", ""},
		} {
			r := s.get(target, "Accept-Encoding", c.ae)
			if r.status != 200 || r.header.Get("Content-Encoding") != c.want {
				t.Errorf("%s with Accept-Encoding %q: %d in %q, want 200 in %q", target, c.ae, r.status, r.header.Get("Content-Encoding"), c.want)
				continue
			}
			if got := decoded(t, r); string(got) != string(plain.body) {
				t.Errorf("%s in %q: %d bytes decompressed to %d bytes that differ from the %d of the answer sent as it is",
					target, c.want, len(r.body), len(got), len(plain.body))
			}
			if c.want != "" && len(r.body) >= len(plain.body)/2 {
				t.Errorf("%s in %s: %d bytes for %d", target, c.want, len(r.body), len(plain.body))
			}
			if got, want := r.header.Get("ETag"), codedETag(etag, c.want); got != want {
				t.Errorf("%s in %q: ETag %s, want %s", target, c.want, got, want)
			}
			if !slices.Contains(varies(r), "Accept-Encoding") || !slices.Contains(varies(r), "X-Api-Key") {
				t.Errorf("%s in %q: Vary %q, want Accept-Encoding and X-API-Key", target, c.want, r.header.Values("Vary"))
			}
			head := s.do("HEAD", target, "", "Accept-Encoding", c.ae)
			for _, name := range []string{"Content-Encoding", "Content-Length", "ETag", "Vary", "Content-Type", "Cache-Control"} {
				if head.header.Get(name) != r.header.Get(name) {
					t.Errorf("%s in %q: HEAD says %s %q, GET %q", target, c.want, name, head.header.Get(name), r.header.Get(name))
				}
			}
			// If-None-Match matches the representation the request gets.
			nm := s.get(target, "Accept-Encoding", c.ae, "If-None-Match", r.header.Get("ETag"))
			if nm.status != 304 || nm.header.Get("ETag") != r.header.Get("ETag") || len(nm.body) != 0 ||
				nm.header.Get("Content-Encoding") != "" || !slices.Contains(varies(nm), "Accept-Encoding") {
				t.Errorf("%s in %q with its own ETag: %d, ETag %q, Content-Encoding %q, Vary %q; want 304 with the same ETag and Vary and no Content-Encoding",
					target, c.want, nm.status, nm.header.Get("ETag"), nm.header.Get("Content-Encoding"), nm.header.Values("Vary"))
			}
		}
		// A validator of one coding does not validate another's bytes.
		if r := s.get(target, "If-None-Match", codedETag(etag, "gzip")); r.status != 200 || r.header.Get("ETag") != etag {
			t.Errorf("%s without Accept-Encoding, If-None-Match of the gzip ETag: %d, ETag %q; want 200 as it is", target, r.status, r.header.Get("ETag"))
		}
		if r := s.get(target, "Accept-Encoding", "br", "If-None-Match", etag); r.status != 200 || r.header.Get("Content-Encoding") != "br" {
			t.Errorf("%s in br, If-None-Match of the identity ETag: %d in %q; want 200 in br", target, r.status, r.header.Get("Content-Encoding"))
		}
	}

	// A small answer (a record alone) is sent as it is and does not vary
	// with Accept-Encoding, through the app and in front of it.
	for range 2 {
		r := s.get(record, "Accept-Encoding", "gzip, br")
		if r.status != 200 || r.header.Get("Content-Encoding") != "" || slices.Contains(varies(r), "Accept-Encoding") || len(r.body) >= 2048 {
			t.Errorf("a record alone (%d bytes) with Accept-Encoding gzip, br: %d in %q, Vary %q; want it as it is, not varying with Accept-Encoding",
				len(r.body), r.status, r.header.Get("Content-Encoding"), r.header.Values("Vary"))
		}
	}

	// A batch: compressed, no ETag, not stored.
	one := `{"street":"123 N Main St","state":"IL"}`
	items := strings.TrimSuffix(strings.Repeat(one+",", 25), ",")
	batch := `{"addresses":[` + items + `]}`
	s.do("POST", "/v1/properties/batch?include=flood,demographics", batch) // its sections fetched
	s.cache.Wait()
	plain := s.do("POST", "/v1/properties/batch?include=flood,demographics", batch)
	gz := s.do("POST", "/v1/properties/batch?include=flood,demographics", batch, "Accept-Encoding", "gzip")
	if plain.status != 200 || gz.status != 200 || gz.header.Get("Content-Encoding") != "gzip" || string(decoded(t, gz)) != string(plain.body) ||
		!slices.Contains(varies(gz), "Accept-Encoding") || gz.header.Get("Cache-Control") != "no-store" {
		t.Errorf("a batch of 25 (%d bytes) with Accept-Encoding gzip: %d in %q (%d bytes), Vary %q, Cache-Control %q; want 200 in gzip, the same once decompressed",
			len(plain.body), gz.status, gz.header.Get("Content-Encoding"), len(gz.body), gz.header.Values("Vary"), gz.header.Get("Cache-Control"))
	}
}

// The API reference's document and script are compressed (once, and
// kept); the page itself, small, is not; each representation has its own
// ETag and its 304.
func TestTheReferenceIsCompressed(t *testing.T) {
	s := newStack(t, stackOptions{})
	for _, target := range []string{"/openapi.json", "/docs/assets/swagger-ui-bundle.js"} {
		plain := s.get(target, "X-API-Key", "")
		etag := plain.header.Get("ETag")
		for _, ae := range []string{"gzip", "br", "gzip;q=0.9, br;q=0.1", ""} {
			want := strings.Split(strings.Split(ae, ",")[0], ";")[0]
			r := s.get(target, "X-API-Key", "", "Accept-Encoding", ae)
			if r.status != 200 || r.header.Get("Content-Encoding") != want || string(decoded(t, r)) != string(plain.body) {
				t.Errorf("%s with Accept-Encoding %q: %d in %q (%d bytes, %d sent as it is); want 200 in %q, the same once decompressed",
					target, ae, r.status, r.header.Get("Content-Encoding"), len(r.body), len(plain.body), want)
			}
			if r.header.Get("ETag") != codedETag(etag, want) || !slices.Contains(varies(r), "Accept-Encoding") {
				t.Errorf("%s in %q: ETag %s, Vary %q; want %s and Accept-Encoding", target, want, r.header.Get("ETag"), r.header.Values("Vary"), codedETag(etag, want))
			}
			nm := s.get(target, "X-API-Key", "", "Accept-Encoding", ae, "If-None-Match", r.header.Get("ETag"))
			if nm.status != 304 || nm.header.Get("ETag") != r.header.Get("ETag") {
				t.Errorf("%s in %q with its ETag: %d, ETag %s; want 304 with it", target, want, nm.status, nm.header.Get("ETag"))
			}
		}
	}
	if r := s.get("/docs", "X-API-Key", "", "Accept-Encoding", "gzip"); r.status != 200 || r.header.Get("Content-Encoding") != "" {
		t.Errorf("/docs (%d bytes) with Accept-Encoding gzip: %d in %q; want it as it is", len(r.body), r.status, r.header.Get("Content-Encoding"))
	}
}
