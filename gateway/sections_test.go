package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/guard"
	"github.com/propertyd/propertyd/providers/service"
)

// fakeSections builds every offered section of the catalogue, with the
// entry's own key, over fetch functions that count their calls and can be
// switched to fail.
type fakeSections struct {
	mu    sync.Mutex
	calls map[string]*atomic.Int32
	fail  map[string]error
	delay time.Duration
}

func newFakeSections() *fakeSections {
	f := &fakeSections{calls: map[string]*atomic.Int32{}, fail: map[string]error{}}
	for _, n := range service.PublicSections() {
		f.calls[n] = &atomic.Int32{}
	}
	return f
}

func (f *fakeSections) setFail(name string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[name] = err
}

func (f *fakeSections) count(name string) int { return int(f.calls[name].Load()) }

func (f *fakeSections) sections(ttl time.Duration, breakers map[string]*guard.Breaker) map[string]*service.Section {
	values := map[string]func(p *providers.Property, o service.Options) any{
		providers.SectionFlood: func(*providers.Property, service.Options) any {
			z, sub := "AE", "FLOODWAY"
			bfe := 12.5
			return &providers.Flood{Zone: &z, ZoneSubtype: &sub, RiskLevel: providers.RiskHigh, StaticBFE: &bfe, Source: "fema-nfhl"}
		},
		providers.SectionDemographics: func(p *providers.Property, _ service.Options) any {
			pop := int64(4200)
			return &providers.Demographics{CensusTract: p.CensusTract, StateFIPS: p.FIPSCode[:2], CountyFIPS: p.FIPSCode[2:],
				TotalPopulation: &pop, Source: "census-acs", Vintage: "2022 ACS 5-year"}
		},
		providers.SectionAmenities: func(_ *providers.Property, o service.Options) any {
			cats := map[string][]providers.Amenity{}
			for _, c := range providers.AmenityCategories {
				cats[c] = []providers.Amenity{}
			}
			cats["parks"] = []providers.Amenity{{Name: "Lincoln Park", Type: "park", DistanceMiles: 0.3}}
			return &providers.Amenities{RadiusMeters: o.Radius, Categories: cats, TotalCount: 1, Source: "overpass"}
		},
		providers.SectionWalkScore: func(*providers.Property, service.Options) any {
			return &providers.WalkScore{WalkScore: 72, Description: "Very Walkable", Method: "osm-distance-decay", Source: "osm-walk"}
		},
		providers.SectionHousing: func(*providers.Property, service.Options) any {
			units := int64(1800)
			return &providers.Housing{TotalHousingUnits: &units, Source: "census-acs-housing", Vintage: "2022 ACS 5-year"}
		},
	}
	out := map[string]*service.Section{}
	for _, name := range service.PublicSections() {
		e, _ := service.SectionEntry(name)
		if values[name] == nil {
			panic("fakeSections has no value for the catalogue's section " + name + ": add one to its values")
		}
		out[name] = &service.Section{
			Name: name, Source: name + "-module", TTL: ttl, Key: e.Key,
			Fetch: service.FetchFunc(func(ctx context.Context, p *providers.Property, o service.Options) (any, error) {
				f.calls[name].Add(1)
				if f.delay > 0 {
					select {
					case <-time.After(f.delay):
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				f.mu.Lock()
				err := f.fail[name]
				f.mu.Unlock()
				if err != nil {
					return nil, err
				}
				return values[name](p, o), nil
			}).Around(breakers[name].Around),
		}
	}
	return out
}

// allSections includes every section the catalogue offers.
var allSections = strings.Join(service.PublicSections(), ",")

func sectionMeta(t *testing.T, r response, name string) map[string]any {
	t.Helper()
	secs, ok := r.meta()["sections"].(map[string]any)
	if !ok {
		t.Fatalf("meta.sections missing: %s", r.body)
	}
	m, ok := secs[name].(map[string]any)
	if !ok {
		t.Fatalf("meta.sections.%s missing: %s", name, r.body)
	}
	return m
}

func TestIncludeAllSectionsInParallel(t *testing.T) {
	f := newFakeSections()
	f.delay = 200 * time.Millisecond
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	start := time.Now()
	r := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=" + allSections)
	took := time.Since(start)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if took > 800*time.Millisecond {
		t.Fatalf("%d 200 ms sections took %v: they are not fetched in parallel", len(service.PublicSections()), took)
	}
	d := r.data()
	flood, _ := d["flood"].(map[string]any)
	if flood["zone_code"] != "AE" || flood["flood_risk_level"] != "high" || flood["zone_subtype"] != "FLOODWAY" {
		t.Fatalf("include form of flood = %v, want zone_code and flood_risk_level", flood)
	}
	if _, has := flood["zone"]; has {
		t.Fatal("include form of flood still has zone")
	}
	if demo, _ := d["demographics"].(map[string]any); demo["census_tract"] != "000500" || demo["total_population"] != 4200.0 {
		t.Fatalf("demographics = %v", d["demographics"])
	}
	if am, _ := d["amenities"].(map[string]any); am["radius_meters"] != 2000.0 {
		t.Fatalf("amenities = %v", d["amenities"])
	}
	if ws, _ := d["walkscore"].(map[string]any); ws["walk_score"] != 72.0 || ws["description"] != "Very Walkable" {
		t.Fatalf("walkscore = %v", d["walkscore"])
	}
	if h, _ := d["housing"].(map[string]any); h["total_housing_units"] != 1800.0 {
		t.Fatalf("housing = %v", d["housing"])
	}
	for _, name := range service.PublicSections() {
		m := sectionMeta(t, r, name)
		if m["status"] != "ok" || m["cache"] != "miss" || m["fetched_at"] == nil || m["expires_at"] == nil || m["source"] == "" {
			t.Fatalf("meta.sections.%s = %v", name, m)
		}
	}
	if v := sectionMeta(t, r, "demographics")["vintage"]; v != "2022 ACS 5-year" {
		t.Fatalf("demographics vintage = %v", v)
	}
	if r.header.Get("X-Request-Cost") != "6" {
		t.Fatalf("X-Request-Cost = %s, want 6", r.header.Get("X-Request-Cost"))
	}
	// Again: every section from the cache, no upstream call.
	again := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=" + allSections)
	for _, name := range service.PublicSections() {
		if sectionMeta(t, again, name)["cache"] != "hit" {
			t.Fatalf("second request: %s not a cache hit", name)
		}
		if f.count(name) != 1 {
			t.Fatalf("%s fetched %d times, want 1", name, f.count(name))
		}
	}
}

func TestOneFailingSectionNeverFailsTheRequest(t *testing.T) {
	f := newFakeSections()
	f.setFail("flood", providers.Errorf(providers.KindUpstream, "upstream_error", "arcgis error in 200"))
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	r := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood,demographics")
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if v, ok := r.data()["flood"]; !ok || v != nil {
		t.Fatalf("data.flood = %v (present %v), want null", v, ok)
	}
	m := sectionMeta(t, r, "flood")
	if m["status"] != "unavailable" || m["error"] != "upstream_error" {
		t.Fatalf("meta.sections.flood = %v", m)
	}
	if sectionMeta(t, r, "demographics")["status"] != "ok" || r.data()["demographics"] == nil {
		t.Fatal("the healthy section did not come back")
	}
}

func TestOpenBreakerSectionReportsRetryAfter(t *testing.T) {
	f := newFakeSections()
	f.setFail("flood", providers.Errorf(providers.KindUpstream, "upstream_error", "down"))
	b := guard.NewBreaker("fema-nfhl", guard.Policy{FailureThreshold: 1, OpenFor: time.Minute})
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, map[string]*guard.Breaker{"flood": b})})
	s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood")
	r := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood")
	m := sectionMeta(t, r, "flood")
	if m["status"] != "unavailable" || m["error"] != "upstream_unavailable" || m["retry_after"] == nil {
		t.Fatalf("meta.sections.flood with an open breaker = %v", m)
	}
	if f.count("flood") != 1 {
		t.Fatalf("flood fetched %d times; the open breaker must not call", f.count("flood"))
	}
	id := int(r.data()["id"].(float64))
	standalone := s.get(fmt.Sprintf("/v1/properties/%d/flood", id))
	wantProblem(t, standalone, 503, "upstream_unavailable")
	if standalone.header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
}

