package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/guard"
	"github.com/propertyd/propertyd/providers/service"
)

// waitFor polls cond until it holds, failing the test with what after a
// few seconds: background work is awaited by its effect, never by a sleep
// long enough to probably cover it.
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

// logLines is a slog destination that counts what it was given. Safe for
// concurrent use.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *logLines) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.buf.String(), "msg=\""+msg+"\"")
}

// housingUnits is a housing module fake whose answer is the current value
// of units; each call is counted, may be held until release is closed, and
// fails while fail is set.
type housingUnits struct {
	units   atomic.Int64
	calls   atomic.Int32
	fail    atomic.Bool
	vintage atomic.Value // string: the vintage it answers with
	hold    chan struct{}
}

func newHousingUnits(units int64) *housingUnits {
	h := &housingUnits{}
	h.units.Store(units)
	h.vintage.Store("2022 ACS 5-year")
	return h
}

func (h *housingUnits) Housing(ctx context.Context, _ providers.Tract) (*providers.Housing, error) {
	h.calls.Add(1)
	if h.hold != nil {
		select {
		case <-h.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if h.fail.Load() {
		return nil, providers.Errorf(providers.KindUpstream, "upstream_error", "census answered 500")
	}
	u := h.units.Load()
	return &providers.Housing{TotalHousingUnits: &u, Source: "census-acs-housing", Vintage: h.vintage.Load().(string)}, nil
}

// units reads total_housing_units from a housing section.
func units(t *testing.T, r service.SectionResult) int64 {
	t.Helper()
	var v struct {
		Units int64 `json:"total_housing_units"`
	}
	if err := json.Unmarshal(r.Data, &v); err != nil {
		t.Fatalf("housing section %s: %v", r.Data, err)
	}
	return v.Units
}

// refreshFixture is a service with one housing module behind a fake
// clock, and a record in its tract whose housing was fetched a year and a
// day ago (expired).
type refreshFixture struct {
	svc     *service.Service
	st      *memStore
	clk     *clock
	housing *housingUnits
	p       *providers.Property
	logs    *logLines
}

func newRefreshFixture(t *testing.T, cfg service.Config, like service.Module) *refreshFixture {
	t.Helper()
	f := &refreshFixture{st: newMemStore(), clk: &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)},
		housing: newHousingUnits(1800), logs: &logLines{}}
	cfg.Store, cfg.Now = f.st, f.clk.Now
	cfg.Logger = slog.New(slog.NewTextHandler(f.logs, nil))
	f.svc = newServiceWith(t, cfg, elmGeocoder(), map[providers.Role]any{providers.RoleHousing: f.housing}, like)
	var err error
	f.p, _, err = f.svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	if err != nil {
		t.Fatal(err)
	}
	if r := f.housing1(t); r.Meta.Status != service.StatusOK || r.Meta.Cache != service.CacheMiss {
		t.Fatalf("first fetch: %+v", r.Meta)
	}
	f.clk.Add(366 * 24 * time.Hour) // past housing's one-year TTL
	return f
}

func (f *refreshFixture) housing1(t *testing.T) service.SectionResult {
	t.Helper()
	r, err := f.svc.SectionOf(context.Background(), f.p, providers.SectionHousing, service.Options{})
	if err != nil {
		t.Fatalf("housing: %v", err)
	}
	return r
}

