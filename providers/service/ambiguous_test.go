package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/providers"
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
