package main

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/modules/overpass"
)

// The extract fixture of the loader (providers/osmextract/testdata): OSM
// XML written by hand, converted to PBF with osmium (its README has the
// command).
var franklinPBF = filepath.Join("..", "..", "providers", "osmextract", "testdata", "franklin.osm.pbf")

func TestDataLoadOSMLoadsAnExtractOnceAndStatusListsIt(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		path := factsConfigFile(t, database)
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		before := debug.SetMemoryLimit(-1)
		t.Cleanup(func() { debug.SetMemoryLimit(before) })
		if code := c.run([]string{"load", "osm", "-config", path, franklinPBF}); code != exitOK {
			t.Fatalf("load: exit %d\n%s\n%s", code, out.String(), errb.String())
		}
		// The load ran under its own heap limit (osmLoadHeapMB, by engine).
		if cfg, err := LoadConfig(path); err != nil {
			t.Fatal(err)
		} else if got, want := debug.SetMemoryLimit(-1), osmLoadHeapMB(cfg)<<20; os.Getenv("GOMEMLIMIT") == "" && got != want {
			t.Errorf("the load's heap limit is %d MB, want %d MB", got>>20, want>>20)
		}
		for _, want := range []string{"extract:        franklin\n", "data of:        2026-11-20T21:21:02Z\n",
			"places:         12\n", "buildings:      4\n", "addresses:      3\n", "skipped:        2 (broken geometry)\n"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the load's summary lacks %q:\n%s", want, out.String())
			}
		}
		out.Reset()
		if code := c.run([]string{"load", "osm", "-config", path, franklinPBF}); code != exitOK ||
			out.String() != "extract franklin is already loaded from "+franklinPBF+" (data of 2026-11-20)\n" {
			t.Errorf("the same file again: exit %d, %q; want nothing done", code, out.String())
		}
		out.Reset()
		if code := c.run([]string{"status", "-config", path}); code != exitOK ||
			!strings.Contains(out.String(), "EXTRACT") || !strings.Contains(out.String(), "franklin  2026-11-20  12") {
			t.Errorf("status: exit %d\n%s", code, out.String())
		}
	})
}

func TestDataLoadOSMRefusesWhatIsNoExtract(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "notes.osm.pbf")
	if err := os.WriteFile(bad, []byte("no extract here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := factsConfigFile(t, filepath.Join(dir, "p.db"))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-config", path}, exitUsage, "give the extract file(s)"},
		{[]string{"-config", path, filepath.Join(dir, "missing.osm.pbf")}, exitUsage, "missing.osm.pbf: no such file"},
		{[]string{"-config", path, "-name", "x", franklinPBF, franklinPBF}, exitUsage, "give one file with it"},
		{[]string{"-config", path, bad}, exitError, "not a readable OpenStreetMap extract"},
	} {
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run(append([]string{"load", "osm"}, tc.args...)); code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("data load osm %v: exit %d, stderr %q; want exit %d saying %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}

// startBesideExtract starts an instance on database whose geocoder knows
// 1203 K ST NW (inside the fixtures' extracts) and other, and whose
// Overpass knows school; it returns the instance and a count of the
// Overpass calls made.
func startBesideExtract(t *testing.T, database string, other providertest.CensusPlace, school providertest.OSMElement) (*Main, func() int) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, providertest.CensusPlace{
		Street: "1203 K ST NW", City: "WASHINGTON", State: "DC", Zip: "20005", Lat: 38.9, Lng: -77.03,
		CountyName: "District of Columbia", StateFIPS: "11", CountyFIPS: "001", Tract: "010100", Block: "1000",
	}, other)
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL, school)
	m := startMain(t, testConfig(t, database), mt)
	return m, func() int { return mt.GetCallCountInfo()["POST "+overpass.DefaultBaseURL] }
}