// An upstream that has no data for a key (the ACS answers an unknown tract
// with an empty 204) is not asked again for the section's TTL, across a
// restart too.
func TestNoDataAnswerIsRememberedForTheTTL(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f := newFakeSections()
	f.setFail("demographics", providers.NotFound("tract_not_found", "the Census ACS has no figures for the census tract"))
	s := newStack(t, stackOptions{now: clock, sections: f.sections(24*time.Hour, nil)})
	url := lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=demographics"
	for i, want := range []string{"miss", "hit", "hit"} {
		if i == 2 {
			s.reopen()
		}
		r := s.get(url)
		if r.status != 200 || r.data()["demographics"] != nil {
			t.Fatalf("request %d: status %d, demographics %v", i, r.status, r.data()["demographics"])
		}
		m := sectionMeta(t, r, "demographics")
		if m["status"] != "unavailable" || m["error"] != "tract_not_found" || m["cache"] != want {
			t.Fatalf("request %d: meta %v, want unavailable tract_not_found, cache %s", i, m, want)
		}
	}
	id := int(s.get(url).data()["id"].(float64))
	wantProblem(t, s.get(fmt.Sprintf("/v1/properties/%d/demographics", id)), 404, "tract_not_found")
	if got := f.count("demographics"); got != 1 {
		t.Fatalf("upstream asked %d times within the TTL, want 1", got)
	}
	mu.Lock()
	now = now.Add(25 * time.Hour)
	mu.Unlock()
	f.setFail("demographics", nil)
	// Past the TTL the no-data answer is still what is served at once,
	// while the upstream is asked again in the background.
	r := s.get(url)
	if m := sectionMeta(t, r, "demographics"); m["status"] != "unavailable" || m["error"] != "tract_not_found" {
		t.Fatalf("after the TTL: meta %v; want the remembered answer while it is asked again", m)
	}
	waitFor(t, "the refreshed value is served", func() bool { return sectionMeta(t, s.get(url), "demographics")["status"] == "ok" })
	if got := f.count("demographics"); got != 2 {
		t.Fatalf("upstream asked %d times, want 2 (once more after the TTL)", got)
	}
}

