package census_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// Places the fake geocoder knows in these tests.
var (
	coloradoCapitol = providertest.CensusPlace{
		Street: "200 E COLFAX AVE", City: "DENVER", State: "CO", Zip: "80203",
		Aliases: []string{"200 EAST COLFAX AVENUE"},
		Lat:     39.73923, Lng: -104.98486,
		CountyName: "Denver County", StateFIPS: "08", CountyFIPS: "031", Tract: "003300", Block: "1004",
	}
	seattleLibrary = providertest.CensusPlace{
		Street: "1000 4TH AVE", City: "SEATTLE", State: "WA", Zip: "98104",
		Lat: 47.60672, Lng: -122.33251,
		CountyName: "King County", StateFIPS: "53", CountyFIPS: "033", Tract: "008100", Block: "2003",
	}
)

// newClient returns a client whose HTTP calls go to mt, with the default base
// URL and the given module options.
func newClient(t *testing.T, mt *httpmock.MockTransport, opts map[string]string) *census.Client {
	t.Helper()
	c, err := census.New(providers.Settings{Client: &http.Client{Transport: mt}, Options: opts})
	if err != nil {
		t.Fatalf("census.New: %v", err)
	}
	return c
}

// fakeClient returns a client talking to the fake geocoder that knows places.
func fakeClient(t *testing.T, places ...providertest.CensusPlace) (*census.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, places...)
	return newClient(t, mt, nil), mt
}

// answering returns a client whose every census route answers with r.
func answering(t *testing.T, r httpmock.Responder) (*census.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	providertest.CensusRespondWith(mt, census.DefaultBaseURL, r)
	return newClient(t, mt, nil), mt
}

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonFile answers with a testdata JSON file and HTTP 200.
func jsonFile(t *testing.T, name string) httpmock.Responder {
	return httpmock.NewBytesResponder(http.StatusOK, testdata(t, name)).
		HeaderSet(http.Header{"Content-Type": {"application/json;charset=UTF-8"}})
}

// wantError fails unless err is a *providers.Error of kind and code.
func wantError(t *testing.T, err error, kind providers.Kind, code string) *providers.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want kind %d code %s", kind, code)
	}
	e := providers.As(err)
	if e.Kind != kind || e.Code != code {
		t.Fatalf("got error kind %d code %q (%v), want kind %d code %q", e.Kind, e.Code, err, kind, code)
	}
	return e
}

func wantCalls(t *testing.T, mt *httpmock.MockTransport, n int) {
	t.Helper()
	if got := mt.GetTotalCallCount(); got != n {
		t.Errorf("upstream called %d times, want %d (%v)", got, n, mt.GetCallCountInfo())
	}
}
