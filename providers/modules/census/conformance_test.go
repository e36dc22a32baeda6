package census_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/internal/recordings"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// TestConformanceJSON decodes every JSON recording of the real upstream
// through the client, each with the outcome that body must produce. A new
// recording without an expectation fails the test, so it cannot be ignored.
func TestConformanceJSON(t *testing.T) {
	dir := recordings.Dir(t, "census-geocoder")
	type outcome struct {
		reverse bool               // decode through Reverse instead of Geocode
		match   bool               // decode through GeocodeMatch as well as Geocode
		loc     providers.Location // expected Location (Point checked to 1e-9)
		kind    providers.Kind     // expected error kind when code is set
		code    string
		status  int    // HTTP status to serve the body with; 200 if zero
		cause   string // part of the error cause
		listing string // benchmarks/vintages: top-level array that must be non-empty
	}
	want := map[string]outcome{
		"geographies_address_whitehouse_dc.json": {loc: providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502", Street: "1600 PENNSYLVANIA AVE NW",
			City: "WASHINGTON", State: "DC", Zip: "20502", Point: providers.Point{Lat: 38.898754, Lng: -77.03535},
			County: "District of Columbia", FIPSCode: "11001", CensusTract: "006202"}},
		"geographies_address_census2020_two_matches_dc.json": {loc: providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "1600 Pennsylvania Ave NW, WASHINGTON, DC, 20037", Street: "1600 PENNSYLVANIA AVE NW",
			City: "WASHINGTON", State: "DC", Zip: "20037", Point: providers.Point{Lat: 38.898735, Lng: -77.038025},
			County: "District of Columbia", FIPSCode: "11001", CensusTract: "006202",
			// The second TIGER edge, another ZIP code: the caller decides
			// whether that is another address.
			Others: []providers.Location{{Precision: providers.PrecisionCensus, MatchedAddress: "1600 Pennsylvania Ave NW, WASHINGTON, DC, 20502",
				Street: "1600 PENNSYLVANIA AVE NW", City: "WASHINGTON", State: "DC", Zip: "20502",
				Point:  providers.Point{Lat: 38.898735, Lng: -77.036385},
				County: "District of Columbia", FIPSCode: "11001", CensusTract: "006202"}}}},
		"geographies_onelineaddress_fallschurch_va_2020.json": {loc: providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "2525 BUCKELEW DR, FALLS CHURCH, VA, 22046", Street: "2525 BUCKELEW DR",
			City: "FALLS CHURCH", State: "VA", Zip: "22046", Point: providers.Point{Lat: 38.88701576684785, Lng: -77.19902696904677},
			County: "Fairfax County", FIPSCode: "51059", CensusTract: "471401"}},
		"geographies_onelineaddress_layers_all_dc.json": {loc: providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502", Street: "1600 PENNSYLVANIA AVE NW",
			City: "WASHINGTON", State: "DC", Zip: "20502", Point: providers.Point{Lat: 38.898754, Lng: -77.03535},
			County: "District of Columbia", FIPSCode: "11001", CensusTract: "006202"}},
		"geographies_coordinates_saratoga_ny.json": {reverse: true, loc: providers.Location{
			Point: providers.Point{Lat: 43, Lng: -74}, State: "NY",
			County: "Saratoga County", FIPSCode: "36091", CensusTract: "061500"}},
		// locations answers carry no geographies: address and point only.
		"locations_address_whitehouse_dc.json": {match: true, loc: providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502", Street: "1600 PENNSYLVANIA AVE NW",
			City: "WASHINGTON", State: "DC", Zip: "20502", Point: providers.Point{Lat: 38.898754, Lng: -77.03535}}},
		"locations_onelineaddress_suitland_md.json": {match: true, loc: providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "4600 SILVER HILL RD, WASHINGTON, DC, 20233", Street: "4600 SILVER HILL RD",
			City: "WASHINGTON", State: "DC", Zip: "20233", Point: providers.Point{Lat: 38.84598652130676, Lng: -76.92743610939091}}},
		"no_match.json": {kind: providers.KindNotFound, code: "address_not_found"},
		"error_bad_params_CONSTRUCTED.json": {kind: providers.KindUpstream, code: "upstream_error",
			status: http.StatusBadRequest, cause: "Address cannot be empty"},
		// Listings are not geocoder answers: valid JSON, but an upstream
		// error if one ever came back from a geocoding route.
		"benchmarks.json":               {listing: "benchmarks", kind: providers.KindUpstream, code: "upstream_error"},
		"vintages_for_benchmark_4.json": {listing: "vintages", kind: providers.KindUpstream, code: "upstream_error"},
	}

	files := recordings.Files(t, dir, ".json")
	if len(files) == 0 {
		t.Fatalf("no JSON recordings in %s", dir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expected outcome for recording %s; add one", name)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if w.listing != "" {
				var doc map[string]json.RawMessage
				var entries []map[string]any
				if err := json.Unmarshal(body, &doc); err != nil {
					t.Fatalf("listing does not parse: %v", err)
				}
				if err := json.Unmarshal(doc[w.listing], &entries); err != nil || len(entries) == 0 {
					t.Errorf("listing has no %s (%v)", w.listing, err)
				}
			}
			status := w.status
			if status == 0 {
				status = http.StatusOK
			}
			c, _ := answering(t, httpmock.NewBytesResponder(status, body))
			var loc providers.Location
			if w.reverse {
				loc, err = c.Reverse(context.Background(), w.loc.Point)
			} else {
				loc, err = c.Geocode(context.Background(), providers.Address{Street: "as recorded", State: "DC"})
			}
			if w.code != "" {
				e := wantError(t, err, w.kind, w.code)
				if w.cause != "" && (e.Err == nil || !strings.Contains(e.Err.Error(), w.cause)) {
					t.Errorf("cause = %v, want it to contain %q", e.Err, w.cause)
				}
				return
			}
			if err != nil {
				t.Fatalf("decoding failed: %v", err)
			}
			if !samePoint(loc.Point, w.loc.Point) {
				t.Errorf("Point = %+v, want %+v", loc.Point, w.loc.Point)
			}
			want := w.loc
			loc.Point, want.Point = providers.Point{}, providers.Point{}
			if !reflect.DeepEqual(loc, want) {
				t.Errorf("Location =\n%+v\nwant\n%+v", loc, want)
			}
			if !w.match {
				return
			}
			// The search GeocodeMatch asks answers in this shape.
			loc, err = c.GeocodeMatch(context.Background(), providers.Address{Street: "as recorded", State: "DC"})
			if err != nil || !samePoint(loc.Point, w.loc.Point) {
				t.Fatalf("GeocodeMatch: %+v, %v; want the point %+v", loc, err, w.loc.Point)
			}
			loc.Point = providers.Point{}
			if !reflect.DeepEqual(loc, want) {
				t.Errorf("GeocodeMatch's Location =\n%+v\nwant\n%+v", loc, want)
			}
		})
	}
}

