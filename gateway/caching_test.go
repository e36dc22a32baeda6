package gateway_test

import (
	"fmt"
	"testing"
	"time"
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