// TestAmenitiesInsideALoadedExtractCallNoOverpass serves a record inside the
// loaded fixture and one outside it: the first's amenities and walk score
// come from the extract with no Overpass call and say so in their
// provenance; the second's from Overpass as before.
func TestAmenitiesInsideALoadedExtractCallNoOverpass(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run([]string{"load", "osm", "-config", factsConfigFile(t, database), franklinPBF}); code != exitOK {
			t.Fatalf("load: exit %d\n%s", code, errb.String())
		}
		m, overpassCalls := startBesideExtract(t, database, providertest.CensusPlace{
			Street: "2200 W BROAD ST", City: "RICHMOND", State: "VA", Zip: "23220", Lat: 37.5600, Lng: -77.4720,
			CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760", Tract: "041000", Block: "1003",
		}, providertest.OSMElement{Type: "node", ID: 1, Lat: 37.5610,
			Lng: -77.4720, Tags: map[string]string{"amenity": "school", "name": "Fox Elementary"}})

		q := url.Values{"street": {"1203 K Street NW"}, "city": {"Washington"}, "state": {"DC"}, "include": {"amenities,walkscore"}}
		status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
		if status != 200 {
			t.Fatalf("lookup inside the extract: %d %v", status, body)
		}
		if n := overpassCalls(); n != 0 {
			t.Errorf("a lookup inside the loaded extract made %d Overpass calls, want 0", n)
		}
		d := body["data"].(map[string]any)
		am, ws := d["amenities"].(map[string]any), d["walkscore"].(map[string]any)
		if am["source"] != "osm-extract" || am["vintage"] != "2026-11-20" || am["total_count"] != 10.0 ||
			am["attribution"] == nil {
			t.Errorf("amenities = %v; want the extract's 10 items of 2026-11-20 with the attribution", am)
		}
		if ws["source"] != "osm-walk" || ws["amenities_source"] != "osm-extract" || ws["vintage"] != "2026-11-20" {
			t.Errorf("walkscore = %v; want osm-walk computed from the extract of 2026-11-20", ws)
		}
		sections := body["meta"].(map[string]any)["sections"].(map[string]any)
		if s := sections["amenities"].(map[string]any); s["source"] != "osm-extract" || s["vintage"] != "2026-11-20" || s["status"] != "ok" {
			t.Errorf("meta.sections.amenities = %v; want ok from osm-extract of 2026-11-20", s)
		}
		if s := sections["walkscore"].(map[string]any); s["source"] != "osm-walk" || s["vintage"] != "2026-11-20" {
			t.Errorf("meta.sections.walkscore = %v; want osm-walk of 2026-11-20", s)
		}

		q = url.Values{"street": {"2200 West Broad Street"}, "city": {"Richmond"}, "state": {"VA"}, "include": {"amenities"}}
		status, body, _ = getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
		if status != 200 {
			t.Fatalf("lookup outside the extract: %d %v", status, body)
		}
		if am := body["data"].(map[string]any)["amenities"].(map[string]any); am["source"] != "overpass" || overpassCalls() != 1 {
			t.Errorf("outside every extract: amenities %v after %d Overpass calls; want overpass's, 1 call", am, overpassCalls())
		}
	})
}