func TestAnExpiredSectionIsAnsweredAtOnceWhileOneRefreshRuns(t *testing.T) {
	f := newRefreshFixture(t, service.Config{}, service.Module{})
	f.housing.hold = make(chan struct{})
	f.housing.units.Store(1900)
	age := 366 * 24 * 3600

	// 20 requests at once while the upstream does not answer: none waits
	// for it (a request that did would hold the test until the timeout).
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := f.housing1(t)
			if r.Meta.Status != service.StatusStale || r.Meta.Cache != service.CacheHit || r.Meta.Error != "" {
				t.Errorf("request %d for an expired value: %+v; want stale from the store, no error", i, r.Meta)
			}
			if r.Meta.AgeSeconds == nil || *r.Meta.AgeSeconds != age {
				t.Errorf("request %d: age_seconds %v, want %d", i, r.Meta.AgeSeconds, age)
			}
			if units(t, r) != 1800 {
				t.Errorf("request %d was served %s, want the expired value", i, r.Data)
			}
		}()
	}
	wg.Wait()
	waitFor(t, "the background refresh reaches the upstream", func() bool { return f.housing.calls.Load() == 2 })
	close(f.housing.hold)
	waitFor(t, "the refresh stores the new value", func() bool { return f.st.puts.Load() == 2 })
	if n := f.housing.calls.Load(); n != 2 {
		t.Fatalf("20 requests for one expired value made %d refresh calls, want 1", n-1)
	}

	r := f.housing1(t)
	if r.Meta.Status != service.StatusOK || r.Meta.Cache != service.CacheHit || r.Meta.AgeSeconds != nil || units(t, r) != 1900 {
		t.Fatalf("after the refresh: %+v %s; want the new value, ok, hit", r.Meta, r.Data)
	}
}

func TestAFailingRefreshKeepsTheStaleValueAndCountsAgainstTheBreaker(t *testing.T) {
	b := guard.NewBreaker("fake-housing", guard.Policy{FailureThreshold: 1, OpenFor: time.Minute})
	f := newRefreshFixture(t, service.Config{}, service.Module{Around: b.Around})
	f.housing.fail.Store(true)

	if r := f.housing1(t); r.Meta.Status != service.StatusStale || units(t, r) != 1800 {
		t.Fatalf("expired value: %+v", r.Meta)
	}
	waitFor(t, "the failed refresh is remembered", func() bool { return f.housing1(t).Meta.Error == "upstream_error" })
	if b.State() != "open" {
		t.Fatalf("breaker %s after a failed refresh; the refresh must count as a call of the module", b.State())
	}
	for range 10 {
		r := f.housing1(t)
		if r.Meta.Status != service.StatusStale || r.Meta.Error != "upstream_error" || units(t, r) != 1800 {
			t.Fatalf("after a failed refresh: %+v %s; want the expired value, stale, with the error", r.Meta, r.Data)
		}
	}
	if n := f.housing.calls.Load(); n != 2 {
		t.Fatalf("upstream asked %d times, want 2: no new refresh before the retry time", n)
	}
	if n := f.logs.count("section unavailable"); n != 1 {
		t.Fatalf("the failed refresh was logged %d times for 12 requests, want once", n)
	}

	// Past the retry time the breaker, still open, refuses the refresh
	// without calling the upstream; the value is still served.
	f.clk.Add(service.DefaultRefreshRetry + time.Second)
	f.housing1(t)
	waitFor(t, "the open breaker's refusal is remembered", func() bool {
		return f.housing1(t).Meta.Error == "upstream_unavailable"
	})
	if n := f.housing.calls.Load(); n != 2 {
		t.Fatalf("upstream asked %d times behind an open breaker, want 2", n)
	}
}

func TestSyncRefreshWaitsForTheUpstream(t *testing.T) {
	f := newRefreshFixture(t, service.Config{}, service.Module{Refresh: service.RefreshSync})
	f.housing.units.Store(1900)
	r := f.housing1(t)
	if r.Meta.Status != service.StatusOK || r.Meta.Cache != service.CacheMiss || units(t, r) != 1900 || f.housing.calls.Load() != 2 {
		t.Fatalf("expired value, refresh sync: %+v %s after %d calls; want the new value, fetched for this request", r.Meta, r.Data, f.housing.calls.Load())
	}
}

