package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataCommandsRefuseAMissingOrEmptyFileAlike gives every command that
// reads a file (import, data load parcels, data load osm) one that is not
// there, one that is empty and a directory: each is the same usage error
// (exit 2, with the command's help), told before the configuration is
// read, and none says to run the command again to resume, which would
// fail the same way.
func TestDataCommandsRefuseAMissingOrEmptyFileAlike(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.csv")
	// A configuration file that is not there: the file is refused first.
	config := filepath.Join(dir, "none.yaml")
	commands := map[string][]string{
		"import":            {"import", "-config", config},
		"data load parcels": {"data", "load", "parcels", "-config", config, "-preset", "allegheny"},
		"data load osm":     {"data", "load", "osm", "-config", config},
	}
	for name, args := range commands {
		for _, tc := range []struct{ file, want string }{
			{missing, missing + ": no such file"},
			{empty, empty + ": the file is empty"},
			{dir, dir + ": a directory, not a file"},
		} {
			t.Run(name+" "+filepath.Base(tc.file), func(t *testing.T) {
				var out, errb bytes.Buffer
				code := run(append(append([]string(nil), args...), tc.file), &out, &errb)
				msg := errb.String()
				if code != exitUsage || !strings.HasPrefix(msg, "propertyd "+name+": "+tc.want+"\n") ||
					!strings.Contains(msg, "usage: propertyd "+name) {
					t.Fatalf("exit %d, stderr:\n%s\nwant exit 2 saying %q with the help", code, msg, tc.want)
				}
				if first, _, _ := strings.Cut(msg, "\n"); strings.Contains(first, "resume") || strings.Contains(first, "again") {
					t.Errorf("a file that cannot be read is told to be run again:\n%s", msg)
				}
			})
		}
	}
}

// TestDataLoadParcelsExits4WhenRowsFail loads an assessor file none of
// whose rows can be kept: the load finishes, publishes nothing of them and
// exits 4, as an import whose rows failed does, so a script can tell it
// from a clean load.
func TestDataLoadParcelsExits4WhenRowsFail(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "..", "providers", "assessor", "testdata", "allegheny", "assessments.csv"))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(fixture), "\n")
	blank := strings.Repeat(",", strings.Count(header, ","))
	dir := t.TempDir()
	file := filepath.Join(dir, "assessments.csv")
	if err := os.WriteFile(file, []byte(header+"\n"+blank+"\n"+blank+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := factsConfigFile(t, filepath.Join(dir, "p.db"))
	var out, errb bytes.Buffer
	c := &dataCommand{console{stdout: &out, stderr: &errb}}
	code := c.run([]string{"load", "parcels", "-config", path, "-preset", "allegheny", "-failures", filepath.Join(dir, "f.csv"), file})
	if code != exitRowsFailed || !strings.Contains(out.String(), "rows kept:      0\n") || !strings.Contains(out.String(), "rows failed:    2 ") {
		t.Fatalf("every row failed: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 4 and the rows counted", code, out.String(), errb.String())
	}
}

// TestDataStatusCountsTheImportsRecords imports two addresses with facts
// and one without: data status lists the import with the two records it
// gave facts, where it once showed 0 rows.
func TestDataStatusCountsTheImportsRecords(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		e := newImportEnvOn(t, database)
		file := e.file("homes.csv", "street,state,bedrooms\n4100 Cedar Springs Rd,TX,3\n2710 Commerce St,TX,2\n815 S Congress Ave,TX,\n")
		if r := e.run(file); r.code != exitOK {
			t.Fatalf("import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run([]string{"status", "-config", e.config}); code != exitOK {
			t.Fatalf("status: exit %d\n%s", code, errb.String())
		}
		fields := []string{}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "import ") {
				fields = strings.Fields(line)
			}
		}
		// DATASET SOURCE PRECEDENCE ROWS MATCHED FAILED AS OF LOADED
		if len(fields) < 6 || fields[3] != "2" || fields[4] != "2" || fields[5] != "0" {
			t.Fatalf("data status after importing facts of 2 records:\n%s\nwant the import with 2 rows, 2 matched", out.String())
		}
	})
}