// TestABuildingGivesItsFactsToARecordMadeBeforeTheLoad serves a record
// inside the fixture's house, then loads the extract through the command
// line: the running instance shows the house's facts within facts.refresh,
// with no restart.
func TestABuildingGivesItsFactsToARecordMadeBeforeTheLoad(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		path := factsConfigFile(t, database) // facts.refresh: 1s
		t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
		cfg, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		mt := httpmock.NewMockTransport()
		providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, providertest.CensusPlace{
			Street: "1210 EXAMPLE ST NW", City: "WASHINGTON", State: "DC", Zip: "20005", Lat: 38.8991, Lng: -77.03035,
			CountyName: "District of Columbia", StateFIPS: "11", CountyFIPS: "001", Tract: "010100", Block: "1000",
		})
		m := startMain(t, cfg, mt)
		q := url.Values{"street": {"1210 Example Street NW"}, "city": {"Washington"}, "state": {"DC"}}
		status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
		if status != 200 || body["data"].(map[string]any)["property_type"] != nil {
			t.Fatalf("before the load: %d %v", status, body)
		}
		id := body["data"].(map[string]any)["id"]

		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run([]string{"load", "osm", "-config", path, franklinPBF}); code != exitOK ||
			!strings.Contains(out.String(), "facts:          3 buildings give facts, 1 matched records") {
			t.Fatalf("load: exit %d\n%s\n%s", code, out.String(), errb.String())
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, body, _ = getJSON(t, m, fmt.Sprintf("/v1/properties/%v", id))
			d := body["data"].(map[string]any)
			if d["property_type"] == "single_family" {
				facts, _ := d["facts"].(map[string]any)
				if d["stories"] != 2.0 || d["year_built"] != 1925.0 || facts["source"] != "openstreetmap" || facts["as_of"] != "2026-11-20" {
					t.Fatalf("the house's record after the load: %v", d)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the instance still serves %v 5 s after the load (facts.refresh is 1s)", d)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// TestReverseInsideALoadedExtractTakesTheNearestAddressPoint reverse
// geocodes a point on the fixture's house at 1210 Example Street: the record
// created has the house's street, city and ZIP code (the Census coordinates
// endpoint answers geographies only) and says it was matched to an address
// point and how far away, and keeps the address for a later read. A point
// of the extract with no address point within 30 m gets no address, as
// before the load.
func TestReverseInsideALoadedExtractTakesTheNearestAddressPoint(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run([]string{"load", "osm", "-config", factsConfigFile(t, database), franklinPBF}); code != exitOK {
			t.Fatalf("load: exit %d\n%s", code, errb.String())
		}
		mt := httpmock.NewMockTransport()
		providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, providertest.CensusPlace{
			Street: "1200 K ST NW", City: "WASHINGTON", State: "DC", Zip: "20005", Lat: 38.8980, Lng: -77.0320,
			CountyName: "District of Columbia", StateFIPS: "11", CountyFIPS: "001", Tract: "010100", Block: "1000",
		})
		m := startMain(t, testConfig(t, database), mt)

		status, body, _ := getJSON(t, m, "/v1/properties/reverse?lat=38.89912&lng=-77.03040")
		if status != 200 {
			t.Fatalf("reverse on the house: %d %v", status, body)
		}
		d, meta := body["data"].(map[string]any), body["meta"].(map[string]any)
		if d["street_address"] != "1210 EXAMPLE ST NW" || d["city"] != "WASHINGTON" || d["zip_code"] != "20005" ||
			d["state"] != "DC" || d["census_tract"] != "010100" {
			t.Errorf("the record reverse lookup created = %v; want 1210 EXAMPLE ST NW, WASHINGTON, DC 20005 in tract 010100", d)
		}
		match, _ := meta["match"].(map[string]any)
		if meta["created"] != true || match["type"] != "address_point" || match["distance_m"] != 5.0 ||
			match["matched_address"] != "1210 Example Street Northwest, Washington, 20005" {
			t.Errorf("meta = %v; want created, matched to the address point of 1210 Example Street 5 m away", meta)
		}
		_, body, _ = getJSON(t, m, fmt.Sprintf("/v1/properties/%v", d["id"]))
		if got := body["data"].(map[string]any); got["street_address"] != "1210 EXAMPLE ST NW" || got["zip_code"] != "20005" {
			t.Errorf("the record read back = %v; want its address kept", got)
		}
		if kept, _ := body["meta"].(map[string]any)["match"].(map[string]any); kept["type"] != "address_point" || kept["distance_m"] != 5.0 {
			t.Errorf("the record read back says it was matched %v; want address_point, 5 m", kept)
		}

		status, body, _ = getJSON(t, m, "/v1/properties/reverse?lat=38.8900&lng=-77.0500")
		if status != 200 {
			t.Fatalf("reverse far from any address point: %d %v", status, body)
		}
		d, meta = body["data"].(map[string]any), body["meta"].(map[string]any)
		if match, _ := meta["match"].(map[string]any); d["street_address"] != nil || d["zip_code"] != nil ||
			match["type"] != "reverse_geocode" || d["state"] != "DC" {
			t.Errorf("a point 1.6 km from any address point: data %v, meta %v; want the geographies alone", d, meta)
		}
	})
}

