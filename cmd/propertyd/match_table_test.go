package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/store/engine"
)

// The places the fake Census geocoder knows for the match table. Aliases
// are the spellings it matches beyond its own tolerance, as the real
// matcher's fuzzier matching would: a missing suffix or directional, a
// misspelt name, another house number on the same range.
var (
	matchBuckelew = providertest.CensusPlace{Street: "2525 BUCKELEW DR", City: "FALLS CHURCH", State: "VA", Zip: "22046",
		Aliases: []string{"2525 BUCKELEW", "2525 BUCKELW DR", "2527 BUCKELEW DR"},
		Lat:     38.88701576684785, Lng: -77.19902696904677, CountyName: "Fairfax County", StateFIPS: "51", CountyFIPS: "059",
		Tract: "471401", Block: "1007"}
	matchWhiteHouse = providertest.CensusPlace{Street: "1600 PENNSYLVANIA AVE NW", City: "WASHINGTON", State: "DC", Zip: "20502",
		Aliases: []string{"1600 PENNSYLVANIA AVE"},
		Lat:     38.898754, Lng: -77.03535, CountyName: "District of Columbia", StateFIPS: "11", CountyFIPS: "001",
		Tract: "006202", Block: "1031"}
	// One address on two TIGER edges: the same matched address twice.
	matchEmpireA = providertest.CensusPlace{Street: "350 5TH AVE", City: "NEW YORK", State: "NY", Zip: "10118",
		Aliases: []string{"350 FIFTH AVE"},
		Lat:     40.74844, Lng: -73.98566, CountyName: "New York County", StateFIPS: "36", CountyFIPS: "061", Tract: "007600", Block: "1000"}
	matchEmpireB = providertest.CensusPlace{Street: "350 5TH AVE", City: "NEW YORK", State: "NY", Zip: "10118",
		Aliases: []string{"350 FIFTH AVE"},
		Lat:     40.74861, Lng: -73.98541, CountyName: "New York County", StateFIPS: "36", CountyFIPS: "061", Tract: "007600", Block: "1001"}
	// One street name in two towns of one state: two different addresses.
	matchSpringfield = providertest.CensusPlace{Street: "100 MAIN ST", City: "SPRINGFIELD", State: "IL", Zip: "62701",
		Lat: 39.8017, Lng: -89.6437, CountyName: "Sangamon County", StateFIPS: "17", CountyFIPS: "167", Tract: "000900", Block: "2000"}
	matchPeoria = providertest.CensusPlace{Street: "100 MAIN ST", City: "PEORIA", State: "IL", Zip: "61602",
		Lat: 40.6936, Lng: -89.589, CountyName: "Peoria County", StateFIPS: "17", CountyFIPS: "143", Tract: "000100", Block: "1000"}
	matchSuitland = providertest.CensusPlace{Street: "4600 SILVER HILL RD", City: "WASHINGTON", State: "DC", Zip: "20233",
		Lat: 38.84598652130676, Lng: -76.92743610939091, CountyName: "Prince George's County", StateFIPS: "24", CountyFIPS: "033",
		Tract: "802405", Block: "1000"}
	matchCorvallis = providertest.CensusPlace{Street: "222 NW 14TH ST", City: "CORVALLIS", State: "OR", Zip: "97330",
		Aliases: []string{"222 NW 14TH"},
		Lat:     44.56853142400007, Lng: -123.27156825499998, CountyName: "Benton County", StateFIPS: "41", CountyFIPS: "003",
		Tract: "001102", Block: "4010"}
	matchGramercy = providertest.CensusPlace{Street: "3 GRAMERCY PARK W", City: "NEW YORK", State: "NY", Zip: "10003",
		Lat: 40.738323, Lng: -73.98658, CountyName: "New York County", StateFIPS: "36", CountyFIPS: "061", Tract: "005000", Block: "1002"}
	matchCarol = providertest.CensusPlace{Street: "7309 CAROL LN", City: "FALLS CHURCH", State: "VA", Zip: "22042",
		Lat: 38.86071449600007, Lng: -77.19817875199999, CountyName: "Fairfax County", StateFIPS: "51", CountyFIPS: "059",
		Tract: "450601", Block: "3004"}
	matchGallows = providertest.CensusPlace{Street: "3444 GALLOWS RD", City: "ANNANDALE", State: "VA", Zip: "22003",
		Lat: 38.850814882000066, Lng: -77.21245851999998, CountyName: "Fairfax County", StateFIPS: "51", CountyFIPS: "059",
		Tract: "450701", Block: "1002"}
	matchAnnArbor = providertest.CensusPlace{Street: "1200 S MAIN ST", City: "ANN ARBOR", State: "MI", Zip: "48104",
		Aliases: []string{"1200 MAIN ST"},
		Lat:     42.2658, Lng: -83.7487, CountyName: "Washtenaw County", StateFIPS: "26", CountyFIPS: "161", Tract: "400100", Block: "1000"}

	matchPlaces = []providertest.CensusPlace{matchBuckelew, matchWhiteHouse, matchEmpireA, matchEmpireB, matchSpringfield,
		matchPeoria, matchSuitland, matchCorvallis, matchGramercy, matchCarol, matchGallows, matchAnnArbor}
)

