package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
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

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
	"github.com/valyala/fasthttp"
	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/addrgen"
	"github.com/propertyd/propertyd/providers/kits/layergen"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/service"
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
	for _, role := range service.Roles() {
		if _, ok := cfg.Providers[string(role)]; !ok {
			t.Errorf("role %s of the catalogue is not configured: the bench's include=%s would find it unavailable", role, allSections)
		}
	}
	for role := range cfg.Providers {
		if _, ok := service.EntryOf(providers.Role(role)); !ok {
			t.Errorf("providers.%s is configured, but the catalogue has no such role", role)
		}
	}
	if cfg.Cache.MaxMB != 48 {
		t.Errorf("cache.max_mb = %d, want the -cache-mb value 48", cfg.Cache.MaxMB)
	}
	if len(cfg.Keys) != 2 || cfg.Keys[0].Burst < 1000 || cfg.Keys[0].Rate < 1e6 {
		t.Errorf("keys = %+v: the bench key's budget must never throttle the load", cfg.Keys)
	}
	// The instructions row's spent key refuses every request once its
	// burst is spent, for longer than any run.
	if len(cfg.Keys) == 2 && (cfg.Keys[1].Burst != spentBurst || 1/cfg.Keys[1].Rate < 7*24*3600) {
		t.Errorf("keys = %+v: the spent key's burst must be spentBurst and refill no sooner than in a week", cfg.Keys)
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
	if o.polyTracts != 5_000 || o.polyZones != 100_000 {
		t.Errorf("full options = %+v, want the issue's 5,000 tracts and 100,000 flood zones", o)
	}
	if o.addrPoints != 1_000_000 || o.addrRanges != 100_000 {
		t.Errorf("full options = %+v, want issue 39's 1,000,000 address points and 100,000 ranges", o)
	}
	if _, err := parseFlags([]string{"-rows", "0"}, io.Discard); err == nil {
		t.Error("-rows 0 was accepted")
	}
	o, err = parseFlags([]string{"-smoke", "-address-ranges", "800"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.addrRanges != 800 || o.addrPoints != 20_000 || o.addrRuns != 1 || o.localLookups != 200 || o.localFeatures != 20_000 {
		t.Errorf("smoke options = %+v, want 800 ranges as given and the small address sizes otherwise", o)
	}
	for _, bad := range [][]string{{"-address-points", "0"}, {"-address-ranges", "3"}, {"-local-lookups", "0"}, {"-address-runs", "0"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}

// The county-cold row waits on work not done yet: a run measures it only
// when -only names it, and a full run leaves it out.
func TestOnlyChoosesTheScenariosRun(t *testing.T) {
	full, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	only, err := parseFlags([]string{"-only", "county-cold,polygons"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	addrOnly, err := parseFlags([]string{"-only", "addresses,pg-county-cold-local"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    options
		name string
		want bool
	}{
		{full, "polygons", true}, {full, "pg-polygons", true}, {full, "county-cold", true}, {full, "startup", true},
		{only, "county-cold", true}, {only, "polygons", true}, {only, "pg-polygons", false}, {only, "startup", true},
		{full, "addresses", true}, {full, "pg-addresses", true}, {full, "county-cold-local", true}, {full, "pg-county-cold-local", true},
		{addrOnly, "addresses", true}, {addrOnly, "pg-county-cold-local", true}, {addrOnly, "pg-addresses", false}, {addrOnly, "county-cold", false},
	} {
		if got := c.o.runs(c.name); got != c.want {
			t.Errorf("with -only %v, runs(%s) = %v, want %v", c.o.only, c.name, got, c.want)
		}
	}
	if _, err := parseFlags([]string{"-only", "county"}, io.Discard); err == nil {
		t.Error("-only county (no such scenario) was accepted")
	}
}

// The county-cold row's addresses are where the generated files put
// them: the sandbox takes them, each carrying (for its geocoder and its
// FEMA fake to answer) the tract the loaded boundaries hold at its point
// and the zone the loaded flood map holds there, so that a lookup
// answered from the files and one that still calls the upstreams agree.
func TestCountyPlacesAreWhereTheGeneratedFilesPutThem(t *testing.T) {
	base := sandbox.DefaultPlaces()
	county := countyPlaces()
	all := slices.Concat(base, syntheticPlaces(base, 40), county)
	doc, err := json.Marshal(map[string]any{"places": all})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.ParsePlaces(doc); err != nil {
		t.Fatalf("the sandbox rejects the county's places: %v", err)
	}
	tracts, flood := countyLayers()
	zones := map[string]bool{}
	for _, p := range county {
		pt := orb.Point{p.Lng, p.Lat}
		tract, ok := tracts.At(pt)
		if !ok || tract.Key != p.StateFIPS+p.CountyFIPS+p.Tract {
			t.Errorf("%s is in tract %s of the files, the sandbox says %s%s%s", p.ID, tract.Key, p.StateFIPS, p.CountyFIPS, p.Tract)
		}
		area := flood.AreaAt(pt)
		i, j, inZone := flood.ZoneAt(pt)
		if !inZone || flood.Zone(i, j).Key != area {
			t.Fatalf("%s is in %s, not a zone of the map", p.ID, area)
		}
		if zone := flood.Zone(i, j).Attrs(layergen.HazardColumns)["FLD_ZONE"]; zone != p.Flood[0].Zone {
			t.Errorf("%s is in zone %v of the files, the sandbox says %s", p.ID, zone, p.Flood[0].Zone)
		}
		zones[area] = true
	}
	if len(zones) != len(county) {
		t.Errorf("%d places in %d zones, want one each", len(county), len(zones))
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// propertyd's answer as the bench keeps it for the baselines: its body
// and the headers it sent (see answer), as a fasthttp response holds them.
func keptAnswer(t *testing.T) (dir string, body []byte) {
	t.Helper()
	var resp fasthttp.Response
	resp.Header.SetContentType("application/json")
	resp.Header.Set("X-Request-ID", "0123456789abcdef01234567")
	resp.Header.Set("X-RateLimit-Limit", "1000000000")
	resp.Header.Set("ETag", `"1x2y3z"`)
	resp.Header.Set("Date", "Fri, 27 Nov 2026 16:00:00 GMT")
	body = []byte(`{"data":{"id":1},"meta":{"source":"census"}}`)
	resp.SetBody(body)
	headers := sentHeaders(&resp.Header)
	if strings.Contains(headers, "Date") || strings.Contains(headers, "Content-") {
		t.Fatalf("kept headers %q name what the server sets itself", headers)
	}
	dir = t.TempDir()
	if err := keepAnswer(dir, "get", body, headers); err != nil {
		t.Fatal(err)
	}
	return dir, body
}

// The bare baseline must answer with exactly the bytes it was given, the
// headers kept with them included.
func TestBareAppSendsTheGivenBytes(t *testing.T) {
	dir, body := keptAnswer(t)
	app, err := bareApp(dir, timeouts{io: time.Minute, idle: time.Minute})
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
	for name, want := range map[string]string{"X-Request-Id": "0123456789abcdef01234567", "X-Ratelimit-Limit": "1000000000", "Etag": `"1x2y3z"`} {
		if v := resp.Header.Get(name); v != want {
			t.Errorf("bare GET /get: %s %q, want %q", name, v, want)
		}
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

// The bare fasthttp baseline answers as bare Fiber does: the same bytes
// under the same headers, so that the two baselines differ only by Fiber.
func TestBareFasthttpSendsWhatBareFiberSends(t *testing.T) {
	dir, body := keptAnswer(t)
	srv, err := bareFasthttpServer(dir, timeouts{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln) //nolint:errcheck // shut down at the end of the test
	t.Cleanup(func() { srv.Shutdown() })
	app, err := bareApp(dir, timeouts{})
	if err != nil {
		t.Fatal(err)
	}
	headers := func(h http.Header) []string {
		var names []string
		for k := range h {
			if k != "Date" {
				names = append(names, k+": "+h.Get(k))
			}
		}
		slices.Sort(names)
		return names
	}
	for _, path := range []string{"/get", "/nope"} {
		fast, err := http.Get("http://" + ln.Addr().String() + path)
		if err != nil {
			t.Fatal(err)
		}
		fastBody, _ := io.ReadAll(fast.Body)
		fast.Body.Close()
		fiberResp, err := app.Test(httptest.NewRequest(http.MethodGet, path, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		fiberBody, _ := io.ReadAll(fiberResp.Body)
		fiberResp.Body.Close()
		if fast.StatusCode != fiberResp.StatusCode || !slices.Equal(headers(fast.Header), headers(fiberResp.Header)) {
			t.Errorf("GET %s: bare fasthttp %d %q, bare Fiber %d %q", path, fast.StatusCode, headers(fast.Header), fiberResp.StatusCode, headers(fiberResp.Header))
		}
		if path == "/get" && (!bytes.Equal(fastBody, body) || !bytes.Equal(fiberBody, body)) {
			t.Errorf("GET /get: bare fasthttp sent %q, bare Fiber %q, want %q", fastBody, fiberBody, body)
		}
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

// The rotation gives each server one second of every period, the
// servers' seconds adjacent and never overlapping, the same count of
// seconds to each; pair k is the k-th second of every server.
func TestRotationGivesEachServerItsOwnSecondOfEveryPeriod(t *testing.T) {
	start := time.Unix(1000, 0)
	ss := rotation(start, 3, 4)
	if len(ss) != 3 {
		t.Fatalf("%d slots for 3 servers", len(ss))
	}
	// Walk the loop in 100 ms steps: at each instant exactly one server
	// sends, and it is the one whose turn it is.
	for at := time.Duration(0); at < 12*time.Second; at += 100 * time.Millisecond {
		want := int(at/time.Second) % 3
		for i, s := range ss {
			t0 := start.Add(at)
			got, ok := s.next(t0)
			sends := ok && got.Equal(t0) && !t0.Before(s.start)
			if sends != (i == want) {
				t.Fatalf("at +%s server %d sends: %v; want only server %d to", at, i, sends, want)
			}
		}
	}
	for i, s := range ss {
		if d := s.sendTime(); d != 4*time.Second {
			t.Errorf("server %d sends %s in all, want 4s (4 seconds of its own)", i, d)
		}
		// Its last second is pair 3, at 9+i s; nothing after it.
		if _, ok := s.next(start.Add(time.Duration(9+i)*time.Second + 999*time.Millisecond)); !ok {
			t.Errorf("server %d does not send in its 4th second", i)
		}
		if _, ok := s.next(start.Add(time.Duration(10+i) * time.Second)); ok {
			t.Errorf("server %d sends after its 4th second", i)
		}
	}
}

// The rotating loop sends to each server only in its own seconds, at the
// rate asked, and files each answer under its server's n-th second.
func TestRotateSendsToEachServerInItsOwnSeconds(t *testing.T) {
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
	var cs []*client
	var hits []func() []time.Time
	for range 3 {
		c, h := serve()
		cs, hits = append(cs, c), append(hits, h)
	}
	rs := rotate(cs, [][]request{{get("/a")}, {get("/b")}, {get("/c")}}, 200, 4, 2)
	// The loop starts when the first server's first worker sends its
	// first request.
	var start time.Time
	if h := hits[0](); len(h) > 0 {
		start = slices.MinFunc(h, func(x, y time.Time) int { return x.Compare(y) })
	}
	for i, r := range rs {
		got := hits[i]()
		if len(got) == 0 {
			t.Fatalf("server %d got no requests", i)
		}
		if r.failures > 0 || len(r.windowP99) != 2 {
			t.Errorf("server %d: %d failures, %d windows; want none and 2", i, r.failures, len(r.windowP99))
		}
		// 200 req/s for two seconds of its own: 400, give or take a worker's last slot.
		if n := len(got); n < 380 || n > 420 {
			t.Errorf("server %d got %d requests, want about 400", i, n)
		}
		first := time.Duration(i) * time.Second
		for _, h := range got {
			// Its seconds are [first, first+1s) and [first+3s, first+4s);
			// an answer may land a little after its second ends, and the
			// loop started a little before the first request arrived.
			if off := (h.Sub(start) - first + 3*time.Second) % (3 * time.Second); off > 1100*time.Millisecond && off < 2950*time.Millisecond {
				t.Errorf("server %d was sent a request %s into the loop, outside its seconds", i, h.Sub(start))
				break
			}
		}
	}
}

// A run's median-second figure compares the medians of all seconds; its
// worst-second figure only the pairs in which the two bare servers agreed
// within 1.5 x, either way.
func TestTailCountsOnlyCalibratedPairsForTheWorstSecond(t *testing.T) {
	ms := func(ns ...float64) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n * float64(time.Millisecond))
		}
		return out
	}
	tests := []struct {
		name              string
		prop, bare, twin  []time.Duration
		median, worst     float64
		worstPair         int
		calibrated, pairs int
	}{
		{
			name: "a stall in propertyd's second whose twin also stalled is left out",
			prop: ms(2, 30, 3, 2), bare: ms(1, 1, 2, 1), twin: ms(1, 20, 2, 1.4),
			median: 2, worst: 2, worstPair: 0, calibrated: 3, pairs: 4,
		},
		{
			name: "a stall of bare Fiber's alone is left out too: it would flatter propertyd",
			prop: ms(2, 3, 2), bare: ms(1, 30, 1), twin: ms(1, 2, 1.2),
			median: 2, worst: 2, worstPair: 0, calibrated: 2, pairs: 3,
		},
		{
			name: "exactly 1.5 x apart is within",
			prop: ms(5, 1), bare: ms(2, 1), twin: ms(3, 1),
			median: 1, worst: 2.5, worstPair: 0, calibrated: 2, pairs: 2,
		},
		{
			name: "no calibrated pair: the run shows nothing and misses",
			prop: ms(2, 2), bare: ms(1, 1), twin: ms(9, 0.5),
			median: 2, worst: math.Inf(1), worstPair: -1, calibrated: 0, pairs: 2,
		},
		{
			name: "seconds not all three servers have are not compared",
			prop: ms(2, 2, 50), bare: ms(1, 2), twin: ms(1, 2, 1),
			median: 2, worst: 2, worstPair: 0, calibrated: 2, pairs: 2,
		},
	}
	for _, tt := range tests {
		got := tailOf(tt.prop, tt.bare, tt.twin)
		if got.median != tt.median || got.worst != tt.worst || got.worstPair != tt.worstPair || got.calibrated != tt.calibrated || got.pairs != tt.pairs {
			t.Errorf("%s: median %.2f, worst %.2f in pair %d, %d of %d pairs calibrated; want %.2f, %.2f in pair %d, %d of %d",
				tt.name, got.median, got.worst, got.worstPair, got.calibrated, got.pairs,
				tt.median, tt.worst, tt.worstPair, tt.calibrated, tt.pairs)
		}
	}
}

// The row is met when the median of the runs meets each target: one bad
// run of three does not fail it, two do; a run without a calibrated pair
// counts as a miss.
func TestWarmVerdictTakesTheMedianRunOfEachFigure(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		v    warmVerdict
		met  bool
		cell string
	}{
		{"all met", warmVerdict{[]float64{0.8, 0.9, 0.85}, []float64{1.2, 1.1, 1.3}, []float64{1.5, 1.9, 1.2}}, true, "0.85 / 1.20 / 1.50"},
		{"one slow run of three", warmVerdict{[]float64{0.5, 0.9, 0.85}, []float64{1.2, 4, 1.3}, []float64{9, 1.9, 1.2}}, true, "0.85 / 1.30 / 1.90"},
		{"throughput missed in two runs", warmVerdict{[]float64{0.7, 0.9, 0.74}, []float64{1, 1, 1}, []float64{1, 1, 1}}, false, "0.74 / 1.00 / 1.00"},
		{"median second missed in two runs", warmVerdict{[]float64{1, 1, 1}, []float64{1.6, 1, 1.51}, []float64{1, 1, 1}}, false, "1.00 / 1.51 / 1.00"},
		{"worst second missed in two runs", warmVerdict{[]float64{1, 1, 1}, []float64{1, 1, 1}, []float64{2.1, 1, 3}}, false, "1.00 / 1.00 / 2.10"},
		{"two runs without a calibrated pair", warmVerdict{[]float64{1, 1, 1}, []float64{1, 1, 1}, []float64{inf, 1, inf}}, false, "1.00 / 1.00 / none calibrated"},
		{"no runs", warmVerdict{}, false, "none / none / none"},
	}
	for _, tt := range tests {
		if got := tt.v.met(); got != tt.met {
			t.Errorf("%s: met = %v, want %v", tt.name, got, tt.met)
		}
		if got := tt.v.ratioCell(); got != tt.cell {
			t.Errorf("%s: ratio cell %q, want %q", tt.name, got, tt.cell)
		}
	}
	if got := runs([]float64{0.86, 0.79, 0.81}); got != "0.86, 0.79, 0.81 (median 0.81)" {
		t.Errorf("runs = %q", got)
	}
}

// The instructions row reads each dump's total of Ir, from a real dump
// (testdata/callgrind.out, cut down) and from the shapes valgrind's
// versions and options give it.
func TestCallgrindTotalReadsTheInstructionCount(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "callgrind.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := callgrindTotal(f); err != nil || got != 28495728 {
		t.Fatalf("callgrindTotal(testdata/callgrind.out) = %d, %v; want 28495728", got, err)
	}
	tests := []struct {
		name, dump string
		want       int64
		err        string
	}{
		{"summary only (older dumps)", "events: Ir\nsummary: 42\n", 42, ""},
		{"totals after costs", "events: Ir\n\nfn=(1) main\n3 10\n\ntotals: 10\n", 10, ""},
		{"Ir in another column", "events: Dr Ir Dw\ntotals: 1 2 3\n", 2, ""},
		{"not counting instructions", "events: Dr Dw\ntotals: 1 2\n", 0, "not Ir"},
		{"no total", "events: Ir\nfn=(1) main\n3 10\n", 0, "no totals"},
		{"a total before the events", "totals: 5\nevents: Ir\n", 0, "before any events"},
	}
	for _, tt := range tests {
		got, err := callgrindTotal(strings.NewReader(tt.dump))
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("%s: %d, %v; want %d", tt.name, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: %d, %v; want an error saying %q", tt.name, got, err, tt.err)
		}
	}
}

// Without valgrind on the PATH the instructions row is skipped with the
// reason, not failed.
func TestNoCallgrindSaysWhatIsMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if got := noCallgrind(); !strings.Contains(got, "valgrind not found") {
		t.Errorf("noCallgrind() = %q, want it to name valgrind", got)
	}
}

// The counted stretches: the longer one is -count-requests, the shorter a
// fifth of it, the warm-up a tenth; smoke runs count fewer.
func TestCountSizesFollowCountRequests(t *testing.T) {
	if got := countSizesFor(25_000); got != (countSizes{warm: 2_500, n1: 5_000, n2: 25_000}) {
		t.Errorf("countSizesFor(25000) = %+v", got)
	}
	o, err := parseFlags([]string{"-smoke"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.countRequests != 2_500 {
		t.Errorf("smoke counts %d requests, want 2500", o.countRequests)
	}
	if _, err := parseFlags([]string{"-count-requests", "4"}, io.Discard); err == nil {
		t.Error("-count-requests 4 was accepted: its fifth is not one request")
	}
}

// A server under callgrind runs with cpu.rdtscp=off added to the GODEBUG
// its environment has (the last one, as exec.Cmd takes it), or alone.
func TestGodebugWithKeepsTheSettingsGiven(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, "GODEBUG=cpu.rdtscp=off"},
		{[]string{"HOME=/root", "GODEBUG=gctrace=1"}, "GODEBUG=gctrace=1,cpu.rdtscp=off"},
		{[]string{"GODEBUG=madvdontneed=1", "GODEBUG=gctrace=1"}, "GODEBUG=gctrace=1,cpu.rdtscp=off"},
		{[]string{"GODEBUG="}, "GODEBUG=cpu.rdtscp=off"},
	} {
		if got := godebugWith(tc.env, noRDTSCP); got != tc.want {
			t.Errorf("godebugWith(%q) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

// The addresses rows look up different addresses, half of them address
// points and half numbers only a range holds, each expected at the point
// the files give it and in the tract the generated boundaries hold there;
// the county-cold-local rows' stay in the window the extract covers.
func TestAddressLookupsAreDifferentAndWhereTheFilesPutThem(t *testing.T) {
	tracts, _ := countyLayers()
	f := &addressFiles{county: addrgen.New(40_000, 4_000), tracts: tracts, counties: map[string]string{}}
	for c := range tracts.Counties() {
		f.counties[layergen.CountyFP(c)] = tracts.County(c).Attrs(layergen.CountyColumns)["NAMELSAD"].(string)
	}
	ls, err := f.lookups(200, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen, rooftop := map[string]bool{}, 0
	for _, l := range ls {
		if seen[l.street+l.zip] {
			t.Fatalf("%s %s is looked up twice: the second would not be cold", l.street, l.zip)
		}
		seen[l.street+l.zip] = true
		if l.rooftop {
			rooftop++
		}
		if l.county == "" || len(l.fips) != 5 || len(l.tract) != 6 {
			t.Errorf("%s: county %q, FIPS %q, tract %q; want those of the generated boundaries", l.street, l.county, l.fips, l.tract)
		}
	}
	if rooftop != 100 {
		t.Errorf("%d of 200 lookups at address points, want half", rooftop)
	}
	window, err := f.lookups(50, 2, &localWindow)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range window {
		// The edge's first point is in the window; its buildings within
		// 50 m of it.
		if !localWindow.Pad(0.001).Contains(l.point) {
			t.Errorf("%s at %v, outside the window %v", l.street, l.point, localWindow)
		}
	}
	// The extract reaches beyond the window by more than the amenities'
	// 2,000 m, east-west as north-south.
	if d := geo.Distance(localWindow.Max, orb.Point{localWindow.Max.Lon() + localMargin, localWindow.Max.Lat()}); d < 2_100 {
		t.Errorf("the extract reaches %.0f m east of the window: a circle of 2,000 m there is not the extract's to answer", d)
	}
}

// check accepts the answer the files make and names what differs in any
// other: a user would otherwise read a measured row over wrong answers.
func TestAddressCheckNamesWhatDiffers(t *testing.T) {
	l := addrLookup{street: "101 Oak Ave", zip: "20101", rooftop: true, point: orb.Point{-77.5, 39},
		county: "Bench 1 County", fips: "51001", tract: "010000"}
	answer := func(precision string, lat float64, tract string, created bool) []byte {
		b, _ := json.Marshal(map[string]any{
			"data": map[string]any{"county": "Bench 1 County", "fips_code": "51001", "census_tract": tract, "latitude": lat, "longitude": -77.5},
			"meta": map[string]any{"created": created, "match": map[string]any{"precision": precision}},
		})
		return b
	}
	if _, err := l.check(200, answer("rooftop", 39, "010000", true), false); err != nil {
		t.Errorf("the right answer was refused: %v", err)
	}
	for name, body := range map[string][]byte{
		"range":       answer("range_interpolation", 39, "010000", true),
		"point":       answer("rooftop", 39.001, "010000", true),
		"tract":       answer("rooftop", 39, "010100", true),
		"not created": answer("rooftop", 39, "010000", false),
	} {
		if _, err := l.check(200, body, false); err == nil {
			t.Errorf("an answer with another %s was accepted", name)
		}
	}
	if _, err := l.check(404, []byte(`{"code":"address_not_found"}`), false); err == nil {
		t.Error("a 404 was accepted")
	}
}

// The county-cold-local rows' ACS places give every tract of the generated
// state its figures, which the sandbox takes beside every other place of
// a run.
func TestCountyACSPlacesCoverEveryTract(t *testing.T) {
	base := sandbox.DefaultPlaces()
	local := countyACSPlaces(base[0])
	tracts, _ := countyLayers()
	if len(local) != tracts.Len() {
		t.Fatalf("%d places for %d tracts", len(local), tracts.Len())
	}
	all := slices.Concat(base, syntheticPlaces(base, 40), countyPlaces(), local)
	doc, err := json.Marshal(map[string]any{"places": all})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.ParsePlaces(doc); err != nil {
		t.Fatalf("the sandbox rejects the ACS places: %v", err)
	}
	for _, p := range local {
		tract, ok := tracts.At(orb.Point{p.Lng, p.Lat})
		if !ok || tract.Key != p.CensusTract().GEOID() || len(p.ACS) == 0 {
			t.Errorf("%s: in tract %s, gives ACS figures for %s", p.ID, tract.Key, p.CensusTract().GEOID())
		}
	}
}

// The accuracy row is a figure reported, not a target met or missed, and
// says how far each way of numbering a block face leaves the range's
// point from the address point.
func TestAccuracyRowReportsBothNumberings(t *testing.T) {
	b := &bench{errOut: io.Discard}
	b.accuracy(&addressFiles{county: addrgen.New(4_000, 400), files: addrgen.Files{PointN: 4_000, RangeN: 400}})
	if len(b.rows) != 1 {
		t.Fatalf("%d rows", len(b.rows))
	}
	r := b.rows[0]
	if r.metCell() != "reported" || !strings.Contains(r.measured, "numbered by distance") || !strings.Contains(r.measured, "numbered in turn") ||
		!strings.Contains(r.measured, "within 25 m") {
		t.Errorf("row %+v; want the distances of both numberings, reported", r)
	}
}