// The loader's second fixture (providers/osmextract/testdata): a few
// blocks of Queens Village written by hand in OSM XML, with address points
// whose postcodes are in the forms real extracts carry, converted to PBF
// with osmium (its README has the command).
var queensPBF = filepath.Join("..", "..", "providers", "osmextract", "testdata", "queens-village.osm.pbf")

// TestReverseTakesTheNearestAddressPointThatGivesAnAddress reverse
// geocodes points whose nearest address point has a postcode that is no
// plain ZIP code, on both engines: "NY 11423" gives ZIP code 11423;
// "11423;11426" gives the point's street with no ZIP code (which of the
// two is not known); "V6J 3Y4", no US postcode, is passed over for the
// next point within 30 m, 18 m away. The address of a building way too
// broken to load (not closed) gives none.
func TestReverseTakesTheNearestAddressPointThatGivesAnAddress(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run([]string{"load", "osm", "-config", factsConfigFile(t, database), queensPBF}); code != exitOK {
			t.Fatalf("load: exit %d\n%s", code, errb.String())
		}
		mt := httpmock.NewMockTransport()
		providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, providertest.CensusPlace{
			Street: "21105 HOLLIS AVE", City: "QUEENS VILLAGE", State: "NY", Zip: "11423", Lat: 40.7292, Lng: -73.7440,
			CountyName: "Queens County", StateFIPS: "36", CountyFIPS: "081", Tract: "048000", Block: "1000",
		})
		m := startMain(t, testConfig(t, database), mt)
		for _, tc := range []struct {
			name, at          string
			street, city, zip any
			match, matched    string
			distance          float64
		}{
			{"a postcode with its state", "lat=40.7290&lng=-73.7440", "21101 HOLLIS AVE", "QUEENS VILLAGE", "11423",
				"address_point", "21101 Hollis Avenue, Queens Village, NY 11423", 4},
			{"two postcodes", "lat=40.7300&lng=-73.7440", "21201 JAMAICA AVE", "QUEENS VILLAGE", nil,
				"address_point", "21201 Jamaica Avenue, Queens Village, 11423;11426", 4},
			{"a Canadian postal code", "lat=40.7310&lng=-73.7440", "21305 SPRINGFIELD BLVD", "QUEENS VILLAGE", "11428",
				"address_point", "21305 Springfield Boulevard, Queens Village, 11428", 18},
			{"a building way that is not closed", "lat=40.73205&lng=-73.7440", nil, nil, nil, "reverse_geocode", "", 0},
		} {
			status, body, _ := getJSON(t, m, "/v1/properties/reverse?"+tc.at)
			if status != 200 {
				t.Fatalf("%s: reverse: %d %v", tc.name, status, body)
			}
			d, meta := body["data"].(map[string]any), body["meta"].(map[string]any)
			match, _ := meta["match"].(map[string]any)
			if d["street_address"] != tc.street || d["city"] != tc.city || d["zip_code"] != tc.zip || d["state"] != "NY" {
				t.Errorf("%s: the record made is at %v, %v, NY %v; want %v, %v, NY %v", tc.name,
					d["street_address"], d["city"], d["zip_code"], tc.street, tc.city, tc.zip)
			}
			if match["type"] != tc.match || (tc.matched != "" && (match["matched_address"] != tc.matched || match["distance_m"] != tc.distance)) {
				t.Errorf("%s: meta.match = %v; want %s %q, %v m away", tc.name, match, tc.match, tc.matched, tc.distance)
			}
		}
	})
}

// The fixture's bounding polygon (providers/osmextract/testdata), written
// by hand in the Osmosis polygon file format Geofabrik publishes its
// <region>.poly files in: the fixture's box without its north-east corner,
// and a hole at -77.000..-76.995, 38.902..38.906.
var franklinPoly = filepath.Join("..", "..", "providers", "osmextract", "testdata", "franklin-square.poly")

