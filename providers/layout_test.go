package providers_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTestToolingStaysOutOfTheProductionTree keeps test tooling out of what
// ships: a package that imports testing drags the test framework (and its
// flags) into every binary that imports it, so only test kits may: those in
// an internal/ folder and the database and Redis kits named for it
// (pgtest, fleettest), which only tests import. providertest, the kit users
// import into their own tests, and the sandbox binary's server import
// neither testing nor (the sandbox) httpmock; httpmock belongs only in
// tests and in providertest.
func TestTestToolingStaysOutOfTheProductionTree(t *testing.T) {
	root, err := filepath.Abs("..") // the module, from providers/
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not the parent of providers/: %v", err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		dirs := strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case p == "testing" && !slices.Contains(dirs, "internal") && !testKit(dirs):
				t.Errorf("%s imports testing outside an internal/ folder: every binary importing its package would link the test framework", rel)
			case p == "github.com/jarcoal/httpmock" && filepath.ToSlash(filepath.Dir(rel)) != "providers/kits/providertest":
				t.Errorf("%s imports httpmock: only tests and the providertest kit may", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("looked at only %d Go files under %s; the walk missed the module", files, root)
	}
}

// testKit reports whether a package is a test kit that may import testing:
// one named for it (pgtest, fleettest), which only tests import. The kits
// users import (providertest and its sandbox) may not.
func testKit(dirs []string) bool {
	last := dirs[len(dirs)-1]
	return strings.HasSuffix(last, "test") && last != "providertest" && !slices.Contains(dirs, "providertest")
}
