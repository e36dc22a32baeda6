package main

import (
	"encoding/json"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// dcPoints writes address points of the District in OpenAddresses' CSV,
// inside the tracts of the fixture, and returns the file.
func dcPoints(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dc-points.csv")
	rows := "LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,HASH\n" +
		"-77.0177,38.9004,100,Capitol Street NW,,Washington,,DC,20001,,a1\n" +
		"-77.01772,38.90042,100,Capitol Street NW,Apt 2,Washington,,DC,20001,,a2\n" +
		"-77.0178,38.9006,102,Capitol Street NW,,,,,20001,,a3\n" +
		// No street: to the failures file.
		"-77.0178,38.9007,104,,,,,DC,20001,,a4\n"
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadAddresses loads address files through the command line, as an
// operator would, and returns its standard output.
func loadAddresses(t *testing.T, config string, wantCode int, args ...string) string {
	t.Helper()
	r := dataRun(append([]string{"load", "addresses", "-config", config, "-failures", filepath.Join(t.TempDir(), "f.csv")}, args...)...)
	if r.code != wantCode {
		t.Fatalf("load addresses %v: exit %d, want %d\n%s%s", args, r.code, wantCode, r.stdout, r.stderr)
	}
	return r.stdout
}

// TestLoadedAddressesMatchWithoutTheGeocoder loads the District's tracts
// and counties, its address points and Queens' TIGER/Line ranges, on each
// engine, and starts the service:
//   - an address point's lookup creates its record with no Census call at
//     all, rooftop, its dataset named, its tract from the files; another
//     spelling is the same record; a unit has its own point;
//   - a range's lookup is range_interpolation, its geographies from the
//     geocoder's reverse where no boundaries are loaded (one call);
//   - an address the files do not hold goes to the geocoder, census;
//   - a batch of loaded addresses makes no call;
//   - under geocoding: local, an address the files do not hold is 404
//     address_not_found with no call, and a range's record has no tract.
func TestLoadedAddressesMatchWithoutTheGeocoder(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		config := factsConfigFile(t, database)
		loadBoundaries(t, config, dcTracts(t), countiesJSON)
		out := loadAddresses(t, config, exitRowsFailed, "-state", "DC", dcPoints(t))
		if !strings.Contains(out, "features kept:  3") || !strings.Contains(out, `"states":["DC"]`) {
			t.Errorf("load of the points said:\n%s", out)
		}
		queens := filepath.Join("..", "..", "providers", "addrfile", "testdata", "tiger", "queens_constructed_addrfeat.shp")
		r := dataRun("load", "addresses", "-config", config, queens)
		if r.code != exitUsage && r.code != exitError {
			t.Errorf("ranges without a state: exit %d, want a refusal\n%s%s", r.code, r.stdout, r.stderr)
		}
		loadAddresses(t, config, exitRowsFailed, "-state", "NY", queens)
		if f := statusLine(t, config, "addresses", "dc-points"); len(f) < 4 || f[2] != "3" || f[3] != "1" {
			t.Errorf("data status: %v; want 3 rows and 1 failed", f)
		}

		mt := httpmock.NewMockTransport()
		providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL,
			providertest.CensusPlace{Street: "10 CLARENDON BLVD", City: "ARLINGTON", State: "VA", Zip: "22201",
				Lat: 38.88, Lng: -77.1, CountyName: "Arlington County", StateFIPS: "51", CountyFIPS: "013", Tract: "101801"},
			providertest.CensusPlace{Street: "1 REVERSE RD", City: "JAMAICA", State: "NY", Zip: "11434",
				Lat: 40.70, Lng: -73.8077, CountyName: "Queens County", StateFIPS: "36", CountyFIPS: "081", Tract: "044601"})
		cfg, err := LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
		m := startMain(t, cfg, mt)
		lookup := func(t *testing.T, q url.Values) (int, map[string]any, map[string]any, map[string]int) {
			t.Helper()
			before := mt.GetCallCountInfo()
			status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
			made := censusRoutes(mt, before)
			if status != 200 {
				return status, body, nil, made
			}
			meta := body["meta"].(map[string]any)
			return status, body["data"].(map[string]any), meta["match"].(map[string]any), made
		}

		status, d, match, made := lookup(t, url.Values{"street": {"100 Capitol Street Northwest"}, "city": {"Washington"}, "state": {"DC"}, "zip": {"20001"}})
		if status != 200 || len(made) != 0 {
			t.Fatalf("point: %d %v, census calls %v; want 200 and none", status, d, made)
		}
		if match["precision"] != "rooftop" || match["dataset"] != "addresses/dc-points" || match["type"] != "exact" ||
			d["census_tract"] != "006202" || d["fips_code"] != "11001" || d["latitude"] != 38.9004 || d["street_address"] != "100 CAPITOL ST NW" {
			t.Errorf("point: record %v, match %v", d, match)
		}
		id := d["id"]
		_, d, match, made = lookup(t, url.Values{"q": {"100 Capitol St NW, Washington, DC 20001"}})
		if d["id"] != id || match["type"] != "database" || match["precision"] != "rooftop" || len(made) != 0 {
			t.Errorf("another spelling: record %v, match %v, calls %v; want the same record from the database", d["id"], match, made)
		}
		_, d, match, made = lookup(t, url.Values{"street": {"100 Capitol St NW"}, "unit": {"Apt 2"}, "state": {"DC"}, "zip": {"20001"}})
		if d["latitude"] != 38.90042 || d["unit"] != "APT 2" || match["precision"] != "rooftop" || len(made) != 0 {
			t.Errorf("unit: record %v, match %v, calls %v; want the unit's own point", d, match, made)
		}

		// A range in Queens, where no boundaries are loaded: the reverse
		// geocoder gives its county and tract.
		status, d, match, made = lookup(t, url.Values{"street": {"117-51 Sutphin Blvd"}, "state": {"NY"}, "zip": {"11434"}})
		if status != 200 || match["precision"] != "range_interpolation" || match["dataset"] != "addresses/queens_constructed_addrfeat" ||
			d["census_tract"] != "044601" || d["street_address"] != "117-51 SUTPHIN BLVD" {
			t.Errorf("range: %d record %v, match %v", status, d, match)
		}
		if !maps.Equal(made, map[string]int{"geographies/coordinates": 1}) {
			t.Errorf("range made the census calls %v; want one reverse for its geographies", made)
		}

		// Not loaded: the geocoder, as before.
		status, d, match, made = lookup(t, url.Values{"street": {"10 Clarendon Blvd"}, "city": {"Arlington"}, "state": {"VA"}})
		if status != 200 || match["precision"] != "census" || match["dataset"] != nil || made["geographies/address"] != 1 {
			t.Errorf("not loaded: %d record %v, match %v, calls %v", status, d, match, made)
		}

		before := mt.GetCallCountInfo()
		batch, _ := json.Marshal(map[string]any{"addresses": []map[string]string{
			{"street": "102 Capitol St NW", "state": "DC", "zip": "20001"},
			{"q": "100 Capitol St NW Apt 2, Washington, DC 20001"},
		}})
		status, body := postJSON(t, m, "/v1/properties/batch", batch)
		if status != 200 {
			t.Fatalf("batch: %d %v", status, body)
		}
		for _, item := range body["data"].(map[string]any)["results"].([]any) {
			if it := item.(map[string]any); it["id"] == nil || it["match"].(map[string]any)["precision"] != "rooftop" {
				t.Errorf("batch item %v; want a record matched to its address point", it)
			}
		}
		if made := censusRoutes(mt, before); len(made) != 0 {
			t.Errorf("a batch of loaded addresses made the census calls %v; want none", made)
		}

		// data status says what share the serving instance answered
		// locally, once it has reported (every facts.refresh, 1 s here).
		// So far the geocoder was asked 5 times (a known spelling asks
		// it not): 3 lookups and a batch item locally, Arlington not.
		var line string
		for range 50 {
			r := dataRun("status", "-config", config)
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(l, "Addresses geocoded since start:") {
					line = l
				}
			}
			if strings.Contains(line, " of ") {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !strings.Contains(line, ": 4 of 5 from loaded address files (80.0%), by 1 instance (geocoding: auto)") {
			t.Errorf("data status said %q; want 4 of 5 geocoded locally", line)
		}

		// geocoding: local, on a new instance.
		cfg, err = LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Geocoding = geocodingLocal
		local := startMain(t, cfg, mt)
		before = mt.GetCallCountInfo()
		status, body, _ = getJSON(t, local, "/v1/properties/lookup?"+url.Values{"street": {"1600 Pennsylvania Ave NW"}, "state": {"DC"}}.Encode())
		if status != 404 || body["code"] != "address_not_found" {
			t.Errorf("local, not loaded: %d %v; want 404 address_not_found", status, body)
		}
		status, body, _ = getJSON(t, local, "/v1/properties/lookup?"+url.Values{"street": {"119-51 Sutphin Blvd"}, "state": {"NY"}, "zip": {"11434"}}.Encode())
		if status != 200 {
			t.Errorf("local, range: %d %v", status, body)
		} else if d := body["data"].(map[string]any); d["census_tract"] != nil && d["census_tract"] != "" {
			t.Errorf("local, range: tract %v; want none (no boundaries loaded, no remote call)", d["census_tract"])
		}
		if made := censusRoutes(mt, before); len(made) != 0 {
			t.Errorf("geocoding: local made the census calls %v; want none", made)
		}
	})
}