func TestAMissingSectionStillWaitsForTheUpstream(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	h := newHousingUnits(1800)
	h.hold = make(chan struct{})
	svc := newServiceWith(t, service.Config{Store: newMemStore(), Now: clk.Now}, elmGeocoder(),
		map[providers.Role]any{providers.RoleHousing: h}, service.Module{})
	p, _, err := svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan service.SectionResult, 1)
	go func() {
		r, _ := svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{})
		done <- r
	}()
	waitFor(t, "the request reaches the upstream", func() bool { return h.calls.Load() == 1 })
	select {
	case r := <-done:
		t.Fatalf("a section never stored was answered before the upstream: %+v", r.Meta)
	default:
	}
	close(h.hold)
	if r := <-done; r.Meta.Status != service.StatusOK || r.Meta.Cache != service.CacheMiss || units(t, r) != 1800 {
		t.Fatalf("missing section: %+v %s; want the upstream's value", r.Meta, r.Data)
	}
}

// supersedingHousing is housingUnits that also reports the release it
// serves, as the ACS modules do.
type supersedingHousing struct {
	*housingUnits
	current atomic.Value // string, e.g. "2023"
}

func (s *supersedingHousing) Supersedes(vintage string) bool {
	cur, _ := s.current.Load().(string)
	return cur != "" && len(vintage) >= 4 && cur > vintage[:4]
}

var _ providers.Superseder = (*supersedingHousing)(nil)

