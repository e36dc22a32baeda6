package census_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

func TestGeocodeAllKeepsOrderAndMapsOutcomes(t *testing.T) {
	// Two places on one street and state make the fake answer Tie.
	twinA := providertest.CensusPlace{Street: "77 TWIN OAKS DR", City: "BOISE", State: "ID", Zip: "83702",
		Lat: 43.61, Lng: -116.2, StateFIPS: "16", CountyFIPS: "001", Tract: "000100"}
	twinB := twinA
	twinB.City, twinB.Zip, twinB.Lat = "EAGLE", "83616", 43.69
	c, mt := fakeClient(t, coloradoCapitol, seattleLibrary, twinA, twinB)
	got, err := c.GeocodeAll(context.Background(), []providers.Address{
		{Street: "1000 4TH AVE", City: "SEATTLE", State: "WA"},
		{Street: "5 NOWHERE LN", State: "CO"},
		{Street: "77 TWIN OAKS DR", State: "ID"},
		{Street: "200 E COLFAX AVE", City: "DENVER", State: "CO", Zip: "80203"},
	})
	if err != nil {
		t.Fatalf("GeocodeAll: %v", err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d matches for 4 addresses: %+v", len(got), got)
	}
	if got[0].Err != nil || got[0].Location.Street != "1000 4TH AVE" || got[0].Location.CensusTract != "008100" {
		t.Errorf("first address: %+v, want the Seattle library", got[0])
	}
	if got[1].Err != providers.ErrNoMatch {
		t.Errorf("unknown address: err = %v, want ErrNoMatch", got[1].Err)
	}
	// The Tie row was asked again alone: both candidates come back, the
	// county names with them, in the order of the single answer.
	if l := got[2].Location; got[2].Err != nil || l.City != "BOISE" || len(l.Others) != 1 ||
		l.Others[0].City != "EAGLE" || l.Others[0].Zip != "83616" {
		t.Errorf("address matching two places: %+v, want Boise with Eagle among its others", got[2])
	}
	if got[3].Err != nil || got[3].Location.FIPSCode != "08031" || got[3].Location.Point.Lat != 39.73923 {
		t.Errorf("last address: %+v, want the Colorado capitol", got[3])
	}
	wantCalls(t, mt, 2) // the batch, then the Tie row alone
}

func TestGeocodeAllSplitsAtTheBatchLimit(t *testing.T) {
	c, mt := fakeClient(t, seattleLibrary)
	addrs := make([]providers.Address, census.MaxBatchRows+1)
	for i := range addrs {
		addrs[i] = providers.Address{Street: "1000 4TH AVE", State: "WA"}
	}
	got, err := c.GeocodeAll(context.Background(), addrs)
	if err != nil {
		t.Fatalf("GeocodeAll: %v", err)
	}
	if len(got) != len(addrs) || got[len(got)-1].Err != nil {
		t.Fatalf("got %d matches for %d addresses (last %+v)", len(got), len(addrs), got[len(got)-1])
	}
	wantCalls(t, mt, 2)
}

func TestGeocodeAllNoAddressesNoCall(t *testing.T) {
	c, mt := fakeClient(t, seattleLibrary)
	got, err := c.GeocodeAll(context.Background(), nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("GeocodeAll(nil) = %v, %v", got, err)
	}
	wantCalls(t, mt, 0)
}

func TestGeocodeAllUpstreamFailureIsOneError(t *testing.T) {
	c, mt := fakeClient(t)
	providertest.CensusFailWith(mt, census.DefaultBaseURL, http.StatusServiceUnavailable, "<html>down</html>")
	got, err := c.GeocodeAll(context.Background(), []providers.Address{{Street: "1000 4TH AVE", State: "WA"}})
	if got != nil || providers.KindOf(err) != providers.KindUpstream {
		t.Fatalf("GeocodeAll on a 503 = %v, %v; want no results and a KindUpstream error", got, err)
	}
}
