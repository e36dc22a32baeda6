package osmwalk_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/osmwalk"
	"github.com/propertyd/propertyd/providers/modules/overpass"
)

// fakeAmenities is an AmenitiesProvider that records its calls.
type fakeAmenities struct {
	fn    func(ctx context.Context, p providers.Point, radius int) (*providers.Amenities, error)
	calls []int // radius of each call
}

var _ providers.AmenitiesProvider = (*fakeAmenities)(nil)

func (f *fakeAmenities) Amenities(ctx context.Context, p providers.Point, radius int) (*providers.Amenities, error) {
	f.calls = append(f.calls, radius)
	return f.fn(ctx, p, radius)
}

var park = providers.Point{Lat: 41.8789, Lng: -87.6359}

func TestWalkScoreAsksAmenitiesOnceAtDefaultRadius(t *testing.T) {
	f := &fakeAmenities{fn: func(context.Context, providers.Point, int) (*providers.Amenities, error) {
		return place(map[string][]float64{"grocery": {0.1}, "parks": {0.2}}), nil
	}}
	c, err := osmwalk.New(providers.Settings{Amenities: f})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.WalkScore(context.Background(), park, "1 Example Plaza")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 1 || f.calls[0] != 2000 {
		t.Errorf("amenities calls (radius) = %v, want exactly one at 2000 m", f.calls)
	}
	if got.WalkScore != 35 || got.Description != "Car-Dependent" { // 26.09 + 8.70
		t.Errorf("score = %d %q, want 35 Car-Dependent", got.WalkScore, got.Description)
	}
}

func TestWalkScorePassesAmenitiesErrorsThrough(t *testing.T) {
	f := &fakeAmenities{fn: func(context.Context, providers.Point, int) (*providers.Amenities, error) {
		return nil, providers.Errorf(providers.KindUpstream, "upstream_rate_limited", "slow down")
	}}
	c, _ := osmwalk.New(providers.Settings{Amenities: f})
	_, err := c.WalkScore(context.Background(), park, "")
	if providers.KindOf(err) != providers.KindUpstream || providers.CodeOf(err) != "upstream_rate_limited" {
		t.Errorf("err = %v, want the amenities error unchanged", err)
	}
}

func TestWalkScoreOverOverpassMakesOneUpstreamCall(t *testing.T) {
	mt := httpmock.NewMockTransport()
	var els []providertest.OSMElement
	tag := func(k, v string) map[string]string { return map[string]string{k: v, "name": v} }
	// A dense block: everything within about 0.1 mile.
	for i, tg := range []map[string]string{
		tag("shop", "supermarket"), tag("highway", "bus_stop"), tag("railway", "station"), tag("public_transport", "platform"),
		tag("amenity", "school"), tag("leisure", "park"), tag("amenity", "bank"), tag("amenity", "clinic"),
	} {
		els = append(els, providertest.OSMElement{ID: int64(100 + i), Lat: park.Lat + 0.0002*float64(i), Lng: park.Lng, Tags: tg})
	}
	for i := range 10 {
		els = append(els, providertest.OSMElement{ID: int64(200 + i), Lat: park.Lat, Lng: park.Lng + 0.0003*float64(i),
			Tags: map[string]string{"amenity": "restaurant", "name": "R" + strings.Repeat("x", i)}})
	}
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL, els...)
	amen, err := overpass.New(providers.Settings{Client: &http.Client{Transport: mt}})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAmenities{fn: amen.Amenities}
	v, err := providers.Default.Build(providers.RoleWalkScore, "osm-walk", providers.Settings{Amenities: f})
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.(providers.WalkScoreProvider).WalkScore(context.Background(), park, "")
	if err != nil {
		t.Fatal(err)
	}
	if got.WalkScore != 100 || got.Description != "Walker's Paradise" {
		t.Errorf("score = %d %q, want 100 Walker's Paradise (breakdown %+v)", got.WalkScore, got.Description, got.Breakdown)
	}
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Errorf("upstream calls = %d, want 1", n)
	}
	if len(f.calls) != 1 || f.calls[0] != overpass.DefaultRadius {
		t.Errorf("amenities calls = %v, want one at %d", f.calls, overpass.DefaultRadius)
	}
}

func TestNewNeedsAmenities(t *testing.T) {
	_, err := osmwalk.New(providers.Settings{})
	if providers.KindOf(err) != providers.KindInvalid || !strings.Contains(err.Error(), "amenities module") {
		t.Errorf("err = %v, want KindInvalid asking for an amenities module", err)
	}
	_, err = osmwalk.New(providers.Settings{Amenities: &fakeAmenities{}, Options: map[string]string{"radius": "1"}})
	if providers.KindOf(err) != providers.KindInvalid {
		t.Errorf("unknown option: err = %v, want KindInvalid", err)
	}
}
