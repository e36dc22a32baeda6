package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
)

// memStore is a providers.Store in memory, so the core's behaviour is
// tested without SQL: it keeps what Save and PutSection were given and
// counts section writes. Safe for concurrent use.
type memStore struct {
	mu       sync.Mutex
	props    map[int64]providers.Property
	keys     map[string]int64
	canon    map[string]int64
	sections map[string]providers.SectionRecord
	puts     atomic.Int32
	// reads counts reads by key of records, and of section values by
	// section name.
	reads map[string]int
}

var _ providers.Store = (*memStore)(nil)

func newMemStore() *memStore {
	return &memStore{props: map[int64]providers.Property{}, keys: map[string]int64{}, canon: map[string]int64{},
		sections: map[string]providers.SectionRecord{}, reads: map[string]int{}}
}

// readsOf returns how many times what was named was read: "key" for
// records by lookup key, else a section's name.
func (s *memStore) readsOf(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[what]
}

func (s *memStore) Property(_ context.Context, id int64) (*providers.Property, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.props[id]
	if !ok {
		return nil, providers.NotFound("property_not_found", "no property with that id")
	}
	return &p, nil
}

func (s *memStore) PropertyByKey(ctx context.Context, key string) (*providers.Property, error) {
	s.mu.Lock()
	s.reads["key"]++
	id, ok := s.keys[key]
	s.mu.Unlock()
	if !ok {
		return nil, providers.NotFound("property_not_found", "no property with that key")
	}
	return s.Property(ctx, id)
}

func (s *memStore) Nearest(context.Context, providers.Point, float64) (*providers.Property, error) {
	return nil, providers.NotFound("property_not_found", "none near")
}

func (s *memStore) Save(_ context.Context, np providers.NewProperty) (*providers.Property, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, exists := s.canon[np.Canonical+"|"+np.Property.Unit]
	if !exists {
		id = int64(len(s.props) + 1)
		p := np.Property
		p.ID = id
		s.props[id] = p
		s.canon[np.Canonical+"|"+np.Property.Unit] = id
	}
	for _, k := range np.Keys {
		s.keys[k] = id
	}
	p := s.props[id]
	return &p, !exists, nil
}

func (s *memStore) Search(context.Context, providers.SearchFilter) ([]providers.Property, int, error) {
	return nil, 0, nil
}

func (s *memStore) Section(_ context.Context, section, key string) (*providers.SectionRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads[section]++
	r, ok := s.sections[section+"|"+key]
	if !ok {
		return nil, providers.NotFound("section_not_found", "no stored value")
	}
	return &r, nil
}

func (s *memStore) PutSection(_ context.Context, r providers.SectionRecord) error {
	s.puts.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sections[r.Section+"|"+r.Key] = r
	return nil
}

func (s *memStore) Ping(context.Context) error { return nil }
func (s *memStore) Close() error               { return nil }

// fakeGeocoder is a Geocoder with a function field, counting its calls.
type fakeGeocoder struct {
	geocode func(ctx context.Context, a providers.Address) (providers.Location, error)
	calls   atomic.Int32
}

func (f *fakeGeocoder) Geocode(ctx context.Context, a providers.Address) (providers.Location, error) {
	f.calls.Add(1)
	return f.geocode(ctx, a)
}

// elm is the one place the fake geocoder knows.
var elm = providers.Location{
	MatchedAddress: "12 ELM ST, SPRINGFIELD, IL, 62701", Street: "12 ELM ST", City: "SPRINGFIELD", State: "IL",
	Zip: "62701", Point: providers.Point{Lat: 39.8, Lng: -89.6}, County: "Sangamon County", FIPSCode: "17167",
	CensusTract: "000500",
}

// fakeHousing and fakeRents are module fakes with function fields, wired
// through the catalogue as real modules are.
type fakeHousing struct {
	fn func(ctx context.Context, t providers.Tract) (*providers.Housing, error)
}

