package main

import (
	"encoding/json"
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
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// One street in two towns of Texas: "500 Twin Oaks Dr, TX" matches both,
// Round Rock first.
var (
	twinOaksRoundRock = providertest.CensusPlace{Street: "500 TWIN OAKS DR", City: "ROUND ROCK", State: "TX", Zip: "78664",
		Lat: 30.5127, Lng: -97.6659, CountyName: "Williamson County", StateFIPS: "48", CountyFIPS: "491", Tract: "020703", Block: "1012"}
	twinOaksDallas = providertest.CensusPlace{Street: "500 TWIN OAKS DR", City: "DALLAS", State: "TX", Zip: "75232",
		Lat: 32.6647, Lng: -96.8462, CountyName: "Dallas County", StateFIPS: "48", CountyFIPS: "113", Tract: "011101", Block: "2004"}
)

// twinOaksRoundRockLine is the canonical address match=best takes.
const twinOaksRoundRockLine = "500 TWIN OAKS DR, ROUND ROCK, TX, 78664"

// twinOaksUpstream is the fake Census geocoder knowing both Twin Oaks.
func twinOaksUpstream() *httpmock.MockTransport {
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, twinOaksRoundRock, twinOaksDallas)
	return mt
}

// ambiguousAsk is one way of asking for an ambiguous spelling: a lookup by
// fields, by one line, or a batch of one item.
type ambiguousAsk struct {
	name string
	// ask sends the spelling with match= (empty: none).
	ask func(t *testing.T, m *Main, match string) ambiguousAnswer
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

var ambiguousAsks = []ambiguousAsk{
	{"street=", func(t *testing.T, m *Main, match string) ambiguousAnswer {
		return lookupAnswer(t, m, url.Values{"street": {"500 Twin Oaks Dr"}, "state": {"TX"}}, match)
	}},
	{"q=", func(t *testing.T, m *Main, match string) ambiguousAnswer {
		return lookupAnswer(t, m, url.Values{"q": {"500 Twin Oaks Dr, TX"}}, match)
	}},
	{"batch item", func(t *testing.T, m *Main, match string) ambiguousAnswer {
		path := "/v1/properties/batch"
		if match != "" {
			path += "?match=" + match
		}
		body, _ := json.Marshal(map[string]any{"addresses": []any{
			map[string]string{"id": "a", "street": "500 Twin Oaks Drive", "state": "Texas"}}})
		status, out := postJSON(t, m, path, body)
		if status != 200 {
			t.Fatalf("batch: %d %v", status, out)
		}
		data, _ := out["data"].(map[string]any)
		results, _ := data["results"].([]any)
		errs, _ := data["errors"].([]any)
		switch {
		case len(results) == 1 && len(errs) == 0:
			r := results[0].(map[string]any)
			match, _ := r["match"].(map[string]any)
			return ambiguousAnswer{status: 200, rec: r, match: match}
		case len(errs) == 1 && len(results) == 0:
			e := errs[0].(map[string]any)
			cands, _ := e["candidates"].([]any)
			return ambiguousAnswer{status: 409, code: str(e["code"]), cands: cands}
		}
		t.Fatalf("batch of one item: %v", out)
		return ambiguousAnswer{}
	}},
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

// candidateAddresses returns the matched_address of each candidate.
func candidateAddresses(cands []any) []string {
	var out []string
	for _, c := range cands {
		if c, ok := c.(map[string]any); ok {
			out = append(out, str(c["matched_address"]))
		}
	}
	return out
}

// TestMatchBestIsNotEveryonesAnswer is issue 36: once one caller took
// the first of two different addresses with match=best, every later
// caller of the same spelling got that record as a database match, even
// under match=strict. The spelling stays ambiguous for callers who did
// not ask for best: plain is 409 with both candidates, strict is 409, and
// neither costs a geocoder call while the answer is remembered
// (cache.miss_ttl); the record best chose is found by its own address.
// By fields, by one line and in a batch, on both engines, and after a
// restart.
func TestMatchBestIsNotEveryonesAnswer(t *testing.T) {
	for _, way := range ambiguousAsks {
		t.Run(strings.ReplaceAll(way.name, "=", ""), func(t *testing.T) {
			eachEngine(t, func(t *testing.T, database string) {
				mt := twinOaksUpstream()
				m := startMain(t, testConfig(t, database), mt)
				calls := func(f func() ambiguousAnswer) (ambiguousAnswer, int) {
					before := censusCalls(mt)
					a := f()
					return a, censusCalls(mt) - before
				}

				best, n := calls(func() ambiguousAnswer { return way.ask(t, m, "best") })
				if best.status != 200 || best.rec["city"] != "ROUND ROCK" || best.match["type"] != "non_exact" ||
					fmt.Sprint(candidateAddresses(asSlice(best.match["candidates"]))) != "[500 TWIN OAKS DR, DALLAS, TX, 75232]" || n != 1 {
					t.Fatalf("match=best: %v, %d geocoder calls; want Round Rock as non_exact with Dallas as its candidate, one call", best, n)
				}
				id := best.rec["id"]

				wantAmbiguous := func(when string, m *Main) {
					t.Helper()
					plain, n := calls(func() ambiguousAnswer { return way.ask(t, m, "") })
					if plain.status != 409 || plain.code != "ambiguous_address" || n != 0 ||
						fmt.Sprint(candidateAddresses(plain.cands)) != "["+twinOaksRoundRockLine+" 500 TWIN OAKS DR, DALLAS, TX, 75232]" {
						t.Errorf("%s, the same spelling without match=: %v, %d geocoder calls; want 409 ambiguous_address with both candidates, no call (remembered)",
							when, plain, n)
					}
					strict, n := calls(func() ambiguousAnswer { return way.ask(t, m, "strict") })
					if strict.status != 409 || strict.code != "ambiguous_address" || n != 0 {
						t.Errorf("%s, the same spelling with match=strict: %v, %d geocoder calls; want 409 ambiguous_address, no call", when, strict, n)
					}
					again, n := calls(func() ambiguousAnswer { return way.ask(t, m, "best") })
					if again.status != 200 || again.rec["id"] != id || again.match["type"] != "non_exact" || n != 0 {
						t.Errorf("%s, match=best again: %v, %d geocoder calls; want record %v, no call", when, again, n, id)
					}
					own, n := calls(func() ambiguousAnswer {
						return lookupAnswer(t, m, url.Values{"q": {"500 Twin Oaks Dr, Round Rock, TX 78664"}}, "")
					})
					if own.status != 200 || own.rec["id"] != id || own.match["type"] != "database" || n != 0 {
						t.Errorf("%s, the record's own address: %v, %d geocoder calls; want record %v from the database", when, own, n, id)
					}
					strictOwn, _ := calls(func() ambiguousAnswer {
						return lookupAnswer(t, m, url.Values{"street": {"500 Twin Oaks Dr"}, "city": {"Round Rock"}, "state": {"TX"}, "zip": {"78664"}}, "strict")
					})
					if strictOwn.status != 200 || strictOwn.rec["id"] != id {
						t.Errorf("%s, the record's own address with match=strict: %v; want record %v", when, strictOwn, id)
					}
				}
				wantAmbiguous("after match=best", m)

				m.Close()
				m = startMain(t, testConfig(t, database), mt)
				wantAmbiguous("after a restart", m)

				_, body, _ := getJSON(t, m, "/v1/properties/search?state=TX")
				if total := body["meta"].(map[string]any)["total"]; total != float64(1) {
					t.Errorf("%v records in TX, want 1 (the one match=best made)", total)
				}
			})
		})
	}
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

// TestMatchBestIsNotEveryonesAnswerInAFleet: two instances on one
// PostgreSQL database and one Redis. After match=best on one, the plain
// spelling on the other is still 409 with both candidates, and strict
// 409, without a geocoder call (the ambiguous answer is remembered in the
// shared database, not as the spelling's record); the record best chose
// is found by its own address on both.
func TestMatchBestIsNotEveryonesAnswerInAFleet(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	database := pgtest.Schema(t)
	mt := twinOaksUpstream()
	var mains []*Main
	for range 2 {
		cfg := testConfig(t, database)
		cfg.Redis = RedisConfig{URL: u, Prefix: prefix}
		mains = append(mains, startMain(t, cfg, mt))
	}
	q := url.Values{"street": {"500 Twin Oaks Dr"}, "state": {"TX"}}
	best := lookupAnswer(t, mains[0], q, "best")
	if best.status != 200 || best.rec["city"] != "ROUND ROCK" || censusCalls(mt) != 1 {
		t.Fatalf("match=best on instance 0: %v, %d geocoder calls", best, censusCalls(mt))
	}
	for i, m := range mains {
		for _, match := range []string{"", "strict"} {
			before := censusCalls(mt)
			a := lookupAnswer(t, m, q, match)
			if n := censusCalls(mt) - before; a.status != 409 || a.code != "ambiguous_address" || len(a.cands) != 2 || n != 0 {
				t.Errorf("instance %d, match=%q after match=best on instance 0: %v, %d geocoder calls; want 409 ambiguous_address with 2 candidates, no call",
					i, match, a, n)
			}
		}
		own := lookupAnswer(t, m, url.Values{"q": {"500 Twin Oaks Dr, Round Rock, TX 78664"}}, "")
		if own.status != 200 || own.rec["id"] != best.rec["id"] || own.match["type"] != "database" {
			t.Errorf("instance %d, the record's own address: %v; want record %v from the database", i, own, best.rec["id"])
		}
	}
	if n := censusCalls(mt); n != 1 {
		t.Errorf("the fleet made %d geocoder calls, want 1 (match=best's)", n)
	}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }
