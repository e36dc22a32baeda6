package census_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/internal/recordings"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// These tests hold the fake in providertest to the real wire format, since
// every other package's tests trust it.

func fakeGet(t *testing.T, route string, q url.Values) (int, string, []byte) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, coloradoCapitol, seattleLibrary)
	resp, err := (&http.Client{Transport: mt}).Get(census.DefaultBaseURL + route + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

func decodeAny(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("fake answer is not JSON: %v\n%s", err, b)
	}
	return v
}

// shape describes a JSON value by its keys and value types, recursively for
// objects and for the first element of arrays.
func shape(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k+":"+shape(x[k]))
		}
		sort.Strings(keys)
		return "{" + strings.Join(keys, ",") + "}"
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		return "[" + shape(x[0]) + "]"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	}
	return "null"
}

func recording(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recordings.Dir(t, "census-geocoder"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFakeAddressAnswerHasTheRecordedShape(t *testing.T) {
	q := url.Values{"street": {"200 E Colfax Ave"}, "city": {"Denver"}, "state": {"CO"}, "zip": {"80203"},
		"benchmark": {"Public_AR_Current"}, "vintage": {"Current_Current"}, "format": {"json"}}
	status, ctype, body := fakeGet(t, "/geographies/address", q)
	if status != 200 || !strings.HasPrefix(ctype, "application/json") {
		t.Fatalf("status %d, Content-Type %q", status, ctype)
	}
	got := shape(decodeAny(t, body))
	want := shape(decodeAny(t, recording(t, "geographies_address_whitehouse_dc.json")))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fake answer shape\n%s\ndiffers from the recording\n%s", got, want)
	}

	formats := map[string]*regexp.Regexp{
		"CENTLAT": regexp.MustCompile(`^[+-]\d{2}\.\d{7}$`), "INTPTLAT": regexp.MustCompile(`^[+-]\d{2}\.\d{7}$`),
		"CENTLON": regexp.MustCompile(`^[+-]\d{3}\.\d{7}$`), "INTPTLON": regexp.MustCompile(`^[+-]\d{3}\.\d{7}$`),
	}
	var doc struct {
		Result struct {
			AddressMatches []struct {
				Geographies map[string][]map[string]any `json:"geographies"`
			} `json:"addressMatches"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || len(doc.Result.AddressMatches) != 1 {
		t.Fatalf("want one match: %v %s", err, body)
	}
	geos := doc.Result.AddressMatches[0].Geographies
	for layer, entries := range geos {
		for field, rx := range formats {
			if v, _ := entries[0][field].(string); !rx.MatchString(v) {
				t.Errorf("%s %s = %q, not in the upstream's format", layer, field, v)
			}
		}
	}
	wantGEOID := map[string]string{"States": "08", "Counties": "08031", "Census Tracts": "08031003300", "2010 Census Blocks": "080310033001004"}
	for layer, id := range wantGEOID {
		if got := geos[layer][0]["GEOID"]; got != id {
			t.Errorf("%s GEOID = %v, want %s", layer, got, id)
		}
	}
	if got := geos["Census Tracts"][0]["NAME"]; got != "Census Tract 33" {
		t.Errorf("tract NAME = %v, want Census Tract 33", got)
	}
}

// TestFakeLocationsAnswersHaveTheRecordedShape: the locations searches
// answer the geographies searches' matches without geographies, and their
// input echoes no vintage, as the recordings of both show.
func TestFakeLocationsAnswersHaveTheRecordedShape(t *testing.T) {
	for _, tt := range []struct {
		route     string
		q         url.Values
		recording string
	}{
		{"/locations/address", url.Values{"street": {"200 E Colfax Ave"}, "city": {"Denver"}, "state": {"CO"},
			"zip": {"80203"}}, "locations_address_whitehouse_dc.json"},
		{"/locations/onelineaddress", url.Values{"address": {"200 E Colfax Ave, Denver, CO 80203"}},
			"locations_onelineaddress_suitland_md.json"},
	} {
		t.Run(tt.route, func(t *testing.T) {
			tt.q.Set("benchmark", "Public_AR_Current")
			tt.q.Set("format", "json")
			status, ctype, body := fakeGet(t, tt.route, tt.q)
			if status != 200 || !strings.HasPrefix(ctype, "application/json") {
				t.Fatalf("status %d, Content-Type %q: %s", status, ctype, body)
			}
			got := shape(decodeAny(t, body))
			want := shape(decodeAny(t, recording(t, tt.recording)))
			if got != want {
				t.Errorf("fake answer shape\n%s\ndiffers from the recording\n%s", got, want)
			}
			if !strings.Contains(string(body), `"matchedAddress":"200 E COLFAX AVE, DENVER, CO, 80203"`) {
				t.Errorf("the place is not matched: %s", body)
			}
		})
	}
	// No vintage is asked for: a locations search needs none.
	q := url.Values{"street": {"1 Nowhere Rd"}, "state": {"CO"}, "benchmark": {"4"}, "format": {"json"}}
	if status, _, body := fakeGet(t, "/locations/address", q); status != 200 || !strings.Contains(string(body), `"addressMatches":[]`) {
		t.Errorf("a locations search without vintage: %d %s, want the no-match answer", status, body)
	}
	q.Del("benchmark")
	if status, _, _ := fakeGet(t, "/locations/address", q); status != 400 {
		t.Errorf("a locations search without benchmark: %d, want 400", status)
	}
}

func TestFakeReverseAnswerHasTheRecordedShape(t *testing.T) {
	q := url.Values{"x": {"-104.985"}, "y": {"39.7393"}, "benchmark": {"Public_AR_Current"},
		"vintage": {"Current_Current"}, "format": {"json"}}
	_, _, body := fakeGet(t, "/geographies/coordinates", q)
	got := shape(decodeAny(t, body))
	want := shape(decodeAny(t, recording(t, "geographies_coordinates_saratoga_ny.json")))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fake answer shape\n%s\ndiffers from the recording\n%s", got, want)
	}

	q.Set("y", "45")
	_, _, body = fakeGet(t, "/geographies/coordinates", q)
	var empty struct {
		Result struct {
			Geographies map[string][]any `json:"geographies"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &empty); err != nil {
		t.Fatal(err)
	}
	for _, layer := range []string{"States", "Counties", "Census Tracts", "2010 Census Blocks"} {
		if l, ok := empty.Result.Geographies[layer]; !ok || len(l) != 0 {
			t.Errorf("far from every place, layer %q = %v, want an empty array", layer, l)
		}
	}
}

func TestFakeNoMatchAndRequestChecks(t *testing.T) {
	q := url.Values{"street": {"1 Nowhere Rd"}, "state": {"CO"}, "benchmark": {"4"}, "vintage": {"4"}, "format": {"json"}}
	_, _, body := fakeGet(t, "/geographies/address", q)
	var doc struct {
		Result struct {
			Input          map[string]any `json:"input"`
			AddressMatches []any          `json:"addressMatches"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Result.AddressMatches == nil || len(doc.Result.AddressMatches) != 0 {
		t.Errorf("no-match answer = %s, want addressMatches: []", body)
	}
	if b, _ := doc.Result.Input["benchmark"].(map[string]any); b["benchmarkName"] != "Public_AR_Current" {
		t.Errorf("benchmark id 4 echoed as %v", doc.Result.Input["benchmark"])
	}

	q.Del("format")
	status, ctype, _ := fakeGet(t, "/geographies/address", q)
	if status != 200 || !strings.HasPrefix(ctype, "text/html") {
		t.Errorf("without format=json: status %d %q, want an HTML page", status, ctype)
	}
	q.Set("format", "json")
	q.Del("benchmark")
	status, _, body = fakeGet(t, "/geographies/address", q)
	if status != 400 || !strings.Contains(string(body), `"errors"`) {
		t.Errorf("without benchmark: status %d %s, want 400 with errors", status, body)
	}
}

func TestFakeOneLineAddress(t *testing.T) {
	tests := []struct {
		address string
		want    string // matched address, "" for no match
	}{
		{"200 East Colfax Avenue, Denver, CO 80203", "200 E COLFAX AVE, DENVER, CO, 80203"},
		{"200 e. colfax ave., denver co", "200 E COLFAX AVE, DENVER, CO, 80203"},
		{"200 E Colfax Ave, Denver, WA", ""},
		{"1000 4th Ave Seattle WA 98104", "1000 4TH AVE, SEATTLE, WA, 98104"},
		{"1000 4th Avenue, Seattle, WA", "1000 4TH AVE, SEATTLE, WA, 98104"}, // as "1600 Pennsylvania Avenue NW" in the recording
		{"1000 Fourth Avenue, Seattle, WA", ""},                              // an ordinal spelled out is not assumed
	}
	for _, tt := range tests {
		q := url.Values{"address": {tt.address}, "benchmark": {"Public_AR_Current"}, "vintage": {"Current_Current"}, "format": {"json"}}
		_, _, body := fakeGet(t, "/geographies/onelineaddress", q)
		var doc struct {
			Result struct {
				AddressMatches []struct {
					MatchedAddress string `json:"matchedAddress"`
				} `json:"addressMatches"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(doc.Result.AddressMatches) > 0 {
			got = doc.Result.AddressMatches[0].MatchedAddress
		}
		if got != tt.want {
			t.Errorf("onelineaddress %q matched %q, want %q", tt.address, got, tt.want)
		}
	}
}

// TestFakeComparesStreetsAsTheRecordingsShow holds the fake's street
// matching to what the real geocoder was seen to accept, and to TIGER's
// apostrophes: a fake more tolerant than the upstream would hide a client
// that damages the street before sending it.
func TestFakeComparesStreetsAsTheRecordingsShow(t *testing.T) {
	tests := []struct {
		sent, tiger string
		want        bool
	}{
		// Seen in the recordings.
		{"2525 buckelew dr", "2525 BUCKELEW DR", true},
		{"1600 Pennsylvania Avenue NW", "1600 PENNSYLVANIA AVE NW", true},
		{"3 Gramercy Park West", "3 GRAMERCY PARK W", true},
		{"1000 4th Ave.", "1000 4TH AVE", true},
		// An apostrophe is part of a TIGER name.
		{"42 O'Brien Court", "42 O'BRIEN CT", true},
		{"42 o'brien ct", "42 O'BRIEN CT", true},
		{"42 OBRIEN CT", "42 O'BRIEN CT", false},
		{"42 O’Brien Ct", "42 O'BRIEN CT", false},
		// A directional that is the name stays the name.
		{"100 North St", "100 N ST", false},
		{"100 North St", "100 NORTH ST", true},
		{"350 Fifth Ave", "350 5TH AVE", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := providertest.CensusSameStreet(tt.sent, tt.tiger); got != tt.want {
			t.Errorf("CensusSameStreet(%q, %q) = %v, want %v", tt.sent, tt.tiger, got, tt.want)
		}
	}

	// The address route answers by that rule.
	obrien := providertest.CensusPlace{Street: "42 O'BRIEN CT", City: "BOSTON", State: "MA", Zip: "02127",
		Lat: 42.33, Lng: -71.05, CountyName: "Suffolk County", StateFIPS: "25", CountyFIPS: "025", Tract: "060700"}
	c, _ := fakeClient(t, obrien)
	if _, err := c.Geocode(context.Background(), providers.Address{Street: "42 o'brien court", State: "MA"}); err != nil {
		t.Errorf("Geocode with the apostrophe: %v, want a match", err)
	}
	_, err := c.Geocode(context.Background(), providers.Address{Street: "42 OBRIEN CT", State: "MA"})
	wantError(t, err, providers.KindNotFound, "address_not_found")
}

func TestFakeBatchAnswerHasTheRecordedShape(t *testing.T) {
	twin := coloradoCapitol
	twin.Zip = "80218"
	c, _ := fakeClient(t, coloradoCapitol, twin, seattleLibrary)
	got, err := c.GeocodeBatch(context.Background(), []census.BatchRow{
		{ID: "tie", Address: providers.Address{Street: "200 E Colfax Ave", State: "CO"}},
		{ID: "lib", Address: providers.Address{Street: "1000 4th Ave", State: "WA"}},
	})
	if err != nil {
		t.Fatalf("GeocodeBatch: %v", err)
	}
	if !got[0].Tie || got[0].Matched || !got[1].Matched {
		t.Errorf("results = %+v, want a tie then a match", got)
	}

	// The raw CSV: every field quoted, LF endings, field counts as recorded.
	recorded := recording(t, "batch_geographies_response_2017.csv")
	wantFields := map[string]int{}
	r := csv.NewReader(strings.NewReader(string(recorded)))
	r.FieldsPerRecord = -1
	rows, _ := r.ReadAll()
	for _, row := range rows {
		wantFields[row[2]] = len(row)
	}
	body := fakeBatchCSV(t, "9,1000 4th Ave,Seattle,WA,98104\n10,1 Nowhere Rd,,WA,\n")
	if strings.Contains(body, "\r") || !strings.HasSuffix(body, "\"\n") {
		t.Errorf("batch answer must use LF endings and quoted fields: %q", body)
	}
	r = csv.NewReader(strings.NewReader(body))
	r.FieldsPerRecord = -1
	rows, err = r.ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("fake batch CSV: %v %q", err, body)
	}
	if rows[0][0] != "10" {
		t.Errorf("first answer row is %q; the fake should not keep input order", rows[0][0])
	}
	for _, row := range rows {
		if len(row) != wantFields[row[2]] {
			t.Errorf("%s row has %d fields, the recording has %d", row[2], len(row), wantFields[row[2]])
		}
	}
}

// fakeBatchCSV posts an address file to the fake batch route and returns the
// answer body.
func fakeBatchCSV(t *testing.T, file string) string {
	t.Helper()
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, seattleLibrary)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("addressFile", "in.csv")
	_, _ = fw.Write([]byte(file))
	_ = mw.WriteField("benchmark", "Public_AR_Current")
	_ = mw.WriteField("vintage", "Current_Current")
	_ = mw.Close()
	resp, err := (&http.Client{Transport: mt}).Post(census.DefaultBaseURL+"/geographies/addressbatch", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Disposition") != "attachment; filename=GeocodeResults.csv" {
		t.Errorf("batch answer status %d, headers %v", resp.StatusCode, resp.Header)
	}
	return string(b)
}