func (f fakeHousing) Housing(ctx context.Context, t providers.Tract) (*providers.Housing, error) {
	return f.fn(ctx, t)
}

type fakeRents struct {
	fn func(ctx context.Context, fips string) (*providers.FairMarketRents, error)
}

func (f fakeRents) FairMarketRents(ctx context.Context, fips string) (*providers.FairMarketRents, error) {
	return f.fn(ctx, fips)
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// newService builds a Service over a memory store with the fake geocoder
// and the given modules added by role through the catalogue.
func newService(t *testing.T, st *memStore, geo *fakeGeocoder, clk *clock, mods map[providers.Role]any) *service.Service {
	t.Helper()
	return newServiceWith(t, service.Config{Store: st, Now: clk.Now}, geo, mods, service.Module{})
}

// newServiceWith is newService from cfg, every module added with the
// Around and Refresh of like. The service is closed when the test ends.
func newServiceWith(t *testing.T, cfg service.Config, geo *fakeGeocoder, mods map[providers.Role]any, like service.Module) *service.Service {
	t.Helper()
	if err := cfg.Add(providers.RoleGeocoder, service.Module{Name: "fake-geo", Value: geo}); err != nil {
		t.Fatal(err)
	}
	for role, m := range mods {
		e, _ := service.EntryOf(role)
		mod := service.Module{Name: "fake-" + string(role), Value: m, TTL: e.DefaultTTL, Around: like.Around, Refresh: like.Refresh}
		if err := cfg.Add(role, mod); err != nil {
			t.Fatalf("Add %s: %v", role, err)
		}
	}
	svc := service.New(cfg)
	t.Cleanup(func() { svc.Close(context.Background()) })
	return svc
}

func elmGeocoder() *fakeGeocoder {
	return &fakeGeocoder{geocode: func(context.Context, providers.Address) (providers.Location, error) { return elm, nil }}
}

func TestConcurrentFirstLookupsShareOneGeocoderCall(t *testing.T) {
	release := make(chan struct{})
	geo := &fakeGeocoder{geocode: func(context.Context, providers.Address) (providers.Location, error) {
		<-release
		return elm, nil
	}}
	svc := newService(t, newMemStore(), geo, &clock{now: time.Now()}, nil)
	var wg sync.WaitGroup
	ids := make([]int64, 20)
	created := atomic.Int32{}
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spelling := []string{"12 Elm St", "12 elm street", "12 ELM ST."}[i%3]
			p, src, err := svc.Lookup(context.Background(), providers.Address{Street: spelling, City: "Springfield", State: "IL"})
			if err != nil {
				t.Errorf("lookup %d: %v", i, err)
				return
			}
			ids[i] = p.ID
			if src.Created {
				created.Add(1)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond) // let every lookup join the call
	close(release)
	wg.Wait()
	for i, id := range ids {
		if id != ids[0] {
			t.Fatalf("lookup %d got id %d, lookup 0 id %d: one address, two records", i, id, ids[0])
		}
	}
	if n := geo.calls.Load(); n != 1 {
		t.Fatalf("20 concurrent first lookups of one address made %d geocoder calls, want 1", n)
	}
	if created.Load() != 1 {
		t.Fatalf("%d lookups say they created the record, want 1", created.Load())
	}
}

func TestSyncRefreshServesAnExpiredSectionStaleWhenItsUpstreamFails(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	units := int64(1800)
	var fail atomic.Bool
	var calls atomic.Int32
	housing := fakeHousing{fn: func(context.Context, providers.Tract) (*providers.Housing, error) {
		calls.Add(1)
		if fail.Load() {
			return nil, providers.Errorf(providers.KindUpstream, "upstream_error", "census answered 500")
		}
		return &providers.Housing{TotalHousingUnits: &units, Source: "census-acs-housing", Vintage: "2022"}, nil
	}}
	svc := newServiceWith(t, service.Config{Store: newMemStore(), Now: clk.Now}, elmGeocoder(),
		map[providers.Role]any{providers.RoleHousing: housing}, service.Module{Refresh: service.RefreshSync})
	p, _, err := svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	if err != nil {
		t.Fatal(err)
	}
	first := svc.Enrich(context.Background(), p, []string{providers.SectionHousing}, service.Options{})[0]
	if first.Meta.Status != service.StatusOK || first.Meta.Cache != service.CacheMiss || first.Meta.Vintage != "2022" {
		t.Fatalf("first fetch: %+v", first.Meta)
	}
	clk.Add(366 * 24 * time.Hour) // past housing's one-year TTL
	fail.Store(true)
	r, err := svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{})
	if err != nil || r.Meta.Status != service.StatusStale || r.Meta.Error != "upstream_error" || string(r.Data) != string(first.Data) {
		t.Fatalf("expired value, upstream down: %+v %s %v; want the old value, stale, with the error", r.Meta, r.Data, err)
	}
	if r.Meta.AgeSeconds == nil || *r.Meta.AgeSeconds != 366*24*3600 {
		t.Fatalf("stale value's age_seconds = %v, want %d (a year and a day)", r.Meta.AgeSeconds, 366*24*3600)
	}
	if calls.Load() != 2 {
		t.Fatalf("upstream asked %d times, want 2 (the first fetch, the failed refresh)", calls.Load())
	}
	// The upstream is back: the request waits for the new value.
	fail.Store(false)
	r, err = svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{})
	if err != nil || r.Meta.Status != service.StatusOK || r.Meta.Cache != service.CacheMiss || r.Meta.AgeSeconds != nil || calls.Load() != 3 {
		t.Fatalf("sync refresh with the upstream back: %+v %v, %d calls; want ok miss from a third call", r.Meta, err, calls.Load())
	}
}