// waitFor polls cond until it holds, failing with what after a few
// seconds: background refreshes are awaited by their effect.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// An expired section is answered at once from the store, marked stale with
// its age, while it is refreshed in the background; the refresh is not the
// request's work, so a 304 of the stale answer is refunded like any 304
// served from stored data.
func TestExpiredSectionIsServedAtOnceAndItsRefreshIsNotCharged(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f := newFakeSections()
	secs := f.sections(24*time.Hour, nil)
	hold, inner := make(chan struct{}), secs["flood"].Fetch
	var holding atomic.Bool
	secs["flood"].Fetch = func(ctx context.Context, p *providers.Property, o service.Options) (any, error) {
		providers.CallsFrom(ctx).Add(1) // as the retry transport counts each HTTP request
		if holding.Load() {
			<-hold
		}
		return inner(ctx, p, o)
	}
	s := newStack(t, stackOptions{now: clock, burst: 20, rate: 0.001, sections: secs})
	url := lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood"
	if m := sectionMeta(t, s.get(url), "flood"); m["status"] != "ok" || m["cache"] != "miss" {
		t.Fatalf("first fetch: %v", m)
	}
	mu.Lock()
	now = now.Add(48 * time.Hour)
	mu.Unlock()
	holding.Store(true)

	r := s.get(url) // answered although the upstream holds the refresh
	m := sectionMeta(t, r, "flood")
	if m["status"] != "stale" || m["cache"] != "hit" || m["age_seconds"] != float64(48*3600) || m["error"] != nil {
		t.Fatalf("expired flood value: meta %v; want stale, hit, age_seconds %d, no error", m, 48*3600)
	}
	if fl, _ := r.data()["flood"].(map[string]any); fl["zone_code"] != "AE" {
		t.Fatalf("expired flood value not served: %v", r.data()["flood"])
	}
	if got := r.header.Get("X-Request-Cost"); got != "2" {
		t.Fatalf("X-Request-Cost = %s, want 2", got)
	}
	nm := s.get(url, "If-None-Match", r.header.Get("ETag"))
	if nm.status != 304 || nm.header.Get("X-Request-Cost") != "1" {
		t.Fatalf("304 of the stale answer while its refresh runs: status %d, cost %s; want 304 refunded to 1",
			nm.status, nm.header.Get("X-Request-Cost"))
	}
	close(hold)
	waitFor(t, "the refreshed value is served", func() bool {
		return sectionMeta(t, s.get(url), "flood")["status"] == "ok"
	})
	if m := sectionMeta(t, s.get(url), "flood"); m["cache"] != "hit" || m["age_seconds"] != nil || f.count("flood") != 2 {
		t.Fatalf("after the refresh: meta %v, %d fetches; want ok hit from one refresh", m, f.count("flood"))
	}
}

