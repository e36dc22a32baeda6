package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures of package geofile (their README says how they were
// written): four DC tracts, two counties, an NFHL download of four hazard
// areas and a panel as a .zip and as a GeoPackage, and the tracts in Web
// Mercator.
var (
	geoTestdata  = filepath.Join("..", "..", "providers", "geofile", "testdata")
	tractsZip    = filepath.Join(geoTestdata, "tracts.zip")
	countiesJSON = filepath.Join("..", "..", "providers", "tiger", "testdata", "counties.geojson")
	nfhlZip      = filepath.Join(geoTestdata, "nfhl.zip")
	nfhlGPKG     = filepath.Join(geoTestdata, "nfhl.gpkg")
)

type cliRun struct {
	code           int
	stdout, stderr string
}

func dataRun(args ...string) cliRun {
	var out, errb bytes.Buffer
	code := (&dataCommand{console{stdout: &out, stderr: &errb}}).run(args)
	return cliRun{code, out.String(), errb.String()}
}

// statusLine is the line of the first table of data status about the
// dataset kind/name, as its fields.
func statusLine(t *testing.T, config, kind, name string) []string {
	t.Helper()
	r := dataRun("status", "-config", config)
	if r.code != exitOK {
		t.Fatalf("status: exit %d\n%s", r.code, r.stderr)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == kind && f[1] == name {
			return f
		}
		if line == "" {
			break
		}
	}
	return nil
}

// data load boundaries and data load flood load the publishers' files on
// each engine, data status lists them in its one table with their vintage
// and coverage, and the same files again are nothing to do.
func TestDataLoadBoundariesAndFloodShowInStatus(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		config := factsConfigFile(t, database)
		dir := t.TempDir()
		tl := filepath.Join(dir, "tl_2020_11_tract.zip")
		raw, _ := os.ReadFile(tractsZip)
		os.WriteFile(tl, raw, 0o644)
		r := dataRun("load", "boundaries", "-config", config, "-failures", filepath.Join(dir, "b.csv"), tl)
		if r.code != exitOK || !strings.Contains(r.stdout, "features kept:  4") || !strings.Contains(r.stdout, "vintage:        2020") {
			t.Fatalf("load boundaries: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		r = dataRun("load", "boundaries", "-config", config, "-failures", filepath.Join(dir, "c.csv"), countiesJSON)
		if r.code != exitOK || !strings.Contains(r.stdout, "features kept:  2") {
			t.Fatalf("load counties: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		r = dataRun("load", "flood", "-config", config, "-failures", filepath.Join(dir, "f.csv"), nfhlGPKG)
		if r.code != exitOK || !strings.Contains(r.stdout, "vintage:        2010-09-27") || !strings.Contains(r.stdout, `"hazard_areas":4`) {
			t.Fatalf("load flood: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		// KIND NAME ROWS FAILED VINTAGE LOADED TOOK COVERAGE FAILURES FILE
		if f := statusLine(t, config, "boundaries", "tl_2020_11_tract"); len(f) != 9 || f[2] != "4" || f[3] != "0" || f[4] != "2020" ||
			!strings.HasSuffix(f[6], "ms") || f[7] != "-77.0700,38.8550,-76.9820,38.9100" || f[8] != filepath.Join(dir, "b.csv") {
			t.Errorf("status of the tracts: %v", f)
		}
		if f := statusLine(t, config, "flood", "nfhl"); len(f) != 9 || f[2] != "5" || f[4] != "2010-09-27" {
			t.Errorf("status of the flood map: %v", f)
		}
		r = dataRun("load", "boundaries", "-config", config, "-failures", filepath.Join(dir, "b.csv"), tl)
		if r.code != exitOK || !strings.Contains(r.stdout, "already loaded") {
			t.Errorf("the same files again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		// 2020 tracts against the release the demographics ask for
		// before they learn the newest (2022): no warning.
		if r := dataRun("status", "-config", config); strings.Contains(r.stdout, "warning:") {
			t.Errorf("status warns of matching vintages:\n%s", r.stdout)
		}
		// 2019's are the 2010 tracts: the load and data status say so.
		tl2019 := filepath.Join(dir, "tl_2019_11_tract.zip")
		os.WriteFile(tl2019, raw, 0o644)
		r = dataRun("load", "boundaries", "-config", config, "-failures", filepath.Join(dir, "b19.csv"), tl2019)
		const want = "TIGER/Line 2019 has the 2010 census tracts; the ACS 5-year release ending 2022 uses the 2020 tracts"
		if r.code != exitOK || !strings.Contains(r.stderr, "warning: boundaries tl_2019_11_tract: "+want) {
			t.Errorf("load of 2019 tracts: exit %d, stderr %q; want the warning", r.code, r.stderr)
		}
		if r := dataRun("status", "-config", config); !strings.Contains(r.stdout, "warning: boundaries tl_2019_11_tract: "+want) ||
			strings.Contains(r.stdout, "warning: boundaries tl_2020") {
			t.Errorf("status of 2019 and 2020 tracts:\n%s", r.stdout)
		}
	})
}

// A file that is not of the kind, in a projected coordinate system, a
// shapefile without its .dbf or cut short stops the command (exit 1) with
// a message naming the file and the cause, and what is served stays.
func TestDataLoadBoundariesRefusesBadFilesAndKeepsWhatIsServed(t *testing.T) {
	config := factsConfigFile(t, filepath.Join(t.TempDir(), "p.db"))
	dir := t.TempDir()
	fails := filepath.Join(dir, "f.csv")
	if r := dataRun("load", "boundaries", "-config", config, "-name", "dc", "-failures", fails, tractsZip); r.code != exitOK {
		t.Fatalf("load: exit %d\n%s", r.code, r.stderr)
	}
	before := statusLine(t, config, "boundaries", "dc")
	// A shapefile without its .dbf, and one whose .shp is cut short.
	copyTo := func(name string, parts ...string) string {
		for _, ext := range parts {
			raw, err := os.ReadFile(filepath.Join(geoTestdata, "tracts"+ext))
			if err != nil {
				t.Fatal(err)
			}
			if ext == ".shp" && strings.HasPrefix(name, "cut") {
				raw = raw[:len(raw)/2]
			}
			os.WriteFile(filepath.Join(dir, name+ext), raw, 0o644)
		}
		return filepath.Join(dir, name+".shp")
	}
	noDBF := copyTo("nodbf", ".shp", ".shx", ".prj")
	cut := copyTo("cut", ".shp", ".shx", ".dbf", ".prj")
	for _, c := range []struct {
		file, want string
	}{
		{nfhlZip, "choose one"},
		{filepath.Join(geoTestdata, "panels.geojson"), "not TIGER/Line census tracts or counties"},
		{filepath.Join(geoTestdata, "tracts_3857.shp"), "projected"},
		{noDBF, "missing"},
		{cut, "truncated"},
	} {
		r := dataRun("load", "boundaries", "-config", config, "-name", "dc", "-failures", fails, c.file)
		if r.code != exitError || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "what is served stays") {
			t.Errorf("%s: exit %d, %q; want 1 and a message with %q", filepath.Base(c.file), r.code, r.stderr, c.want)
		}
	}
	if after := statusLine(t, config, "boundaries", "dc"); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("served after the refusals: %v, want %v", after, before)
	}
	if r := dataRun("load", "boundaries", "-config", config); r.code != exitUsage {
		t.Errorf("no file: exit %d, want %d", r.code, exitUsage)
	}
	if r := dataRun("load", "flood", "-config", config, filepath.Join(dir, "missing.zip")); r.code != exitUsage || !strings.Contains(r.stderr, "no such file") {
		t.Errorf("a missing file: exit %d %q", r.code, r.stderr)
	}
}

// An instance notices a dataset published through the command line (by
// any instance of a fleet) by the version it watches every facts.refresh:
// it changes with the publication, and not with a run that loads nothing.
func TestTheWatchedVersionChangesWhenADatasetIsPublished(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		config := factsConfigFile(t, database)
		cfg, err := LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
		m := startMain(t, cfg, chicagoUpstreams())
		ctx := context.Background()
		before, err := m.dataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fails := filepath.Join(t.TempDir(), "f.csv")
		if r := dataRun("load", "flood", "-config", config, "-failures", fails, nfhlZip); r.code != exitOK {
			t.Fatalf("load: exit %d\n%s", r.code, r.stderr)
		}
		after, err := m.dataVersion(ctx)
		if err != nil || after == before {
			t.Fatalf("the watched version %q after a publication, %q before (%v): want it changed", after, before, err)
		}
		if r := dataRun("load", "flood", "-config", config, "-failures", fails, nfhlZip); r.code != exitOK || !strings.Contains(r.stdout, "already loaded") {
			t.Fatalf("the same map again: exit %d\n%s", r.code, r.stdout)
		}
		if again, _ := m.dataVersion(ctx); again != after {
			t.Errorf("the watched version moved (%q to %q) on a run that published nothing", after, again)
		}
	})
}