func TestConcurrentSectionMissesShareOneFetch(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	units := int64(7)
	housing := fakeHousing{fn: func(context.Context, providers.Tract) (*providers.Housing, error) {
		calls.Add(1)
		<-release
		return &providers.Housing{TotalHousingUnits: &units}, nil
	}}
	st := newMemStore()
	svc := newService(t, st, elmGeocoder(), &clock{now: time.Now()}, map[providers.Role]any{providers.RoleHousing: housing})
	p, _, err := svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, err := svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{}); err != nil || r.Meta.Status != service.StatusOK {
				t.Errorf("SectionOf: %+v %v", r.Meta, err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if calls.Load() != 1 || st.puts.Load() != 1 {
		t.Fatalf("20 concurrent misses of one tract: %d upstream calls, %d writes; want 1 and 1", calls.Load(), st.puts.Load())
	}
}

func TestHousingEmbedsTheRentsAndOutlivesTheirOutage(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	units := int64(1800)
	housing := fakeHousing{fn: func(context.Context, providers.Tract) (*providers.Housing, error) {
		return &providers.Housing{TotalHousingUnits: &units, Source: "census-acs-housing"}, nil
	}}
	var hudDown atomic.Bool
	rents := fakeRents{fn: func(_ context.Context, fips string) (*providers.FairMarketRents, error) {
		if hudDown.Load() {
			return nil, providers.Errorf(providers.KindUpstream, "upstream_error", "hud answered 503")
		}
		return &providers.FairMarketRents{Year: "2026", AreaName: "Springfield, IL MSA", ByBedrooms: map[string]int{"2": 1010}, Source: "hud-fmr"}, nil
	}}
	mods := map[providers.Role]any{providers.RoleHousing: housing, providers.RoleFairMarketRent: rents}

	// Rents configured and up: housing carries them.
	hudDown.Store(false)
	svc := newService(t, newMemStore(), elmGeocoder(), clk, mods)
	p, _, _ := svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	r, err := svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{})
	var got struct {
		Units int64                      `json:"total_housing_units"`
		Rents *providers.FairMarketRents `json:"fair_market_rents"`
	}
	if err != nil || json.Unmarshal(r.Data, &got) != nil || got.Units != 1800 || got.Rents == nil || got.Rents.ByBedrooms["2"] != 1010 {
		t.Fatalf("housing with rents: %s %v", r.Data, err)
	}

	// HUD down on a fresh store: housing is partial, without the member,
	// which it names, and not charged.
	hudDown.Store(true)
	svc = newService(t, newMemStore(), elmGeocoder(), clk, mods)
	p, _, _ = svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	r, err = svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{})
	got.Rents = nil
	if err != nil || r.Meta.Status != service.StatusPartial || json.Unmarshal(r.Data, &got) != nil || got.Rents != nil || got.Units != 1800 {
		t.Fatalf("housing with HUD down: %+v %s %v; want partial without rents", r.Meta, r.Data, err)
	}
	if r.Meta.Error != "upstream_error" || fmt.Sprint(r.Meta.FailedParts) != "[fair_market_rents]" || !r.Failed {
		t.Fatalf("housing with HUD down: error %q, failed parts %v, failed %v; want upstream_error naming fair_market_rents, not charged",
			r.Meta.Error, r.Meta.FailedParts, r.Failed)
	}

	// Rents not configured: nothing is embedded, nothing fails.
	svc = newService(t, newMemStore(), elmGeocoder(), clk, map[providers.Role]any{providers.RoleHousing: housing})
	p, _, _ = svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	r, err = svc.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{})
	if err != nil || json.Valid(r.Data) == false || fmt.Sprint(r.Meta.Status) != service.StatusOK {
		t.Fatalf("housing alone: %+v %s %v", r.Meta, r.Data, err)
	}
}

