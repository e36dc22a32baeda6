package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

// The street of the place these tests look up: distinctive enough that
// finding it anywhere in the logs means an address leaked.
const privacyStreet = "4217 Quillfeather Lane"

// privacyPlace is the sandbox's Austin place under privacyStreet, so that a
// working geocoder matches it and the sections are asked for its point.
func privacyPlace() sandbox.Place {
	for _, p := range sandbox.DefaultPlaces() {
		if p.ID == "austin-tx" {
			p.ID, p.Street, p.Aliases = "quillfeather", strings.ToUpper(privacyStreet), nil
			return p
		}
	}
	panic("the sandbox has no austin-tx place")
}

// privacyLeaks returns the forms in which the place could show up in a log
// line or a metric: the street as typed, upper case and in either URL
// encoding, the distinctive word alone (which also catches any other
// spelling), and the coordinates as the modules send them; and the
// secrets the rig configures (the Walk Score key, the HUD token, the ACS
// key).
func privacyLeaks(p sandbox.Place) []string {
	return []string{
		privacyStreet, strings.ToUpper(privacyStreet),
		url.QueryEscape(privacyStreet), url.PathEscape(privacyStreet),
		"quillfeather", "QUILLFEATHER", "Quillfeather",
		strconv.FormatFloat(p.Lat, 'f', -1, 64), strconv.FormatFloat(-p.Lng, 'f', -1, 64),
		"sandbox-walkscore-key", sandbox.HUDToken, privacyACSKey,
	}
}