// matchCase is one address of the match table and what every way of
// asking for it must answer on a new database: a record matched as typ
// with differences, or the error code (with cands candidates).
type matchCase struct {
	name                     string
	street, unit, city, zip  string
	state                    string
	typ                      string
	diffs                    []string
	recStreet, recUnit, recZ string // the record's street_address, unit, zip_code
	code                     string
	cands                    int
}

// matchTable holds no two addresses with one lookup key, and no address
// whose key is the canonical key of a record an earlier row creates, so
// each row is answered alike whether it is asked alone, after the rows
// before it, or in one import with all of them.
var matchTable = []matchCase{
	{name: "exact", street: "2525 Buckelew Dr", city: "Falls Church", state: "VA", zip: "22046",
		typ: "exact", recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "exact spelled out", street: "2525 Buckelew Drive", city: "Falls Church", state: "Virginia",
		typ: "exact", recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "exact in odd case and blanks", street: "  2525   BUCKELEW dr ", state: "va", zip: "22046-1234",
		typ: "exact", recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "ZIP corrected", street: "2525 Buckelew Dr", city: "Falls Church", state: "VA", zip: "22044",
		typ: "non_exact", diffs: []string{"zip"}, recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "city corrected", street: "2525 Buckelew Dr", city: "Fairfax", state: "VA", zip: "22046",
		typ: "non_exact", diffs: []string{"city"}, recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "city and ZIP corrected", street: "2525 Buckelew Dr", city: "Fairfax", state: "VA", zip: "22044",
		typ: "non_exact", diffs: []string{"city", "zip"}, recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "suffix added", street: "2525 Buckelew", city: "Falls Church", state: "VA",
		typ: "non_exact", diffs: []string{"street_type"}, recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "street name spelling", street: "2525 Buckelw Dr", city: "Falls Church", state: "VA",
		typ: "non_exact", diffs: []string{"street_name"}, recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "house number changed", street: "2527 Buckelew Dr", city: "Falls Church", state: "VA", zip: "22046",
		typ: "non_exact", diffs: []string{"house_number"}, recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "house number and ZIP changed", street: "2527 Buckelew Dr", city: "Falls Church", state: "VA", zip: "22044",
		typ: "non_exact", diffs: []string{"house_number", "zip"}, recStreet: "2525 BUCKELEW DR", recZ: "22046"},
	{name: "directional added", street: "1600 Pennsylvania Ave", city: "Washington", state: "DC", zip: "20502",
		typ: "non_exact", diffs: []string{"directional"}, recStreet: "1600 PENNSYLVANIA AVE NW", recZ: "20502"},
	{name: "recorded White House ZIP corrected", street: "1600 Pennsylvania Avenue NW", city: "Washington", state: "DC", zip: "20500",
		typ: "non_exact", diffs: []string{"zip"}, recStreet: "1600 PENNSYLVANIA AVE NW", recZ: "20502"},
	{name: "directional spelled out", street: "1600 Pennsylvania Avenue Northwest", city: "Washington", state: "DC",
		typ: "exact", recStreet: "1600 PENNSYLVANIA AVE NW", recZ: "20502"},
	{name: "pre-directional added", street: "1200 Main St", city: "Ann Arbor", state: "MI", zip: "48104",
		typ: "non_exact", diffs: []string{"directional"}, recStreet: "1200 S MAIN ST", recZ: "48104"},
	{name: "two edges of one address", street: "350 5th Ave", city: "New York", state: "NY", zip: "10118",
		typ: "exact", recStreet: "350 5TH AVE", recZ: "10118"},
	{name: "two edges, ordinal spelled out", street: "350 Fifth Avenue", city: "New York", state: "NY",
		typ: "exact", recStreet: "350 5TH AVE", recZ: "10118"},
	{name: "two edges with a unit", street: "350 5th Ave Ste 7200", city: "New York", state: "NY", zip: "10001",
		typ: "non_exact", diffs: []string{"zip"}, recStreet: "350 5TH AVE", recUnit: "STE 7200", recZ: "10118"},
	{name: "two different candidates", street: "100 Main St", state: "IL", code: "ambiguous_address", cands: 2},
	{name: "two different candidates, city of neither", street: "100 Main Street", city: "Chicago", state: "IL", zip: "60601",
		code: "ambiguous_address", cands: 2},
	{name: "two different candidates, state by name", street: "100 Main St.", city: "Urbana", state: "Illinois",
		code: "ambiguous_address", cands: 2},
	{name: "candidates told apart by the ZIP", street: "100 Main St", state: "IL", zip: "62701",
		typ: "exact", recStreet: "100 MAIN ST", recZ: "62701"},
	{name: "candidates told apart by the city", street: "100 Main St", city: "Peoria", state: "IL",
		typ: "exact", recStreet: "100 MAIN ST", recZ: "61602"},
	{name: "PO box", street: "PO Box 12", city: "Falls Church", state: "VA", code: "not_a_property"},
	{name: "PO box dotted", street: "P.O. Box 7", state: "VA", zip: "22046", code: "not_a_property"},
	{name: "private mailbox", street: "2525 Buckelew Dr PMB 34", city: "Falls Church", state: "VA", code: "not_a_property"},
	{name: "unit on the street", street: "2525 Buckelew Dr Apt 4", city: "Falls Church", state: "VA", zip: "22046",
		typ: "exact", recStreet: "2525 BUCKELEW DR", recUnit: "APT 4", recZ: "22046"},
	{name: "unit apart", street: "2525 Buckelew Dr", unit: "4B", city: "Falls Church", state: "VA",
		typ: "exact", recStreet: "2525 BUCKELEW DR", recUnit: "# 4B", recZ: "22046"},
	{name: "unit with ZIP corrected", street: "1600 Pennsylvania Ave NW Suite 200", city: "Washington", state: "DC", zip: "20500",
		typ: "non_exact", diffs: []string{"zip"}, recStreet: "1600 PENNSYLVANIA AVE NW", recUnit: "STE 200", recZ: "20502"},
	{name: "recorded Suitland", street: "4600 Silver Hill Rd", city: "Washington", state: "DC", zip: "20233",
		typ: "exact", recStreet: "4600 SILVER HILL RD", recZ: "20233"},
	{name: "recorded Corvallis suffix added", street: "222 NW 14th", city: "Corvallis", state: "OR",
		typ: "non_exact", diffs: []string{"street_type"}, recStreet: "222 NW 14TH ST", recZ: "97330"},
	{name: "recorded Gramercy Park West", street: "3 Gramercy Park West", city: "New York", state: "NY", zip: "10003",
		typ: "exact", recStreet: "3 GRAMERCY PARK W", recZ: "10003"},
	{name: "recorded ZIP left out", street: "7309 Carol Ln", city: "Falls Church", state: "VA",
		typ: "exact", recStreet: "7309 CAROL LN", recZ: "22042"},
	{name: "recorded city and ZIP left out", street: "3444 Gallows Rd", state: "VA",
		typ: "exact", recStreet: "3444 GALLOWS RD", recZ: "22003"},
	{name: "no match", street: "1 Nowhere Ln", city: "Falls Church", state: "VA", code: "address_not_found"},
}

