// Package internal_test holds the rules of where test tooling may live in
// the module. The module's internal folder has no code of its own: its
// sub-packages are the test kits several trees share.
package internal_test

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

// TestTestToolingStaysOutOfTheProductionTree keeps test kits where a user
// of the module cannot import them by accident: a package outside an
// internal/ folder that imports testing drags the test framework (and its
// flags) into every binary that imports it, and httpmock belongs only in
// tests and in providertest, the kit users import into their own tests.
func TestTestToolingStaysOutOfTheProductionTree(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not the parent of internal/: %v", err)
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
			case p == "testing" && !slices.Contains(dirs, "internal"):
				t.Errorf("%s imports testing outside an internal/ folder: every binary importing its package would link the test framework", rel)
			case p == "github.com/jarcoal/httpmock" && filepath.ToSlash(filepath.Dir(rel)) != "providers/providertest":
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
