package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
	"github.com/propertyd/propertyd/providers/modules/overpass"
)

const demoKey = "propertyd-demo-key"

// testConfig is the shipped config.yaml pointed at a temporary database and
// port 0; base URLs stay the real services, answered by httpmock.
func testConfig(t *testing.T, dbPath string) *Config {
	t.Helper()
	t.Setenv("PROPERTYD_DATABASE", dbPath)
	t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
	cfg, err := LoadConfig(filepath.Join("..", "..", "config.yaml"))
	if err != nil {
		t.Fatalf("the shipped config.yaml does not load: %v", err)
	}
	return cfg
}

// upstreams answers every real upstream with the project's fakes.
func upstreams() *httpmock.MockTransport {
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, providertest.CensusPlace{
		Street: "2200 W BROAD ST", City: "RICHMOND", State: "VA", Zip: "23220",
		Lat: 37.5600, Lng: -77.4720, CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760",
		Tract: "041000", Block: "1003",
	})
	providertest.RegisterFEMA(mt, femanfhl.DefaultBaseURL, providertest.FloodArea{
		MinLat: 37.55, MinLng: -77.48, MaxLat: 37.57, MaxLng: -77.46,
		Zone: "X", Subtype: "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", StaticBFE: providertest.FEMANoBFE,
		DFIRMID: "51760C", Panel: "51760C0041E", PanelEffective: time.Date(2009, 7, 16, 0, 0, 0, 0, time.UTC),
	})
	acs := map[string]string{}
	for _, v := range append(append([]string{}, censusacs.DemographicsVariables...), censusacs.HousingVariables...) {
		acs[v] = "100"
	}
	acs["B01003_001E"] = "3875"
	acs["B19013_001E"] = "-666666666"
	providertest.RegisterACS(mt, censusacs.DefaultBaseURL, map[string]map[string]string{"51760041000": acs})
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL,
		providertest.OSMElement{Type: "node", ID: 1, Lat: 37.5610, Lng: -77.4720, Tags: map[string]string{"amenity": "school", "name": "Fox Elementary"}},
		providertest.OSMElement{Type: "node", ID: 2, Lat: 37.5605, Lng: -77.4725, Tags: map[string]string{"shop": "supermarket", "name": "Corner Market"}},
	)
	return mt
}

func startMain(t *testing.T, cfg *Config, mt *httpmock.MockTransport) *Main {
	t.Helper()
	m := NewMain(cfg)
	m.HTTPTransport = mt
	m.Logger = discardLogger()
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func getJSON(t *testing.T, m *Main, path string) (int, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+m.Addr()+path, nil)
	return doJSON(t, req)
}

// doJSON sends req with the demo key and decodes its JSON answer.
func doJSON(t *testing.T, req *http.Request) (int, map[string]any, http.Header) {
	t.Helper()
	req.Header.Set("X-API-Key", demoKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: not JSON: %s", req.URL.Path, b)
	}
	return resp.StatusCode, out, resp.Header
}

func TestServiceEndToEndWithEveryModule(t *testing.T) {
	eachEngine(t, testServiceEndToEndWithEveryModule)
}

