package main

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// The Cook County fixture (providers/assessor/testdata) in the Assessor's
// published columns.
var cookFiles = []string{
	filepath.Join("..", "..", "providers", "assessor", "testdata", "cook-county", "characteristics.csv"),
	filepath.Join("..", "..", "providers", "assessor", "testdata", "cook-county", "addresses.csv"),
}

func chicagoPlace(street string, lat float64) providertest.CensusPlace {
	return providertest.CensusPlace{Street: street, City: "CHICAGO", State: "IL", Zip: "60625", Lat: lat, Lng: -87.7084,
		CountyName: "Cook County", StateFIPS: "17", CountyFIPS: "031", Tract: "140400", Block: "1001"}
}

func chicagoUpstreams() *httpmock.MockTransport {
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL,
		chicagoPlace("4417 N KEDZIE AVE", 41.9621), chicagoPlace("4421 N KEDZIE AVE", 41.9622))
	return mt
}

func factsConfigFile(t *testing.T, database string) string {
	t.Helper()
	shipped, err := os.ReadFile(filepath.Join("..", "..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(shipped), `database: "${PROPERTYD_DATABASE:-data/propertyd.db}"`, fmt.Sprintf("database: %q", database), 1)
	cfg += "\nfacts:\n  refresh: 1s\n  datasets:\n    - {name: cook, preset: cook-county, as_of: \"2026-09-30\"}\n"
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDataLoadParcelsServesFactsOnEveryInstance(t *testing.T) {
	eachEngine(t, testDataLoadParcelsServesFactsOnEveryInstance)
}

// A record looked up (and held in memory) before a load shows the load's
// facts within facts.refresh on every instance sharing the database; a
// record looked up after the load has them at once, with one geocoder
// call and nothing else; data status lists the dataset.
func testDataLoadParcelsServesFactsOnEveryInstance(t *testing.T, database string) {
	path := factsConfigFile(t, database)
	t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
	load := func() *Config {
		cfg, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	mt := chicagoUpstreams()
	a, b := startMain(t, load(), mt), startMain(t, load(), chicagoUpstreams())
	q := url.Values{"street": {"4417 N Kedzie Ave"}, "city": {"Chicago"}, "state": {"IL"}}
	status, body, _ := getJSON(t, a, "/v1/properties/lookup?"+q.Encode())
	if status != 200 {
		t.Fatalf("lookup: %d %v", status, body)
	}
	rec := body["data"].(map[string]any)
	if rec["bedrooms"] != nil || rec["facts"] != nil || rec["year_built"] != nil {
		t.Fatalf("before any load the record has facts: %v", rec)
	}
	id := fmt.Sprint(rec["id"])
	for _, m := range []*Main{a, b} { // both hold the record and its answer in memory
		if status, _, _ := getJSON(t, m, "/v1/properties/"+id); status != 200 {
			t.Fatal(status)
		}
	}

	fails := filepath.Join(t.TempDir(), "cook.failures.csv")
	var out, errb bytes.Buffer
	c := &dataCommand{console{stdout: &out, stderr: &errb}}
	code := c.run([]string{"load", "parcels", "-config", path, "-dataset", "cook", "-failures", fails, cookFiles[0], cookFiles[1]})
	// Six rows of the fixture fail: the load exits 4, as an import does.
	if code != exitRowsFailed || !strings.Contains(out.String(), "rows kept:      228") || !strings.Contains(out.String(), "source:         cook-county-assessor") {
		t.Fatalf("load: exit %d\n%s\n%s", code, out.String(), errb.String())
	}

	deadline := time.Now().Add(5 * time.Second)
	for _, m := range []*Main{a, b} {
		for {
			_, body, _ := getJSON(t, m, "/v1/properties/"+id)
			d := body["data"].(map[string]any)
			if d["bedrooms"] == float64(3) {
				if d["bathrooms"] != 1.5 || d["year_built"] != float64(1926) || d["living_area_sqft"] != float64(1210) ||
					d["property_type"] != "single_family" {
					t.Fatalf("record after the load: %v", d)
				}
				facts := d["facts"].(map[string]any)
				if facts["source"] != "cook-county-assessor" || facts["as_of"] != "2026-09-30" {
					t.Fatalf("facts provenance %v", facts)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the instance still serves %v 5 s after the load (facts.refresh is 1s)", d)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	// Looked up after the load: the facts at once, one geocoder call.
	before := mt.GetTotalCallCount()
	q.Set("street", "4421 N Kedzie Ave")
	_, body, _ = getJSON(t, a, "/v1/properties/lookup?"+q.Encode())
	d := body["data"].(map[string]any)
	if d["bedrooms"] != float64(4) || d["year_built"] != float64(1912) {
		t.Fatalf("a record created after the load: %v", d)
	}
	if n := mt.GetTotalCallCount() - before; n != 1 {
		t.Fatalf("the lookup made %d upstream calls, want 1 (the geocoder)", n)
	}

	out.Reset()
	if code := c.run([]string{"status", "-config", path}); code != exitOK ||
		!strings.Contains(out.String(), "cook") || !strings.Contains(out.String(), "228") || !strings.Contains(out.String(), "2026-09-30") {
		t.Fatalf("status: exit %d\n%s", code, out.String())
	}
	// Again: nothing to do.
	out.Reset()
	if code := c.run([]string{"load", "parcels", "-config", path, "-dataset", "cook", "-failures", fails, cookFiles[1], cookFiles[0]}); code != exitOK ||
		!strings.Contains(out.String(), "already loaded") {
		t.Fatalf("second load: exit %d\n%s", code, out.String())
	}
}

func TestDataLoadParcelsRefusesBadInvocations(t *testing.T) {
	path := factsConfigFile(t, filepath.Join(t.TempDir(), "p.db"))
	mapping := filepath.Join(t.TempDir(), "config.yaml")
	shipped, _ := os.ReadFile(path)
	os.WriteFile(mapping, append(shipped, []byte(`    - name: mine
      key: [pin]
      address: {street: [prop_address_full], zip: prop_address_zipcode_1, default_state: IL}
      fields: {bedrooms: char_bedz}
`)...), 0o644)
	// An executable's first bytes, then text that could pass for a header.
	binary := filepath.Join(t.TempDir(), "parcels.csv")
	os.WriteFile(binary, append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x03\x00>\x00"), "PARID,ADDRESS\n"...), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no dataset", []string{"-config", path, cookFiles[0]}, exitUsage, "-dataset is required"},
		{"no files", []string{"-config", path, "-dataset", "cook"}, exitUsage, "give the dataset's file(s)"},
		{"undeclared without preset", []string{"-config", path, "-dataset", "nope", cookFiles[0]}, exitUsage, `no dataset "nope"`},
		{"unknown preset", []string{"-config", path, "-preset", "atlantis", cookFiles[0]}, exitUsage, `unknown preset "atlantis"`},
		{"one file of two", []string{"-config", path, "-dataset", "cook", cookFiles[0]}, exitUsage, "takes 2 file(s)"},
		{"missing column", []string{"-config", mapping, "-dataset", "mine", cookFiles[1]}, exitUsage, "addresses.csv: the file has no column char_bedz (its columns: pin, "},
		{"a binary file", []string{"-config", path, "-preset", "allegheny", binary}, exitUsage, "the file is not CSV text: it starts with bytes of a binary file"},
		{"bad as-of", []string{"-config", path, "-dataset", "cook", "-as-of", "yesterday", cookFiles[0], cookFiles[1]}, exitUsage, `-as-of "yesterday" is not a date`},
		{"as-of month 13", []string{"-config", path, "-dataset", "cook", "-as-of", "2025-13-45", cookFiles[0], cookFiles[1]}, exitUsage, `-as-of "2025-13-45" is not a date`},
		{"as-of February 30", []string{"-config", path, "-dataset", "cook", "-as-of", "2025-02-30", cookFiles[0], cookFiles[1]}, exitUsage, `-as-of "2025-02-30" is not a date`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			c := &dataCommand{console{stdout: &out, stderr: &errb}}
			code := c.run(append([]string{"load", "parcels"}, tc.args...))
			if code != tc.code || !strings.Contains(errb.String(), tc.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", code, errb.String(), tc.code, tc.msg)
			}
			if i := strings.IndexFunc(errb.String(), func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r == 0x7f }); i >= 0 {
				t.Fatalf("stderr shows a raw byte at %d: %q", i, errb.String())
			}
		})
	}
}