func TestAValueOfAnOlderReleaseIsRefreshedWithinItsTTL(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	st := newMemStore()
	h := &supersedingHousing{housingUnits: newHousingUnits(1800)}
	h.current.Store("2022")
	svc := newServiceWith(t, service.Config{Store: st, Now: clk.Now}, elmGeocoder(), map[providers.Role]any{providers.RoleHousing: h}, service.Module{})
	p, _, _ := svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	get := func() service.SectionResult {
		r, err := svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := get(); r.Meta.Vintage != "2022 ACS 5-year" {
		t.Fatalf("first fetch: %+v", r.Meta)
	}
	clk.Add(24 * time.Hour) // well within the TTL
	if r := get(); r.Meta.Status != service.StatusOK || r.Meta.Cache != service.CacheHit {
		t.Fatalf("fresh value of the current release: %+v", r.Meta)
	}

	// The module moves on to 2023: the 2022 value is served stale while
	// it is refreshed, then the 2023 value is served.
	h.current.Store("2023")
	h.vintage.Store("2023 ACS 5-year")
	h.units.Store(1900)
	if r := get(); r.Meta.Status != service.StatusStale || r.Meta.Vintage != "2022 ACS 5-year" || units(t, r) != 1800 {
		t.Fatalf("value of a superseded release: %+v %s; want it served stale", r.Meta, r.Data)
	}
	waitFor(t, "the 2023 value is stored", func() bool { return st.puts.Load() == 2 })
	r := get()
	if r.Meta.Status != service.StatusOK || r.Meta.Vintage != "2023 ACS 5-year" || units(t, r) != 1900 {
		t.Fatalf("after the refresh: %+v %s; want the 2023 value", r.Meta, r.Data)
	}
	if n := h.calls.Load(); n != 2 {
		t.Fatalf("upstream asked %d times, want 2", n)
	}
}

func TestRefreshesAreBoundedAcrossTheService(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	st := newMemStore()
	h := newHousingUnits(1800)
	geo := &fakeGeocoder{geocode: func(_ context.Context, a providers.Address) (providers.Location, error) {
		loc := elm
		if strings.HasPrefix(a.Street, "14") {
			loc.MatchedAddress, loc.Street, loc.CensusTract = "14 ELM ST, SPRINGFIELD, IL, 62701", "14 ELM ST", "000600"
		}
		return loc, nil
	}}
	svc := newServiceWith(t, service.Config{Store: st, Now: clk.Now, RefreshConcurrency: 1}, geo,
		map[providers.Role]any{providers.RoleHousing: h}, service.Module{})
	var props []*providers.Property
	for _, street := range []string{"12 Elm St", "14 Elm St"} {
		p, _, err := svc.Lookup(context.Background(), providers.Address{Street: street, State: "IL"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{}); err != nil {
			t.Fatal(err)
		}
		props = append(props, p)
	}
	clk.Add(366 * 24 * time.Hour)
	h.hold = make(chan struct{})
	get := func(p *providers.Property) service.SectionResult {
		r, _ := svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{})
		return r
	}
	get(props[0])
	waitFor(t, "the first refresh reaches the upstream", func() bool { return h.calls.Load() == 3 })
	if r := get(props[1]); r.Meta.Status != service.StatusStale {
		t.Fatalf("second tract: %+v, want stale", r.Meta)
	}
	close(h.hold)
	waitFor(t, "the first refresh stores its value", func() bool { return st.puts.Load() == 3 })
	if n := h.calls.Load(); n != 3 {
		t.Fatalf("upstream asked %d times with one refresh slot taken, want 3", n)
	}
	// The slot is free: the next request for the second tract refreshes it.
	waitFor(t, "the second tract's refresh runs once the slot is free", func() bool {
		get(props[1])
		return st.puts.Load() == 4
	})
}

func TestCloseCancelsRefreshesThatOutliveIt(t *testing.T) {
	f := newRefreshFixture(t, service.Config{}, service.Module{})
	f.housing.hold = make(chan struct{}) // never released: only cancellation ends the call
	f.housing1(t)
	waitFor(t, "the refresh reaches the upstream", func() bool { return f.housing.calls.Load() == 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	closed := make(chan struct{})
	go func() {
		f.svc.Close(ctx)
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs on a refresh the upstream never answers")
	}
	if r := f.housing1(t); r.Meta.Status != service.StatusStale || f.housing.calls.Load() != 2 {
		t.Fatalf("after Close: %+v, %d calls; want the value served stale and no refresh started", r.Meta, f.housing.calls.Load())
	}
	if n := f.logs.count("section unavailable"); n != 0 {
		t.Fatalf("a refresh cancelled at shutdown was logged as a failure (%d lines)", n)
	}
}

// fakeAmenities answers TotalCount from count; fakeWalk scores what its
// amenities provider says, as osm-walk derives its score from the
// amenities section.
type fakeAmenities struct{ count atomic.Int64 }

func (f *fakeAmenities) Amenities(_ context.Context, _ providers.Point, r int) (*providers.Amenities, error) {
	return &providers.Amenities{RadiusMeters: r, TotalCount: int(f.count.Load()), Source: "fake-amenities"}, nil
}

type fakeWalk struct{ amenities providers.AmenitiesProvider }

func (f fakeWalk) WalkScore(ctx context.Context, p providers.Point, _ string) (*providers.WalkScore, error) {
	a, err := f.amenities.Amenities(ctx, p, service.DefaultRadius)
	if err != nil {
		return nil, err
	}
	return &providers.WalkScore{WalkScore: a.TotalCount, Source: "fake-walk"}, nil
}

func TestAScoreRefreshedFromAmenitiesWaitsForFreshAmenities(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	st := newMemStore()
	cfg := service.Config{Store: st, Now: clk.Now}
	amenities := &fakeAmenities{}
	amenities.count.Store(1)
	svc := newServiceWith(t, cfg, elmGeocoder(), map[providers.Role]any{
		providers.RoleAmenities: amenities, providers.RoleWalkScore: fakeWalk{cfg.Amenities()},
	}, service.Module{})
	p, _, _ := svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	score := func() service.SectionResult {
		r, err := svc.SectionOf(context.Background(), p, providers.SectionWalkScore, service.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := score(); !strings.Contains(string(r.Data), `"walk_score":1`) {
		t.Fatalf("first score: %s", r.Data)
	}
	clk.Add(8 * 24 * time.Hour) // both past their 7-day TTL
	amenities.count.Store(2)
	if r := score(); r.Meta.Status != service.StatusStale {
		t.Fatalf("expired score: %+v", r.Meta)
	}
	waitFor(t, "the score is refreshed", func() bool { return score().Meta.Status == service.StatusOK })
	if r := score(); !strings.Contains(string(r.Data), `"walk_score":2`) {
		t.Fatalf("refreshed score %s: derived from the expired amenities, not fresh ones", r.Data)
	}
}