// An import inside loaded address points sends the batch geocoder only
// the addresses they do not hold, and its records are the rooftop
// matches a lookup makes, their tracts from the loaded boundaries.
func TestImportMatchesLoadedAddressesFirst(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		e := newImportEnvOn(t, database)
		loadBoundaries(t, e.config, dcTracts(t), countiesJSON)
		loadAddresses(t, e.config, exitRowsFailed, "-state", "DC", dcPoints(t))
		file := e.file("mixed.csv", "street,city,state,zip\n"+
			"100 Capitol St NW,Washington,DC,20001\n"+
			"102 Capitol Street Northwest,,DC,20001\n"+
			"4100 Cedar Springs Rd,Dallas,TX,75219\n")
		r := e.run(file)
		if r.code != exitOK || !slices.Equal(r.sent, []int{1}) {
			t.Fatalf("import: exit %d, batches sent %v addresses; want exit 0 and one batch of 1\n%s%s", r.code, r.sent, r.stdout, r.stderr)
		}
		got := map[string]string{}
		for _, p := range e.records() {
			got[p.StreetAddress] = p.CensusTract + " " + providers.FirstMatch(p.Match).Precision
		}
		want := map[string]string{"100 CAPITOL ST NW": "006202 rooftop", "102 CAPITOL ST NW": "006202 rooftop",
			"4100 CEDAR SPRINGS RD": "000501 census"}
		if !maps.Equal(got, want) {
			t.Errorf("records %v, want %v", got, want)
		}
	})
}

