package service_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/osmwalk"
	"github.com/propertyd/propertyd/providers/service"
)

// countingAmenities answers one school a call, or err, and counts calls.
type countingAmenities struct {
	calls atomic.Int32
	err   error
}

func (f *countingAmenities) Amenities(_ context.Context, p providers.Point, r int) (*providers.Amenities, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	a := &providers.Amenities{RadiusMeters: r, Categories: map[string][]providers.Amenity{}, Source: "fake-amenities"}
	for _, c := range providers.AmenityCategories {
		a.Categories[c] = []providers.Amenity{}
	}
	a.Categories["schools"] = []providers.Amenity{{Name: "Elm School", Type: "school", DistanceMiles: 0.1, Latitude: p.Lat, Longitude: p.Lng}}
	a.TotalCount = 1
	return a, nil
}

// osmWalkOver returns a service whose walk score is the osm-walk module,
// built as config.yaml builds it, over amenities, and the record of 12 Elm
// St; st counts the reads of each section.
func osmWalkOver(t *testing.T, st *memStore, amenities providers.AmenitiesProvider) (*service.Service, *providers.Property) {
	t.Helper()
	cfg := service.Config{Store: st}
	walk, err := osmwalk.New(providers.Settings{Amenities: cfg.Amenities()})
	if err != nil {
		t.Fatal(err)
	}
	svc := newServiceWith(t, cfg, elmGeocoder(), map[providers.Role]any{
		providers.RoleAmenities: amenities, providers.RoleWalkScore: walk,
	}, service.Module{})
	p, _, err := svc.Lookup(context.Background(), providers.Address{Street: "12 Elm St", State: "IL"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, p
}

func walkScoreOf(t *testing.T, r service.SectionResult) providers.WalkScore {
	t.Helper()
	var ws providers.WalkScore
	if err := json.Unmarshal(r.Data, &ws); err != nil {
		t.Fatalf("walk score %s: %v", r.Data, err)
	}
	return ws
}

// TestAWalkScoreIsComputedFromTheAmenitiesOfTheSameRequest: a request
// including the amenities and osm-walk's walk score, both never fetched,
// fetches the amenities once and reads them from the store once (its own
// read before fetching); the walk score is computed from the value the
// amenities' fetch answered, not read back from the store and decoded.
func TestAWalkScoreIsComputedFromTheAmenitiesOfTheSameRequest(t *testing.T) {
	st, amenities := newMemStore(), &countingAmenities{}
	svc, p := osmWalkOver(t, st, amenities)
	rs := svc.Enrich(context.Background(), p, []string{providers.SectionAmenities, providers.SectionWalkScore},
		service.Options{Radius: service.DefaultRadius})
	for i, r := range rs {
		if r.Meta.Status != service.StatusOK || r.Meta.Cache != service.CacheMiss {
			t.Fatalf("section %d: %+v, want ok and a miss", i, r.Meta)
		}
	}
	ws := walkScoreOf(t, rs[1])
	if ws.Source != osmwalk.Source || ws.AmenitiesSource != "fake-amenities" || ws.Breakdown["schools"].Count != 1 {
		t.Errorf("walk score %s: want osm-walk's, computed from the school the amenities list", rs[1].Data)
	}
	if n := amenities.calls.Load(); n != 1 {
		t.Errorf("amenities upstream calls = %d, want 1", n)
	}
	if n := st.readsOf(providers.SectionAmenities); n != 1 {
		t.Errorf("the amenities were read from the store %d times for one request, want 1: the walk score read them again", n)
	}
	// The next request reads both, stored.
	again := svc.Enrich(context.Background(), p, []string{providers.SectionAmenities, providers.SectionWalkScore},
		service.Options{Radius: service.DefaultRadius})
	if again[1].Meta.Cache != service.CacheHit || string(again[1].Data) != string(rs[1].Data) || amenities.calls.Load() != 1 {
		t.Errorf("second request: %+v %s, %d upstream calls; want the stored score and no call", again[1].Meta, again[1].Data, amenities.calls.Load())
	}
}

// TestAWalkScoreFromStoredAmenitiesReadsThemOnce: the amenities stored and
// the walk score not yet, a request including both reads the amenities
// once and computes the score from them, with no upstream call.
func TestAWalkScoreFromStoredAmenitiesReadsThemOnce(t *testing.T) {
	st, amenities := newMemStore(), &countingAmenities{}
	svc, p := osmWalkOver(t, st, amenities)
	if _, err := svc.SectionOf(context.Background(), p, providers.SectionAmenities, service.Options{Radius: service.DefaultRadius}); err != nil {
		t.Fatal(err)
	}
	before := st.readsOf(providers.SectionAmenities)
	rs := svc.Enrich(context.Background(), p, []string{providers.SectionAmenities, providers.SectionWalkScore},
		service.Options{Radius: service.DefaultRadius})
	if rs[0].Meta.Cache != service.CacheHit || rs[1].Meta.Status != service.StatusOK || rs[1].Meta.Cache != service.CacheMiss {
		t.Fatalf("amenities %+v, walk score %+v; want the amenities stored and the score computed", rs[0].Meta, rs[1].Meta)
	}
	if ws := walkScoreOf(t, rs[1]); ws.Breakdown["schools"].Count != 1 {
		t.Errorf("walk score %s: want it computed from the stored school", rs[1].Data)
	}
	if n := st.readsOf(providers.SectionAmenities) - before; n != 1 {
		t.Errorf("the stored amenities were read %d times for one request, want 1", n)
	}
	if n := amenities.calls.Load(); n != 1 {
		t.Errorf("amenities upstream calls = %d, want the first one only", n)
	}
}

// TestAWalkScoreFailsWithTheAmenitiesOfTheSameRequest: when the amenities'
// upstream fails, the walk score of the same request is unavailable with
// the same error, and the upstream was asked once, not again for the score.
func TestAWalkScoreFailsWithTheAmenitiesOfTheSameRequest(t *testing.T) {
	down := providers.Errorf(providers.KindUpstream, providers.CodeUpstreamError, "overpass answered 504")
	amenities := &countingAmenities{err: down}
	svc, p := osmWalkOver(t, newMemStore(), amenities)
	rs := svc.Enrich(context.Background(), p, []string{providers.SectionAmenities, providers.SectionWalkScore},
		service.Options{Radius: service.DefaultRadius})
	for i, r := range rs {
		if r.Meta.Status != service.StatusUnavailable || r.Meta.Error != providers.CodeUpstreamError {
			t.Errorf("section %d: %+v, want unavailable with %s", i, r.Meta, providers.CodeUpstreamError)
		}
	}
	if n := amenities.calls.Load(); n != 1 {
		t.Errorf("amenities upstream calls = %d, want 1: the walk score asked again", n)
	}
}

// TestAWalkScoreAloneReadsTheAmenitiesThroughTheirSection: the walk
// score's own endpoint fetches the amenities through their section (one
// call, stored for the amenities' requests) and computes the score.
func TestAWalkScoreAloneReadsTheAmenitiesThroughTheirSection(t *testing.T) {
	amenities := &countingAmenities{}
	svc, p := osmWalkOver(t, newMemStore(), amenities)
	r, err := svc.SectionOf(context.Background(), p, providers.SectionWalkScore, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ws := walkScoreOf(t, r); ws.Breakdown["schools"].Count != 1 {
		t.Errorf("walk score %s: want it computed from the school", r.Data)
	}
	a, err := svc.SectionOf(context.Background(), p, providers.SectionAmenities, service.Options{Radius: service.DefaultRadius})
	if err != nil || a.Meta.Cache != service.CacheHit || amenities.calls.Load() != 1 {
		t.Errorf("amenities after the score: %+v %v, %d calls; want the stored ones and 1 call", a.Meta, err, amenities.calls.Load())
	}
}