// TestConformanceBatchCSV reads every CSV recording: batch answers through
// GeocodeBatch (rows in input order, matched/no-match split as recorded), and
// the recorded input file (with its header row) against the answer it got.
func TestConformanceBatchCSV(t *testing.T) {
	dir := recordings.Dir(t, "census-geocoder")
	type split struct{ rows, matched int }
	want := map[string]split{
		"batch_geographies_response_2017.csv": {rows: 3, matched: 1},
		"batch_locations_response_2017.csv":   {rows: 3, matched: 1},
		"batch_geographies_response_2022.csv": {rows: 5, matched: 4},
		"batch_locations_response_2022.csv":   {rows: 5, matched: 4},
	}
	const inputFile, inputAnswer = "batch_input_with_header.csv", "batch_geographies_response_2022.csv"

	files := recordings.Files(t, dir, ".csv")
	if len(files) == 0 {
		t.Fatalf("no CSV recordings in %s", dir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if name == inputFile {
				checkRecordedInput(t, data, filepath.Join(dir, inputAnswer))
				return
			}
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expected outcome for recording %s; add one", name)
			}
			ids := batchIDs(t, data)
			// Ask in reverse answer order to prove results follow the input.
			rows := make([]census.BatchRow, len(ids))
			for i, id := range ids {
				rows[len(ids)-1-i] = census.BatchRow{ID: id, Address: providers.Address{Street: "as recorded"}}
			}
			c, _ := answering(t, httpmock.NewBytesResponder(http.StatusOK, data))
			got, err := c.GeocodeBatch(context.Background(), rows)
			if err != nil {
				t.Fatalf("GeocodeBatch: %v", err)
			}
			if len(got) != w.rows {
				t.Fatalf("got %d results, want %d", len(got), w.rows)
			}
			matched := 0
			for i, r := range got {
				if r.ID != rows[i].ID {
					t.Errorf("result %d has ID %q, want %q (input order)", i, r.ID, rows[i].ID)
				}
				if r.Matched {
					matched++
					if r.Location.MatchedAddress == "" || r.Location.Point == (providers.Point{}) || r.MatchType == "" {
						t.Errorf("match %s lacks address, point or type: %+v", r.ID, r)
					}
					if strings.Contains(name, "geographies") && (len(r.Location.FIPSCode) != 5 || len(r.Location.CensusTract) != 6) {
						t.Errorf("match %s lacks geographies: %+v", r.ID, r.Location)
					}
				}
			}
			if matched != w.matched {
				t.Errorf("%d matched, want %d", matched, w.matched)
			}
		})
	}
}

// checkRecordedInput sends the recorded input file as batch rows, header row
// included, and checks every row comes back from the answer it got, the
// header as No_Match.
func checkRecordedInput(t *testing.T, input []byte, answerPath string) {
	t.Helper()
	answer, err := os.ReadFile(answerPath)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(input))).ReadAll()
	if err != nil {
		t.Fatalf("input does not parse: %v", err)
	}
	rows := make([]census.BatchRow, len(recs))
	for i, rec := range recs {
		if len(rec) != 5 {
			t.Fatalf("input row %d has %d fields, want 5", i+1, len(rec))
		}
		rows[i] = census.BatchRow{ID: rec[0], Address: providers.Address{Street: rec[1], City: rec[2], State: rec[3], Zip: rec[4]}}
	}
	c, _ := answering(t, httpmock.NewBytesResponder(http.StatusOK, answer))
	got, err := c.GeocodeBatch(context.Background(), rows)
	if err != nil {
		t.Fatalf("GeocodeBatch: %v", err)
	}
	for i, r := range got {
		if r.ID != rows[i].ID {
			t.Errorf("result %d has ID %q, want %q", i, r.ID, rows[i].ID)
		}
		if header := i == 0; r.Matched == header {
			t.Errorf("row %q matched = %v, want %v", r.ID, r.Matched, !header)
		}
	}
	if got[1].ID != "2022" || got[1].Location.FIPSCode != "51059" || got[1].Location.CensusTract != "471401" ||
		!samePoint(got[1].Location.Point, providers.Point{Lat: 38.88701576700004, Lng: -77.19902696899999}) {
		t.Errorf("row 2022 = %+v", got[1])
	}
}

func samePoint(a, b providers.Point) bool {
	return math.Abs(a.Lat-b.Lat) < 1e-9 && math.Abs(a.Lng-b.Lng) < 1e-9
}
