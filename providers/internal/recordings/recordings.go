// Package recordings locates the reference recordings of the real upstreams
// (bodies exactly as each upstream sent them, under shared/upstreams beside
// the repository) for the provider modules' conformance tests. It is a test
// kit: it takes a testing.TB and skips the test where the recordings are not
// present, so it lives under internal/ and only tests import it.
package recordings

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the folder of reference recordings for one upstream (e.g.
// "census-geocoder"): $PROPERTYD_UPSTREAMS/<name> when that variable is set,
// else shared/upstreams/<name> beside the repository root. When the folder
// does not exist the test is skipped, so conformance tests run where the
// recordings are and stay quiet elsewhere.
func Dir(t testing.TB, name string) string {
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

// Files returns the paths of every file in dir whose name ends with one of
// exts (e.g. ".json"), so a conformance test can decode each of them.
func Files(t testing.TB, dir string, exts ...string) []string {
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
