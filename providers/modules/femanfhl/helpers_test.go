package femanfhl_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

// testBase is where the tests' NFHL lives; a trailing slash is tolerated.
const testBase = "https://nfhl.example.test/arcgis/rest/services/public/NFHL/MapServer"

// houston is the point most tests ask about.
var houston = providers.Point{Lat: 29.7604, Lng: -95.3698}

// newClient returns a client at testBase whose HTTP calls go to mt.
func newClient(t *testing.T, mt *httpmock.MockTransport, opts map[string]string) *femanfhl.Client {
	t.Helper()
	c, err := femanfhl.New(providers.Settings{BaseURL: testBase + "/", Client: &http.Client{Transport: mt}, Options: opts})
	if err != nil {
		t.Fatalf("femanfhl.New: %v", err)
	}
	return c
}

func layerURL(layer int) string {
	return testBase + "/" + strconv.Itoa(layer) + "/query"
}

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serveBody answers one layer's queries with body and HTTP 200, as ArcGIS
// does even for its errors.
func serveBody(mt *httpmock.MockTransport, layer int, body []byte) {
	mt.RegisterResponder(http.MethodGet, layerURL(layer),
		httpmock.NewBytesResponder(http.StatusOK, body).
			HeaderSet(http.Header{"Content-Type": {"application/json;charset=UTF-8"}}))
}

// serveFiles answers the zones and panels layers with testdata files.
func serveFiles(t *testing.T, zonesFile, panelsFile string) *httpmock.MockTransport {
	t.Helper()
	mt := httpmock.NewMockTransport()
	serveBody(mt, femanfhl.DefaultZonesLayer, testdata(t, zonesFile))
	serveBody(mt, femanfhl.DefaultPanelsLayer, testdata(t, panelsFile))
	return mt
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

// asJSON renders a flood section as the API would show it, for comparisons
// whose failure messages read like what a user would see.
func asJSON(t *testing.T, f *providers.Flood) string {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func str(s string) *string   { return &s }
func num(v float64) *float64 { return &v }
func boolean(v bool) *bool   { return &v }

// callsTo counts the queries mt received on one layer at testBase.
func callsTo(mt *httpmock.MockTransport, layer int) int {
	return mt.GetCallCountInfo()[http.MethodGet+" "+layerURL(layer)]
}