func TestAModuleThatDoesNotServeItsRoleIsRefused(t *testing.T) {
	cfg := service.Config{}
	err := cfg.Add(providers.RoleHousing, service.Module{Name: "not-housing", Value: fakeRents{}})
	if err == nil {
		t.Fatal("a fair-market-rent module was wired as housing")
	}
	if err := cfg.Add("bogus", service.Module{Name: "x", Value: fakeRents{}}); err == nil {
		t.Fatal("an unknown role was wired")
	}
}

func TestAColdLookupAndAColdSectionReadTheStoreOnce(t *testing.T) {
	var calls atomic.Int32
	units := int64(7)
	housing := fakeHousing{fn: func(context.Context, providers.Tract) (*providers.Housing, error) {
		calls.Add(1)
		return &providers.Housing{TotalHousingUnits: &units}, nil
	}}
	st := newMemStore()
	geo := elmGeocoder()
	svc := newService(t, st, geo, &clock{now: time.Now()}, map[providers.Role]any{providers.RoleHousing: housing})
	p, src, err := svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	if err != nil || !src.Created {
		t.Fatalf("cold lookup: %v, %+v", err, src)
	}
	// One read of the key, one of the remembered misses of the spelling,
	// then the geocoder: nothing is read twice.
	if st.readsOf("key") != 1 || st.readsOf("geocoder_miss") != 1 || geo.calls.Load() != 1 {
		t.Fatalf("cold lookup read the key %d times and the misses %d times, with %d geocoder calls; want 1, 1, 1",
			st.readsOf("key"), st.readsOf("geocoder_miss"), geo.calls.Load())
	}
	r := svc.Enrich(context.Background(), p, []string{providers.SectionHousing}, service.Options{})[0]
	if r.Meta.Status != service.StatusOK || r.Meta.Cache != service.CacheMiss || calls.Load() != 1 {
		t.Fatalf("cold section: %+v after %d calls", r.Meta, calls.Load())
	}
	if n := st.readsOf(providers.SectionHousing); n != 1 {
		t.Fatalf("a cold section read the store %d times, want 1", n)
	}
}

