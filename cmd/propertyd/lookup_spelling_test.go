package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// Streets whose TIGER names keep an apostrophe, which the fake geocoder,
// like the real one, holds significant.
var (
	obrienCt = providertest.CensusPlace{
		Street: "42 O'BRIEN CT", City: "BOSTON", State: "MA", Zip: "02127",
		Lat: 42.33352, Lng: -71.04863, CountyName: "Suffolk County", StateFIPS: "25", CountyFIPS: "025",
		Tract: "060700", Block: "2001",
	}
	oneilWay = providertest.CensusPlace{
		Street: "9 O'NEIL WAY", City: "BOSTON", State: "MA", Zip: "02130",
		Lat: 42.31012, Lng: -71.11395, CountyName: "Suffolk County", StateFIPS: "25", CountyFIPS: "025",
		Tract: "120201", Block: "1004",
	}
	darcySt = providertest.CensusPlace{
		Street: "15 D'ARCY ST", City: "BOSTON", State: "MA", Zip: "02119",
		Lat: 42.32531, Lng: -71.08577, CountyName: "Suffolk County", StateFIPS: "25", CountyFIPS: "025",
		Tract: "081500", Block: "3002",
	}
)

// censusRecorder is the fake Census geocoder answering through mt, which
// also records the raw query of every single-address request it gets.
type censusRecorder struct {
	mt      *httpmock.MockTransport
	mu      sync.Mutex
	queries []string
}

func newCensusRecorder(places ...providertest.CensusPlace) *censusRecorder {
	inner := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(inner, census.DefaultBaseURL, places...)
	r := &censusRecorder{mt: httpmock.NewMockTransport()}
	providertest.RegisterCensusGeocoder(r.mt, census.DefaultBaseURL, places...)
	r.mt.RegisterResponder(http.MethodGet, census.DefaultBaseURL+"/geographies/address", func(req *http.Request) (*http.Response, error) {
		r.mu.Lock()
		r.queries = append(r.queries, req.URL.RawQuery)
		r.mu.Unlock()
		return inner.RoundTrip(req)
	})
	return r
}

// sent returns the queries received so far.
func (r *censusRecorder) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.queries)
}

// streetsSent returns the street parameter of each query received so far.
func (r *censusRecorder) streetsSent(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, raw := range r.sent() {
		q, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatalf("the geocoder got a query it cannot parse: %q: %v", raw, err)
		}
		out = append(out, q.Get("street"))
	}
	return out
}

// lookupIn looks street up in Boston, MA and returns the status, data and meta.
func lookupIn(t *testing.T, m *Main, street string) (int, map[string]any, map[string]any) {
	t.Helper()
	q := url.Values{"street": {street}, "city": {"Boston"}, "state": {"MA"}}
	status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
	d, _ := body["data"].(map[string]any)
	meta, _ := body["meta"].(map[string]any)
	return status, d, meta
}