// matchOutcome is what a user saw for one row, in the terms the table
// states.
type matchOutcome struct {
	typ                      string
	diffs                    []string
	recStreet, recUnit, recZ string
	code                     string
	cands                    int
}

func (c matchCase) want() matchOutcome {
	return matchOutcome{typ: c.typ, diffs: c.diffs, recStreet: c.recStreet, recUnit: c.recUnit, recZ: c.recZ, code: c.code, cands: c.cands}
}

// matchUpstream is the fake Census geocoder of the table's places, with
// a count of its calls by route.
func matchUpstream() *httpmock.MockTransport {
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, matchPlaces...)
	return mt
}

func censusCalls(mt *httpmock.MockTransport) int {
	n := 0
	for route, c := range mt.GetCallCountInfo() {
		if strings.Contains(route, census.DefaultBaseURL) {
			n += c
		}
	}
	return n
}

// asUser reads a record's match, or an error's code and candidates, out
// of JSON as a client decodes it.
func outcomeOf(rec map[string]any, match map[string]any) matchOutcome {
	o := matchOutcome{typ: str(match["type"]), recStreet: str(rec["street_address"]), recUnit: str(rec["unit"]),
		recZ: str(rec["zip_code"])}
	if d, ok := match["differences"].([]any); ok {
		for _, v := range d {
			o.diffs = append(o.diffs, str(v))
		}
	}
	return o
}

func errorOutcome(code string, cands any) matchOutcome {
	o := matchOutcome{code: code}
	if c, ok := cands.([]any); ok {
		o.cands = len(c)
	}
	return o
}

func str(v any) string { s, _ := v.(string); return s }