// refusedRoot returns the root URL of a port nothing listens on: every
// connection to it is refused.
func refusedRoot(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// garbageRoot starts a server that answers every call, on any path, with
// HTTP 500 and an HTML page, as a broken proxy in front of an upstream
// would, and returns its root URL.
func garbageRoot(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, "<html><body><h1>500</h1>something broke {{ not json</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The secrets the privacy rig configures: none may reach a log line.
const privacyACSKey = "acs-key-Zq81vXw"

// echoRoot starts a server that answers every call with what it was sent,
// as upstreams do: the census geocoder repeats the address in result.input
// of every answer, and error pages quote the request URL (an API key in its
// query string) and its headers. A GET or POST to a path ending in
// "onelineaddress", "address" or "coordinates" (the census geocoder's
// routes) is answered 200 with JSON that has the input but no readable
// matches, so decoding it fails; every other call is answered 500 with a
// text page quoting the URL, each query and form value decoded, and the
// Authorization header.
func echoRoot(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		var b strings.Builder
		fmt.Fprintf(&b, "could not process %s (%s)", r.URL.String(), r.Header.Get("Authorization"))
		for name, vs := range r.Form {
			for _, v := range vs {
				fmt.Fprintf(&b, " %s=%s", name, v)
			}
		}
		switch {
		case strings.HasSuffix(r.URL.Path, "address"), strings.HasSuffix(r.URL.Path, "coordinates"):
			input := map[string]string{}
			for name, vs := range r.Form {
				input[name] = vs[0]
			}
			doc, _ := json.Marshal(map[string]any{"result": map[string]any{
				"input":          map[string]any{"address": input, "benchmark": map[string]any{"benchmarkName": "Public_AR_Current"}},
				"addressMatches": "not a list: " + b.String(),
			}})
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(doc)
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, b.String())
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// privacyRig runs propertyd with every module enabled (walkscore-api and
// hud-fmr included) against a sandbox that knows privacyPlace, except the
// roles in failing, which are pointed at failRoot instead, and collects
// every log line at debug level.
func privacyRig(t *testing.T, failRoot string, failing ...string) (*relRig, *logSink) {
	t.Helper()
	sb := sandbox.New([]sandbox.Place{privacyPlace()}, sandbox.Options{Seed: 7})
	root, err := sb.Start("127.0.0.1:0")
	if err != nil {
		t.Fatalf("starting the sandbox: %v", err)
	}
	t.Cleanup(sb.Close)
	cfg := relConfig{root: root, db: filepath.Join(t.TempDir(), "propertyd.db"), walkScoreAPI: true, hud: true, acsKey: privacyACSKey,
		// No retries and a breaker that never opens: every lookup reaches
		// the failing upstream and reports its own failure.
		defaults: relProviderKnobs{timeout: "5s", retries: 0, failures: 1000, openFor: "1s"}}
	yaml := cfg.yaml()
	good, bad := sandbox.BaseURLs(root), sandbox.BaseURLs(failRoot)
	for _, role := range failing {
		yaml = strings.ReplaceAll(yaml, fmt.Sprintf("base_url: %q", good[role]), fmt.Sprintf("base_url: %q", bad[role]))
	}
	c, err := ParseConfig([]byte(yaml))
	if err != nil {
		t.Fatalf("the test configuration does not parse: %v\n%s", err, yaml)
	}
	logs := &logSink{}
	m := NewMain(c)
	m.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("starting propertyd: %v", err)
	}
	t.Cleanup(func() {
		relClient.CloseIdleConnections()
		m.Close()
	})
	return &relRig{t: t, sb: sb, root: root, cfg: cfg, m: m, base: "http://" + m.Addr()}, logs
}

// privacyCheck fails if any log line, or the metrics, hold the place in any
// of its forms.
func privacyCheck(t *testing.T, r *relRig, logs *logSink) {
	t.Helper()
	metrics := relCall(t, r.base, "", http.MethodGet, "/metrics", nil, nil)
	relWantStatus(t, metrics, http.StatusOK)
	leaks := privacyLeaks(privacyPlace())
	for _, line := range strings.Split(logs.String(), "\n") {
		for _, leak := range leaks {
			if strings.Contains(line, leak) {
				t.Errorf("a log line shows the address (%q):\n%s", leak, line)
			}
		}
	}
	for _, leak := range leaks {
		if strings.Contains(string(metrics.body), leak) {
			t.Errorf("/metrics shows the address (%q)", leak)
		}
	}
	if t.Failed() {
		t.Logf("all log lines:\n%s", logs.String())
	}
}

// privacyLookup is the lookup of privacyStreet with include.
func privacyLookup(include string) string {
	p := privacyPlace()
	q := url.Values{"street": {privacyStreet}, "city": {p.City}, "state": {p.State}, "zip": {p.Zip}}
	if include != "" {
		q.Set("include", include)
	}
	return "/v1/properties/lookup?" + q.Encode()
}

func privacyReverse(include string) string {
	p := privacyPlace()
	q := url.Values{"lat": {strconv.FormatFloat(p.Lat, 'f', -1, 64)}, "lng": {strconv.FormatFloat(p.Lng, 'f', -1, 64)}}
	if include != "" {
		q.Set("include", include)
	}
	return "/v1/properties/reverse?" + q.Encode()
}

// privacyBatch is a batch body of the one address.
func privacyBatch() []byte {
	p := privacyPlace()
	return fmt.Appendf(nil, `{"addresses":[{"id":"q1","street":%q,"city":%q,"state":%q,"zip":%q}]}`,
		privacyStreet, p.City, p.State, p.Zip)
}

var allSections = everySection

var sectionNames = strings.Split(allSections, ",")

// TestFailedGeocodingLogsNoAddress: a geocoder that cannot be reached, or
// answers garbage, fails the lookup, the reverse lookup and the batch item
// with the right code, and neither the logs nor /metrics show the street
// (the census geocoder's request URL carries it in its query string) or
// the coordinates.
func TestFailedGeocodingLogsNoAddress(t *testing.T) {
	for _, tc := range []struct {
		name     string
		root     func(*testing.T) string
		code     string
		geocoder []string
	}{
		{"refused", refusedRoot, "upstream_unreachable", []string{"geocoder", "reverse_geocoder"}},
		{"garbage", garbageRoot, "upstream_error", []string{"geocoder", "reverse_geocoder"}},
		{"echo", echoRoot, "upstream_error", []string{"geocoder", "reverse_geocoder"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, logs := privacyRig(t, tc.root(t), tc.geocoder...)
			for _, path := range []string{privacyLookup(""), privacyLookup(allSections), privacyReverse(""), privacyReverse(allSections)} {
				if rp := r.get(path); rp.status != http.StatusBadGateway || rp.json()["code"] != tc.code {
					t.Errorf("want problem 502 %s, got %s", tc.code, rp)
				}
			}
			rp := r.post("/v1/properties/batch?include=flood", privacyBatch())
			relWantStatus(t, rp, http.StatusOK)
			errs, _ := relData(t, rp)["errors"].([]any)
			if len(errs) != 1 {
				t.Fatalf("want the one address in errors, got %s", rp)
			}
			if code := errs[0].(map[string]any)["code"]; code != tc.code {
				t.Errorf("batch error code %v, want %s: %s", code, tc.code, rp)
			}
			if !strings.Contains(logs.String(), `"code":"`+tc.code+`"`) {
				t.Errorf("no log line names the failure %s:\n%s", tc.code, logs.String())
			}
			privacyCheck(t, r, logs)
		})
	}
}

// TestFailedSectionsLogNoAddress: with the geocoder working and every
// section's upstream unreachable or answering garbage, each section says
// why in meta.sections, each section's own route answers with that
// code, and neither the logs nor /metrics show the street or the point
// (Walk Score's request URL carries the address, the others the
// coordinates).
func TestFailedSectionsLogNoAddress(t *testing.T) {
	sectionRoles := everySectionRole()
	for _, tc := range []struct {
		name string
		root func(*testing.T) string
		want func(code string) bool
	}{
		{"refused", refusedRoot, func(code string) bool { return code == "upstream_unreachable" }},
		{"garbage", garbageRoot, func(code string) bool {
			return code == "upstream_error" || code == "upstream_bad_response"
		}},
		{"echo", echoRoot, func(code string) bool { return code == "upstream_error" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, logs := privacyRig(t, tc.root(t), sectionRoles...)
			rp := r.get(privacyLookup(allSections))
			relWantStatus(t, rp, http.StatusOK)
			id := relData(t, rp)["id"]
			for _, name := range sectionNames {
				meta := relSectionMeta(t, rp, name)
				if code, _ := meta["error"].(string); meta["status"] != "unavailable" || !tc.want(code) {
					t.Errorf("meta.sections.%s = %v, want unavailable with the failure's code", name, meta)
				}
			}
			relWantStatus(t, r.get(privacyReverse(allSections)), http.StatusOK)
			for _, name := range sectionNames {
				rp := r.get(fmt.Sprintf("/v1/properties/%v/%s", id, name))
				m := relWantProblem(t, rp, http.StatusBadGateway, "")
				if code, _ := m["code"].(string); !tc.want(code) {
					t.Errorf("GET /v1/properties/{id}/%s answered code %q", name, code)
				}
			}
			privacyCheck(t, r, logs)
		})
	}
}
