package census_test

import (
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/census"
)

func TestGeocodeBatchAgainstFake(t *testing.T) {
	c, mt := fakeClient(t, coloradoCapitol, seattleLibrary)
	rows := []census.BatchRow{
		{ID: "a", Address: providers.Address{Street: "200 E Colfax Ave", City: "Denver", State: "CO", Zip: "80203"}},
		{ID: "b", Address: providers.Address{Street: "12 Imaginary Ct", City: "Nowhere", State: "ZZ"}},
		{ID: "c", Address: providers.Address{Street: "200 East Colfax Avenue", State: "CO"}},
		{ID: "d", Address: providers.Address{Street: "1000 4th Ave.", City: "Seattle", State: "WA"}},
	}
	got, err := c.GeocodeBatch(context.Background(), rows)
	if err != nil {
		t.Fatalf("GeocodeBatch: %v", err)
	}
	capitol := providers.Location{Precision: providers.PrecisionCensus,
		MatchedAddress: "200 E COLFAX AVE, DENVER, CO, 80203", Street: "200 E COLFAX AVE",
		City: "DENVER", State: "CO", Zip: "80203",
		Point:    providers.Point{Lat: 39.73923, Lng: -104.98486},
		FIPSCode: "08031", CensusTract: "003300", // no county name in batch answers
	}
	want := []census.BatchResult{
		{ID: "a", Matched: true, MatchType: "Exact", Location: capitol},
		{ID: "b"},
		{ID: "c", Matched: true, MatchType: "Exact", Location: capitol},
		{ID: "d", Matched: true, MatchType: "Exact", Location: providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "1000 4TH AVE, SEATTLE, WA, 98104", Street: "1000 4TH AVE",
			City: "SEATTLE", State: "WA", Zip: "98104",
			Point:    providers.Point{Lat: 47.60672, Lng: -122.33251},
			FIPSCode: "53033", CensusTract: "008100",
		}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("result %d =\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
	wantCalls(t, mt, 1)
}

func TestGeocodeBatchSendsMultipartCSV(t *testing.T) {
	var file, benchmark, vintage, contentType string
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodPost, census.DefaultBaseURL+"/geographies/addressbatch",
		func(req *http.Request) (*http.Response, error) {
			contentType = req.Header.Get("Content-Type")
			if err := req.ParseMultipartForm(1 << 20); err != nil {
				return httpmock.NewStringResponse(400, err.Error()), nil
			}
			f, _, err := req.FormFile("addressFile")
			if err != nil {
				return httpmock.NewStringResponse(400, err.Error()), nil
			}
			b, _ := io.ReadAll(f)
			file, benchmark, vintage = string(b), req.FormValue("benchmark"), req.FormValue("vintage")
			return httpmock.NewStringResponse(200, "\"7\",\"x\",\"No_Match\"\n\"8\",\"y\",\"No_Match\"\n"), nil
		})
	c := newClient(t, mt, map[string]string{"benchmark": "4", "vintage": "4"})
	_, err := c.GeocodeBatch(context.Background(), []census.BatchRow{
		{ID: "7", Address: providers.Address{Street: "1000 4th Ave", City: "Seattle", State: "WA", Zip: "98104"}},
		{ID: "8", Address: providers.Address{Street: "Suite 5, 10 Main\nSt", City: "Boise", State: "ID"}},
	})
	if err != nil {
		t.Fatalf("GeocodeBatch: %v", err)
	}
	if !strings.HasPrefix(contentType, "multipart/form-data; boundary=") {
		t.Errorf("Content-Type = %q, want multipart/form-data", contentType)
	}
	wantFile := "7,1000 4th Ave,Seattle,WA,98104\n8,\"Suite 5, 10 Main St\",Boise,ID,\n"
	if file != wantFile {
		t.Errorf("addressFile =\n%q\nwant (no header row, five columns)\n%q", file, wantFile)
	}
	if benchmark != "4" || vintage != "4" {
		t.Errorf("benchmark, vintage = %q, %q; want 4, 4", benchmark, vintage)
	}
}

// TestGeocodeBatchSendsTheTextIntact: the address file carries the
// client's text, quoted as CSV needs (commas, double quotes), so the
// upstream reads back every field as typed.
func TestGeocodeBatchSendsTheTextIntact(t *testing.T) {
	var file string
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodPost, census.DefaultBaseURL+"/geographies/addressbatch",
		func(req *http.Request) (*http.Response, error) {
			f, _, err := req.FormFile("addressFile")
			if err != nil {
				return httpmock.NewStringResponse(400, err.Error()), nil
			}
			b, _ := io.ReadAll(f)
			file = string(b)
			return httpmock.NewStringResponse(200, "\"1\",\"x\",\"No_Match\"\n\"2\",\"y\",\"No_Match\"\n\"3\",\"z\",\"No_Match\"\n"), nil
		})
	rows := []census.BatchRow{
		{ID: "1", Address: providers.Address{Street: "42 O'Brien Ct", City: "Boston", State: "MA"}},
		{ID: "2", Address: providers.Address{Street: `12 "Old" Mill Rd, Rear`, City: "Coeur d'Alene", State: "ID", Zip: "83814"}},
		{ID: "3", Address: providers.Address{Street: "5 Rock & Roll Ln #4", City: "Cataño", State: "PR"}},
	}
	if _, err := newClient(t, mt, nil).GeocodeBatch(context.Background(), rows); err != nil {
		t.Fatalf("GeocodeBatch: %v", err)
	}
	want := "1,42 O'Brien Ct,Boston,MA,\n" +
		"2,\"12 \"\"Old\"\" Mill Rd, Rear\",Coeur d'Alene,ID,83814\n" +
		"3,5 Rock & Roll Ln #4,Cataño,PR,\n"
	if file != want {
		t.Fatalf("addressFile =\n%q\nwant\n%q", file, want)
	}
	recs, err := csv.NewReader(strings.NewReader(file)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		a := r.Address
		if got := recs[i]; !slices.Equal(got, []string{r.ID, a.Street, a.City, a.State, a.Zip}) {
			t.Errorf("row %d reads back as %q, want %+v", i+1, got, a)
		}
	}
}