// TestAnExtractLoadedWithItsPolygonAnswersOnlyInsideIt loads the fixture
// with its polygon: a record whose 2,000 m circle lies inside the polygon
// has its amenities from the extract with no Overpass call; one whose
// circle lies inside the extract's box but reaches the polygon's hole has
// them from Overpass, as outside every extract.
func TestAnExtractLoadedWithItsPolygonAnswersOnlyInsideIt(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		path := factsConfigFile(t, database)
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run([]string{"load", "osm", "-config", path, "-poly", franklinPoly, franklinPBF}); code != exitOK {
			t.Fatalf("load: exit %d\n%s\n%s", code, out.String(), errb.String())
		}
		want := "coverage:       polygon of " + franklinPoly + " (1 area, 1 hole, 9 points) within -77.0700,38.8700,-76.9900,38.9300 (west,south,east,north)\n"
		if !strings.Contains(out.String(), want) {
			t.Errorf("the load's summary lacks %q:\n%s", want, out.String())
		}
		out.Reset()
		if code := c.run([]string{"status", "-config", path}); code != exitOK || !strings.Contains(out.String(), "COVERAGE") ||
			!strings.Contains(out.String(), "  polygon\n") {
			t.Errorf("status after a load with a polygon: exit %d\n%s", code, out.String())
		}

		m, overpassCalls := startBesideExtract(t, database, providertest.CensusPlace{
			// 1.4 km west of the hole; its circle lies inside the box.
			Street: "100 EXAMPLE AVE NE", City: "WASHINGTON", State: "DC", Zip: "20002", Lat: 38.905, Lng: -77.016,
			CountyName: "District of Columbia", StateFIPS: "11", CountyFIPS: "001", Tract: "010600", Block: "1000",
		}, providertest.OSMElement{Type: "node", ID: 1, Lat: 38.9045,
			Lng: -76.9975, Tags: map[string]string{"amenity": "school", "name": "Hole Elementary"}})

		q := url.Values{"street": {"1203 K Street NW"}, "city": {"Washington"}, "state": {"DC"}, "include": {"amenities"}}
		status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
		if status != 200 {
			t.Fatalf("lookup inside the polygon: %d %v", status, body)
		}
		if am := body["data"].(map[string]any)["amenities"].(map[string]any); am["source"] != "osm-extract" || overpassCalls() != 0 {
			t.Errorf("inside the polygon: amenities %v after %d Overpass calls; want the extract's, no call", am, overpassCalls())
		}

		q = url.Values{"street": {"100 Example Avenue NE"}, "city": {"Washington"}, "state": {"DC"}, "include": {"amenities"}}
		status, body, _ = getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
		if status != 200 {
			t.Fatalf("lookup reaching the hole: %d %v", status, body)
		}
		if am := body["data"].(map[string]any)["amenities"].(map[string]any); am["source"] != "overpass" || overpassCalls() != 1 {
			t.Errorf("a circle inside the box reaching the polygon's hole: amenities %v after %d Overpass calls; want overpass's, 1 call",
				am, overpassCalls())
		}
	})
}

