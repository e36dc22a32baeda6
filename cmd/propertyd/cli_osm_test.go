package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The extract fixture of the loader (providers/osmextract/testdata): OSM
// XML written by hand, converted to PBF with osmium (its README has the
// command).
var franklinPBF = filepath.Join("..", "..", "providers", "osmextract", "testdata", "franklin.osm.pbf")

func TestDataLoadOSMLoadsAnExtractOnceAndStatusListsIt(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		path := factsConfigFile(t, database)
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run([]string{"load", "osm", "-config", path, franklinPBF}); code != exitOK {
			t.Fatalf("load: exit %d\n%s\n%s", code, out.String(), errb.String())
		}
		for _, want := range []string{"extract:        franklin\n", "data of:        2026-11-20T21:21:02Z\n",
			"places:         12\n", "buildings:      4\n", "addresses:      3\n", "skipped:        2 (broken geometry)\n"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the load's summary lacks %q:\n%s", want, out.String())
			}
		}
		out.Reset()
		if code := c.run([]string{"load", "osm", "-config", path, franklinPBF}); code != exitOK ||
			out.String() != "extract franklin is already loaded from "+franklinPBF+" (data of 2026-11-20)\n" {
			t.Errorf("the same file again: exit %d, %q; want nothing done", code, out.String())
		}
		out.Reset()
		if code := c.run([]string{"status", "-config", path}); code != exitOK ||
			!strings.Contains(out.String(), "EXTRACT") || !strings.Contains(out.String(), "franklin  2026-11-20  12") {
			t.Errorf("status: exit %d\n%s", code, out.String())
		}
	})
}

func TestDataLoadOSMRefusesWhatIsNoExtract(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "notes.osm.pbf")
	if err := os.WriteFile(bad, []byte("no extract here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := factsConfigFile(t, filepath.Join(dir, "p.db"))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-config", path}, exitUsage, "give the extract file(s)"},
		{[]string{"-config", path, filepath.Join(dir, "missing.osm.pbf")}, exitUsage, "is no file"},
		{[]string{"-config", path, "-name", "x", franklinPBF, franklinPBF}, exitUsage, "give one file with it"},
		{[]string{"-config", path, bad}, exitError, "not a readable OpenStreetMap extract"},
	} {
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run(append([]string{"load", "osm"}, tc.args...)); code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("data load osm %v: exit %d, stderr %q; want exit %d saying %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}