// TestMatchTableIsAnsweredAlikeByLookupBatchAndImport runs every address of
// the match table through lookup, through batch and through the import,
// each on a new database: the type, the differences, the record, the error
// code and the candidates are the same in all three, each lookup costs one
// geocoder call (none for a PO box), and after a restart a record still
// says how it was first matched.
func TestMatchTableIsAnsweredAlikeByLookupBatchAndImport(t *testing.T) {
	if len(matchTable) < 30 {
		t.Fatalf("the match table holds %d addresses, want at least 30", len(matchTable))
	}
	// Lookups run on both engines: the first match a record keeps is
	// read back after a restart from either.
	var lookups []matchOutcome
	eachEngine(t, func(t *testing.T, database string) {
		got := matchByLookup(t, database)
		if lookups == nil {
			lookups = got
		} else if !reflect.DeepEqual(got, lookups) {
			t.Errorf("lookups on PostgreSQL answered otherwise than on SQLite:\n%+v\n%+v", got, lookups)
		}
	})
	batches := matchByBatch(t)
	imports := matchByImport(t)
	for i, c := range matchTable {
		want := c.want()
		for _, got := range []struct {
			way string
			o   matchOutcome
		}{{"lookup", lookups[i]}, {"batch", batches[i]}, {"import", imports[i]}} {
			if !reflect.DeepEqual(got.o, want) {
				t.Errorf("%s of %q (%s): a user saw %+v, want %+v", got.way, c.street, c.name, got.o, want)
			}
		}
	}
}

func (c matchCase) query() url.Values {
	q := url.Values{"street": {c.street}, "state": {c.state}}
	for k, v := range map[string]string{"unit": c.unit, "city": c.city, "zip": c.zip} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

func matchByLookup(t *testing.T, dbPath string) []matchOutcome {
	t.Helper()
	mt := matchUpstream()
	m := startMain(t, testConfig(t, dbPath), mt)
	out := make([]matchOutcome, len(matchTable))
	created := map[float64]matchOutcome{} // record id: its first match, as the creating lookup said
	for i, c := range matchTable {
		before := censusCalls(mt)
		q := c.query()
		if c.code == "ambiguous_address" {
			q.Set("include", "flood") // given back: an ambiguous lookup costs one lookup
		}
		status, body, hdr := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
		calls := censusCalls(mt) - before
		wantCalls := 1
		if c.code == "not_a_property" {
			wantCalls = 0
		}
		if calls != wantCalls {
			t.Errorf("lookup of %q made %d geocoder calls, want %d", c.street, calls, wantCalls)
		}
		switch {
		case status == http.StatusOK:
			d, _ := body["data"].(map[string]any)
			meta, _ := body["meta"].(map[string]any)
			match, _ := meta["match"].(map[string]any)
			out[i] = outcomeOf(d, match)
			if meta["created"] == true {
				created[d["id"].(float64)] = out[i]
			}
		default:
			out[i] = errorOutcome(str(body["code"]), body["candidates"])
			wantStatus := map[string]int{"ambiguous_address": 409, "not_a_property": 422, "address_not_found": 404}[out[i].code]
			if status != wantStatus {
				t.Errorf("lookup of %q: status %d for %s, want %d", c.street, status, out[i].code, wantStatus)
			}
			if out[i].code == "ambiguous_address" && hdr.Get("X-Request-Cost") != "1" {
				t.Errorf("an ambiguous lookup with include=flood cost %q, want 1 (one lookup)", hdr.Get("X-Request-Cost"))
			}
		}
	}
	// Nothing was created for the ambiguous addresses: only the records
	// of the places matched.
	_, body, _ := getJSON(t, m, "/v1/properties/search?state=IL")
	if total := body["meta"].(map[string]any)["total"]; total != float64(2) {
		t.Errorf("%v records in IL after the table, want 2 (Springfield and Peoria, told apart)", total)
	}
	// After a restart each record still says how it was first matched.
	m.Close()
	m = startMain(t, testConfig(t, dbPath), mt)
	for id, first := range created {
		status, body, _ := getJSON(t, m, fmt.Sprintf("/v1/properties/%d", int64(id)))
		meta, _ := body["meta"].(map[string]any)
		match, _ := meta["match"].(map[string]any)
		if got := outcomeOf(body["data"].(map[string]any), match); status != 200 || !reflect.DeepEqual(got, first) {
			t.Errorf("record %v after a restart: %d %+v, want its first match %+v", id, status, got, first)
		}
	}
	return out
}

func matchByBatch(t *testing.T) []matchOutcome {
	t.Helper()
	mt := matchUpstream()
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), mt)
	out := make([]matchOutcome, len(matchTable))
	for i, c := range matchTable {
		item := map[string]string{"id": fmt.Sprint(i), "street": c.street, "state": c.state}
		for k, v := range map[string]string{"unit": c.unit, "city": c.city, "zip": c.zip} {
			if v != "" {
				item[k] = v
			}
		}
		reqBody, _ := json.Marshal(map[string]any{"addresses": []any{item}})
		before := censusCalls(mt)
		status, body := postJSON(t, m, "/v1/properties/batch", reqBody)
		if calls := censusCalls(mt) - before; calls > 1 {
			t.Errorf("batch of %q made %d geocoder calls, want at most 1", c.street, calls)
		}
		data, _ := body["data"].(map[string]any)
		results, _ := data["results"].([]any)
		errs, _ := data["errors"].([]any)
		switch {
		case status != 200:
			t.Fatalf("batch of %q: status %d %v", c.street, status, body)
		case len(results) == 1:
			r := results[0].(map[string]any)
			match, _ := r["match"].(map[string]any)
			out[i] = outcomeOf(r, match)
		case len(errs) == 1:
			e := errs[0].(map[string]any)
			out[i] = errorOutcome(str(e["code"]), e["candidates"])
		}
	}
	return out
}

