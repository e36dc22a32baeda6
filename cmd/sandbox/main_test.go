package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

func TestParseFlagsMergesFaultsPerUpstream(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want map[string]sandbox.Faults
	}{
		{"no faults", nil, map[string]sandbox.Faults{}},
		{"one upstream", []string{"-latency", "census=100ms", "-error-rate", "census=0.3", "-status", "census=429", "-retry-after", "census=2"},
			map[string]sandbox.Faults{"census": {Latency: 100 * time.Millisecond, ErrorRate: 0.3, Status: 429, RetryAfter: "2"}}},
		{"all upstreams, then one overridden", []string{"-latency", "20ms", "-jitter", "*=5ms", "-latency", "hud=1s"},
			map[string]sandbox.Faults{
				"census":    {Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond},
				"fema":      {Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond},
				"acs":       {Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond},
				"overpass":  {Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond},
				"walkscore": {Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond},
				"hud":       {Latency: time.Second, Jitter: 5 * time.Millisecond},
			}},
		{"modes", []string{"-hang", "overpass", "-malformed", "walkscore", "-arcgis-error"},
			map[string]sandbox.Faults{"overpass": {Hang: true}, "walkscore": {Malformed: true}, "fema": {ArcGISError: true}}},
	} {
		cfg, err := parseFlags(tc.args, io.Discard)
		if err != nil {
			t.Errorf("%s: parseFlags(%q): %v", tc.name, tc.args, err)
			continue
		}
		if !reflect.DeepEqual(cfg.faults, tc.want) {
			t.Errorf("%s: faults = %+v\nwant %+v", tc.name, cfg.faults, tc.want)
		}
	}
}

func TestParseFlagsRejectsBadKnobs(t *testing.T) {
	for _, args := range [][]string{
		{"-latency", "geocoder=1s"},
		{"-latency", "fast"},
		{"-jitter", "-5ms"},
		{"-error-rate", "census=lots"},
		{"-error-rate", "census=2"},
		{"-status", "census=200"},
		{"-retry-after", "soon"},
		{"-hang", "fcc"},
		{"extra"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) succeeded", args)
		}
	}
	cfg, err := parseFlags(nil, io.Discard)
	if err != nil || cfg.listen != "127.0.0.1:9090" || cfg.seed != 1 || cfg.hudToken != sandbox.HUDToken {
		t.Errorf("defaults = %+v, %v", cfg, err)
	}
}

func TestRunServesUntilCanceled(t *testing.T) {
	cfg, err := parseFlags([]string{"-listen", "127.0.0.1:0", "-places", "../../providers/kits/providertest/sandbox/places.json", "-error-rate", "hud=1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, pw, io.Discard)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatalf("no banner: %v", <-done)
	}
	first := lines.Text()
	root := strings.Fields(strings.TrimPrefix(first, "sandbox listening on "))[0]
	var printed []string
	for lines.Scan() && !strings.HasPrefix(lines.Text(), "control:") {
		printed = append(printed, lines.Text())
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck // drain the rest
	for role, url := range sandbox.BaseURLs(root) {
		if !strings.Contains(strings.Join(printed, "\n"), url) {
			t.Errorf("the banner does not print the %s base URL %s:\n%s", role, url, strings.Join(printed, "\n"))
		}
	}

	resp, err := http.Get(sandbox.BaseURLs(root)["fair_market_rent"] + "/data/4845399999")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("hud with -error-rate hud=1: status %d, want 503", resp.StatusCode)
	}
	resp, err = http.Get(root + "/_sandbox/stats")
	if err != nil {
		t.Fatal(err)
	}
	var stats map[string]any
	err = json.NewDecoder(resp.Body).Decode(&stats)
	resp.Body.Close()
	if err != nil || stats["hud"] != float64(1) {
		t.Errorf("stats = %v, %v; want one hud call", stats, err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return 5s after its context ended")
	}
}

// TestTheBinaryLinksNoTestTooling keeps the sandbox a plain net/http server:
// it speaks the upstreams' formats through internal/fakeupstream, never
// through the httpmock kit, and links no test framework, whose flags would
// show up in its -help.
func TestTheBinaryLinksNoTestTooling(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the binary's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "testing" || strings.HasPrefix(dep, "github.com/jarcoal/httpmock") ||
			strings.HasSuffix(dep, "/providers/kits/providertest") {
			t.Errorf("the sandbox binary depends on %s", dep)
		}
	}
}
