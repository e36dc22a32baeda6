package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
)

// stateACS is an ACS-like module fake that answers one tract or a whole
// state, from the tracts it knows, counting each kind of call by table
// set. fail, when set, is the error of every call.
type stateACS struct {
	tracts    map[string]bool // GEOIDs with figures
	tractCall atomic.Int32
	demoState atomic.Int32
	houseCall atomic.Int32
	gate      chan struct{} // when set, state calls of demographics wait for it to close
	houseGate chan struct{} // when set, state calls of housing wait for it to close
	mu        sync.Mutex
	fail      error
	houseFail error // when set, the error of state calls of housing
	units     int64
	stray     string // when set, state calls of demographics answer this state's tracts
}

func (f *stateACS) err() error { f.mu.Lock(); defer f.mu.Unlock(); return f.fail }

func (f *stateACS) Demographics(_ context.Context, t providers.Tract) (*providers.Demographics, error) {
	f.tractCall.Add(1)
	return &providers.Demographics{CensusTract: t.Tract, StateFIPS: t.State, CountyFIPS: t.County, Source: "fake-acs"}, f.err()
}

func (f *stateACS) Housing(_ context.Context, t providers.Tract) (*providers.Housing, error) {
	f.tractCall.Add(1)
	return &providers.Housing{Source: "fake-acs-housing"}, f.err()
}