// A record made by the Census geocoder before a load of address points
// stays the record of its address after it, with the point it was made
// with: its spelling is known, and a new spelling matched to the loaded
// point names the same canonical address.
func TestARecordKeepsItsPointAfterALoad(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		config := factsConfigFile(t, database)
		mt := httpmock.NewMockTransport()
		providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL,
			providertest.CensusPlace{Street: "10 CLARENDON BLVD", City: "ARLINGTON", State: "VA", Zip: "22201",
				Lat: 38.88, Lng: -77.1, CountyName: "Arlington County", StateFIPS: "51", CountyFIPS: "013", Tract: "101801"})
		t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
		cfg, err := LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		m := startMain(t, cfg, mt)
		status, before, _ := getJSON(t, m, "/v1/properties/lookup?"+url.Values{"street": {"10 Clarendon Blvd"}, "city": {"Arlington"}, "state": {"VA"}}.Encode())
		if status != 200 {
			t.Fatalf("before the load: %d %v", status, before)
		}
		points := filepath.Join(t.TempDir(), "arlington.csv")
		if err := os.WriteFile(points, []byte("LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,HASH\n"+
			"-77.0951,38.8862,10,Clarendon Boulevard,,Arlington,,VA,22201,,c1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		loadAddresses(t, config, exitOK, points)
		id := before["data"].(map[string]any)["id"]
		for _, q := range []url.Values{
			{"street": {"10 Clarendon Blvd"}, "city": {"Arlington"}, "state": {"VA"}},
			{"q": {"10 Clarendon Boulevard, Arlington, VA 22201"}},
		} {
			status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
			if status != 200 {
				t.Fatalf("after the load, %v: %d %v", q, status, body)
			}
			d := body["data"].(map[string]any)
			if d["id"] != id || d["latitude"] != 38.88 || d["longitude"] != -77.1 {
				t.Errorf("after the load, %v: record %v at %v,%v; want record %v at the point it was made with", q, d["id"], d["latitude"], d["longitude"], id)
			}
		}
	})
}
