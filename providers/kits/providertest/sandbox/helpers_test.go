package sandbox_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
	"github.com/propertyd/propertyd/providers/modules/hudfmr"
	"github.com/propertyd/propertyd/providers/modules/overpass"
	"github.com/propertyd/propertyd/providers/modules/walkscore"
)

// start serves the default places on a loopback port until the test ends.
func start(t *testing.T, opts sandbox.Options) (*sandbox.Server, string) {
	t.Helper()
	srv := sandbox.New(sandbox.DefaultPlaces(), opts)
	root, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv, root
}

// clients are the real propertyd modules pointed at a sandbox.
type clients struct {
	census   *census.Client
	fema     *femanfhl.Client
	acs      *censusacs.Client
	overpass *overpass.Client
	walk     *walkscore.Client
	hud      *hudfmr.Client
}

func newClients(t *testing.T, root string) clients {
	t.Helper()
	urls := sandbox.BaseURLs(root)
	settings := func(role providers.Role, opts map[string]string) providers.Settings {
		return providers.Settings{BaseURL: urls[string(role)], Client: http.DefaultClient, Options: opts}
	}
	var c clients
	var err error
	must := func(e error) {
		t.Helper()
		if e != nil {
			t.Fatalf("building a module client: %v", e)
		}
	}
	c.census, err = census.New(settings(providers.RoleGeocoder, nil))
	must(err)
	c.fema, err = femanfhl.New(settings(providers.RoleFlood, nil))
	must(err)
	// The year is pinned, so each ACS call is one request (the newest
	// release is discovered in TestACSDiscoveryDocumentIsServed).
	c.acs, err = censusacs.New(settings(providers.RoleDemographics, map[string]string{"api_key": "any-key", "year": "2022"}))
	must(err)
	c.overpass, err = overpass.New(settings(providers.RoleAmenities, nil))
	must(err)
	c.walk, err = walkscore.New(settings(providers.RoleWalkScore, map[string]string{"api_key": "any-key"}))
	must(err)
	c.hud, err = hudfmr.New(settings(providers.RoleFairMarketRent, map[string]string{"token": sandbox.HUDToken}))
	must(err)
	return c
}

// place returns the default place with id.
func place(t *testing.T, id string) sandbox.Place {
	t.Helper()
	for _, p := range sandbox.DefaultPlaces() {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no default place %q", id)
	return sandbox.Place{}
}

// wantKind fails the test unless err is a *providers.Error of kind (and
// code, when not empty).
func wantKind(t *testing.T, what string, err error, kind providers.Kind, code string) *providers.Error {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("%s: got error %v, want a *providers.Error of kind %d", what, err, kind)
	}
	if pe.Kind != kind || (code != "" && pe.Code != code) {
		t.Fatalf("%s: got kind %d code %q (%v), want kind %d code %q", what, pe.Kind, pe.Code, pe, kind, code)
	}
	return pe
}

func ptr[T any](v T) *T { return &v }

func newHUDClient(root, token string) (*hudfmr.Client, error) {
	return hudfmr.New(providers.Settings{BaseURL: sandbox.BaseURLs(root)["fair_market_rent"],
		Client: http.DefaultClient, Options: map[string]string{"token": token}})
}
