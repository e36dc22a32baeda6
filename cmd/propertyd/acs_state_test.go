package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
	"github.com/propertyd/propertyd/store"
)

// acsStatePlaces are n addresses in n tracts of Richmond, Virginia, each
// with ACS figures, plus one address in a tract the ACS lacks.
func acsStatePlaces(n int) (places []providertest.CensusPlace, tracts map[string]map[string]string, lacking providertest.CensusPlace) {
	tracts = map[string]map[string]string{}
	for i := range n + 1 {
		p := providertest.CensusPlace{Street: fmt.Sprintf("%d E MAIN ST", 100+i), City: "RICHMOND", State: "VA", Zip: "23219",
			Lat: 37.5 + float64(i)/1000, Lng: -77.4, CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760",
			Tract: fmt.Sprintf("%06d", 10100+i), Block: "1001"}
		if i == n {
			lacking = p
			break
		}
		places = append(places, p)
		acs := map[string]string{}
		for _, v := range append(append([]string{}, censusacs.DemographicsVariables...), censusacs.HousingVariables...) {
			acs[v] = "100"
		}
		acs[censusacs.VarPopulation] = fmt.Sprint(1000 + i)
		tracts["51760"+p.Tract] = acs
	}
	return places, tracts, lacking
}

func acsStateUpstreams(n int) (*httpmock.MockTransport, []providertest.CensusPlace, providertest.CensusPlace) {
	places, tracts, lacking := acsStatePlaces(n)
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, append(places, lacking)...)
	providertest.RegisterACS(mt, censusacs.DefaultBaseURL, tracts)
	return mt, places, lacking
}

func acsLookup(t *testing.T, m *Main, p providertest.CensusPlace) map[string]any {
	t.Helper()
	q := url.Values{"street": {p.Street}, "city": {p.City}, "state": {p.State}, "include": {"demographics,housing"}}
	status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
	if status != 200 {
		t.Fatalf("lookup of %s: %d %v", p.Street, status, body)
	}
	return body
}

func sectionMeta(body map[string]any, name string) map[string]any {
	return body["meta"].(map[string]any)["sections"].(map[string]any)[name].(map[string]any)
}

// TestLookupsInOneStateMakeTwoACSCalls: lookups of properties in many
// tracts of one state, at once, cost two ACS calls (one per table set)
// whatever the number of tracts; a tract the state's answer lacks is
// tract_not_found without another call; after a restart nothing is asked.
func TestLookupsInOneStateMakeTwoACSCalls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	mt, places, lacking := acsStateUpstreams(12)
	m := startMain(t, testConfig(t, path), mt)
	var wg sync.WaitGroup
	for _, p := range places {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := acsLookup(t, m, p)
			for _, sec := range []string{"demographics", "housing"} {
				if meta := sectionMeta(body, sec); meta["status"] != "ok" {
					t.Errorf("%s of %s: %v", sec, p.Street, meta)
				}
			}
		}()
	}
	wg.Wait()
	if n := providertest.ACSCalls(mt, censusacs.DefaultBaseURL); n != 2 {
		t.Fatalf("%d lookups in %d tracts of Virginia made %d ACS calls, want 2 (one per table set)", len(places), len(places), n)
	}
	body := acsLookup(t, m, lacking)
	for _, sec := range []string{"demographics", "housing"} {
		if meta := sectionMeta(body, sec); meta["status"] != "unavailable" || meta["error"] != "tract_not_found" {
			t.Fatalf("%s of a tract the ACS lacks: %v, want unavailable with tract_not_found", sec, meta)
		}
	}
	if n := providertest.ACSCalls(mt, censusacs.DefaultBaseURL); n != 2 {
		t.Fatalf("a tract missing from the state's answer made %d more ACS calls, want 0", n-2)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	mt2, _, _ := acsStateUpstreams(12)
	m2 := startMain(t, testConfig(t, path), mt2)
	for _, p := range append(places[:3], lacking) {
		acsLookup(t, m2, p)
	}
	if n := providertest.ACSCalls(mt2, censusacs.DefaultBaseURL); n != 0 {
		t.Fatalf("after a restart, lookups made %d ACS calls, want 0", n)
	}
}