// keyLocks is Leases within one process: a mutex per key, as a fleet's
// instances would hold a lease in Redis.
type keyLocks struct {
	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

func (l *keyLocks) Lease(_ context.Context, key string) (func(), error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*sync.Mutex{}
	}
	m := l.locks[key]
	if m == nil {
		m = &sync.Mutex{}
		l.locks[key] = m
	}
	l.mu.Unlock()
	m.Lock()
	return m.Unlock, nil
}

// countingHousing counts its calls in calls and answers each with as many
// housing units as calls so far, so a value tells which call made it.
func countingHousing(calls *atomic.Int32) fakeHousing {
	return fakeHousing{fn: func(context.Context, providers.Tract) (*providers.Housing, error) {
		n := int64(calls.Add(1))
		return &providers.Housing{TotalHousingUnits: &n}, nil
	}}
}

func TestAnInstanceSeesPastItsMemoryWhatAnotherRefreshed(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	var calls atomic.Int32
	housing := countingHousing(&calls)
	db := newMemStore()
	leases := &keyLocks{}
	// Two instances share the database and the leases; each has its own
	// memory in front.
	instance := func() (*service.Service, *cache.Cache) {
		c, err := cache.New(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		cfg := service.Config{Store: cache.NewStore(db, c, 0), Now: clk.Now, Leases: leases}
		return newServiceWith(t, cfg, elmGeocoder(), map[providers.Role]any{providers.RoleHousing: housing},
			service.Module{Refresh: service.RefreshSync}), c
	}
	a, memA := instance()
	b, _ := instance()
	p, _, err := a.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := a.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{}); r.Meta.Status != service.StatusOK {
		t.Fatalf("first fetch: %+v", r.Meta)
	}
	memA.Wait() // a's memory holds the value from now on
	clk.Add(366 * 24 * time.Hour)
	// b refreshes the expired value: the database has the new one, a's
	// memory still the old.
	if r, _ := b.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{}); r.Meta.Cache != service.CacheMiss || calls.Load() != 2 {
		t.Fatalf("refresh on b: %+v after %d calls", r.Meta, calls.Load())
	}
	r, err := a.SectionOf(context.Background(), p, providers.SectionHousing, service.Options{})
	if err != nil || r.Meta.Status != service.StatusOK || calls.Load() != 2 {
		t.Fatalf("a after b's refresh: %+v %v after %d calls; want b's value with no call", r.Meta, err, calls.Load())
	}
	var got providers.Housing
	if err := json.Unmarshal(r.Data, &got); err != nil || got.TotalHousingUnits == nil || *got.TotalHousingUnits != 2 {
		t.Fatalf("a served %s, want b's value (2 units)", r.Data)
	}
}

// An expired value in memory that the database has already replaced (a
// refresh stored the new one, and memory, which admits new values
// asynchronously, still holds the old) costs no upstream call: before
// fetching, the flight reads the database past memory and serves what it
// finds, in either refresh mode.
func TestAnExpiredValueInMemoryIsCheckedAgainstTheDatabaseBeforeACall(t *testing.T) {
	for _, mode := range service.RefreshModes {
		t.Run(mode, func(t *testing.T) {
			clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			var calls atomic.Int32
			housing := countingHousing(&calls)
			db := newMemStore()
			mem, err := cache.New(1 << 20)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(mem.Close)
			cfg := service.Config{Store: cache.NewStore(db, mem, 0), Now: clk.Now}
			svc := newServiceWith(t, cfg, elmGeocoder(), map[providers.Role]any{providers.RoleHousing: housing},
				service.Module{Refresh: mode})
			ctx := context.Background()
			p, _, err := svc.Lookup(ctx, providers.Address{Street: "12 Elm St", State: "IL"})
			if err != nil {
				t.Fatal(err)
			}
			if r, _ := svc.SectionOf(ctx, p, providers.SectionHousing, service.Options{}); r.Meta.Status != service.StatusOK {
				t.Fatalf("first fetch: %+v", r.Meta)
			}
			mem.Wait() // memory holds the first value from now on
			clk.Add(366 * 24 * time.Hour)
			// The database gets a newer value behind memory's back.
			db.mu.Lock()
			for k, rec := range db.sections {
				if rec.Section == providers.SectionHousing {
					rec.Data = json.RawMessage(`{"total_housing_units":99}`)
					rec.FetchedAt, rec.ExpiresAt = clk.Now(), clk.Now().Add(365*24*time.Hour)
					db.sections[k] = rec
				}
			}
			db.mu.Unlock()

			svc.SectionOf(ctx, p, providers.SectionHousing, service.Options{})
			svc.Close(ctx) // waits for a background refresh
			if n := calls.Load(); n != 1 {
				t.Fatalf("%d upstream calls, want 1: the expired value in memory was refreshed although the database had a fresh one", n)
			}
			r, err := svc.SectionOf(ctx, p, providers.SectionHousing, service.Options{})
			if err != nil || r.Meta.Status != service.StatusOK || !strings.Contains(string(r.Data), `99`) {
				t.Fatalf("after the check: %+v %s %v; want the database's value", r.Meta, r.Data, err)
			}
		})
	}
}

