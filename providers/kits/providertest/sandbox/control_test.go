package sandbox_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// do sends a control request and decodes its JSON answer into v (when not
// nil), returning the status.
func do(t *testing.T, method, url, body string, v any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s %s: Content-Type %q, want JSON (body %s)", method, url, ct, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s %s: decoding %s: %v", method, url, b, err)
		}
	}
	return resp.StatusCode
}

type faultsView struct {
	Latency     string  `json:"latency"`
	Jitter      string  `json:"jitter"`
	ErrorRate   float64 `json:"error_rate"`
	Status      int     `json:"status"`
	RetryAfter  string  `json:"retry_after"`
	Hang        bool    `json:"hang"`
	Malformed   bool    `json:"malformed"`
	ArcGISError bool    `json:"arcgis_error"`
}

func TestControlEndpointSetsAndResetsFaults(t *testing.T) {
	srv, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	p := place(t, "austin-tx")
	ctx := context.Background()

	var faults map[string]faultsView
	status := do(t, http.MethodPost, root+"/_sandbox/faults",
		`{"upstream":"census","latency":"10ms","jitter":"5ms","error_rate":1,"status":503,"retry_after":"2","hang":false,"malformed":false,"arcgis_error":false}`, &faults)
	if status != http.StatusOK {
		t.Fatalf("POST /_sandbox/faults: status %d", status)
	}
	want := faultsView{Latency: "10ms", Jitter: "5ms", ErrorRate: 1, Status: 503, RetryAfter: "2"}
	if faults["census"] != want || faults["fema"] != (faultsView{Latency: "0s", Jitter: "0s"}) {
		t.Errorf("faults after POST = %+v", faults)
	}
	if got := srv.Faults(sandbox.UpstreamCensus); got.Status != 503 || got.ErrorRate != 1 {
		t.Errorf("Server.Faults(census) = %+v after the POST", got)
	}
	_, err := c.census.Geocode(ctx, p.Address())
	e := wantKind(t, "census after POST error_rate 1", err, providers.KindUpstream, "upstream_error")
	if e.RetryAfter.Seconds() != 2 {
		t.Errorf("RetryAfter = %v, want 2s", e.RetryAfter)
	}
	if _, err := c.fema.Flood(ctx, p.Point()); err != nil {
		t.Errorf("fema while only census fails: %v", err)
	}

	faults = nil
	if status := do(t, http.MethodGet, root+"/_sandbox/faults", "", &faults); status != http.StatusOK || faults["census"] != want {
		t.Errorf("GET /_sandbox/faults = %d %+v", status, faults)
	}

	if status := do(t, http.MethodPost, root+"/_sandbox/faults", `{"upstream":"*","error_rate":1,"status":500}`, nil); status != http.StatusOK {
		t.Fatalf("POST * : status %d", status)
	}
	_, err = c.hud.FairMarketRents(ctx, p.FIPS())
	wantKind(t, "hud after POST *", err, providers.KindUpstream, "upstream_error")

	if status := do(t, http.MethodDelete, root+"/_sandbox/faults?upstream=hud", "", &faults); status != http.StatusOK || faults["hud"].ErrorRate != 0 || faults["acs"].ErrorRate != 1 {
		t.Errorf("DELETE ?upstream=hud = %d %+v", status, faults)
	}
	if _, err := c.hud.FairMarketRents(ctx, p.FIPS()); err != nil {
		t.Errorf("hud after its reset: %v", err)
	}
	if status := do(t, http.MethodDelete, root+"/_sandbox/faults", "", &faults); status != http.StatusOK {
		t.Errorf("DELETE /_sandbox/faults: status %d", status)
	}
	for name, f := range faults {
		if f != (faultsView{Latency: "0s", Jitter: "0s"}) {
			t.Errorf("after DELETE, %s faults = %+v", name, f)
		}
	}
	if _, err := c.census.Geocode(ctx, p.Address()); err != nil {
		t.Errorf("census after DELETE: %v", err)
	}
}