// TestDataLoadOSMTakesThePolygonBesideTheExtract loads an extract named as
// Geofabrik names it with its <region>.poly beside it: the polygon is
// taken without -poly.
func TestDataLoadOSMTakesThePolygonBesideTheExtract(t *testing.T) {
	dir := t.TempDir()
	pbf, poly := filepath.Join(dir, "franklin-latest.osm.pbf"), filepath.Join(dir, "franklin.poly")
	for from, to := range map[string]string{franklinPBF: pbf, franklinPoly: poly} {
		raw, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	c := &dataCommand{console{stdout: &out, stderr: &errb}}
	if code := c.run([]string{"load", "osm", "-config", factsConfigFile(t, filepath.Join(dir, "p.db")), pbf}); code != exitOK {
		t.Fatalf("load: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if want := "extract:        franklin-latest\n"; !strings.Contains(out.String(), want) {
		t.Errorf("the load's summary lacks %q:\n%s", want, out.String())
	}
	if want := "coverage:       polygon of " + poly + " (1 area, 1 hole, 9 points)"; !strings.Contains(out.String(), want) {
		t.Errorf("the load's summary lacks %q:\n%s", want, out.String())
	}
}

// TestDataLoadOSMRefusesABadPolygonBeforeLoading gives polygon files that
// are not right: each stops the command before anything is loaded, saying
// which file and what is wrong.
func TestDataLoadOSMRefusesABadPolygonBeforeLoading(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noEnd := write("no-end.poly", "franklin\n1\n -77.07 38.87\n -76.99 38.87\n -76.99 38.93\nEND\n")
	swapped := write("swapped.poly", "franklin\n1\n 38.87 -77.07\n 38.87 -176.99\n 38.93 -76.99\nEND\nEND\n")
	elsewhere := write("elsewhere.poly", "elsewhere\n1\n -80 40\n -79 40\n -79 41\nEND\nEND\n")
	beside := filepath.Join(dir, "franklin.osm.pbf")
	raw, err := os.ReadFile(franklinPBF)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(beside, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	besidePoly := write("franklin.poly", "franklin\n1\n -77.07 38.87\nEND\nEND\n")
	path := factsConfigFile(t, filepath.Join(dir, "p.db"))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-poly", noEnd, franklinPBF}, exitError, noEnd + ": not a readable polygon file: line 6: the file ends without its last END (nothing was loaded)"},
		{[]string{"-poly", swapped, franklinPBF}, exitError, swapped + ": not a readable polygon file: line 4: \"38.87 -176.99\" is out of range"},
		{[]string{"-poly", elsewhere, franklinPBF}, exitError, "the polygon of " + elsewhere + " lies outside the extract's bounding box"},
		{[]string{beside}, exitError, besidePoly + ": not a readable polygon file: line 2: section \"1\" has fewer than three distinct points"},
		{[]string{"-poly", filepath.Join(dir, "missing.poly"), franklinPBF}, exitUsage, "missing.poly: no such file"},
		{[]string{"-poly", noEnd, franklinPBF, beside}, exitUsage, "give one file with it"},
	} {
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run(append([]string{"load", "osm", "-config", path}, tc.args...)); code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("data load osm %v: exit %d, stderr %q; want exit %d saying %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
	var out bytes.Buffer
	c := &dataCommand{console{stdout: &out, stderr: &out}}
	if code := c.run([]string{"status", "-config", path}); code != exitOK || !strings.Contains(out.String(), "OpenStreetMap extracts loaded: none") {
		t.Errorf("status after the refused loads: exit %d\n%s", code, out.String())
	}
}

// A load's heap limit is the configured memory_limit_mb where one is
// given; else the load's own: 232 MB on PostgreSQL, whose server holds the
// pages, and the serve process's default (200 MB at the default cache) on
// SQLite, whose page caches share the load's 300 MB.
func TestALoadOfExtractsBoundsItsHeapByEngine(t *testing.T) {
	shipped, err := os.ReadFile(filepath.Join("..", "..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pg := "postgres://postgres@127.0.0.1:5432/propertyd?sslmode=disable"
	for _, tc := range []struct {
		database, limit string
		want            int64
	}{
		{"data/propertyd.db", "", 200},
		{pg, "", 232},
		{pg, "memory_limit_mb: 150", 150},
		{"data/propertyd.db", "memory_limit_mb: 300", 300},
		{pg, "memory_limit_mb: -1", -1},
	} {
		t.Setenv("PROPERTYD_DATABASE", tc.database)
		cfg, err := LoadConfig(writeConfig(t, string(shipped)+"\n"+tc.limit+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := osmLoadHeapMB(cfg); got != tc.want {
			t.Errorf("database %s, %q: a load's heap limit is %d MB, want %d", tc.database, tc.limit, got, tc.want)
		}
	}
}