// A section that refreshes synchronously fetches an expired value before
// answering and serves it stale only when the upstream fails.
func TestSyncRefreshServesStaleWhenUpstreamFails(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f := newFakeSections()
	secs := f.sections(24*time.Hour, nil)
	secs["flood"].Refresh = service.RefreshSync
	s := newStack(t, stackOptions{now: clock, sections: secs})
	first := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood")
	if sectionMeta(t, first, "flood")["status"] != "ok" {
		t.Fatal("first fetch failed")
	}
	mu.Lock()
	now = now.Add(48 * time.Hour)
	mu.Unlock()
	f.setFail("flood", providers.Errorf(providers.KindTimeout, "upstream_timeout", "no answer"))
	r := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood")
	m := sectionMeta(t, r, "flood")
	if m["status"] != "stale" || m["cache"] != "hit" {
		t.Fatalf("expired value with the upstream down: meta %v, want stale hit", m)
	}
	if fl, _ := r.data()["flood"].(map[string]any); fl["zone_code"] != "AE" {
		t.Fatalf("stale flood value not served: %v", r.data()["flood"])
	}
	if f.count("flood") != 2 {
		t.Fatalf("flood fetched %d times, want 2 (the expired value must be refreshed first)", f.count("flood"))
	}
	// The upstream recovers: the value is refreshed and fresh again.
	f.setFail("flood", nil)
	if m := sectionMeta(t, s.get(lookupURL("123 N Main St", "Springfield", "IL", "")+"&include=flood"), "flood"); m["status"] != "ok" || m["cache"] != "miss" {
		t.Fatalf("after recovery: %v", m)
	}
}

func TestOneUpstreamCallPerTract(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	first := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=demographics")
	if first.status != 200 {
		t.Fatal(first.status)
	}
	// Reverse records nearby share the tract code 000600; the first property
	// is in 000500. Three records in 000600 make one call.
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.get(fmt.Sprintf("/v1/properties/reverse?lat=%f&lng=-89.0&include=demographics", 40.0+float64(i)*0.01))
			if r.status != 200 || sectionMeta(t, r, "demographics")["status"] != "ok" {
				t.Errorf("reverse %d: %d %s", i, r.status, r.body)
			}
		}()
	}
	wg.Wait()
	if got := f.count("demographics"); got != 2 {
		t.Fatalf("demographics fetched %d times for 4 properties in 2 tracts, want 2", got)
	}
}

func TestIncludeParsingAndCost(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	r := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood,,FLOOD,%20demographics,flood")
	if r.status != 200 || r.header.Get("X-Request-Cost") != "3" {
		t.Fatalf("status %d cost %s, want 200 and cost 3 (blanks and duplicates ignored)", r.status, r.header.Get("X-Request-Cost"))
	}
	if _, ok := r.meta()["sections"].(map[string]any)["flood"]; !ok {
		t.Fatal("flood not included")
	}
	bad := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood,schools")
	wantProblem(t, bad, 400, "invalid_parameter")
	if !paramNamed(bad, "include") {
		t.Fatal("include not named")
	}
	if detail := bad.json["detail"].(string) + fmt.Sprint(bad.json["errors"]); !strings.Contains(detail, "amenities") {
		t.Fatalf("error does not list the allowed sections: %s", bad.body)
	}
	plain := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	if plain.header.Get("X-Request-Cost") != "1" {
		t.Fatalf("cost without include = %s", plain.header.Get("X-Request-Cost"))
	}
	if _, ok := plain.meta()["sections"]; ok {
		t.Fatal("meta.sections present without include")
	}
}