func TestGeocodeBatchReadsTiesAndReordersRows(t *testing.T) {
	c, _ := answering(t, httpmock.NewBytesResponder(200, testdata(t, "batch_geographies_response.csv")))
	var rows []census.BatchRow
	for _, id := range []string{"b-1", "b-2", "b-3", "b-4"} {
		rows = append(rows, census.BatchRow{ID: id, Address: providers.Address{Street: "any"}})
	}
	got, err := c.GeocodeBatch(context.Background(), rows)
	if err != nil {
		t.Fatalf("GeocodeBatch: %v", err)
	}
	want := []census.BatchResult{
		{ID: "b-1", Matched: true, MatchType: "Exact", Location: providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "3500 E 17TH AVE, DENVER, CO, 80206", Street: "3500 E 17TH AVE",
			City: "DENVER", State: "CO", Zip: "80206",
			Point:    providers.Point{Lat: 39.74300800000008, Lng: -104.94118},
			FIPSCode: "08031", CensusTract: "003701",
		}},
		{ID: "b-2", Matched: true, MatchType: "Non_Exact", Location: providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "250 S STATE ST, SALT LAKE CITY, UT, 84111", Street: "250 S STATE ST",
			City: "SALT LAKE CITY", State: "UT", Zip: "84111",
			Point:    providers.Point{Lat: 40.76135498500007, Lng: -111.88814292899998},
			FIPSCode: "49035", CensusTract: "114000",
		}},
		{ID: "b-3", Tie: true},
		{ID: "b-4"},
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("result %d =\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
}

