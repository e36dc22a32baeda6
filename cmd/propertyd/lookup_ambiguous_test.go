package main

import (
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// One street in two towns of Texas: "500 Twin Oaks Dr, TX" matches both,
// Round Rock first.
var (
	twinOaksRoundRock = providertest.CensusPlace{Street: "500 TWIN OAKS DR", City: "ROUND ROCK", State: "TX", Zip: "78664",
		Lat: 30.5127, Lng: -97.6659, CountyName: "Williamson County", StateFIPS: "48", CountyFIPS: "491", Tract: "020703", Block: "1012"}
	twinOaksDallas = providertest.CensusPlace{Street: "500 TWIN OAKS DR", City: "DALLAS", State: "TX", Zip: "75232",
		Lat: 32.6647, Lng: -96.8462, CountyName: "Dallas County", StateFIPS: "48", CountyFIPS: "113", Tract: "011101", Block: "2004"}
)

// twinOaksUpstream is the fake Census geocoder knowing both Twin Oaks.
func twinOaksUpstream() *httpmock.MockTransport {
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, twinOaksRoundRock, twinOaksDallas)
	return mt
}

// ambiguousAnswer is what a user saw of one lookup or batch item: the
// status (a batch item's: 200 for a result, 409 for an ambiguous_address
// or inexact_match entry), the record and its match, or the error code
// and its candidates.
type ambiguousAnswer struct {
	status int
	rec    map[string]any
	match  map[string]any
	code   string
	cands  []any
}

func (a ambiguousAnswer) String() string {
	return fmt.Sprintf("status %d, record %v, match %v, code %q, candidates %v", a.status, a.rec, a.match, a.code, a.cands)
}

// lookupAnswer sends GET /v1/properties/lookup with q and match= (q is
// left as it was).
func lookupAnswer(t *testing.T, m *Main, q url.Values, match string) ambiguousAnswer {
	t.Helper()
	if match != "" {
		q = maps.Clone(q)
		q.Set("match", match)
	}
	status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
	a := ambiguousAnswer{status: status, code: str(body["code"])}
	a.cands, _ = body["candidates"].([]any)
	a.rec, _ = body["data"].(map[string]any)
	if meta, ok := body["meta"].(map[string]any); ok {
		a.match, _ = meta["match"].(map[string]any)
	}
	return a
}

// TestMatchBestIsNotRememberedWithoutMissTTL: with nothing remembered
// (a negative cache.miss_ttl), a plain lookup after match=best asks the
// geocoder again and is still 409 with the candidates: the spelling is
// not an alias of the record best chose.
func TestMatchBestIsNotRememberedWithoutMissTTL(t *testing.T) {
	mt := twinOaksUpstream()
	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	cfg.Cache.MissTTL = Duration(-time.Second)
	m := startMain(t, cfg, mt)
	q := url.Values{"street": {"500 Twin Oaks Dr"}, "state": {"TX"}}
	if best := lookupAnswer(t, m, q, "best"); best.status != 200 || best.rec["city"] != "ROUND ROCK" {
		t.Fatalf("match=best: %v", best)
	}
	for range 2 {
		before := censusCalls(mt)
		plain := lookupAnswer(t, m, q, "")
		if n := censusCalls(mt) - before; plain.status != 409 || plain.code != "ambiguous_address" || len(plain.cands) != 2 || n != 1 {
			t.Fatalf("without match= after match=best: %v, %d geocoder calls; want 409 ambiguous_address with 2 candidates, one call", plain, n)
		}
	}
}

// TestImportMatchBestIsNotEveryonesAnswer: a row imported with -match
// best does not make its spelling answer for later imports or lookups
// without it.
func TestImportMatchBestIsNotEveryonesAnswer(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		e := newImportEnvOn(t, database, twinOaksRoundRock, twinOaksDallas)
		rows := "street,city,state,zip\n500 Twin Oaks Dr,,TX,\n"
		if r := e.run("-match", "best", e.file("best.csv", rows)); r.code != exitOK || !strings.Contains(r.stdout, "1 non_exact") {
			t.Fatalf("-match best: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		r := e.run(e.file("plain.csv", rows))
		fails := readCSV(t, filepath.Join(e.dir, "plain.failures.csv"))
		if r.code != exitRowsFailed || len(fails) != 2 || !strings.HasPrefix(fails[1][len(fails[1])-1], "ambiguous_address: ") {
			t.Fatalf("a plain import after -match best: exit %d, failures %q; want the row failed as ambiguous_address\n%s", r.code, fails, r.stdout)
		}
		if recs := e.records(); len(recs) != 1 || recs[0].City != "ROUND ROCK" {
			t.Fatalf("records %+v, want Round Rock alone", recs)
		}

		mt := twinOaksUpstream()
		m := startMain(t, testConfig(t, database), mt)
		if a := lookupAnswer(t, m, url.Values{"street": {"500 Twin Oaks Dr"}, "state": {"TX"}}, ""); a.status != 409 || len(a.cands) != 2 {
			t.Fatalf("a lookup after the -match best import: %v; want 409 ambiguous_address with both candidates", a)
		}
	})
}