func testServiceEndToEndWithEveryModule(t *testing.T, database string) {
	mt := upstreams()
	m := startMain(t, testConfig(t, database), mt)
	q := url.Values{"street": {"2200 West Broad Street"}, "city": {"Richmond"}, "state": {"VA"},
		"include": {everySection}}
	status, body, hdr := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
	if status != 200 {
		t.Fatalf("lookup: %d %v", status, body)
	}
	d := body["data"].(map[string]any)
	if d["street_address"] != "2200 W BROAD ST" || d["fips_code"] != "51760" || d["census_tract"] != "041000" {
		t.Fatalf("record = %v", d)
	}
	flood := d["flood"].(map[string]any)
	if flood["zone_code"] != "X" || flood["flood_risk_level"] != "moderate" || flood["base_flood_elevation_feet"] != nil ||
		flood["panel_number"] != "51760C0041E" || flood["panel_effective_date"] != "2009-07-16" ||
		flood["description"] != "0.2% annual chance flood" {
		t.Fatalf("flood = %v", flood)
	}
	demo := d["demographics"].(map[string]any)
	if demo["total_population"] != 3875.0 || demo["median_household_income"] != nil {
		t.Fatalf("demographics = %v (a sentinel must be null)", demo)
	}
	am := d["amenities"].(map[string]any)
	if am["total_count"] != 2.0 {
		t.Fatalf("amenities = %v", am)
	}
	if ws := d["walkscore"].(map[string]any); ws["source"] != "osm-walk" {
		t.Fatalf("walkscore = %v", ws)
	}
	if d["housing"] == nil {
		t.Fatal("housing missing")
	}
	meta := body["meta"].(map[string]any)
	for name, v := range meta["sections"].(map[string]any) {
		if v.(map[string]any)["status"] != "ok" {
			t.Fatalf("section %s: %v", name, v)
		}
	}
	if hdr.Get("X-Request-Cost") != "6" {
		t.Fatalf("cost %s", hdr.Get("X-Request-Cost"))
	}
	calls := mt.GetCallCountInfo()
	overpassCalls := calls["POST "+overpass.DefaultBaseURL]
	if overpassCalls != 1 {
		t.Fatalf("overpass calls = %d, want 1: osm-walk must reuse the amenities section (calls %v)", overpassCalls, calls)
	}

	// A restart serves the record and its fresh sections without any call
	// for data (the ACS modules may look up the newest release, once a day).
	dataCalls := func() int {
		n := 0
		for route, c := range mt.GetCallCountInfo() {
			if route != "GET "+censusacs.DiscoveryURL(censusacs.DefaultBaseURL) {
				n += c
			}
		}
		return n
	}
	total := dataCalls()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m2 := startMain(t, testConfig(t, database), mt)
	status, body, _ = getJSON(t, m2, "/v1/properties/lookup?"+q.Encode())
	if status != 200 || body["data"].(map[string]any)["id"] != d["id"] {
		t.Fatalf("after restart: %d %v", status, body)
	}
	if n := dataCalls(); n != total {
		t.Fatalf("upstream calls after restart: %d new", n-total)
	}
	for name, v := range body["meta"].(map[string]any)["sections"].(map[string]any) {
		if v.(map[string]any)["cache"] != "hit" {
			t.Fatalf("section %s after restart: %v", name, v)
		}
	}
	if st, ready, _ := getJSON(t, m2, "/readyz"); st != 200 || ready["status"] != "ready" {
		t.Fatalf("readyz: %d %v", st, ready)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, from, to, want string }{
		{"unknown field", "batch_concurrency: 25", "batch_concurency: 25", "batch_concurency"},
		{"bad duration", `request_timeout: "30s"`, `request_timeout: "thirty"`, "thirty"},
		{"unknown module", "module: fema-nfhl", "module: fema", `unknown flood module "fema"`},
		{"burst below one full lookup", "burst: 150", "burst: 3", "keys[0].burst"},
		{"bad key hash", "sha256: \"7f7c", "sha256: \"zz7c", "keys[0].sha256"},
		{"bad base url", "module: overpass", "module: overpass\n    base_url: ftp://x", "providers.amenities.base_url"},
		{"unknown refresh mode", "module: overpass", "module: overpass\n    refresh: lazy", "providers.amenities.refresh: must be background or sync"},
		{"refresh of a role without a section", "    options: {benchmark", "    refresh: sync\n    options: {benchmark", "providers.geocoder.refresh"},
		{"refresh concurrency out of range", "refresh_concurrency: 8", "refresh_concurrency: 500", "refresh_concurrency: must be between 1 and 100"},
		{"debug listener without a port", "refresh_concurrency: 8", "refresh_concurrency: 8\ndebug_listen: localhost", "debug_listen: must be host:port"},
		{"an origin with a path", "allowed_origins: []", `allowed_origins: ["https://app.example.com", "https://app.example.com/"]`, `cors.allowed_origins[1]: "https://app.example.com/" must be scheme://host`},
		{"an origin without a scheme", "allowed_origins: []", `allowed_origins: ["app.example.com"]`, `cors.allowed_origins[0]: "app.example.com" must start with http:// or https://`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := strings.Replace(string(base), c.from, c.to, 1)
			if raw == string(base) {
				t.Fatalf("test edit %q not applied", c.from)
			}
			cfg, err := ParseConfig([]byte(raw))
			if err == nil {
				m := NewMain(cfg)
				m.Config.Database = filepath.Join(t.TempDir(), "x.db")
				err = m.Open(context.Background())
				m.Close()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestConfigExpandsEnvironment(t *testing.T) {
	t.Setenv("TEST_PROPERTYD_KEY", "s3cret")
	cfg, err := ParseConfig([]byte(`
listen: "${TEST_LISTEN:-127.0.0.1:9999}"
keys:
  - {name: env, key_env: TEST_PROPERTYD_KEY, rate: 1, burst: 10}
providers:
  geocoder: {module: census}
  reverse_geocoder: {module: census}
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "127.0.0.1:9999" {
		t.Fatalf("default not applied: %q", cfg.Listen)
	}
	if got := cfg.Sections(); len(got) != 0 {
		t.Fatalf("sections = %v, want none configured", got)
	}
	if _, err := ParseConfig([]byte(`keys: [{name: env, key_env: TEST_UNSET_VAR_X, rate: 1, burst: 10}]
providers: {geocoder: {module: census}, reverse_geocoder: {module: census}}`)); err == nil ||
		!strings.Contains(err.Error(), "TEST_UNSET_VAR_X") {
		t.Fatalf("unset key_env: err = %v", err)
	}
}

func TestRunExitCodes(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "-config", filepath.Join(t.TempDir(), "missing.yaml")}, &out, &errb); code != exitConfig {
		t.Fatalf("missing config: exit %d, want %d", code, exitConfig)
	}
	if code := run([]string{"frobnicate"}, &out, &errb); code != exitUsage {
		t.Fatalf("unknown command: exit %d", code)
	}
	if code := run([]string{"help"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "serve") {
		t.Fatalf("help: exit %d %q", code, out.String())
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