func TestControlEndpointRejectsBadRequests(t *testing.T) {
	srv, root := start(t, sandbox.Options{})
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		msg                      string
	}{
		{"unknown upstream", "POST", "/_sandbox/faults", `{"upstream":"censsus","error_rate":1}`, 400, "unknown upstream"},
		{"role instead of upstream", "POST", "/_sandbox/faults", `{"upstream":"geocoder"}`, 400, "unknown upstream"},
		{"no upstream", "POST", "/_sandbox/faults", `{"error_rate":1}`, 400, "upstream is required"},
		{"unknown field", "POST", "/_sandbox/faults", `{"upstream":"census","latancy":"1s"}`, 400, "latancy"},
		{"not JSON", "POST", "/_sandbox/faults", `upstream=census`, 400, "invalid JSON"},
		{"two objects", "POST", "/_sandbox/faults", `{"upstream":"census"} {}`, 400, "after the object"},
		{"stray brace", "POST", "/_sandbox/faults", `{"upstream":"census"}}`, 400, "after the object"},
		{"duration without unit", "POST", "/_sandbox/faults", `{"upstream":"census","latency":"100"}`, 400, "latency"},
		{"duration as a number", "POST", "/_sandbox/faults", `{"upstream":"census","latency":100}`, 400, "invalid JSON"},
		{"negative latency", "POST", "/_sandbox/faults", `{"upstream":"census","latency":"-5ms"}`, 400, "negative"},
		{"error rate above 1", "POST", "/_sandbox/faults", `{"upstream":"census","error_rate":1.5}`, 400, "error_rate"},
		{"success status", "POST", "/_sandbox/faults", `{"upstream":"census","status":200}`, 400, "status"},
		{"retry-after in words", "POST", "/_sandbox/faults", `{"upstream":"census","retry_after":"later"}`, 400, "retry_after"},
		{"arcgis_error on census", "POST", "/_sandbox/faults", `{"upstream":"census","arcgis_error":true}`, 400, "fema"},
		{"reset of an unknown upstream", "DELETE", "/_sandbox/faults?upstream=fcc", ``, 400, "unknown upstream"},
		{"PUT faults", "PUT", "/_sandbox/faults", `{}`, 405, "not allowed"},
		{"GET reset", "GET", "/_sandbox/stats/reset", ``, 405, "not allowed"},
		{"POST stats", "POST", "/_sandbox/stats", ``, 405, "not allowed"},
		{"unknown endpoint", "GET", "/_sandbox/fault", ``, 404, "no control endpoint"},
	} {
		var answer map[string]string
		status := do(t, tc.method, root+tc.path, tc.body, &answer)
		if status != tc.status || !strings.Contains(answer["error"], tc.msg) {
			t.Errorf("%s: %s %s %s = %d %v, want %d with an error mentioning %q",
				tc.name, tc.method, tc.path, tc.body, status, answer, tc.status, tc.msg)
		}
	}
	for _, name := range sandbox.Upstreams() {
		if f := srv.Faults(name); f != (sandbox.Faults{}) {
			t.Errorf("after rejected requests, %s faults = %+v, want none", name, f)
		}
	}
}