func postJSON(t *testing.T, m *Main, path string, body []byte) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+m.Addr()+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	status, out, _ := doJSON(t, req)
	return status, out
}

// matchByImport imports the whole table as one file, through the import
// command's importer, hearing how each row matched or why it failed, and
// then through the command itself to check what it prints and writes.
func matchByImport(t *testing.T) []matchOutcome {
	t.Helper()
	var csvText strings.Builder
	csvText.WriteString("street,unit,city,state,zip\n")
	for _, c := range matchTable {
		fmt.Fprintf(&csvText, "%q,%q,%q,%q,%q\n", c.street, c.unit, c.city, c.state, c.zip)
	}
	e := newImportEnv(t, matchPlaces...)
	db, err := engine.Open(context.Background(), e.db, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := census.New(providers.Settings{Client: &http.Client{Transport: e.mt}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]matchOutcome, len(matchTable))
	row := func(fields []string) int {
		for i, c := range matchTable {
			if fields[0] == c.street && fields[1] == c.unit && fields[2] == c.city && fields[3] == c.state && fields[4] == c.zip {
				return i
			}
		}
		t.Fatalf("no table row %q", fields)
		return -1
	}
	im := &service.Importer{Store: db, Geocoder: c, Source: "census",
		Fail: func(fields []string, reason string) error {
			i := row(fields)
			code, _, _ := strings.Cut(reason, ":")
			switch {
			case strings.Contains(reason, "post office box"):
				code = "not_a_property"
			case reason == providers.ErrNoMatch.Message:
				code = "address_not_found"
			}
			out[i] = matchOutcome{code: code}
			if code == "ambiguous_address" {
				out[i].cands = strings.Count(reason, " | ") + 1
			}
			return nil
		},
		Matched: func(fields []string, rec *providers.Property, m providers.Match) {
			i := row(fields)
			out[i] = matchOutcome{typ: m.Type, diffs: m.Differences, recStreet: rec.StreetAddress, recUnit: rec.Unit, recZ: rec.ZipCode}
		},
	}
	h, err := service.ParseImportHeader([]string{"street", "unit", "city", "state", "zip"})
	if err != nil {
		t.Fatal(err)
	}
	before := e.mt.GetCallCountInfo()
	sum, err := im.Run(context.Background(), h, newImportReader(strings.NewReader(strings.SplitN(csvText.String(), "\n", 2)[1])))
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	after := e.mt.GetCallCountInfo()
	// One batch call, and each Tie row (the two edges and the two towns)
	// asked again alone.
	singles := after["GET "+census.DefaultBaseURL+"/geographies/address"] - before["GET "+census.DefaultBaseURL+"/geographies/address"]
	ties := 0
	for _, c := range matchTable {
		if strings.Contains(c.street, "350 5th") || strings.Contains(c.street, "350 Fifth") || strings.Contains(c.street, "100 Main") {
			ties++
		}
	}
	if batches := after[batchRoute] - before[batchRoute]; batches != 1 || singles != ties {
		t.Errorf("the import made %d batch and %d single calls, want 1 and %d (one per Tie row)", batches, singles, ties)
	}
	if sum.Read != len(matchTable) || sum.Matched != sum.Exact+sum.NonExact+sum.Database {
		t.Errorf("import summary %+v", sum)
	}

	// The command itself, on a second database: the failures file holds
	// the ambiguous rows with their candidates, and it says how rows
	// matched.
	e2 := newImportEnv(t, matchPlaces...)
	r := e2.run(e2.file("table.csv", csvText.String()))
	fails := readCSV(t, filepath.Join(e2.dir, "table.failures.csv"))
	ambiguous := 0
	for _, f := range fails[1:] {
		if strings.HasPrefix(f[len(f)-1], "ambiguous_address: ") && strings.Contains(f[len(f)-1], "100 MAIN ST, PEORIA, IL, 61602") {
			ambiguous++
		}
	}
	wantFailed := 0
	for _, c := range matchTable {
		if c.code != "" {
			wantFailed++
		}
	}
	if r.code != exitRowsFailed || len(fails)-1 != wantFailed || ambiguous != 3 ||
		!strings.Contains(r.stdout, fmt.Sprintf("matches:     %d exact, %d non_exact\n", sum.Exact, sum.NonExact)) {
		t.Errorf("import command: exit %d, %d failures (%d ambiguous with candidates), stdout\n%s", r.code, len(fails)-1, ambiguous, r.stdout)
	}
	return out
}

// TestMatchModesBestAndStrict: match=best takes the first of several
// different addresses as non_exact, with the others as candidates;
// match=strict refuses a non-exact match naming the parts and creates
// nothing, but takes an exact one; a strict lookup of a known spelling
// that differs from its record is refused as well.
func TestMatchModesBestAndStrict(t *testing.T) {
	mt := matchUpstream()
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), mt)
	records := func() float64 {
		_, body, _ := getJSON(t, m, "/v1/properties/search?per_page=100")
		return body["meta"].(map[string]any)["total"].(float64)
	}

	status, body, _ := getJSON(t, m, "/v1/properties/lookup?street=100+Main+St&state=IL&match=best")
	meta, _ := body["meta"].(map[string]any)
	match, _ := meta["match"].(map[string]any)
	cands, _ := match["candidates"].([]any)
	if status != 200 || match["type"] != "non_exact" || len(cands) != 1 ||
		cands[0].(map[string]any)["matched_address"] != "100 MAIN ST, PEORIA, IL, 61602" ||
		cands[0].(map[string]any)["county"] != "Peoria County" || body["data"].(map[string]any)["city"] != "SPRINGFIELD" {
		t.Fatalf("match=best: %d %v; want the first candidate as non_exact with Peoria among the candidates", status, body)
	}

	n := records()
	before := censusCalls(mt)
	status, body, _ = getJSON(t, m, "/v1/properties/lookup?street=1600+Pennsylvania+Ave+NW&city=Washington&state=DC&zip=20500&match=strict")
	errs, _ := body["errors"].([]any)
	if status != 409 || body["code"] != "inexact_match" || len(errs) != 1 || errs[0].(map[string]any)["parameter"] != "zip" ||
		censusCalls(mt)-before != 1 || records() != n {
		t.Fatalf("match=strict on a corrected ZIP: %d %v; want 409 inexact_match naming zip, one call, nothing created", status, body)
	}
	status, body, _ = getJSON(t, m, "/v1/properties/lookup?street=1600+Pennsylvania+Ave+NW&city=Washington&state=DC&zip=20502&match=strict")
	if status != 200 || body["meta"].(map[string]any)["match"].(map[string]any)["type"] != "exact" || records() != n+1 {
		t.Fatalf("match=strict on an exact address: %d %v", status, body)
	}
	// Known now, in a spelling that names another ZIP: strict still refuses.
	getJSON(t, m, "/v1/properties/lookup?street=1600+Pennsylvania+Ave+NW&city=Washington&state=DC&zip=20500")
	before = censusCalls(mt)
	status, body, _ = getJSON(t, m, "/v1/properties/lookup?street=1600+Pennsylvania+Ave+NW&city=Washington&state=DC&zip=20500&match=strict")
	if status != 409 || body["code"] != "inexact_match" || censusCalls(mt) != before {
		t.Fatalf("match=strict on a known spelling that differs: %d %v (calls %d)", status, body, censusCalls(mt)-before)
	}
	status, body, _ = getJSON(t, m, "/v1/properties/lookup?street=1600+Pennsylvania+Ave+NW&state=DC&match=loose")
	if status != 400 || body["code"] != "invalid_parameter" {
		t.Fatalf("match=loose: %d %v", status, body)
	}
}

