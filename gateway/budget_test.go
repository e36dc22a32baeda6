package gateway_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
)

// anyStreet makes the stack's geocoder match every address, each at a place
// of its own, so that every new spelling is a new record and a geocoder call.
func anyStreet(s *stack) {
	s.geo.geocode = func(_ context.Context, a providers.Address) (providers.Location, error) {
		n := len(a.Street)
		return providers.Location{
			MatchedAddress: strings.ToUpper(a.Street) + ", SPRINGFIELD, IL, 62701", Street: strings.ToUpper(a.Street),
			City: "SPRINGFIELD", State: "IL", Zip: "62701",
			Point:  providers.Point{Lat: 39.7 + float64(a.Street[0]-'0')/100 + float64(n)/1000, Lng: -89.6},
			County: "Sangamon County", FIPSCode: "17167", CensusTract: "000500",
		}, nil
	}
}

// A conditional request must never buy upstream work for free: with
// If-None-Match: * every GET would end as 304, and a 304 used to be refunded
// after the handler had geocoded, fetched every section and saved a record.
func TestIfNoneMatchStarCannotSkipTheBudget(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{burst: 20, rate: 0.001, sections: f.sections(time.Hour, nil)})
	anyStreet(s)
	passed, limited := 0, 0
	for i := 1; i <= 9; i++ {
		r := s.get(lookupURL(fmt.Sprintf("%d Oak St", i), "Springfield", "IL", "")+"&include="+allSections,
			"If-None-Match", "*")
		switch r.status {
		case 304:
			passed++
			if got := r.header.Get("X-Request-Cost"); got != "6" {
				t.Errorf("a 304 that geocoded and fetched five sections cost %s, want the full 6", got)
			}
		case 429:
			limited++
		default:
			t.Fatalf("lookup %d: status %d: %s", i, r.status, r.body)
		}
	}
	// Burst 20 at 6 a lookup: three lookups, then 429.
	if passed != 3 || limited != 6 {
		t.Fatalf("with If-None-Match: * a burst of 20 let %d lookups of cost 6 through (%d refused); want 3, then 429", passed, limited)
	}
	if got := int(s.geo.calls.Load()); got != 3 {
		t.Fatalf("geocoder calls = %d, want 3: the budget must bound upstream work", got)
	}
	if got := s.countProperties(); got != 3 {
		t.Fatalf("records created = %d, want 3", got)
	}
	for _, name := range service.PublicSections() {
		if got := f.count(name); got > 3 {
			t.Errorf("%s fetched %d times for 3 paid lookups", name, got)
		}
	}
}

// A 304 whose record and sections were all stored costs 1, not its weight:
// the client's copy is current and nothing was fetched.
func TestNotModifiedFromStoredSectionsCostsOne(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{burst: 20, rate: 0.001, sections: f.sections(time.Hour, nil)})
	url := lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=" + allSections
	first := s.get(url)
	if first.status != 200 || first.header.Get("X-Request-Cost") != "6" {
		t.Fatalf("first lookup: %d, cost %s", first.status, first.header.Get("X-Request-Cost"))
	}
	warm := s.get(url) // served from the cache: meta says hit, not miss, so its ETag is the one to keep
	nm := s.get(url, "If-None-Match", warm.header.Get("ETag"))
	if nm.status != 304 {
		t.Fatalf("status %d, want 304", nm.status)
	}
	if got := nm.header.Get("X-Request-Cost"); got != "1" {
		t.Fatalf("X-Request-Cost = %s, want 1 for a 304 served from stored data", got)
	}
	if got := nm.header.Get("X-RateLimit-Remaining"); got != "7" {
		t.Fatalf("remaining = %s, want 20 - 6 - 6 - 1 = 7", got)
	}
}

// Input refused before any work costs nothing, whichever check refused it:
// the cost function, the handler's parameter checks or the normalizer.
func TestRejectedInputCostsNothing(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{burst: 20, rate: 0.001, sections: f.sections(time.Hour, nil)})
	longInclude := strings.Repeat("flood,", 40) + "walkscore,housing"
	for _, target := range []string{
		lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=" + longInclude,
		"/v1/properties/lookup?street=1+Main+St&state=ZZ&include=flood",
		lookupURL("PO Box 12", "Springfield", "IL", "") + "&include=flood,walkscore",
		"/v1/properties/reverse?lat=91&lng=0&include=flood",
		"/v1/properties/1?include=flood&bogus=1",
		"/v1/properties/search?zip=123",
	} {
		r := s.get(target)
		if r.status < 400 || r.status > 499 {
			t.Fatalf("%s: status %d, want a 4xx", target, r.status)
		}
		if got := r.header.Get("X-RateLimit-Remaining"); got != "20" {
			t.Errorf("%s: %d %s left %s of 20 tokens: a refused request must cost nothing", target, r.status, r.json["code"], got)
		}
		if got := r.header.Get("X-Request-Cost"); got != "0" && got != "" {
			t.Errorf("%s: X-Request-Cost = %s, want 0", target, got)
		}
	}
	if s.geo.calls.Load() != 0 {
		t.Fatal("a refused request reached the geocoder")
	}
}