// A spelling the geocoder could not match is remembered, and on one
// instance the memory tier answers the repeat: lookups of an unmatched
// address cost neither a geocoder call nor a database read after the
// first (in a fleet the remembered miss is read past memory instead).
func TestARememberedMissIsAnsweredFromMemoryOnOneInstance(t *testing.T) {
	geo := &fakeGeocoder{geocode: func(context.Context, providers.Address) (providers.Location, error) {
		return providers.Location{}, providers.ErrNoMatch
	}}
	db := newMemStore()
	mem, err := cache.New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mem.Close)
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	svc := newServiceWith(t, service.Config{Store: cache.NewStore(db, mem, 0), Now: clk.Now, MissTTL: time.Hour}, geo, nil, service.Module{})
	a := providers.Address{Street: "99 Nowhere Ln", State: "IL"}
	if _, _, err := svc.Lookup(context.Background(), a); providers.CodeOf(err) != providers.ErrNoMatch.Code {
		t.Fatalf("first lookup: %v, want %s", err, providers.ErrNoMatch.Code)
	}
	mem.Wait()
	reads := db.readsOf("geocoder_miss")
	for range 3 {
		if _, _, err := svc.Lookup(context.Background(), a); providers.CodeOf(err) != providers.ErrNoMatch.Code {
			t.Fatalf("repeat: %v, want %s", err, providers.ErrNoMatch.Code)
		}
	}
	if n := geo.calls.Load(); n != 1 {
		t.Fatalf("%d geocoder calls for an unmatched address asked four times, want 1", n)
	}
	if n := db.readsOf("geocoder_miss") - reads; n != 0 {
		t.Fatalf("the repeats read the remembered miss from the database %d times, want 0 (memory holds it)", n)
	}
}

// Lookups of one address in several spellings that join a flight whose
// spelling the geocoder cannot match (no apostrophe) ask again together:
// one more call, led by the first of them with its own spelling, not one
// call each.
func TestLookupsThatJoinedAMissAskAgainTogether(t *testing.T) {
	release := make(chan struct{})
	obrien := providers.Location{MatchedAddress: "42 O'BRIEN CT, BOSTON, MA, 02110", Street: "42 O'BRIEN CT", City: "BOSTON",
		State: "MA", Zip: "02110", Point: providers.Point{Lat: 42.35, Lng: -71.05}, County: "Suffolk County", FIPSCode: "25025",
		CensusTract: "070101"}
	geo := &fakeGeocoder{geocode: func(_ context.Context, a providers.Address) (providers.Location, error) {
		if !strings.Contains(a.Street, "'") {
			<-release
			return providers.Location{}, providers.ErrNoMatch
		}
		return obrien, nil
	}}
	svc := newService(t, newMemStore(), geo, &clock{now: time.Now()}, nil)
	lookup := func(street string) (int64, error) {
		p, _, err := svc.Lookup(context.Background(), providers.Address{Street: street, City: "Boston", State: "MA"})
		if err != nil {
			return 0, err
		}
		return p.ID, nil
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := lookup("42 OBrien Ct"); providers.CodeOf(err) != providers.ErrNoMatch.Code {
			t.Errorf("the spelling without its apostrophe: %v, want %s", err, providers.ErrNoMatch.Code)
		}
	}()
	for geo.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	spellings := []string{"42 O'Brien Court", "42 o'brien ct", "42 O'BRIEN CT."}
	ids := make([]int64, len(spellings))
	for i, street := range spellings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := lookup(street)
			if err != nil {
				t.Errorf("%s: %v", street, err)
			}
			ids[i] = id
		}()
	}
	time.Sleep(50 * time.Millisecond) // let them join the first call
	close(release)
	wg.Wait()
	if ids[0] == 0 || ids[1] != ids[0] || ids[2] != ids[0] {
		t.Fatalf("ids %v, want one record for every spelling with the apostrophe", ids)
	}
	if n := geo.calls.Load(); n != 2 {
		t.Fatalf("the geocoder was called %d times, want 2 (the miss, then one spelling with the apostrophe)", n)
	}
}

