package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

// TestTheDemoFollowsTheNewestACSReleaseWithoutWarnings runs what make demo
// runs: the sandbox and propertyd configured by cmd/sandbox/demo.yaml. The
// ACS modules discover the newest release from the sandbox, as they would
// from the Census API, and nothing is logged as a warning.
func TestTheDemoFollowsTheNewestACSReleaseWithoutWarnings(t *testing.T) {
	m, sb, logs := startDemo(t)

	p := sb.Places()[0]
	req, _ := http.NewRequest(http.MethodGet, "http://"+m.Addr()+relLookupPath(p, "", "demographics,housing"), nil)
	req.Header.Set("X-API-Key", demoKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("lookup of %s: %d %s", p.ID, resp.StatusCode, body)
	}
	// The first need of a release waits for the discovery, so its outcome
	// is logged by the time the answer is in.
	log := logs.String()
	if strings.Contains(log, `"level":"WARN"`) || strings.Contains(log, `"level":"ERROR"`) {
		t.Errorf("the demo logged a warning:\n%s", log)
	}
	if !strings.Contains(log, `"msg":"census ACS: newest 5-year release"`) {
		t.Errorf("the ACS modules did not learn the newest release from the sandbox:\n%s", log)
	}
	if want := `"vintage":"` + strconv.Itoa(providertest.ACSNewestYear) + ` ACS 5-year"`; !strings.Contains(string(body), want) {
		t.Errorf("the answer does not carry the sandbox's newest release (%s):\n%s", want, body)
	}
	if !strings.Contains(string(body), `"year_built":2004`) || !strings.Contains(string(body), `"facts":{"source":"sample-assessor","as_of":"2026-09-30"`) {
		t.Errorf("the demo's first lookup shows no facts from the sample assessor file:\n%s", body)
	}
}

// startDemo runs what make demo runs: the sandbox and propertyd configured
// by cmd/sandbox/demo.yaml, on a fresh database into which the sample
// assessor file was loaded before serving. It returns propertyd, the
// sandbox and propertyd's log.
func startDemo(t *testing.T) (*Main, *sandbox.Server, *logSink) {
	t.Helper()
	sb := sandbox.New(sandbox.DefaultPlaces(), sandbox.Options{})
	root, err := sb.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	t.Setenv("SANDBOX_URL", root)
	t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
	t.Setenv("PROPERTYD_DATABASE", filepath.Join(t.TempDir(), "demo.db"))
	t.Setenv("PROPERTYD_REDIS_URL", "")
	cfg, err := LoadConfig(filepath.Join("..", "sandbox", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	dc := &dataCommand{console{stdout: &out, stderr: &errb}}
	if code := dc.run([]string{"load", "parcels", "-config", filepath.Join("..", "sandbox", "demo.yaml"), "-dataset", "sample-assessor",
		"-failures", filepath.Join(t.TempDir(), "f.csv"), filepath.Join("..", "sandbox", "assessor.csv")}); code != exitOK ||
		!strings.Contains(out.String(), "rows kept:      7") || !strings.Contains(out.String(), "rows failed:    0") {
		t.Fatalf("loading the demo's assessor file: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	logs := &logSink{}
	m := NewMain(cfg)
	m.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, sb, logs
}
