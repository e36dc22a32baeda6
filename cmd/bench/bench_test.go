package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/census"
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
	if len(cfg.Providers) != 8 {
		t.Errorf("%d roles configured, want all 8", len(cfg.Providers))
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