// TestLookupSendsTheGeocoderTheAddressAsWritten is the case: the
// geocoder was sent the normalized street, "42 OBRIEN CT", and TIGER's
// "O'BRIEN" does not match it, so a real address was answered 404. The
// geocoder now gets what the client wrote; the normalized key still makes
// two spellings one record, found again without an upstream call.
func TestLookupSendsTheGeocoderTheAddressAsWritten(t *testing.T) {
	geo := newCensusRecorder(obrienCt, oneilWay, darcySt)
	dbPath := filepath.Join(t.TempDir(), "p.db")
	m := startMain(t, testConfig(t, dbPath), geo.mt)

	status, first, meta := lookupIn(t, m, "42 O'Brien Ct")
	if status != 200 {
		t.Fatalf("42 O'Brien Ct: status %d; the geocoder was sent %q", status, geo.streetsSent(t))
	}
	if first["street_address"] != "42 O'BRIEN CT" || first["census_tract"] != "060700" || meta["created"] != true {
		t.Fatalf("record = %v, meta %v; want the geocoder's matched street, created", first, meta)
	}
	// The exact query, as url.Values encodes it: the apostrophe escaped,
	// not dropped; city as written; the state's code.
	want := "benchmark=Public_AR_Current&city=Boston&format=json&state=MA&street=42+O%27Brien+Ct&vintage=Current_Current"
	if got := geo.sent(); len(got) != 1 || got[0] != want {
		t.Fatalf("the geocoder received %q, want exactly [%q]", got, want)
	}

	// Other spellings of the address are the same record and cost nothing.
	for _, street := range []string{"42 O'Brien Court", "42 o'brien ct", "  42 O\u2019Brien   Ct. "} {
		status, d, meta := lookupIn(t, m, street)
		if status != 200 || d["id"] != first["id"] || meta["created"] != false {
			t.Fatalf("%q: status %d, id %v created %v; want the record %v found again", street, status, d["id"], meta["created"], first["id"])
		}
	}
	if n := len(geo.sent()); n != 1 {
		t.Fatalf("the geocoder was called %d times for four spellings of one address, want once: %q", n, geo.streetsSent(t))
	}

	// A unit is a record of its own, and the geocoder gets the building
	// as written, without the unit.
	status, apt, _ := lookupIn(t, m, "42 O'Brien Ct, Apt. 4")
	if status != 200 || apt["unit"] != "APT 4" || apt["id"] == first["id"] {
		t.Fatalf("42 O'Brien Ct, Apt. 4: status %d, record %v; want a record of its own with unit APT 4", status, apt)
	}
	if s := geo.streetsSent(t); s[len(s)-1] != "42 O'Brien Ct" {
		t.Fatalf("the geocoder was sent street %q for the apartment, want the building %q", s[len(s)-1], "42 O'Brien Ct")
	}

	// A spelling that lost the apostrophe misses; that miss is remembered
	// for that spelling only, not for the address, so the right spelling
	// is still asked and found.
	if status, _, _ := lookupIn(t, m, "9 ONeil Way"); status != 404 {
		t.Fatalf("9 ONeil Way: status %d, want 404 (TIGER writes O'NEIL)", status)
	}
	if status, d, _ := lookupIn(t, m, "9 O'Neil Way"); status != 200 || d["street_address"] != "9 O'NEIL WAY" {
		t.Fatalf("9 O'Neil Way after 9 ONeil Way missed: status %d %v, want the record", status, d)
	}

	// A phone keyboard's typographic apostrophe reaches the geocoder as
	// the ASCII one TIGER writes.
	if status, d, _ := lookupIn(t, m, "15 D\u2019Arcy St"); status != 200 || d["street_address"] != "15 D'ARCY ST" {
		t.Fatalf("15 D\u2019Arcy St: status %d %v; the geocoder was sent %q", status, d, geo.streetsSent(t))
	}
	if s := geo.streetsSent(t); s[len(s)-1] != "15 D'Arcy St" {
		t.Fatalf("the geocoder was sent %q, want %q", s[len(s)-1], "15 D'Arcy St")
	}
	if n := relDbCounts(t, dbPath)["properties"]; n != 4 {
		t.Fatalf("records = %d, want 4 (O'Brien, its apartment, O'Neil, D'Arcy)", n)
	}
}

// TestBatchSpellingsOfOneAddressAreOneRecord: a batch holding a spelling
// the geocoder cannot match and one it can, of the same address, answers
// both with the one record, whichever is asked first.
func TestBatchSpellingsOfOneAddressAreOneRecord(t *testing.T) {
	geo := newCensusRecorder(obrienCt)
	dbPath := filepath.Join(t.TempDir(), "p.db")
	m := startMain(t, testConfig(t, dbPath), geo.mt)

	body, _ := json.Marshal(map[string]any{"addresses": []map[string]string{
		{"street": "42 OBrien Ct", "city": "Boston", "state": "MA"},
		{"street": "42 O'Brien Court", "city": "Boston", "state": "MA"},
		{"street": "42 o'brien ct", "city": "Boston", "state": "MA"},
	}})
	req, _ := http.NewRequest(http.MethodPost, "http://"+m.Addr()+"/v1/properties/batch", bytes.NewReader(body))
	req.Header.Set("X-API-Key", demoKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Data struct {
			Results []map[string]any `json:"results"`
			Errors  []map[string]any `json:"errors"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("batch: %d %s", resp.StatusCode, raw)
	}
	if len(out.Data.Results) != 3 || len(out.Data.Errors) != 0 {
		t.Fatalf("batch answered %d results and errors %v, want the three spellings found", len(out.Data.Results), out.Data.Errors)
	}
	for _, r := range out.Data.Results {
		if r["id"] != out.Data.Results[0]["id"] || r["street_address"] != "42 O'BRIEN CT" {
			t.Fatalf("results = %v, want one record for every spelling", out.Data.Results)
		}
	}
	if n := relDbCounts(t, dbPath)["properties"]; n != 1 {
		t.Fatalf("records = %d, want 1", n)
	}
	// Each spelling is asked at most once: the two with an apostrophe
	// share a flight, or the later one finds the record.
	if n := len(geo.sent()); n > 2 {
		t.Fatalf("the geocoder was called %d times: %q", n, geo.streetsSent(t))
	}
}