func TestIncludeOnGetReverseAndBatch(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	id := int(created.data()["id"].(float64))
	g := s.get(fmt.Sprintf("/v1/properties/%d?include=walkscore", id))
	if ws, _ := g.data()["walkscore"].(map[string]any); ws["walk_score"] != 72.0 || g.header.Get("X-Request-Cost") != "2" {
		t.Fatalf("GET by id with include: %s", g.body)
	}
	rv := s.get("/v1/properties/reverse?lat=41&lng=-88&include=housing")
	if h, _ := rv.data()["housing"].(map[string]any); h["total_housing_units"] != 1800.0 {
		t.Fatalf("reverse with include: %s", rv.body)
	}
	b := s.do("POST", "/v1/properties/batch?include=flood,walkscore", `{"addresses":[
		{"street":"123 N Main St","state":"IL"},{"street":"500 Elm Ave","state":"VA"},{"street":"1 Nowhere","state":"IL"}]}`)
	if b.header.Get("X-Request-Cost") != "9" {
		t.Fatalf("batch cost = %s, want 3 x (1+2) = 9", b.header.Get("X-Request-Cost"))
	}
	body := decodeBatch(t, b)
	if len(body.Data.Results) != 2 {
		t.Fatalf("results = %d", len(body.Data.Results))
	}
	for _, res := range body.Data.Results {
		fl, _ := res["flood"].(map[string]any)
		if fl["flood_risk_level"] != "high" || res["walkscore"] == nil {
			t.Fatalf("batch result sections: %v", res)
		}
		secs, _ := res["sections"].(map[string]any)
		if fm, _ := secs["flood"].(map[string]any); fm["status"] != "ok" {
			t.Fatalf("batch result section meta: %v", res["sections"])
		}
	}
}

func TestStandaloneSectionEndpoints(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	id := int(created.data()["id"].(float64))
	fl := s.get(fmt.Sprintf("/v1/properties/%d/flood", id))
	if d := fl.data(); fl.status != 200 || d["zone"] != "AE" || d["risk_level"] != "high" {
		t.Fatalf("standalone flood: %d %s", fl.status, fl.body)
	}
	if fl.header.Get("X-Request-Cost") != "2" {
		t.Fatalf("standalone cost = %s", fl.header.Get("X-Request-Cost"))
	}
	am := s.get(fmt.Sprintf("/v1/properties/%d/amenities?radius=3000", id))
	if d := am.data(); am.status != 200 || d["radius_meters"] != 3000.0 {
		t.Fatalf("amenities radius 3000: %s", am.body)
	}
	var cats map[string]any
	_ = json.Unmarshal(mustJSON(am.data()["categories"]), &cats)
	for _, c := range providers.AmenityCategories {
		if _, ok := cats[c]; !ok {
			t.Fatalf("category %s missing", c)
		}
	}
	for _, q := range []string{"radius=499", "radius=5001", "radius=abc", "radius=", "radius=1000&radius=2000", "other=1"} {
		wantProblem(t, s.get(fmt.Sprintf("/v1/properties/%d/amenities?%s", id, q)), 400, "invalid_parameter")
	}
	if demo := s.get(fmt.Sprintf("/v1/properties/%d/demographics", id)); demo.data()["census_tract"] != "000500" {
		t.Fatalf("standalone demographics: %s", demo.body)
	}
	wantProblem(t, s.get("/v1/properties/999/flood"), 404, "property_not_found")
	f.setFail("demographics", providers.Errorf(providers.KindUpstream, "upstream_error", "down"))
	other := s.get(lookupURL("500 Elm Ave", "Richmond", "VA", ""))
	oid := int(other.data()["id"].(float64))
	wantProblem(t, s.get(fmt.Sprintf("/v1/properties/%d/demographics", oid)), 502, "upstream_error")
	f.setFail("demographics", providers.Errorf(providers.KindTimeout, "upstream_timeout", "slow"))
	wantProblem(t, s.get(fmt.Sprintf("/v1/properties/%d/demographics", oid)), 504, "upstream_timeout")
}

