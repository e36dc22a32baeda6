package gateway_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/gateway"
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
