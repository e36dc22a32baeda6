package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"
)

// corsPage is a page of another origin that calls the API at api with
// fetch(), as a browser client would, and writes what it could read into
// the element #result as JSON: the record it looked up, the budget and
// ETag headers, a 304 for If-None-Match, and the problems of a 404 and a
// 401; or "failed: ..." when the browser kept an answer from it.
const corsPage = `<!doctype html>
<html><body><pre id="result">pending</pre>
<script>
const api = %q, key = %q;
async function call(path, headers) {
  const r = await fetch(api + path, {headers: headers});
  const text = await r.text();
  return {status: r.status, body: text ? JSON.parse(text) : null,
    remaining: r.headers.get("X-RateLimit-Remaining"), cost: r.headers.get("X-Request-Cost"),
    etag: r.headers.get("ETag"), request_id: r.headers.get("X-Request-ID")};
}
(async () => {
  const out = {};
  out.lookup = await call("/v1/properties/lookup?street=2200+West+Broad+Street&city=Richmond&state=VA", {"X-API-Key": key});
  const id = out.lookup.body.data.id;
  out.again = await call("/v1/properties/" + id, {"X-API-Key": key});
  out.not_modified = await call("/v1/properties/" + id, {"X-API-Key": key, "If-None-Match": out.again.etag});
  out.section = await call("/v1/properties/" + id + "/housing", {"X-API-Key": key});
  out.not_found = await call("/v1/nope", {"X-API-Key": key});
  out.unauthorized = await call("/v1/properties/" + id, {});
  document.getElementById("result").textContent = JSON.stringify(out);
})().catch(e => { document.getElementById("result").textContent = "failed: " + e; });
</script></body></html>`

// corsBrowser loads url in headless Chromium and returns the text of the
// page's #result once its scripts ran.
func corsBrowser(t *testing.T, bin, url string) string {
	t.Helper()
	dom, _ := dumpDOM(t, bin, url)
	m := regexp.MustCompile(`(?s)<pre id="result">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page has no #result:\n%s", oaShorten([]byte(dom), 4000))
	}
	return html.UnescapeString(m[1])
}

// dumpDOM loads url in headless Chromium (bin), lets its scripts run for
// up to 15 s of virtual time, and returns the page's DOM and what the
// browser logged. Nothing but this machine resolves, should the page try
// another host.
func dumpDOM(t *testing.T, bin, url string) (dom, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--enable-logging=stderr", "--v=0",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=15000", "--dump-dom", url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, oaShorten(stderr.Bytes(), 4000))
	}
	return stdout.String(), stderr.String()
}

// TestABrowserPageOfAnAllowedOriginCallsTheAPI loads, in headless
// Chromium, a page served from another origin (another port) that calls
// the API with fetch(): from an origin in cors.allowed_origins the page
// reads the record, the rate-limit headers and the ETag, gets a 304 for
// If-None-Match (a header its preflight had to have allowed), and reads
// the problem details of a 404 and a 401; from an origin not listed the
// browser keeps every answer from the page. Without Chromium the test
// skips, except in CI (CI set), where it must run.
func TestABrowserPageOfAnAllowedOriginCallsTheAPI(t *testing.T) {
	bin := oaChromium()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium binary found, and CI is set: install Debian's chromium package (.ci/run does)")
		}
		t.Skip("no chromium binary found (apt-get install chromium, or set $CHROMIUM); CORS was not checked in a browser")
	}
	// The API's address, known once it starts, which is after the pages'
	// servers do; read by their handlers (the browser asks for a page only
	// then, but through a process the race detector cannot see).
	var api atomic.Value
	page := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, corsPage, api.Load(), demoKey)
	}
	allowed := httptest.NewServer(http.HandlerFunc(page))
	defer allowed.Close()
	other := httptest.NewServer(http.HandlerFunc(page))
	defer other.Close()

	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	cfg.CORS.AllowedOrigins = []string{allowed.URL}
	m := startMain(t, cfg, upstreams())
	api.Store("http://" + m.Addr())

	got := corsBrowser(t, bin, allowed.URL)
	type answer struct {
		Status    int             `json:"status"`
		Body      json.RawMessage `json:"body"`
		Remaining *string         `json:"remaining"`
		Cost      *string         `json:"cost"`
		ETag      *string         `json:"etag"`
		RequestID *string         `json:"request_id"`
	}
	var out map[string]answer
	if err := json.Unmarshal([]byte(got), &out); err != nil {
		t.Fatalf("the page of the allowed origin %s could not read the API: %s", allowed.URL, got)
	}
	code := func(a answer) string {
		var p struct{ Code string }
		_ = json.Unmarshal(a.Body, &p)
		return p.Code
	}
	str := func(p *string) string {
		if p == nil {
			return "(not readable)"
		}
		return *p
	}
	if a := out["lookup"]; a.Status != 200 || a.Remaining == nil || a.Cost == nil || a.RequestID == nil {
		t.Errorf("lookup: status %d, X-RateLimit-Remaining %s, X-Request-Cost %s, X-Request-ID %s; want 200 and each readable",
			a.Status, str(a.Remaining), str(a.Cost), str(a.RequestID))
	}
	if a := out["again"]; a.Status != 200 || a.ETag == nil {
		t.Errorf("GET by id: status %d, ETag %s; want 200 and a readable ETag", a.Status, str(a.ETag))
	}
	if a := out["not_modified"]; a.Status != 304 {
		t.Errorf("GET with If-None-Match: status %d, want 304", a.Status)
	}
	if a := out["section"]; a.Status != 200 || str(a.Cost) != "2" {
		t.Errorf("GET .../housing: status %d, X-Request-Cost %s; want 200 and 2", a.Status, str(a.Cost))
	}
	if a := out["not_found"]; a.Status != 404 || code(a) != "not_found" {
		t.Errorf("GET /v1/nope: status %d, code %q; want 404 not_found, readable", a.Status, code(a))
	}
	if a := out["unauthorized"]; a.Status != 401 || code(a) != "unauthorized" {
		t.Errorf("GET without a key: status %d, code %q; want 401 unauthorized, readable", a.Status, code(a))
	}

	if got := corsBrowser(t, bin, other.URL); !regexp.MustCompile(`^failed: TypeError`).MatchString(got) {
		t.Errorf("the page of %s, an origin not allowed, read: %s; want the browser to keep the answers from it", other.URL, got)
	}
}
