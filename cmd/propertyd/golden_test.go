package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden response files in testdata/golden")

// volatileMember matches the members whose values change from run to run
// (clocks, random ids) in compact JSON; goldenBody replaces their values
// with a placeholder naming them.
var volatileMember = regexp.MustCompile(`"(created_at|updated_at|fetched_at|expires_at|request_id)":"[^"]*"`)

// TestWholeResponsesMatchTheirGoldenFiles pins whole response bodies, as a
// client receives them, for the main use cases over the fake upstreams: a
// change in any field, its name, order or form shows as a diff of the
// golden file. go test ./cmd/propertyd -run Golden -update rewrites them
// after an intended change.
func TestWholeResponsesMatchTheirGoldenFiles(t *testing.T) {
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), upstreams())
	base := "http://" + m.Addr()
	lookup := func(include string) string {
		return "/v1/properties/lookup?" + url.Values{"street": {"2200 West Broad Street"}, "city": {"Richmond"},
			"state": {"VA"}, "include": {include}}.Encode()
	}
	// Amenities come before the lookup that includes walkscore: osm-walk
	// reads them through the amenities section, and with both fetched at
	// once which of the two stores them first (and so says miss) is a race.
	// The first load of one of a state's two ACS tables loads the other
	// in the background, unless the request reads the other itself: the
	// created record's lookup includes demographics alone, so housing is
	// loaded behind it, and is waited for (settled) before the lookup of
	// every section, which then reads it stored.
	for _, c := range []struct{ name, method, path, body, settle string }{
		{"lookup_created", "GET", lookup("flood,demographics"), "", "housing"},
		{"amenities_standalone", "GET", "/v1/properties/1/amenities", "", ""},
		{"lookup_every_section", "GET", lookup(everySection), "", ""},
		{"lookup_every_section_cached", "GET", lookup(everySection), "", ""},
		{"flood_standalone", "GET", "/v1/properties/1/flood", "", ""},
		{"demographics_standalone", "GET", "/v1/properties/1/demographics", "", ""},
		{"batch_found_and_not", "POST", "/v1/properties/batch?include=flood",
			`{"addresses":[{"id":"a","street":"2200 W Broad St","city":"Richmond","state":"VA"},{"id":"b","street":"1 Nowhere Ln","state":"VA"},{"id":"c","street":"PO Box 7","state":"VA"}]}`, ""},
		{"search_by_state", "GET", "/v1/properties/search?state=VA", "", ""},
		{"problem_invalid_parameters", "GET", "/v1/properties/reverse?lat=91&lng=1e1", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
			req.Header.Set("X-API-Key", demoKey)
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got := fmt.Sprintf("HTTP %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), goldenBody(t, raw))
			file := filepath.Join("testdata", "golden", c.name+".json")
			if *updateGolden {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s %s: the response differs from %s (run with -update after an intended change)\n--- got\n%s\n--- want\n%s",
					c.method, c.path, file, got, want)
			}
		})
		if c.settle != "" {
			settled(t, m, c.settle)
		}
	}
}

// settled waits until record 1's section is stored: its own route answers
// it as a cache hit, once any background load of it has ended.
func settled(t *testing.T, m *Main, section string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		time.Sleep(100 * time.Millisecond) // a request a tenth of a second: the key's budget lasts
		status, body, _ := getJSON(t, m, "/v1/properties/1/"+section)
		meta, _ := body["meta"].(map[string]any)
		sec, _ := meta["section"].(map[string]any)
		if status == 200 && sec["cache"] == "hit" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("record 1's %s never settled: %d %v", section, status, body)
		}
	}
}

// goldenBody is raw indented, member order kept, with the values of the
// volatile members replaced by a placeholder naming them.
func goldenBody(t *testing.T, raw []byte) string {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, volatileMember.ReplaceAll(raw, []byte(`"$1":"<$1>"`)), "", "  "); err != nil {
		t.Fatalf("not JSON: %v: %s", err, raw)
	}
	return pretty.String() + "\n"
}