func (f *stateACS) StateDemographics(ctx context.Context, state string) (map[string]*providers.Demographics, error) {
	f.demoState.Add(1)
	if f.gate != nil {
		<-f.gate
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if f.stray != "" {
		state = f.stray
	}
	out := map[string]*providers.Demographics{}
	for id := range f.tracts {
		if id[:2] == state {
			out[id] = &providers.Demographics{CensusTract: id[5:], StateFIPS: id[:2], CountyFIPS: id[2:5], Source: "fake-acs"}
		}
	}
	return out, nil
}

func (f *stateACS) StateHousing(ctx context.Context, state string) (map[string]*providers.Housing, error) {
	f.houseCall.Add(1)
	if f.houseGate != nil {
		<-f.houseGate
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if f.houseFail != nil {
		return nil, f.houseFail
	}
	f.mu.Lock()
	u := f.units
	f.mu.Unlock()
	out := map[string]*providers.Housing{}
	for id := range f.tracts {
		if id[:2] == state {
			out[id] = &providers.Housing{TotalHousingUnits: &u, Source: "fake-acs-housing"}
		}
	}
	return out, nil
}

// newStateACS knows n tracts of Illinois (17), county 031, and one of Texas.
func newStateACS(n int) *stateACS {
	f := &stateACS{tracts: map[string]bool{"48453001307": true}, units: 100}
	for i := range n {
		f.tracts[fmt.Sprintf("17031%06d", 100+i)] = true
	}
	return f
}

func tractProperty(geoid string) *providers.Property {
	return &providers.Property{ID: 1, FIPSCode: geoid[:5], CensusTract: geoid[5:], State: "IL"}
}

func newACSService(t *testing.T, acs *stateACS, cfg service.Config) (*service.Service, *memStore, *clock) {
	t.Helper()
	st := newMemStore()
	clk := &clock{now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	cfg.Store, cfg.Now = st, clk.Now
	svc := newServiceWith(t, cfg, elmGeocoder(), map[providers.Role]any{
		providers.RoleDemographics: acs, providers.RoleHousing: acs,
	}, service.Module{})
	return svc, st, clk
}

// newLoggedACSService is newACSService with the service's log lines kept.
func newLoggedACSService(t *testing.T, acs *stateACS) (*service.Service, *logLines) {
	t.Helper()
	logs := &logLines{}
	svc, _, _ := newACSService(t, acs, service.Config{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	return svc, logs
}

// tractAnswer is one lookup's section and error.
type tractAnswer struct {
	r   service.SectionResult
	err error
}

// demographicsOfTractsAtOnce asks for the demographics of n tracts of
// Illinois at once while the state call is held at acs.gate, lets them
// all join that one call, releases it and returns each lookup's answer.
func demographicsOfTractsAtOnce(t *testing.T, svc *service.Service, acs *stateACS, n int) []tractAnswer {
	t.Helper()
	out := make([]tractAnswer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].r, out[i].err = svc.SectionOf(context.Background(), tractProperty(fmt.Sprintf("17031%06d", 100+i)), providers.SectionDemographics, service.Options{})
		}()
	}
	waitFor(t, "the state call", func() bool { return acs.demoState.Load() == 1 })
	time.Sleep(10 * time.Millisecond) // let the others join it
	close(acs.gate)
	wg.Wait()
	return out
}

// TestTractsOfOneStateCostOneCallPerTableSet: the demographics of many
// tracts of one state, asked for at once, make one state-wide call, and
// the housing figures of the same state come with it: no call per tract.
func TestTractsOfOneStateCostOneCallPerTableSet(t *testing.T) {
	acs := newStateACS(30)
	acs.gate = make(chan struct{})
	svc, st, _ := newACSService(t, acs, service.Config{})
	ctx := context.Background()
	for _, a := range demographicsOfTractsAtOnce(t, svc, acs, 30) {
		if a.err != nil || a.r.Meta.Status != service.StatusOK {
			t.Fatalf("a lookup of a tract of the state failed: %v, %+v", a.err, a.r.Meta)
		}
	}
	// The housing load runs in the background: wait for its marker, stored
	// after every tract's value.
	waitFor(t, "housing loaded beside the demographics", func() bool {
		_, err := st.Section(ctx, "loaded:"+providers.SectionHousing, "17")
		return err == nil
	})
	for i := range 30 {
		r, err := svc.SectionOf(ctx, tractProperty(fmt.Sprintf("17031%06d", 100+i)), providers.SectionHousing, service.Options{})
		if err != nil || r.Meta.Cache != service.CacheHit {
			t.Fatalf("housing of tract %d: %v, meta %+v; want it stored by the state load", i, err, r.Meta)
		}
	}
	if d, h, one := acs.demoState.Load(), acs.houseCall.Load(), acs.tractCall.Load(); d != 1 || h != 1 || one != 0 {
		t.Fatalf("calls: %d demographics by state, %d housing by state, %d by tract; want 1, 1, 0", d, h, one)
	}
}

// TestATractTheStateLacksIsNotFoundWithoutAnotherCall: a tract absent from
// its state's answer is tract_not_found, and stays so without a call.
func TestATractTheStateLacksIsNotFoundWithoutAnotherCall(t *testing.T) {
	acs := newStateACS(3)
	svc, _, _ := newACSService(t, acs, service.Config{})
	ctx := context.Background()
	if _, err := svc.SectionOf(ctx, tractProperty("17031000100"), providers.SectionDemographics, service.Options{}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		r, err := svc.SectionOf(ctx, tractProperty("17031999999"), providers.SectionDemographics, service.Options{})
		if providers.CodeOf(err) != providers.CodeTractNotFound || r.Meta.Status != service.StatusUnavailable || r.Meta.Cache != service.CacheHit {
			t.Fatalf("ask %d of a tract the state lacks: %v, meta %+v; want tract_not_found from the store", i, err, r.Meta)
		}
	}
	if n := acs.demoState.Load() + acs.tractCall.Load(); n != 1 {
		t.Fatalf("%d demographics calls, want the one state call", n)
	}
}

// TestAFailedStateCallIsAskedAgain: a state call that fails leaves
// nothing stored; the next need asks again and stores the state.
func TestAFailedStateCallIsAskedAgain(t *testing.T) {
	acs := newStateACS(3)
	acs.fail = providers.Errorf(providers.KindUpstream, providers.CodeUpstreamError, "down")
	svc, _, _ := newACSService(t, acs, service.Config{})
	ctx := context.Background()
	p := tractProperty("17031000100")
	r, err := svc.SectionOf(ctx, p, providers.SectionDemographics, service.Options{})
	if providers.CodeOf(err) != providers.CodeUpstreamError || r.Meta.Status != service.StatusUnavailable {
		t.Fatalf("failing upstream: %v, %+v", err, r.Meta)
	}
	acs.mu.Lock()
	acs.fail = nil
	acs.mu.Unlock()
	if r, err = svc.SectionOf(ctx, p, providers.SectionDemographics, service.Options{}); err != nil || r.Meta.Cache != service.CacheMiss {
		t.Fatalf("after the upstream recovered: %v, %+v", err, r.Meta)
	}
	if n := acs.demoState.Load(); n != 2 {
		t.Fatalf("%d state calls, want 2", n)
	}
}

// TestAStateAnsweredWithOtherStatesIsNotLoaded: a state call answered
// with tracts of another state only is a bad answer: the tract is
// unavailable with upstream_bad_response, nothing is stored (no value, no
// mark that the state was loaded), and the next need asks again.
func TestAStateAnsweredWithOtherStatesIsNotLoaded(t *testing.T) {
	acs := newStateACS(3)
	acs.stray = "48"
	svc, st, _ := newACSService(t, acs, service.Config{})
	ctx := context.Background()
	p := tractProperty("17031000100")
	for i := range 2 {
		r, err := svc.SectionOf(ctx, p, providers.SectionDemographics, service.Options{})
		if providers.CodeOf(err) != providers.CodeUpstreamBadResponse || r.Meta.Status != service.StatusUnavailable || !r.Failed {
			t.Fatalf("ask %d: %v, meta %+v; want unavailable with upstream_bad_response", i, err, r.Meta)
		}
	}
	if _, err := st.Section(ctx, "loaded:"+providers.SectionDemographics, "17"); err == nil {
		t.Fatal("Illinois was marked loaded from an answer holding Texas")
	}
	if _, err := st.Section(ctx, providers.SectionDemographics, "17031000100"); err == nil {
		t.Fatal("the tract was stored from an answer holding Texas")
	}
	if n := acs.demoState.Load(); n != 2 {
		t.Fatalf("%d state calls, want 2: the bad answer is not remembered", n)
	}
}

// TestAFailedStateCallIsLoggedOnce: twenty tracts of a state waiting on
// one state call that fails make one "section unavailable" line, not one
// per tract, and every one of them is answered unavailable.
func TestAFailedStateCallIsLoggedOnce(t *testing.T) {
	acs := newStateACS(20)
	acs.gate = make(chan struct{})
	acs.fail = providers.Errorf(providers.KindUpstream, providers.CodeUpstreamError, "down")
	svc, logs := newLoggedACSService(t, acs)
	for _, a := range demographicsOfTractsAtOnce(t, svc, acs, 20) {
		if code := providers.CodeOf(a.err); code != providers.CodeUpstreamError {
			t.Fatalf("a tract waiting on the failed state call got %q, want %s", code, providers.CodeUpstreamError)
		}
	}
	if n := logs.count("section unavailable"); n != 1 || acs.demoState.Load() != 1 {
		t.Fatalf("%d lines for %d failed state calls, want 1 for 1:\n%s", n, acs.demoState.Load(), logs.buf.String())
	}
}

// TestAFailedSiblingLoadIsLoggedOnce: a state's housing load that a
// request started and the demographics load's background sibling load
// joined fails once, and is logged once.
func TestAFailedSiblingLoadIsLoggedOnce(t *testing.T) {
	acs := newStateACS(3)
	acs.houseGate = make(chan struct{})
	acs.houseFail = providers.Errorf(providers.KindUpstream, providers.CodeUpstreamError, "down")
	svc, logs := newLoggedACSService(t, acs)
	ctx := context.Background()
	p := tractProperty("17031000100")
	housing := make(chan error, 1)
	go func() {
		_, err := svc.SectionOf(ctx, p, providers.SectionHousing, service.Options{})
		housing <- err
	}()
	waitFor(t, "the housing state call", func() bool { return acs.houseCall.Load() == 1 })
	// The demographics load succeeds and starts housing's in the
	// background, which joins the request's flight.
	if r, err := svc.SectionOf(ctx, p, providers.SectionDemographics, service.Options{}); err != nil || r.Meta.Status != service.StatusOK {
		t.Fatalf("demographics: %v, %+v", err, r.Meta)
	}
	time.Sleep(20 * time.Millisecond) // let the background load join the flight
	close(acs.houseGate)
	if err := <-housing; providers.CodeOf(err) != providers.CodeUpstreamError {
		t.Fatalf("housing: %v, want %s", err, providers.CodeUpstreamError)
	}
	waitFor(t, "the background load to end", func() bool { return logs.count("section unavailable") > 0 })
	time.Sleep(20 * time.Millisecond)
	if n, calls := logs.count("section unavailable"), acs.houseCall.Load(); n != 1 || calls != 1 {
		t.Fatalf("%d lines for %d failed housing state calls, want 1 for 1:\n%s", n, calls, logs.buf.String())
	}
}

// TestAnExpiredTractIsRefreshedWithItsState: past the TTL one tract's
// refresh asks for its whole state once, and every tract of it is fresh
// again.
func TestAnExpiredTractIsRefreshedWithItsState(t *testing.T) {
	acs := newStateACS(5)
	svc, _, clk := newACSService(t, acs, service.Config{})
	ctx := context.Background()
	if _, err := svc.SectionOf(ctx, tractProperty("17031000100"), providers.SectionHousing, service.Options{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "demographics loaded beside housing", func() bool { return acs.demoState.Load() == 1 })
	clk.Add(366 * 24 * time.Hour)
	acs.mu.Lock()
	acs.units = 200
	acs.mu.Unlock()
	r, _ := svc.SectionOf(ctx, tractProperty("17031000100"), providers.SectionHousing, service.Options{})
	if r.Meta.Status != service.StatusStale {
		t.Fatalf("expired housing: %+v, want stale", r.Meta)
	}
	waitFor(t, "the state refreshed", func() bool {
		r, _ := svc.SectionOf(ctx, tractProperty("17031000104"), providers.SectionHousing, service.Options{})
		return r.Meta.Status == service.StatusOK && units(t, r) == 200
	})
	if h, one := acs.houseCall.Load(), acs.tractCall.Load(); h != 2 || one != 0 {
		t.Fatalf("%d housing state calls, %d tract calls; want 2 and 0", h, one)
	}
}

// TestLoadRegionPreloadsAndIsIdempotent: a state loaded ahead serves every
// tract of it without a call; loading it again asks nobody.
func TestLoadRegionPreloadsAndIsIdempotent(t *testing.T) {
	acs := newStateACS(4)
	svc, _, _ := newACSService(t, acs, service.Config{})
	ctx := context.Background()
	if got := svc.RegionSections(service.RegionState); len(got) != 2 || got[0] != providers.SectionDemographics || got[1] != providers.SectionHousing {
		t.Fatalf("RegionSections = %v", got)
	}
	for _, sec := range svc.RegionSections(service.RegionState) {
		l, err := svc.LoadRegion(ctx, sec, "17")
		if err != nil || !l.Called || l.Keys != 4 {
			t.Fatalf("LoadRegion %s: %+v, %v", sec, l, err)
		}
		if l, err = svc.LoadRegion(ctx, sec, "17"); err != nil || l.Called {
			t.Fatalf("LoadRegion %s again: %+v, %v; want no call", sec, l, err)
		}
	}
	svc.Close(ctx) // background loads, if any, have ended
	before := acs.demoState.Load() + acs.houseCall.Load()
	for _, sec := range []string{providers.SectionDemographics, providers.SectionHousing} {
		if r, err := svc.SectionOf(ctx, tractProperty("17031000102"), sec, service.Options{}); err != nil || r.Meta.Cache != service.CacheHit {
			t.Fatalf("%s after the load: %v %+v", sec, err, r.Meta)
		}
	}
	if n := acs.demoState.Load() + acs.houseCall.Load() - before + acs.tractCall.Load(); n != 0 {
		t.Fatalf("%d calls after the load, want 0", n)
	}
	if _, err := svc.LoadRegion(ctx, providers.SectionFlood, "17"); providers.KindOf(err) != providers.KindInvalid {
		t.Fatalf("LoadRegion of a section that does not load by region: %v", err)
	}
}

// recordingLeases grants every lease at once and records the keys asked.
type recordingLeases struct {
	mu   sync.Mutex
	keys map[string]int
}

func (l *recordingLeases) Lease(_ context.Context, key string) (func(), error) {
	l.mu.Lock()
	l.keys[key]++
	l.mu.Unlock()
	return func() {}, nil
}

// TestAStateLoadTakesTheFleetLease: the instances of a fleet share one
// state call through the lease of the state's flight.
func TestAStateLoadTakesTheFleetLease(t *testing.T) {
	acs := newStateACS(2)
	leases := &recordingLeases{keys: map[string]int{}}
	svc, _, _ := newACSService(t, acs, service.Config{Leases: leases})
	if _, err := svc.SectionOf(context.Background(), tractProperty("17031000100"), providers.SectionDemographics, service.Options{}); err != nil {
		t.Fatal(err)
	}
	svc.Close(context.Background())
	leases.mu.Lock()
	defer leases.mu.Unlock()
	for _, k := range []string{"region:demographics:17", "region:housing:17"} {
		if leases.keys[k] != 1 {
			t.Errorf("lease %q taken %d times, want 1 (leases: %v)", k, leases.keys[k], leases.keys)
		}
	}
}

// TestARequestLoadsTheSiblingsItIncludes: a request that includes both of
// a state's ACS sections on a fresh instance asks for each table itself,
// and each section says it came from the upstream, however its trip and
// its sibling's interleave. Before, the first trip to end loaded the other
// table in the background, and the other section, read a moment later in
// the same request, said database or upstream depending on which came
// first.
func TestARequestLoadsTheSiblingsItIncludes(t *testing.T) {
	names := []string{providers.SectionDemographics, providers.SectionHousing}
	for run := range 300 {
		acs := newStateACS(3)
		svc, _, _ := newACSService(t, acs, service.Config{})
		rs := svc.Enrich(context.Background(), tractProperty("17031000100"), names, service.Options{})
		for i, r := range rs {
			if r.Meta.Status != service.StatusOK || r.Tier != providers.TierUpstream {
				t.Fatalf("run %d: %s came from %q (status %s); want the upstream", run, names[i], r.Tier, r.Meta.Status)
			}
		}
		if d, h := acs.demoState.Load(), acs.houseCall.Load(); d != 1 || h != 1 {
			t.Fatalf("run %d: %d demographics and %d housing state calls, want 1 each", run, d, h)
		}
	}
}

// TestASectionReadFreshStillHasItsRegionLoaded: a request that reads its
// tract's housing fresh from the store and fetches demographics leaves the
// housing of the rest of the state to the background load of siblings, as
// demographics asked alone does: only the sections a request fetches
// itself are kept out of that load.
func TestASectionReadFreshStillHasItsRegionLoaded(t *testing.T) {
	acs := newStateACS(3)
	svc, st, clk := newACSService(t, acs, service.Config{})
	data, err := json.Marshal(providers.Housing{Source: "fake-acs-housing"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutSection(context.Background(), providers.SectionRecord{Section: providers.SectionHousing, Key: "17031000100",
		Data: data, Source: "fake-acs-housing", FetchedAt: clk.Now(), ExpiresAt: clk.Now().Add(24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	names := []string{providers.SectionDemographics, providers.SectionHousing}
	rs := svc.Enrich(context.Background(), tractProperty("17031000100"), names, service.Options{})
	if rs[0].Tier != providers.TierUpstream || rs[1].Tier == providers.TierUpstream {
		t.Fatalf("demographics from %q, housing from %q; want the upstream, then the store", rs[0].Tier, rs[1].Tier)
	}
	waitFor(t, "the state's housing loaded beside demographics", func() bool { return acs.houseCall.Load() == 1 })
}
