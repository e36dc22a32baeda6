package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/census"
	"github.com/propertyd/propertyd/providers/core"
	"github.com/propertyd/propertyd/providers/providertest/sandbox"
)

// The cold scenarios depend on every generated place being a new address
// the sandbox's geocoder matches, at a point and in a tract of its own.
func TestSyntheticPlacesAreNewAddressesTheSandboxGeocodes(t *testing.T) {
	base := sandbox.DefaultPlaces()
	synth := syntheticPlaces(base, 40)
	all := append(append([]sandbox.Place(nil), base...), synth...)

	// The sandbox's own checks accept the whole list.
	doc, err := json.Marshal(map[string]any{"places": all})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.ParsePlaces(doc); err != nil {
		t.Fatalf("the sandbox rejects the generated places: %v", err)
	}

	srv := httptest.NewServer(sandbox.New(all, sandbox.Options{}))
	defer srv.Close()
	geo, err := census.New(providers.Settings{BaseURL: sandbox.BaseURLs(srv.URL)["geocoder"], Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	points, tracts := map[string]string{}, map[string]string{}
	for _, p := range base {
		points[p.Point().Key()] = p.ID
	}
	for _, p := range synth {
		loc, err := geo.Geocode(context.Background(), p.Address())
		if err != nil {
			t.Fatalf("geocoding %s (%s): %v; the cold lookups would fail", p.ID, p.Street, err)
		}
		if loc.Street != p.Street || loc.Point.Key() != p.Point().Key() || loc.CensusTract != p.Tract {
			t.Errorf("%s geocoded to %s at %s in tract %s, want %s at %s in %s",
				p.ID, loc.Street, loc.Point.Key(), loc.CensusTract, p.Street, p.Point().Key(), p.Tract)
		}
		if other, dup := points[p.Point().Key()]; dup {
			t.Errorf("%s shares its point with %s: its flood and amenities would be cached already", p.ID, other)
		}
		points[p.Point().Key()] = p.ID
		if other, dup := tracts[p.CensusTract().GEOID()]; dup {
			t.Errorf("%s shares its tract with %s: its demographics would be cached already", p.ID, other)
		}
		tracts[p.CensusTract().GEOID()] = p.ID
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(1, 2, 3, 4, 5), 50, 3 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 100, 10 * time.Millisecond},
		{ms(1, 2, 3), 0, 1 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
		}
	}
}

func TestWriteBlockKeepsTheTextAroundIt(t *testing.T) {
	blk := func(s string) string { return beginMarker + "\n" + s + "\n" + endMarker + "\n" }
	tests := []struct {
		name, old, want string
	}{
		{"new file", "", blk("new")},
		{"no markers: appended", "# Title\n", "# Title\n\n" + blk("new")},
		{"replaced in place", "# Title\n\n" + blk("old table") + "\n## Why\nanalysis\n",
			"# Title\n\n" + blk("new") + "\n## Why\nanalysis\n"},
	}
	for _, tt := range tests {
		got := string(replaceBlock([]byte(tt.old), blk("new")))
		if got != tt.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
}

func TestConfigPointsEveryUpstreamRoleAtTheSandbox(t *testing.T) {
	const root = "http://127.0.0.1:9999"
	var cfg struct {
		BatchConcurrency int `yaml:"batch_concurrency"`
		Keys             []struct {
			SHA256 string  `yaml:"sha256"`
			Rate   float64 `yaml:"rate"`
			Burst  int     `yaml:"burst"`
		} `yaml:"keys"`
		Cache struct {
			MaxMB int `yaml:"max_mb"`
		} `yaml:"cache"`
		Providers map[string]struct {
			Module   string `yaml:"module"`
			BaseURL  string `yaml:"base_url"`
			Disabled bool   `yaml:"disabled"`
		} `yaml:"providers"`
	}
	dec := yaml.NewDecoder(strings.NewReader(configYAML("/tmp/x.db", root, 48, 13)))
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.BatchConcurrency != 13 {
		t.Errorf("batch_concurrency = %d, want the -batch-concurrency value 13", cfg.BatchConcurrency)
	}
	var plain map[string]any
	if err := yaml.Unmarshal([]byte(configYAML("/tmp/x.db", root, 48, 0)), &plain); err != nil {
		t.Fatal(err)
	}
	if _, set := plain["batch_concurrency"]; set {
		t.Error("batch_concurrency is set without -batch-concurrency: the run would not measure propertyd's default")
	}
	want := sandbox.BaseURLs(root)
	for role, p := range cfg.Providers {
		switch {
		case p.Disabled, p.Module == "osm-walk":
			if p.BaseURL != "" {
				t.Errorf("%s has base_url %q but calls no upstream", role, p.BaseURL)
			}
		case p.BaseURL != want[role]:
			t.Errorf("%s calls %q, want the sandbox's %q: the bench would reach the internet", role, p.BaseURL, want[role])
		}
	}
	for _, role := range core.Roles() {
		if _, ok := cfg.Providers[string(role)]; !ok {
			t.Errorf("role %s of the catalogue is not configured: the bench's include=%s would find it unavailable", role, allSections)
		}
	}
	for role := range cfg.Providers {
		if _, ok := core.EntryOf(providers.Role(role)); !ok {
			t.Errorf("providers.%s is configured, but the catalogue has no such role", role)
		}
	}
	if cfg.Cache.MaxMB != 48 {
		t.Errorf("cache.max_mb = %d, want the -cache-mb value 48", cfg.Cache.MaxMB)
	}
	if len(cfg.Keys) != 1 || cfg.Keys[0].Burst < 1000 || cfg.Keys[0].Rate < 1e6 {
		t.Errorf("keys = %+v: the bench key's budget must never throttle the load", cfg.Keys)
	}
}

func TestSmokeShrinksOnlyWhatIsNotSet(t *testing.T) {
	o, err := parseFlags([]string{"-smoke", "-rows", "1234"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.rows != 1234 || o.duration != time.Second || o.cold != 5 || o.rounds != 1 {
		t.Errorf("smoke options = %+v, want rows 1234 as given and the small defaults otherwise", o)
	}
	o, err = parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.rows != 1_000_000 || o.duration != 10*time.Second || o.latency != 100*time.Millisecond {
		t.Errorf("full options = %+v, want a million rows, 10s runs and L = 100ms", o)
	}
	if _, err := parseFlags([]string{"-rows", "0"}, io.Discard); err == nil {
		t.Error("-rows 0 was accepted")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// The bare baseline must answer with exactly the bytes it was given.
func TestBareAppSendsTheGivenBytes(t *testing.T) {
	dir := t.TempDir()
	body := []byte(`{"data":{"id":1},"meta":{"source":"census"}}`)
	if err := os.WriteFile(filepath.Join(dir, "get.json"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	app, err := bareApp(dir)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/get", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !bytes.Equal(got, body) || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("bare GET /get = %d %q %q, want 200 application/json %q", resp.StatusCode, resp.Header.Get("Content-Type"), got, body)
	}
	resp, err = app.Test(httptest.NewRequest(http.MethodGet, "/nope", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("bare GET /nope = %d, want 404", resp.StatusCode)
	}
}

func TestWorstSecondComparesTheSameSecondOfEachLoop(t *testing.T) {
	ms := time.Millisecond
	// Second 2 is propertyd's worst relative to bare Fiber's same second,
	// though not its worst absolute; the fourth second has no bare pair.
	r, s := worstSecond([]time.Duration{2 * ms, 9 * ms, 3 * ms, 50 * ms}, []time.Duration{2 * ms, 6 * ms, 1 * ms})
	if r != 3 || s != 2 {
		t.Fatalf("worstSecond = %.2f at %d, want 3.00 at 2", r, s)
	}
	if r, _ := worstSecond(nil, []time.Duration{ms}); r != 0 {
		t.Fatalf("no seconds compared gave %.2f", r)
	}
}

// A worker's due time that falls in the idle rest of a period moves to
// the same instant of the next sending time, so the workers stay
// staggered; the loop sends on for every period, in all.
func TestSlotsSkipTheIdleRestOfEachPeriod(t *testing.T) {
	start := time.Unix(1000, 0)
	s := slots{start: start, end: start.Add(4 * time.Second), on: time.Second, period: 2 * time.Second}
	for _, c := range []struct {
		at, want time.Duration
		ok       bool
	}{
		{0, 0, true},
		{999 * time.Millisecond, 999 * time.Millisecond, true},
		{1000 * time.Millisecond, 2000 * time.Millisecond, true},
		{1300 * time.Millisecond, 2300 * time.Millisecond, true},
		{2500 * time.Millisecond, 2500 * time.Millisecond, true},
		{3100 * time.Millisecond, 4100 * time.Millisecond, false},
	} {
		got, ok := s.next(start.Add(c.at))
		if got.Sub(start) != c.want || ok != c.ok {
			t.Errorf("next(+%s) = +%s, %v; want +%s, %v", c.at, got.Sub(start), ok, c.want, c.ok)
		}
	}
	if d := s.sendTime(); d != 2*time.Second {
		t.Errorf("sendTime = %s, want 2s", d)
	}
	whole := slots{start: start, end: start.Add(2500 * time.Millisecond), on: time.Second, period: time.Second}
	if got, ok := whole.next(start.Add(1700 * time.Millisecond)); got.Sub(start) != 1700*time.Millisecond || !ok {
		t.Errorf("a loop without idle time moved +1.7s to +%s, %v", got.Sub(start), ok)
	}
	if d := whole.sendTime(); d != 2500*time.Millisecond {
		t.Errorf("sendTime of a 2.5 s loop = %s", d)
	}
}

// The alternating loop sends to each server only in its own seconds, at
// the rate asked, and files each answer under its server's n-th second.
func TestAlternateSendsToEachServerInItsOwnSeconds(t *testing.T) {
	serve := func() (*client, func() []time.Time) {
		var mu sync.Mutex
		var hits []time.Time
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &fasthttp.Server{Handler: func(c *fasthttp.RequestCtx) {
			mu.Lock()
			hits = append(hits, time.Now())
			mu.Unlock()
		}}
		go srv.Serve(ln) //nolint:errcheck // closed at the end of the test
		t.Cleanup(func() { ln.Close() })
		return newClient(ln.Addr().String(), "", 8), func() []time.Time {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(hits)
		}
	}
	a, aHits := serve()
	b, bHits := serve()
	// The loop starts when a's first worker sends its first request.
	var start time.Time
	ra, rb := alternate(a, b, []request{get("/a")}, []request{get("/b")}, 200, 4, 2)
	if hits := aHits(); len(hits) > 0 {
		start = slices.MinFunc(hits, func(x, y time.Time) int { return x.Compare(y) })
	}
	for name, c := range map[string]struct {
		r     result
		hits  []time.Time
		first time.Duration
	}{"a": {ra, aHits(), 0}, "b": {rb, bHits(), time.Second}} {
		if len(c.hits) == 0 {
			t.Fatalf("%s got no requests", name)
		}
		if c.r.failures > 0 || len(c.r.windowP99) != 2 {
			t.Errorf("%s: %d failures, %d windows; want none and 2", name, c.r.failures, len(c.r.windowP99))
		}
		// 200 req/s for two seconds of its own: 400, give or take a worker's last slot.
		if n := len(c.hits); n < 380 || n > 420 {
			t.Errorf("%s got %d requests, want about 400", name, n)
		}
		for _, h := range c.hits {
			// Its seconds are [first, first+1s) and [first+2s, first+3s);
			// an answer may land a little after its second ends, and the
			// loop started a little before a's first request arrived.
			if off := (h.Sub(start) - c.first + 2*time.Second) % (2 * time.Second); off > 1100*time.Millisecond && off < 1950*time.Millisecond {
				t.Errorf("%s was sent a request %s into the loop, outside its seconds", name, h.Sub(start))
				break
			}
		}
	}
}

// A late wake-up of the canary counts in the second of the loop it was due
// in, and not at all in the idle rest of a period (the other server's
// second).
func TestLatenessPutsEachWakeUpInItsLoopsSecond(t *testing.T) {
	start := time.Unix(1000, 0)
	s := slots{start: start, on: time.Second, period: 2 * time.Second, end: start.Add(6 * time.Second)}
	ms := time.Millisecond
	seen := []wakeup{
		{start.Add(-time.Second), 50 * ms},                          // before the loop
		{start.Add(100 * ms), 3 * ms},                               // second 0
		{start.Add(900 * ms), 5 * ms},                               // second 0, later still
		{start.Add(1500 * ms), 40 * ms},                             // the other server's second
		{start.Add(4*time.Second + 10*ms), 2 * ms},                  // second 2
		{start.Add(9 * time.Second), 9 * ms},                        // past the windows asked for
		{start.Add(2*time.Second + 999*ms), 7 * ms},                 // second 1
		{start.Add(2*time.Second + 1000*ms), 70 * time.Millisecond}, // idle again
	}
	got := lateness(seen, s, 3)
	want := []time.Duration{5 * ms, 7 * ms, 2 * ms}
	if !slices.Equal(got, want) {
		t.Fatalf("lateness = %v, want %v", got, want)
	}
}

// The worst second over calm pairs leaves out every pair in which either
// server's second had a stall, and says so when none is left.
func TestStallFreeLeavesOutPairsWithAStall(t *testing.T) {
	ms := time.Millisecond
	p := []time.Duration{2 * ms, 30 * ms, 3 * ms, 4 * ms}
	bare := []time.Duration{1 * ms, 1 * ms, 1 * ms, 1 * ms}
	pLate := []time.Duration{0, 12 * ms, 0, 0}
	bareLate := []time.Duration{0, 0, 0, 3 * ms}
	ratio, pair, pairs := stallFree(p, bare, pLate, bareLate)
	if ratio != 3 || pair != 2 || pairs != 2 {
		t.Fatalf("stallFree = %.2f at pair %d over %d pairs, want 3.00 at pair 2 over 2", ratio, pair, pairs)
	}
	if _, _, pairs := stallFree(p, bare, []time.Duration{9 * ms, 9 * ms, 9 * ms, 9 * ms}, bareLate); pairs != 0 {
		t.Fatalf("%d calm pairs when every pair stalled", pairs)
	}
	if got := calmWorst(0, -1, 0, 4); got != "none of 4 pairs was calm" {
		t.Fatalf("calmWorst with no calm pair = %q", got)
	}
}