// When the spelling that leads the shared retry misses too, a lookup
// whose own spelling matches still asks with it: a spelling the geocoder
// matches always finds its record, whoever led.
func TestASpellingThatMatchesIsAskedWhenTheSharedRetryMisses(t *testing.T) {
	obrien := providers.Location{MatchedAddress: "42 O'BRIEN CT, BOSTON, MA, 02110", Street: "42 O'BRIEN CT", City: "BOSTON",
		State: "MA", Zip: "02110", Point: providers.Point{Lat: 42.35, Lng: -71.05}, County: "Suffolk County", FIPSCode: "25025",
		CensusTract: "070101"}
	otherLed := 0
	for range 30 {
		release := make(chan struct{})
		geo := &fakeGeocoder{geocode: func(_ context.Context, a providers.Address) (providers.Location, error) {
			switch a.Street {
			case "42 OBrien Ct":
				<-release
				return providers.Location{}, providers.ErrNoMatch
			case "42 O'Brien Ct":
				return obrien, nil
			}
			return providers.Location{}, providers.ErrNoMatch // "42 O'Brien Court" misses too
		}}
		svc := newService(t, newMemStore(), geo, &clock{now: time.Now()}, nil)
		lookup := func(street string) (*providers.Property, error) {
			p, _, err := svc.Lookup(context.Background(), providers.Address{Street: street, City: "Boston", State: "MA"})
			return p, err
		}
		var wg sync.WaitGroup
		errs := make([]error, 3)
		var matched *providers.Property
		for i, street := range []string{"42 OBrien Ct", "42 O'Brien Court", "42 O'Brien Ct"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := lookup(street)
				errs[i] = err
				if i == 2 {
					matched = p
				}
			}()
			for i == 0 && geo.calls.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		time.Sleep(20 * time.Millisecond) // let both join the first call
		close(release)
		wg.Wait()
		if errs[2] != nil || matched == nil || matched.StreetAddress != "42 O'BRIEN CT" {
			t.Fatalf("the spelling the geocoder matches: %v %v, want its record", matched, errs[2])
		}
		if providers.CodeOf(errs[0]) != providers.ErrNoMatch.Code {
			t.Fatalf("the spelling without its apostrophe: %v, want %s", errs[0], providers.ErrNoMatch.Code)
		}
		if errs[1] != nil && providers.CodeOf(errs[1]) != providers.ErrNoMatch.Code {
			t.Fatalf("the spelling that misses: %v, want its record or %s", errs[1], providers.ErrNoMatch.Code)
		}
		if n := geo.calls.Load(); n > 3 {
			t.Fatalf("%d geocoder calls, want at most one per spelling", n)
		} else if n == 3 {
			otherLed++
		}
	}
	t.Logf("the missing spelling led the shared retry in %d of 30 rounds", otherLed)
}
