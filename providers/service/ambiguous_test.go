package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/service"
)

// Two different addresses for one spelling, "500 Twin Oaks Dr, TX": the
// geocoder's answer lists Round Rock first.
var (
	twinOaksRoundRock = providers.Location{MatchedAddress: "500 TWIN OAKS DR, ROUND ROCK, TX, 78664", Street: "500 TWIN OAKS DR",
		City: "ROUND ROCK", State: "TX", Zip: "78664", Point: providers.Point{Lat: 30.5127, Lng: -97.6659},
		County: "Williamson County", FIPSCode: "48491", CensusTract: "020703"}
	twinOaksDallas = providers.Location{MatchedAddress: "500 TWIN OAKS DR, DALLAS, TX, 75232", Street: "500 TWIN OAKS DR",
		City: "DALLAS", State: "TX", Zip: "75232", Point: providers.Point{Lat: 32.6647, Lng: -96.8462},
		County: "Dallas County", FIPSCode: "48113", CensusTract: "011101"}
	twinOaks = providers.Address{Street: "500 Twin Oaks Dr", State: "TX"}
)

// twinOaksGeocoder answers every address with both Twin Oaks, as the
// Census geocoder answers the spelling without a city or ZIP code.
func twinOaksGeocoder() *fakeGeocoder {
	return &fakeGeocoder{geocode: func(context.Context, providers.Address) (providers.Location, error) {
		return withOthers(twinOaksRoundRock, twinOaksDallas), nil
	}}
}

// twinOaksService is a service over st through a memory tier, so what
// memory remembers is tested too.
func twinOaksService(t *testing.T, st *memStore, geo *fakeGeocoder, missTTL time.Duration) *service.Service {
	t.Helper()
	mem, err := cache.New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mem.Close)
	return newServiceWith(t, service.Config{Store: cache.NewStore(st, mem, 0), MissTTL: missTTL,
		Now: (&clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}).Now}, geo, nil, service.Module{})
}

// After match=best took Round Rock, the spelling is no key of the record
// (in the store or in memory): a lookup without best is ambiguous_address
// with both candidates, and strict too, both decided from the remembered
// answer without a call; best again gives the record, and the record's
// own address finds it as a database match.
func TestMatchBestDoesNotMakeTheSpellingTheRecords(t *testing.T) {
	st, geo := newMemStore(), twinOaksGeocoder()
	svc := twinOaksService(t, st, geo, time.Hour)
	ctx := context.Background()

	p, src, err := svc.LookupMatching(ctx, twinOaks, service.MatchBest)
	if err != nil || p.City != "ROUND ROCK" || src.Match.Type != providers.MatchNonExact || len(src.Match.Candidates) != 1 {
		t.Fatalf("match=best: %+v %+v %v; want Round Rock as non_exact with one candidate", p, src, err)
	}
	n, _ := address.Normalize(twinOaks)
	if _, err := st.PropertyByKey(ctx, n.Key()); providers.KindOf(err) != providers.KindNotFound {
		t.Fatalf("the store resolves the ambiguous spelling's key %q to a record (%v): every later caller would get Round Rock", n.Key(), err)
	}

	for _, mode := range []service.MatchMode{service.MatchAuto, service.MatchStrict} {
		for range 2 { // the second from memory as well
			_, _, err := svc.LookupMatching(ctx, twinOaks, mode)
			pe := providers.As(err)
			if pe.Code != providers.CodeAmbiguousAddress || len(pe.Candidates) != 2 || geo.calls.Load() != 1 {
				t.Fatalf("match=%q after match=best: %v (candidates %v), %d geocoder calls in all; want ambiguous_address with both, no call",
					mode, err, pe.Candidates, geo.calls.Load())
			}
		}
	}
	again, src, err := svc.LookupMatching(ctx, twinOaks, service.MatchBest)
	if err != nil || again.ID != p.ID || src.Created || geo.calls.Load() != 1 || src.Match.Type != providers.MatchNonExact {
		t.Fatalf("match=best again: %+v %+v %v; want record %d, no call", again, src, err, p.ID)
	}
	own, src, err := svc.Lookup(ctx, providers.Address{Street: "500 Twin Oaks Dr", City: "Round Rock", State: "TX", Zip: "78664"})
	if err != nil || own.ID != p.ID || src.Match.Type != providers.MatchDatabase || geo.calls.Load() != 1 {
		t.Fatalf("the record's own address: %+v %+v %v; want record %d from the database", own, src, err, p.ID)
	}
	if n := geo.calls.Load(); n != 1 {
		t.Fatalf("%d geocoder calls, want 1", n)
	}
}

// A batch item taken with best leaves a later item of the spelling
// without best ambiguous; with nothing remembered (negative MissTTL) it
// asks the geocoder again and is still ambiguous.
func TestABatchItemTakenWithBestLeavesTheSpellingAmbiguous(t *testing.T) {
	st, geo := newMemStore(), twinOaksGeocoder()
	svc := twinOaksService(t, st, geo, -1)
	ctx := context.Background()
	out := svc.Batch(ctx, []service.BatchItem{{ID: "a", Address: twinOaks, Mode: service.MatchBest}})
	if out[0].Err != nil || out[0].Property.City != "ROUND ROCK" {
		t.Fatalf("best item: %+v", out[0])
	}
	for i := range 2 {
		out = svc.Batch(ctx, []service.BatchItem{{ID: "b", Address: twinOaks}})
		pe := providers.As(out[0].Err)
		if n := geo.calls.Load(); pe.Code != providers.CodeAmbiguousAddress || len(pe.Candidates) != 2 || n != int32(i+2) {
			t.Fatalf("plain item %d after the best one: %v (candidates %v), %d geocoder calls in all; want ambiguous_address with both candidates after one more call",
				i+1, out[0].Err, pe.Candidates, n)
		}
	}
}
