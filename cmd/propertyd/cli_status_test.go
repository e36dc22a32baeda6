package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataStatusListsParcelsAndExtractsFromTheOneTable loads an assessor
// dataset and an extract: the table data status opens with lists each as
// a dataset of its kind, with its rows, failures, date, load time, the
// time it took, its coverage and its failures file, read from the one
// table of datasets served as the boundaries' and flood maps' are.
func TestDataStatusListsParcelsAndExtractsFromTheOneTable(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		path := factsConfigFile(t, database)
		fails := filepath.Join(t.TempDir(), "cook.failures.csv")
		var out, errb bytes.Buffer
		c := &dataCommand{console{stdout: &out, stderr: &errb}}
		if code := c.run([]string{"load", "parcels", "-config", path, "-preset", "cook-county", "-dataset", "cook",
			"-as-of", "2026-09-30", "-failures", fails, cookFiles[0], cookFiles[1]}); code != exitRowsFailed {
			t.Fatalf("data load parcels: exit %d\n%s\n%s", code, out.String(), errb.String())
		}
		if code := c.run([]string{"load", "osm", "-config", path, franklinPBF}); code != exitOK {
			t.Fatalf("data load osm: exit %d\n%s\n%s", code, out.String(), errb.String())
		}
		out.Reset()
		if code := c.run([]string{"status", "-config", path}); code != exitOK {
			t.Fatalf("status: exit %d\n%s", code, errb.String())
		}
		table := strings.SplitN(out.String(), "\n\n", 2)[0]
		t.Log(table)
		rows := map[string][]string{}
		for _, line := range strings.Split(table, "\n")[1:] {
			f := strings.Fields(line)
			if len(f) >= 2 {
				rows[f[0]+" "+f[1]] = f
			}
		}
		// KIND NAME ROWS FAILED VINTAGE LOADED TOOK COVERAGE FAILURES FILE
		cook := rows["parcels cook"]
		if len(cook) != 9 || cook[2] != "228" || cook[3] != "6" || cook[4] != "2026-09-30" || cook[6] == "-" ||
			cook[8] != fails && !strings.HasSuffix(cook[8], string(filepath.Separator)+filepath.Base(fails)) {
			t.Errorf("the assessor dataset's row: %q\n%s", cook, table)
		}
		x := rows["osm franklin"]
		if len(x) != 9 || x[4] != "2026-11-20" || x[6] == "-" || !strings.HasPrefix(x[7], "-77.") || x[8] != "-" {
			t.Errorf("the extract's row: %q\n%s", x, table)
		}
		// The buildings' facts of the extract are an assessor-kind dataset
		// of their own.
		if _, ok := rows["parcels osm-franklin"]; !ok {
			t.Errorf("no row for the extract's buildings' facts:\n%s", table)
		}
	})
}