// TestUnsettledAnswerIsRemembered: an answer that made no record (several
// different addresses) is decided again from memory when the same
// spelling comes back, in any match mode: no second geocoder call, and
// match=best then makes the record from it.
func TestUnsettledAnswerIsRemembered(t *testing.T) {
	mt := matchUpstream()
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), mt)
	const path = "/v1/properties/lookup?street=100+Main+St&state=IL"
	for i := range 2 {
		before := censusCalls(mt)
		status, body, _ := getJSON(t, m, path)
		cands, _ := body["candidates"].([]any)
		want := 1 - i // the first asks, the second remembers
		if status != 409 || body["code"] != "ambiguous_address" || len(cands) != 2 || censusCalls(mt)-before != want {
			t.Fatalf("lookup %d: %d %v, %d geocoder calls; want 409 ambiguous_address with 2 candidates and %d calls",
				i+1, status, body, censusCalls(mt)-before, want)
		}
	}
	before := censusCalls(mt)
	status, body, _ := getJSON(t, m, path+"&match=best")
	match, _ := body["meta"].(map[string]any)["match"].(map[string]any)
	if status != 200 || match["type"] != "non_exact" || censusCalls(mt) != before {
		t.Fatalf("match=best after the ambiguous answer: %d %v, %d calls; want the first candidate, no call", status, body, censusCalls(mt)-before)
	}
}