func TestStatsCountEveryCallExactly(t *testing.T) {
	srv, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	p := place(t, "miami-beach-fl")
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.census.Geocode(ctx, p.Address())
	must(err)
	_, err = c.census.Reverse(ctx, p.Point())
	must(err)
	_, err = c.census.GeocodeBatch(ctx, []census.BatchRow{{ID: "1", Address: p.Address()}})
	must(err)
	_, err = c.fema.Flood(ctx, p.Point()) // two layer queries
	must(err)
	_, err = c.acs.Demographics(ctx, p.CensusTract())
	must(err)
	_, err = c.acs.Housing(ctx, p.CensusTract())
	must(err)
	_, err = c.overpass.Amenities(ctx, p.Point(), 1000)
	must(err)
	srv.SetFaults(sandbox.UpstreamWalkScore, sandbox.Faults{ErrorRate: 1}) // failures count too
	_, err = c.walk.WalkScore(ctx, p.Point(), "")
	wantKind(t, "walkscore failing", err, providers.KindUpstream, "")
	_, err = c.hud.FairMarketRents(ctx, p.FIPS())
	must(err)
	// Neither control requests nor paths outside the upstreams are counted.
	do(t, http.MethodGet, root+"/_sandbox/faults", "", nil)
	if resp, err := http.Get(root + "/nowhere"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nowhere = %v, %v; want 404", resp, err)
	} else {
		resp.Body.Close()
	}

	want := map[string]int{"census": 3, "fema": 2, "acs": 2, "overpass": 1, "walkscore": 1, "hud": 1}
	for name, n := range want {
		if got := srv.Calls(name); got != n {
			t.Errorf("Calls(%s) = %d, want %d", name, got, n)
		}
	}
	if got := srv.Calls(sandbox.All); got != 10 {
		t.Errorf("Calls(*) = %d, want 10", got)
	}
	wantRoutes := map[string]map[string]int{
		"census": {
			"GET /census/geocoder/geographies/address":       1,
			"GET /census/geocoder/geographies/coordinates":   1,
			"POST /census/geocoder/geographies/addressbatch": 1,
		},
		"fema":      {"GET /fema/28/query": 1, "GET /fema/3/query": 1},
		"acs":       {"GET /acs/data/{year}/acs/acs5": 2},
		"overpass":  {"POST /overpass/api/interpreter": 1},
		"walkscore": {"GET /walkscore/score": 1},
		"hud":       {"GET /hud/fmr/data/{entityid}": 1},
	}
	for name, routes := range wantRoutes {
		if got := srv.RouteCalls(name); !reflect.DeepEqual(got, routes) {
			t.Errorf("RouteCalls(%s) = %v, want %v", name, got, routes)
		}
	}

	var stats struct {
		Census, FEMA, ACS, Overpass, WalkScore, HUD int
		Routes                                      map[string]map[string]int
	}
	if status := do(t, http.MethodGet, root+"/_sandbox/stats", "", &stats); status != http.StatusOK {
		t.Fatalf("GET /_sandbox/stats: status %d", status)
	}
	got := map[string]int{"census": stats.Census, "fema": stats.FEMA, "acs": stats.ACS,
		"overpass": stats.Overpass, "walkscore": stats.WalkScore, "hud": stats.HUD}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(stats.Routes, wantRoutes) {
		t.Errorf("GET /_sandbox/stats = %v %v, want %v %v", got, stats.Routes, want, wantRoutes)
	}

	var zero map[string]any
	if status := do(t, http.MethodPost, root+"/_sandbox/stats/reset", "", &zero); status != http.StatusOK {
		t.Fatalf("POST /_sandbox/stats/reset: status %d", status)
	}
	for _, name := range sandbox.Upstreams() {
		if zero[name] != float64(0) || srv.Calls(name) != 0 || len(srv.RouteCalls(name)) != 0 {
			t.Errorf("after reset, %s: answer %v, Calls %d, routes %v", name, zero[name], srv.Calls(name), srv.RouteCalls(name))
		}
	}
	_, err = c.census.Geocode(ctx, p.Address())
	must(err)
	srv.ResetCalls()
	if n := srv.Calls(sandbox.All); n != 0 {
		t.Errorf("Calls(*) after ResetCalls = %d", n)
	}
}

func TestIndexDescribesTheSandbox(t *testing.T) {
	_, root := start(t, sandbox.Options{})
	var idx struct {
		Upstreams map[string]string `json:"upstreams"`
		BaseURLs  map[string]string `json:"base_urls"`
		HUDToken  string            `json:"hud_token"`
		Places    []string          `json:"places"`
	}
	if status := do(t, http.MethodGet, root+"/_sandbox/", "", &idx); status != http.StatusOK {
		t.Fatalf("GET /_sandbox/: status %d", status)
	}
	if !reflect.DeepEqual(idx.BaseURLs, sandbox.BaseURLs(root)) || !reflect.DeepEqual(idx.Upstreams, sandbox.UpstreamURLs(root)) {
		t.Errorf("GET /_sandbox/ = %+v, want the URLs of %s", idx, root)
	}
	if idx.HUDToken != sandbox.HUDToken || len(idx.Places) != len(sandbox.DefaultPlaces()) {
		t.Errorf("GET /_sandbox/: token %q, %d places", idx.HUDToken, len(idx.Places))
	}
}