// TestEverySectionHasItsOwnEndpoint: each section the catalogue offers in
// include= also answers on its own at /v1/properties/{id}/{section}, at a
// record's unit plus the section's cost, with the value include= embeds.
func TestEverySectionHasItsOwnEndpoint(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	id := int(s.get(lookupURL("123 N Main St", "Springfield", "IL", "")).data()["id"].(float64))
	for _, name := range service.PublicSections() {
		r := s.get(fmt.Sprintf("/v1/properties/%d/%s", id, name))
		if r.status != 200 || len(r.data()) == 0 {
			t.Errorf("GET /v1/properties/%d/%s: %d %s, want 200 with the section", id, name, r.status, r.body)
			continue
		}
		e, _ := service.SectionEntry(name)
		if got, want := r.header.Get("X-Request-Cost"), fmt.Sprint(1+e.Cost); got != want {
			t.Errorf("GET .../%s cost %s, want %s", name, got, want)
		}
		if m, _ := r.meta()["section"].(map[string]any); m["status"] != "ok" || m["cache"] != "miss" {
			t.Errorf("GET .../%s meta.section = %v", name, r.meta()["section"])
		}
		if f.count(name) != 1 {
			t.Errorf("%s fetched %d times, want 1", name, f.count(name))
		}
	}
	if d := s.get(fmt.Sprintf("/v1/properties/%d/walkscore", id)).data(); d["walk_score"] != 72.0 {
		t.Errorf("walkscore = %v", d)
	}
	if d := s.get(fmt.Sprintf("/v1/properties/%d/housing", id)).data(); d["total_housing_units"] != 1800.0 {
		t.Errorf("housing = %v", d)
	}
}

// TestUnknownSubRoutesOfAPropertyCostNothing: a path under a property that
// names no section is a 404 that costs nothing, as any path naming no
// endpoint: a dozen of them leave a burst-20 key's budget untouched.
func TestUnknownSubRoutesOfAPropertyCostNothing(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := newFakeSections()
	s := newStack(t, stackOptions{burst: 20, rate: 1, now: func() time.Time { return now }, sections: f.sections(time.Hour, nil)})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	if got := created.header.Get("X-RateLimit-Remaining"); got != "19" {
		t.Fatalf("after the lookup X-RateLimit-Remaining = %s, want 19", got)
	}
	id := int(created.data()["id"].(float64))
	paths := []string{"bogus", "..%2f..%2fmetrics", "flood/extra", "fair_market_rent", "flood,housing", "%66lood", "schools", "bogus/", "FLOOD", "Flood", "flood/"}
	var targets []string
	for _, p := range paths {
		targets = append(targets, fmt.Sprintf("/v1/properties/%d/%s", id, p), "/v1/properties/999999/"+p)
	}
	for _, target := range targets {
		r := s.get(target)
		wantProblem(t, r, 404, "not_found")
		if r.header.Get("X-Request-Cost") != "" {
			t.Errorf("GET %s was charged %s", target, r.header.Get("X-Request-Cost"))
		}
	}
	r := s.get(fmt.Sprintf("/v1/properties/%d/flood", id))
	if r.status != 200 || r.header.Get("X-RateLimit-Remaining") != "17" {
		t.Fatalf("after %d unknown sub-routes, the flood section answered %d with X-RateLimit-Remaining %s, want 200 and 17 (19 less its 2)",
			len(targets), r.status, r.header.Get("X-RateLimit-Remaining"))
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestFreshSectionsSurviveRestart(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=" + allSections)
	s.reopen()
	r := s.get(lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=" + allSections)
	for _, name := range service.PublicSections() {
		if f.count(name) != 1 {
			t.Fatalf("%s fetched %d times across a restart, want 1", name, f.count(name))
		}
		if m := sectionMeta(t, r, name); m["status"] != "ok" || m["cache"] != "hit" {
			t.Fatalf("%s after restart: %v", name, m)
		}
	}
}

func TestSectionWithoutTractIsUnavailableNotAnError(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	s.geo.reverse = func(_ context.Context, p providers.Point) (providers.Location, error) {
		return providers.Location{State: "IL", Point: p}, nil
	}
	r := s.get("/v1/properties/reverse?lat=42&lng=-88&include=demographics,flood")
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	if m := sectionMeta(t, r, "demographics"); m["status"] != "unavailable" || m["error"] != "section_not_applicable" {
		t.Fatalf("demographics without a tract: %v", m)
	}
	if f.count("demographics") != 0 {
		t.Fatal("fetched demographics without a tract")
	}
}
