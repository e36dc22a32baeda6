// Package providertest helps tests run propertyd's provider modules against
// fakes. For each upstream it registers httpmock responders that speak that
// upstream's real wire format (the same JSON, CSV or HTML bodies, status codes
// and quirks) built from data the test gives, so a test of code that uses a
// provider needs only a few lines:
//
//	mt := httpmock.NewMockTransport()
//	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, places...)
//	client := &http.Client{Transport: mt}
//
// It also locates the reference recordings of the real upstreams for
// conformance tests (UpstreamsDir).
package providertest

import (
	"os"
	"path/filepath"
	"testing"
)

// UpstreamsDir returns the folder of reference recordings for one upstream
// (e.g. "census-geocoder"): $PROPERTYD_UPSTREAMS/<name> when that variable is
// set, else shared/upstreams/<name> beside the repository root. When the
// folder does not exist the test is skipped, so conformance tests run where
// the recordings are and stay quiet elsewhere.
func UpstreamsDir(t testing.TB, name string) string {
	t.Helper()
	if root := os.Getenv("PROPERTYD_UPSTREAMS"); root != "" {
		return existing(t, filepath.Join(root, name))
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Skipf("no working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return existing(t, filepath.Join(dir, "..", "shared", "upstreams", name))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root not found; no upstream recordings")
		}
		dir = parent
	}
}

func existing(t testing.TB, dir string) string {
	t.Helper()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("upstream recordings not present at %s", dir)
	}
	return dir
}

// Recordings returns the paths of every file in dir whose name ends with one
// of exts (e.g. ".json"), so a conformance test can decode each of them.
func Recordings(t testing.TB, dir string, exts ...string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		for _, ext := range exts {
			if filepath.Ext(e.Name()) == ext {
				out = append(out, filepath.Join(dir, e.Name()))
				break
			}
		}
	}
	return out
}