// TestOneLineAndFieldsAreOneRecord: q= and the same address in fields are
// one record whichever comes first, and the second costs no geocoder
// call; the line is sent to the one-line search.
func TestOneLineAndFieldsAreOneRecord(t *testing.T) {
	mt := matchUpstream()
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), mt)
	oneLine := "GET " + census.DefaultBaseURL + "/geographies/onelineaddress"

	// The line first, then the fields.
	status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+url.Values{"q": {"350 5th Ave, New York, NY 10118"}}.Encode())
	if status != 200 || mt.GetCallCountInfo()[oneLine] != 1 {
		t.Fatalf("q lookup: %d %v, one-line calls %d", status, body, mt.GetCallCountInfo()[oneLine])
	}
	d := body["data"].(map[string]any)
	if match := body["meta"].(map[string]any)["match"].(map[string]any); match["type"] != "exact" || d["street_address"] != "350 5TH AVE" {
		t.Fatalf("q lookup: %v", body)
	}
	id := d["id"]
	before := censusCalls(mt)
	status, body, _ = getJSON(t, m, "/v1/properties/lookup?street=350+Fifth+Avenue&city=New+York&state=NY&zip=10118")
	if status != 200 || body["data"].(map[string]any)["id"] != id || censusCalls(mt) != before ||
		body["meta"].(map[string]any)["match"].(map[string]any)["type"] != "database" {
		t.Fatalf("the same address in fields after q: %d %v, calls %d; want record %v from the database", status, body, censusCalls(mt)-before, id)
	}

	// The fields first, then the line (without commas, the state by name).
	status, body, _ = getJSON(t, m, "/v1/properties/lookup?street=2525+Buckelew+Dr&city=Falls+Church&state=VA&zip=22046")
	if status != 200 {
		t.Fatalf("fields lookup: %d %v", status, body)
	}
	id = body["data"].(map[string]any)["id"]
	before = censusCalls(mt)
	status, body, _ = getJSON(t, m, "/v1/properties/lookup?"+url.Values{"q": {"2525 Buckelew Drive Falls Church Virginia 22046"}}.Encode())
	if status != 200 || body["data"].(map[string]any)["id"] != id || censusCalls(mt) != before {
		t.Fatalf("q after the fields: %d %v, calls %d; want record %v without a call", status, body, censusCalls(mt)-before, id)
	}

	// A batch item in one line.
	status, bbody := postJSON(t, m, "/v1/properties/batch", []byte(`{"addresses":[{"id":"x","q":"4600 Silver Hill Rd, Washington, DC 20233"}]}`))
	results := bbody["data"].(map[string]any)["results"].([]any)
	if status != 200 || len(results) != 1 || results[0].(map[string]any)["street_address"] != "4600 SILVER HILL RD" ||
		mt.GetCallCountInfo()[oneLine] != 2 {
		t.Fatalf("batch q: %d %v", status, bbody)
	}
}

// TestBadAddressInputIsAClearProblem: both forms at once, an empty or huge
// q, a q without a state, control characters: a 4xx JSON problem naming
// the parameter, no geocoder call, nothing created. Unicode is an address
// like any other.
func TestBadAddressInputIsAClearProblem(t *testing.T) {
	mt := matchUpstream()
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), mt)
	for _, c := range []struct {
		query  url.Values
		status int
		params []string
	}{
		{url.Values{"q": {"350 5th Ave, New York, NY"}, "street": {"350 5th Ave"}, "state": {"NY"}}, 400, []string{"q", "street", "state"}},
		{url.Values{"q": {""}}, 400, []string{"q"}},
		{url.Values{"q": {"   "}, "street": {"350 5th Ave"}}, 400, []string{"q", "street"}},
		{url.Values{"q": {strings.Repeat("350 5th Ave ", 20) + ", NY"}}, 400, []string{"q"}},
		{url.Values{"q": {"350 5th Ave, New Yrok"}}, 400, []string{"q"}},
		{url.Values{"q": {"350 5th Ave\x00, NY"}}, 400, []string{"q"}},
		{url.Values{"q": {"PO Box 4, New York, NY 10118"}}, 422, []string{"q"}},
		{url.Values{"street": {"350 5th Ave"}}, 400, []string{"state"}},
	} {
		status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+c.query.Encode())
		var params []string
		errs, _ := body["errors"].([]any)
		for _, e := range errs {
			params = append(params, str(e.(map[string]any)["parameter"]))
		}
		if status != c.status || !slices.Equal(params, c.params) || censusCalls(mt) != 0 {
			t.Errorf("lookup?%s: %d %v, calls %d; want %d naming %v and no call", c.query.Encode(), status, body, censusCalls(mt), c.status, c.params)
		}
	}
	status, body := postJSON(t, m, "/v1/properties/batch", []byte(`{"addresses":[{"id":"a","q":"350 5th Ave, New York, NY","street":"350 5th Ave"},{"id":"b","q":""}]}`))
	errs := body["data"].(map[string]any)["errors"].([]any)
	if status != 200 || len(errs) != 2 || errs[0].(map[string]any)["code"] != "invalid_parameter" ||
		errs[1].(map[string]any)["code"] != "invalid_parameter" || censusCalls(mt) != 0 {
		t.Errorf("batch with both forms and an empty q: %d %v", status, body)
	}
	// Unicode goes to the geocoder as typed: here it knows no such place.
	status, body, _ = getJSON(t, m, "/v1/properties/lookup?"+url.Values{"q": {"7 Calle Ñandú, San Juan, PR 00901"}}.Encode())
	if status != 404 || body["code"] != "address_not_found" || censusCalls(mt) != 1 {
		t.Errorf("unicode q: %d %v", status, body)
	}
	_, body, _ = getJSON(t, m, "/v1/properties/search?per_page=100")
	if total := body["meta"].(map[string]any)["total"]; total != float64(0) {
		t.Errorf("%v records after bad input, want none", total)
	}
}

