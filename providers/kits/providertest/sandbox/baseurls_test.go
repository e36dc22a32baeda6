package sandbox_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/service"
)

// TestBaseURLsDriveEveryRegisteredModule builds each role's module from the
// registry, as propertyd does from config.yaml, with the base_url BaseURLs
// gives, and checks the call lands on the right upstream of the sandbox.
func TestBaseURLsDriveEveryRegisteredModule(t *testing.T) {
	srv, root := start(t, sandbox.Options{})
	p := place(t, "asheville-nc")
	ctx := context.Background()
	for _, tc := range []struct {
		role     providers.Role
		module   string
		options  map[string]string
		upstream string
		call     func(v any) error
	}{
		{providers.RoleGeocoder, "census", nil, sandbox.UpstreamCensus, func(v any) error {
			_, err := v.(providers.Geocoder).Geocode(ctx, p.Address())
			return err
		}},
		{providers.RoleReverseGeocoder, "census", nil, sandbox.UpstreamCensus, func(v any) error {
			_, err := v.(providers.ReverseGeocoder).Reverse(ctx, p.Point())
			return err
		}},
		{providers.RoleFlood, "fema-nfhl", nil, sandbox.UpstreamFEMA, func(v any) error {
			_, err := v.(providers.FloodProvider).Flood(ctx, p.Point())
			return err
		}},
		{providers.RoleDemographics, "census-acs", nil, sandbox.UpstreamACS, func(v any) error {
			_, err := v.(providers.DemographicsProvider).Demographics(ctx, p.CensusTract())
			return err
		}},
		{providers.RoleHousing, "census-acs-housing", map[string]string{"api_key": "k"}, sandbox.UpstreamACS, func(v any) error {
			_, err := v.(providers.HousingProvider).Housing(ctx, p.CensusTract())
			return err
		}},
		{providers.RoleAmenities, "overpass", nil, sandbox.UpstreamOverpass, func(v any) error {
			_, err := v.(providers.AmenitiesProvider).Amenities(ctx, p.Point(), 2000)
			return err
		}},
		{providers.RoleWalkScore, "walkscore-api", map[string]string{"api_key": "k"}, sandbox.UpstreamWalkScore, func(v any) error {
			_, err := v.(providers.WalkScoreProvider).WalkScore(ctx, p.Point(), "")
			return err
		}},
		{providers.RoleFairMarketRent, "hud-fmr", map[string]string{"token": sandbox.HUDToken}, sandbox.UpstreamHUD, func(v any) error {
			_, err := v.(providers.FairMarketRentProvider).FairMarketRents(ctx, p.FIPS())
			return err
		}},
	} {
		base, ok := sandbox.BaseURLs(root)[string(tc.role)]
		if !ok {
			t.Errorf("BaseURLs has no %s entry", tc.role)
			continue
		}
		v, err := providers.Default.Build(tc.role, tc.module, providers.Settings{BaseURL: base, Client: http.DefaultClient, Options: tc.options})
		if err != nil {
			t.Errorf("%s: building %s with base_url %s: %v", tc.role, tc.module, base, err)
			continue
		}
		before := srv.Calls(tc.upstream)
		if err := tc.call(v); err != nil {
			t.Errorf("%s (%s at %s): %v", tc.role, tc.module, base, err)
		}
		if srv.Calls(tc.upstream) == before {
			t.Errorf("%s (%s at %s) did not reach the %s upstream", tc.role, tc.module, base, tc.upstream)
		}
	}
	for _, role := range service.Roles() {
		if _, ok := sandbox.BaseURLs(root)[string(role)]; !ok {
			t.Errorf("BaseURLs has no %s entry, a role of the catalogue", role)
		}
	}
}

func TestBaseURLsLayout(t *testing.T) {
	want := map[string]string{
		"geocoder":         "http://h:1/census/geocoder",
		"reverse_geocoder": "http://h:1/census/geocoder",
		"flood":            "http://h:1/fema",
		"demographics":     "http://h:1/acs/data",
		"housing":          "http://h:1/acs/data",
		"amenities":        "http://h:1/overpass/api/interpreter",
		"walkscore":        "http://h:1/walkscore",
		"fair_market_rent": "http://h:1/hud/fmr",
	}
	got := sandbox.BaseURLs("http://h:1/")
	for role, url := range want {
		if got[role] != url {
			t.Errorf("BaseURLs()[%s] = %q, want %q", role, got[role], url)
		}
	}
}

func TestUnknownPathsAre404(t *testing.T) {
	srv, root := start(t, sandbox.Options{})
	for _, path := range []string{"/", "/census", "/censusx/geocoder", "/census/geocoder/locations/coordinates", "/fema/99/query"} {
		resp, err := http.Get(root + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", path, resp.StatusCode)
		}
	}
	// A path under an upstream prefix is a call to that upstream, known or not.
	if n := srv.Calls(sandbox.All); n != 3 {
		t.Errorf("calls counted for unknown paths = %d, want 3 (/census, /census/geocoder/..., /fema/...)", n)
	}
}