// TestAnACSAnswerWithoutTractsIsNotRemembered: the ACS answering a
// state-wide query with 204, an empty body or a header alone is a bad
// answer, not a state without tracts: the sections are unavailable with
// upstream_bad_response and not charged, nothing is stored (no value, no
// mark that the state was loaded), and the next lookup in the state asks
// the ACS again, which then answers.
func TestAnACSAnswerWithoutTractsIsNotRemembered(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"204", http.StatusNoContent, ""},
		{"empty 200", http.StatusOK, ""},
		{"header alone", http.StatusOK, `[["NAME","B01003_001E","state","county","tract"]]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.db")
			places, tracts, _ := acsStatePlaces(2)
			mt := httpmock.NewMockTransport()
			providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, places...)
			providertest.RegisterACSError(mt, censusacs.DefaultBaseURL, tc.status, tc.body, http.Header{"Content-Type": {"application/json;charset=utf-8"}})
			m := startMain(t, testConfig(t, path), mt)

			q := url.Values{"street": {places[0].Street}, "city": {places[0].City}, "state": {places[0].State}, "include": {"demographics,housing"}}
			status, body, hdr := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
			if status != 200 {
				t.Fatalf("lookup: %d %v", status, body)
			}
			for _, sec := range []string{"demographics", "housing"} {
				if meta := sectionMeta(body, sec); meta["status"] != "unavailable" || meta["error"] != "upstream_bad_response" {
					t.Errorf("%s after an ACS answer without tracts: %v, want unavailable with upstream_bad_response", sec, meta)
				}
			}
			if got := hdr.Get("X-Request-Cost"); got != "1" {
				t.Errorf("X-Request-Cost = %s, want 1: the two failed sections are not charged", got)
			}
			called := providertest.ACSCalls(mt, censusacs.DefaultBaseURL)
			if called == 0 {
				t.Fatal("the lookup made no ACS call")
			}
			if n := storedSections(t, m, "demographics", "housing", "loaded:"); n != 0 {
				t.Fatalf("the empty answer left %d stored values or loaded marks", n)
			}

			// The ACS answers again: the next lookup in the state asks it
			// and gets the tract's figures.
			providertest.RegisterACS(mt, censusacs.DefaultBaseURL, tracts)
			q.Set("street", places[1].Street)
			_, body, _ = getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
			for _, sec := range []string{"demographics", "housing"} {
				if meta := sectionMeta(body, sec); meta["status"] != "ok" {
					t.Errorf("%s once the ACS answers: %v, want ok", sec, meta)
				}
			}
			if providertest.ACSCalls(mt, censusacs.DefaultBaseURL) == 0 {
				t.Fatal("the next lookup in the state made no ACS call")
			}
		})
	}
}

// storedSections counts the section values m's database holds whose
// section starts with one of prefixes.
func storedSections(t *testing.T, m *Main, prefixes ...string) int {
	t.Helper()
	recs, err := m.db.ListSections(context.Background(), "", "", 10000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		for _, p := range prefixes {
			if strings.HasPrefix(r.Section, p) {
				n++
				break
			}
		}
	}
	return n
}

func runDataLoad(t *testing.T, mt http.RoundTripper, args ...string) (int, string, string) {
	t.Helper()
	return runDataLoadWith(t, filepath.Join("..", "..", "config.yaml"), mt, args...)
}

func runDataLoadWith(t *testing.T, config string, mt http.RoundTripper, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &dataCommand{console{stdout: &out, stderr: &errb, transport: mt}}
	code := c.run(append([]string{"load", "acs", "-config", config}, args...))
	return code, out.String(), errb.String()
}

// TestDataLoadsSharingARedisAskOncePerState: two loads of one state at
// once (two operators, or a load beside a serving fleet) on one database
// and one Redis make one ACS call per table set between them, not one
// each: the load takes the fleet's lease of the state as an instance
// does, and the one that waited finds the state loaded.
func TestDataLoadsSharingARedisAskOncePerState(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	dir := t.TempDir()
	t.Setenv("PROPERTYD_DATABASE", filepath.Join(dir, "p.db"))
	shipped, err := os.ReadFile(filepath.Join("..", "..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "config.yaml")
	redis := fmt.Sprintf("\nredis:\n  url: %q\n  prefix: %q\n", u, prefix)
	if err := os.WriteFile(config, append(shipped, redis...), 0o644); err != nil {
		t.Fatal(err)
	}
	mt, _, _ := acsStateUpstreams(5)
	slow := &slowUpstreams{next: mt, delay: 300 * time.Millisecond, calls: map[string]int{}}
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, errOut := runDataLoadWith(t, config, slow, "-states", "VA")
			if code != exitOK {
				t.Errorf("load %d: exit %d\n%s\n%s", i, code, out, errOut)
			}
			outs[i] = out
		}()
	}
	wg.Wait()
	if n := providertest.ACSCalls(mt, censusacs.DefaultBaseURL); n != 2 {
		t.Fatalf("two loads of Virginia at once made %d ACS calls, want 2 (one per table set)\n%s\n%s", n, outs[0], outs[1])
	}
	if total := strings.Count(outs[0]+outs[1], "5 tracts stored"); total != 2 {
		t.Fatalf("the loads stored each table set %d times between them, want 2 (once each):\n%s\n%s", total, outs[0], outs[1])
	}
}

// TestDataLoadACSThenLookupsMakeNoACSCall: after "data load acs -states
// VA", lookups anywhere in Virginia make no ACS call, and loading again
// asks nobody.
func TestDataLoadACSThenLookupsMakeNoACSCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	t.Setenv("PROPERTYD_DATABASE", path)
	mt, places, lacking := acsStateUpstreams(5)
	code, out, errOut := runDataLoad(t, mt, "-states", "va")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "VA  demographics  5 tracts stored") || !strings.Contains(out, "VA  housing       5 tracts stored") ||
		!strings.Contains(out, "upstream calls: 2") {
		t.Fatalf("summary:\n%s", out)
	}
	if n := providertest.ACSCalls(mt, censusacs.DefaultBaseURL); n != 2 {
		t.Fatalf("the load made %d ACS calls, want 2", n)
	}
	code, out, _ = runDataLoad(t, mt, "-states", "VA")
	if code != exitOK || !strings.Contains(out, "already loaded") || !strings.Contains(out, "upstream calls: 0") {
		t.Fatalf("second load: exit %d\n%s", code, out)
	}

	m := startMain(t, testConfig(t, path), mt)
	before := providertest.ACSCalls(mt, censusacs.DefaultBaseURL)
	for _, p := range append(places, lacking) {
		body := acsLookup(t, m, p)
		if p.Street != lacking.Street && sectionMeta(body, "housing")["cache"] != "hit" {
			t.Errorf("housing of %s after the load: %v", p.Street, sectionMeta(body, "housing"))
		}
	}
	if n := providertest.ACSCalls(mt, censusacs.DefaultBaseURL) - before; n != 0 {
		t.Fatalf("lookups after data load acs made %d ACS calls, want 0", n)
	}
}

// TestDataLoadACSRejectsBadStates: a -states value that names no state the
// ACS covers is a usage error naming it; nothing is loaded or stored.
func TestDataLoadACSRejectsBadStates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.db")
	t.Setenv("PROPERTYD_DATABASE", path)
	mt, _, _ := acsStateUpstreams(2)
	for _, c := range []struct{ value, want string }{
		{"", "-states is empty"},
		{" ", "-states is empty"},
		{"XX", `unknown state "XX"`},
		{"CA,,TX", "empty entry"},
		{"California", `unknown state "California"`},
		{"CA'; DROP TABLE sections;--", `unknown state "CA'; DROP TABLE sections;--"`},
		{"VA,06", `unknown state "06"`},
		{"GU", "no tract figures for GU"},
	} {
		code, out, errOut := runDataLoad(t, mt, "-states", c.value)
		if code != exitUsage || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("-states %q: exit %d, stderr %q; want exit 2 saying %q", c.value, code, firstLineOf(errOut), c.want)
		}
	}
	if code, _, errOut := runDataLoad(t, mt, "-states", "VA", "extra"); code != exitUsage || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Errorf("extra argument: exit %d %q", code, firstLineOf(errOut))
	}
	if n := providertest.ACSCalls(mt, censusacs.DefaultBaseURL); n != 0 {
		t.Fatalf("rejected loads made %d ACS calls", n)
	}
	if _, err := os.Stat(path); err == nil {
		db, err := store.Open(context.Background(), path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, sections, _ := db.Counts(context.Background()); sections != 0 {
			t.Fatalf("rejected loads stored %d section values", sections)
		}
	}
}

func firstLineOf(s string) string { line, _, _ := strings.Cut(s, "\n"); return line }