func TestGeocodeBatchSizeLimit(t *testing.T) {
	rows := make([]census.BatchRow, census.MaxBatchRows+1)
	for i := range rows {
		rows[i] = census.BatchRow{ID: strconv.Itoa(i), Address: providers.Address{Street: "200 E Colfax Ave", State: "CO"}}
	}

	c, mt := fakeClient(t, coloradoCapitol)
	_, err := c.GeocodeBatch(context.Background(), rows)
	wantError(t, err, providers.KindInvalid, "batch_too_large")
	wantCalls(t, mt, 0)

	got, err := c.GeocodeBatch(context.Background(), rows[:census.MaxBatchRows])
	if err != nil {
		t.Fatalf("GeocodeBatch of exactly MaxBatchRows: %v", err)
	}
	if len(got) != census.MaxBatchRows || !got[census.MaxBatchRows-1].Matched {
		t.Errorf("got %d results, want %d matched", len(got), census.MaxBatchRows)
	}
	wantCalls(t, mt, 1)
}

func TestGeocodeBatchRejectsBadIDs(t *testing.T) {
	addr := providers.Address{Street: "200 E Colfax Ave", State: "CO"}
	tests := map[string][]census.BatchRow{
		"empty ID":             {{ID: "1", Address: addr}, {ID: " ", Address: addr}},
		"duplicate ID":         {{ID: "1", Address: addr}, {ID: "2", Address: addr}, {ID: "1", Address: addr}},
		"line break":           {{ID: "1\n2", Address: addr}},
		"same ID up to blanks": {{ID: "a 1", Address: addr}, {ID: " a  1 ", Address: addr}},
	}
	for name, rows := range tests {
		t.Run(name, func(t *testing.T) {
			c, mt := fakeClient(t, coloradoCapitol)
			_, err := c.GeocodeBatch(context.Background(), rows)
			wantError(t, err, providers.KindInvalid, "invalid_batch")
			wantCalls(t, mt, 0)
		})
	}
}

func TestGeocodeBatchWithNoRowsCallsNothing(t *testing.T) {
	c, mt := fakeClient(t, coloradoCapitol)
	got, err := c.GeocodeBatch(context.Background(), nil)
	if err != nil || len(got) != 0 {
		t.Errorf("GeocodeBatch(nil) = %v, %v; want no results, no error", got, err)
	}
	wantCalls(t, mt, 0)
}

func TestGeocodeBatchBadAnswers(t *testing.T) {
	tests := map[string]string{
		"row missing":         "\"1\",\"a\",\"No_Match\"\n",
		"unknown status":      "\"1\",\"a\",\"No_Match\"\n\"2\",\"b\",\"Maybe\"\n",
		"short match row":     "\"1\",\"a\",\"No_Match\"\n\"2\",\"b\",\"Match\",\"Exact\"\n",
		"bad coordinates":     "\"1\",\"a\",\"No_Match\"\n\"2\",\"b\",\"Match\",\"Exact\",\"X, Y, ST, 1\",\"-77.1;38.8\",\"1\",\"L\"\n",
		"coordinates swapped": "\"1\",\"a\",\"No_Match\"\n\"2\",\"b\",\"Match\",\"Exact\",\"X, Y, ST, 1\",\"38.8,-177.1\",\"1\",\"L\"\n",
		"empty body":          "",
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			c, mt := answering(t, httpmock.NewStringResponder(200, body))
			_, err := c.GeocodeBatch(context.Background(), []census.BatchRow{
				{ID: "1", Address: providers.Address{Street: "a"}}, {ID: "2", Address: providers.Address{Street: "b"}},
			})
			wantError(t, err, providers.KindUpstream, "upstream_error")
			wantCalls(t, mt, 1)
		})
	}
}

// batchIDs returns the first column of a CSV file.
func batchIDs(t *testing.T, data []byte) []string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(string(data)))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(recs))
	for i, rec := range recs {
		ids[i] = rec[0]
	}
	return ids
}