// TestReverseSaysHowItMatched: a point near a stored record is a
// nearest_record match with its distance; a point with none near is a
// record of the reverse geocoder, which a GET by id still says.
func TestReverseSaysHowItMatched(t *testing.T) {
	mt := matchUpstream()
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), mt)
	if status, body, _ := getJSON(t, m, "/v1/properties/lookup?street=4600+Silver+Hill+Rd&city=Washington&state=DC&zip=20233"); status != 200 {
		t.Fatalf("lookup: %d %v", status, body)
	}
	// About 11 m north of the record.
	status, body, _ := getJSON(t, m, "/v1/properties/reverse?lat=38.846087&lng=-76.927436")
	match, _ := body["meta"].(map[string]any)["match"].(map[string]any)
	if d, _ := match["distance_m"].(float64); status != 200 || match["type"] != "nearest_record" || d < 10 || d > 12 ||
		match["matched_address"] != "4600 SILVER HILL RD, WASHINGTON, DC, 20233" {
		t.Fatalf("reverse near a record: %d %v", status, body)
	}
	// A kilometre away: a new record from the reverse geocoder.
	status, body, _ = getJSON(t, m, "/v1/properties/reverse?lat=38.855&lng=-76.927436")
	match, _ = body["meta"].(map[string]any)["match"].(map[string]any)
	if status != 200 || match["type"] != "reverse_geocode" || body["meta"].(map[string]any)["created"] != true {
		t.Fatalf("reverse with no record near: %d %v", status, body)
	}
	id := body["data"].(map[string]any)["id"].(float64)
	_, body, _ = getJSON(t, m, fmt.Sprintf("/v1/properties/%d", int64(id)))
	if match, _ := body["meta"].(map[string]any)["match"].(map[string]any); match["type"] != "reverse_geocode" {
		t.Fatalf("GET of the reverse-geocoded record: %v", body)
	}
}

// TestImportMatchFlag: -match best imports an ambiguous row as the first
// candidate, -match strict fails a corrected ZIP, and any other value is a
// usage error that changes nothing.
func TestImportMatchFlag(t *testing.T) {
	rows := "street,city,state,zip\n100 Main St,,IL,\n2525 Buckelew Dr,Falls Church,VA,22044\n"

	e := newImportEnv(t, matchPlaces...)
	if r := e.run("-match", "loose", e.file("a.csv", rows)); r.code != exitUsage || r.batchCalls != 0 || !strings.Contains(r.stderr, "-match must be best or strict") {
		t.Fatalf("-match loose: exit %d, %d calls, stderr %q", r.code, r.batchCalls, r.stderr)
	}

	r := e.run("-match", "best", e.file("b.csv", rows))
	if r.code != exitOK || !strings.Contains(r.stdout, "matches:     2 non_exact\n") {
		t.Fatalf("-match best: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	recs := e.records()
	if len(recs) != 2 || recs[0].City != "SPRINGFIELD" {
		t.Fatalf("-match best stored %+v, want Springfield (the first candidate) and Buckelew", recs)
	}
	var m providers.Match
	if err := json.Unmarshal([]byte(recs[0].Match), &m); err != nil || m.Type != "non_exact" || len(m.Candidates) != 1 ||
		m.Candidates[0].MatchedAddress != "100 MAIN ST, PEORIA, IL, 61602" {
		t.Fatalf("-match best recorded %q, want non_exact with Peoria as a candidate", recs[0].Match)
	}

	e2 := newImportEnv(t, matchPlaces...)
	r = e2.run("-match", "strict", e2.file("c.csv", rows))
	fails := readCSV(t, filepath.Join(e2.dir, "c.failures.csv"))
	if r.code != exitRowsFailed || len(fails) != 3 || !strings.HasPrefix(fails[1][4], "ambiguous_address: ") ||
		!strings.HasPrefix(fails[2][4], "inexact_match: ") || len(e2.records()) != 0 {
		t.Fatalf("-match strict: exit %d, failures %q\n%s", r.code, fails, r.stdout)
	}
}
