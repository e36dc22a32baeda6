package gateway_test

import (
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"
)

func lookupURL(street, city, state, zip string) string {
	v := url.Values{}
	for k, x := range map[string]string{"street": street, "city": city, "state": state, "zip": zip} {
		if x != "" {
			v.Set(k, x)
		}
	}
	return "/v1/properties/lookup?" + v.Encode()
}

func TestLookupCreatesRecordWithEveryField(t *testing.T) {
	s := newStack(t, stackOptions{})
	r := s.get(lookupURL("123 north main street", "Springfield", "il", "62701"))
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	d := r.data()
	want := map[string]any{
		"street_address": "123 N MAIN ST", "city": "SPRINGFIELD", "state": "IL", "zip_code": "62701",
		"county": "Sangamon County", "fips_code": "17167", "census_tract": "000500",
		"latitude": 39.8017, "longitude": -89.6437, "property_type": nil, "bedrooms": nil, "unit": nil,
	}
	for k, v := range want {
		got, ok := d[k]
		if !ok {
			t.Errorf("field %s missing from the record", k)
		} else if got != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	if id, ok := d["id"].(float64); !ok || id < 1 {
		t.Errorf("id = %v, want a positive integer", d["id"])
	}
	for _, k := range []string{"created_at", "updated_at"} {
		if _, ok := d[k].(string); !ok {
			t.Errorf("%s missing", k)
		}
	}
	if r.meta()["source"] != "census" {
		t.Errorf("meta.source = %v, want census", r.meta()["source"])
	}
	if r.meta()["created"] != true {
		t.Errorf("meta.created = %v, want true on first lookup", r.meta()["created"])
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
}

func TestRepeatedAndEquivalentSpellingsCostNoUpstreamCall(t *testing.T) {
	s := newStack(t, stackOptions{})
	first := s.get(lookupURL("123 north main street", "Springfield", "IL", ""))
	if first.status != 200 {
		t.Fatalf("first lookup: %d %s", first.status, first.body)
	}
	again := s.get(lookupURL("123 north main street", "Springfield", "IL", ""))
	if again.status != 200 || again.data()["id"] != first.data()["id"] {
		t.Fatalf("repeat lookup: %d %v", again.status, again.data()["id"])
	}
	if again.meta()["created"] != false {
		t.Errorf("meta.created on repeat = %v, want false", again.meta()["created"])
	}
	if n := s.geo.calls.Load(); n != 1 {
		t.Fatalf("geocoder calls after a repeated spelling = %d, want 1", n)
	}
	other := s.get(lookupURL("123 N. Main St.", "springfield", "il", ""))
	if other.status != 200 || other.data()["id"] != first.data()["id"] {
		t.Fatalf("equivalent spelling got id %v, want %v", other.data()["id"], first.data()["id"])
	}
	if n := s.geo.calls.Load(); n != 1 {
		t.Fatalf("geocoder calls after an equivalent spelling = %d, want 1 (same normalized key)", n)
	}
	// A spelling that normalizes differently (with zip) geocodes once and
	// still lands on the same record through the canonical address.
	withZip := s.get(lookupURL("123 North Main Street", "Springfield", "IL", "62701"))
	if withZip.data()["id"] != first.data()["id"] {
		t.Fatalf("zip spelling created a second record: %v vs %v", withZip.data()["id"], first.data()["id"])
	}
	if s.countProperties() != 1 {
		t.Fatalf("records in database = %d, want 1", s.countProperties())
	}
}

func TestUnitIsPartOfIdentity(t *testing.T) {
	s := newStack(t, stackOptions{})
	a := s.get(lookupURL("500 Elm Ave Apt 4B", "Richmond", "VA", ""))
	b := s.get(lookupURL("500 Elm Avenue #12", "Richmond", "VA", ""))
	c := s.get(lookupURL("500 Elm Ave", "Richmond", "VA", ""))
	for _, r := range []response{a, b, c} {
		if r.status != 200 {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
	}
	if a.data()["unit"] == nil || a.data()["unit"] == b.data()["unit"] {
		t.Fatalf("units = %v and %v, want two distinct units", a.data()["unit"], b.data()["unit"])
	}
	if a.data()["id"] == b.data()["id"] || a.data()["id"] == c.data()["id"] {
		t.Fatal("different units share a record")
	}
	if a.data()["street_address"] != "500 ELM AVE" {
		t.Fatalf("street_address = %v, want the building address without unit", a.data()["street_address"])
	}
	again := s.get(lookupURL("500 elm ave apartment 4b", "Richmond", "VA", ""))
	if again.data()["id"] != a.data()["id"] {
		t.Fatalf("same unit spelled differently: id %v, want %v", again.data()["id"], a.data()["id"])
	}
}

// TestLookupTakesAUnitApartFromTheStreet: unit= names the same record as
// the unit typed on the street (unit=4B is #4B, unit=Apt+4 is Apt 4), a
// different record from the building without it, found again without a
// geocoder call; a unit that is none, or contradicts the street's, is a
// 400 naming unit.
func TestLookupTakesAUnitApartFromTheStreet(t *testing.T) {
	s := newStack(t, stackOptions{})
	id := func(r response) any {
		t.Helper()
		if r.status != 200 {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		return r.data()["id"]
	}
	building := id(s.get(lookupURL("500 Elm Ave", "Richmond", "VA", "")))
	apt4 := s.get(lookupURL("500 Elm Ave", "Richmond", "VA", "") + "&unit=Apt+4")
	if id(apt4) == building || apt4.data()["unit"] != "APT 4" || apt4.data()["street_address"] != "500 ELM AVE" {
		t.Fatalf("unit=Apt+4 answered id %v unit %v street %v; want a record of its own, unit APT 4, on 500 ELM AVE (the building is id %v)",
			apt4.data()["id"], apt4.data()["unit"], apt4.data()["street_address"], building)
	}
	if got := id(s.get(lookupURL("500 Elm Ave Apt 4", "Richmond", "VA", ""))); got != id(apt4) {
		t.Fatalf("street 500 Elm Ave Apt 4 is id %v, unit=Apt+4 id %v: one unit, two records", got, id(apt4))
	}
	hash := id(s.get(lookupURL("500 Elm Ave #4B", "Richmond", "VA", "")))
	calls := s.geo.calls.Load()
	for _, unit := range []string{"4B", "%234B", "4b", "+%23+4B+"} {
		if got := id(s.get(lookupURL("500 Elm Ave", "Richmond", "VA", "") + "&unit=" + unit)); got != hash {
			t.Errorf("unit=%s is id %v, want #4B's id %v", unit, got, hash)
		}
	}
	if n := s.geo.calls.Load() - calls; n != 0 {
		t.Errorf("unit= spellings of a unit already looked up asked the geocoder %d times, want none", n)
	}
	for _, q := range []string{"street=500+Elm+Ave+Apt+4&unit=Apt+5", "street=500+Elm+Ave&unit=%23", "street=500+Elm+Ave&unit=4&unit=5"} {
		r := s.get("/v1/properties/lookup?state=VA&" + q)
		wantProblem(t, r, 400, "invalid_parameter")
		if !paramNamed(r, "unit") {
			t.Errorf("%s: the 400 does not name unit: %s", q, r.body)
		}
	}
}

func TestNoMatchIs404AndIsRemembered(t *testing.T) {
	s := newStack(t, stackOptions{})
	for i := 0; i < 3; i++ {
		r := s.get(lookupURL("999 Nowhere Rd", "Springfield", "IL", ""))
		wantProblem(t, r, 404, "address_not_found")
		s.cache.Wait()
	}
	if n := s.geo.calls.Load(); n != 1 {
		t.Fatalf("geocoder calls for a repeated bad address = %d, want 1", n)
	}
	if s.countProperties() != 0 {
		t.Fatal("a miss created a record")
	}
	// The miss is kept in the database: a restart (or another instance on
	// the same database) does not ask again within the miss TTL.
	s.reopen()
	wantProblem(t, s.get(lookupURL("999 Nowhere Rd", "Springfield", "IL", "")), 404, "address_not_found")
	if n := s.geo.calls.Load(); n != 1 {
		t.Fatalf("geocoder calls after a restart = %d, want 1: the miss was forgotten", n)
	}
}

func TestARememberedMissExpires(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := newStack(t, stackOptions{now: clock})
	wantProblem(t, s.get(lookupURL("999 Nowhere Rd", "Springfield", "IL", "")), 404, "address_not_found")
	mu.Lock()
	now = now.Add(61 * time.Minute) // past the default miss TTL of 1h
	mu.Unlock()
	wantProblem(t, s.get(lookupURL("999 Nowhere Rd", "Springfield", "IL", "")), 404, "address_not_found")
	if n := s.geo.calls.Load(); n != 2 {
		t.Fatalf("geocoder calls = %d, want 2: an expired miss is asked again", n)
	}
}

func TestPOBoxIsNotAProperty(t *testing.T) {
	s := newStack(t, stackOptions{})
	r := s.get(lookupURL("PO Box 123", "Springfield", "IL", ""))
	wantProblem(t, r, 422, "not_a_property")
	if s.geo.calls.Load() != 0 || s.countProperties() != 0 {
		t.Fatal("a PO box reached the geocoder or the database")
	}
}

func TestLookupRejectsBadInput(t *testing.T) {
	s := newStack(t, stackOptions{})
	long := make([]byte, 150)
	for i := range long {
		long[i] = 'a'
	}
	cases := []struct {
		name, target, param string
	}{
		{"missing street", "/v1/properties/lookup?state=IL", "street"},
		{"missing state", "/v1/properties/lookup?street=1+Main+St", "state"},
		{"bad state", lookupURL("1 Main St", "", "ZZ", ""), "state"},
		{"three-letter state", lookupURL("1 Main St", "", "ILL", ""), "state"},
		{"short zip", lookupURL("1 Main St", "", "IL", "1234"), "zip"},
		{"letters in zip", lookupURL("1 Main St", "", "IL", "12a45"), "zip"},
		{"empty street", lookupURL(" ", "", "IL", ""), "street"},
		{"NUL byte", "/v1/properties/lookup?street=1+Main%00St&state=IL", "street"},
		{"oversized", lookupURL(string(long), "", "IL", ""), "street"},
		{"unknown parameter", "/v1/properties/lookup?street=1+Main+St&state=IL&zipcode=12345", "zipcode"},
		{"duplicate parameter", "/v1/properties/lookup?street=1+Main+St&state=IL&state=VA", "state"},
		{"unknown include", "/v1/properties/lookup?street=1+Main+St&state=IL&include=weather", "include"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.get(c.target)
			wantProblem(t, r, 400, "invalid_parameter")
			if !paramNamed(r, c.param) {
				t.Fatalf("errors do not name %q: %s", c.param, r.body)
			}
		})
	}
	if s.geo.calls.Load() != 0 || s.countProperties() != 0 {
		t.Fatal("bad input reached the geocoder or the database")
	}
}

func TestSQLMetacharactersAndUnicodeAreData(t *testing.T) {
	s := newStack(t, stackOptions{})
	for _, street := range []string{"1 Main St'; DROP TABLE properties; --", "12 Calle Ñandú", "7 Straße 😀"} {
		r := s.get(lookupURL(street, "Springfield", "IL", ""))
		if r.status != 404 && r.status != 400 {
			t.Fatalf("%q: status %d, want 404 (no match) or 400: %s", street, r.status, r.body)
		}
	}
	if r := s.get(lookupURL("123 N Main St", "Springfield", "IL", "")); r.status != 200 {
		t.Fatalf("database damaged after metacharacters: %d %s", r.status, r.body)
	}
}

func TestConcurrentIdenticalFirstLookupsMakeOneCall(t *testing.T) {
	s := newStack(t, stackOptions{})
	const n = 50
	ids := make([]any, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
			if r.status != 200 {
				t.Errorf("status %d: %s", r.status, r.body)
				return
			}
			ids[i] = r.data()["id"]
		}()
	}
	wg.Wait()
	if c := s.geo.calls.Load(); c != 1 {
		t.Fatalf("%d concurrent identical lookups made %d geocoder calls, want 1", n, c)
	}
	for i := range ids {
		if ids[i] != ids[0] {
			t.Fatalf("lookup %d got id %v, lookup 0 got %v", i, ids[i], ids[0])
		}
	}
	if s.countProperties() != 1 {
		t.Fatalf("records = %d, want 1", s.countProperties())
	}
}

func TestRecordSurvivesRestart(t *testing.T) {
	s := newStack(t, stackOptions{})
	r := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	if r.status != 200 {
		t.Fatal(r.status)
	}
	id := int(r.data()["id"].(float64))
	s.reopen()
	got := s.get(fmt.Sprintf("/v1/properties/%d", id))
	if got.status != 200 {
		t.Fatalf("after restart GET by id: %d %s", got.status, got.body)
	}
	for _, k := range []string{"street_address", "city", "state", "zip_code", "county", "fips_code", "census_tract", "latitude", "longitude", "created_at"} {
		if got.data()[k] != r.data()[k] {
			t.Errorf("%s after restart = %v, before = %v", k, got.data()[k], r.data()[k])
		}
	}
	calls := s.geo.calls.Load()
	again := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	if again.data()["id"] != r.data()["id"] || s.geo.calls.Load() != calls {
		t.Fatal("lookup after restart called the geocoder or made a new record")
	}
}
