package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// oaChromium finds a Chromium to drive; $CHROMIUM names one explicitly.
func oaChromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestDocsPageRendersInABrowser loads /docs in headless Chromium and checks
// that Swagger UI rendered every operation of the document from the assets
// the binary embeds, and that the browser refused nothing (a Content
// Security Policy violation means the page tried to load something from
// elsewhere, or to evaluate code). Without Chromium the test skips, except
// in CI (CI set), where it must run.
func TestDocsPageRendersInABrowser(t *testing.T) {
	bin := oaChromium()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium binary found, and CI is set: install Debian's chromium package (.ci/run does)")
		}
		t.Skip("no chromium binary found (apt-get install chromium, or set $CHROMIUM); the /docs page was not checked in a browser")
	}
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), upstreams())

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--enable-logging=stderr", "--v=0",
		// Nothing but this machine resolves, should the page try.
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=15000", "--dump-dom", "http://"+m.Addr()+"/docs")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, oaShorten(stderr.Bytes(), 4000))
	}
	dom := stdout.String()

	// Swagger UI writes one summary per operation, with the path in
	// data-path; the page as served holds none of them.
	for _, op := range []string{
		"/v1/properties/lookup", "/v1/properties/reverse", "/v1/properties/batch", "/v1/properties/search",
		"/v1/properties/{id}", "/v1/properties/{id}/flood", "/v1/properties/{id}/walkscore",
		"/v1/properties/{id}/demographics", "/v1/properties/{id}/amenities", "/v1/properties/{id}/housing", "/healthz", "/readyz", "/metrics", "/openapi.json", "/docs",
	} {
		re := regexp.MustCompile(`class="opblock-summary-path"[^>]*data-path="` + regexp.QuoteMeta(op) + `"`)
		if !re.MatchString(dom) {
			t.Errorf("the rendered page has no operation %s", op)
		}
	}
	for _, want := range []string{`class="info"`, "propertyd", `class="btn authorize`, `id="operations-tag-Properties"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
	if strings.Contains(dom, "Failed to load API definition") {
		t.Error("Swagger UI could not load /openapi.json")
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", oaShorten(stdout.Bytes(), 6000))
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "Refused to") || strings.Contains(line, "Content Security Policy") {
			t.Errorf("the browser refused something on /docs: %s", line)
		}
	}
}
