package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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

	dom, log := dumpDOM(t, bin, "http://"+m.Addr()+"/docs")

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
		t.Logf("DOM:\n%s", oaShorten([]byte(dom), 6000))
	}
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "Refused to") || strings.Contains(line, "Content Security Policy") {
			t.Errorf("the browser refused something on /docs: %s", line)
		}
	}
}
