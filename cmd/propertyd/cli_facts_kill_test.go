package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestKill9MidParcelLoadResumesWithoutDuplicates kills `propertyd data load
// parcels` with SIGKILL once it has committed a few batches, runs the same
// command again, and checks that the second run resumed: it reports every
// row once, and the failures file names each bad row once. The file is in
// the columns of Allegheny County's assessment file (the allegheny preset:
// see providers/assessor/presets.go), with invented values; every 500th
// row has a year built out of bounds.
func TestKill9MidParcelLoadResumesWithoutDuplicates(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	dir := t.TempDir()
	bin := relBuildPropertyd(t, dir)
	const rows = 150_000
	file := filepath.Join(dir, "assessments.csv")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w := csv.NewWriter(bw)
	w.Write([]string{"PARID", "PROPERTYHOUSENUM", "PROPERTYFRACTION", "PROPERTYADDRESS", "PROPERTYCITY", "PROPERTYSTATE",
		"PROPERTYUNIT", "PROPERTYZIP", "USEDESC", "LOTAREA", "STORIES", "YEARBLT", "BEDROOMS", "FULLBATHS", "HALFBATHS",
		"FINISHEDLIVINGAREA"})
	for i := range rows {
		year := fmt.Sprint(1900 + i%120)
		if i%500 == 0 {
			year = "2999"
		}
		w.Write([]string{fmt.Sprintf("%016d", i), fmt.Sprint(100 + i/100), " ", "BENCH ST", "PITTSBURGH", "PA", " ",
			fmt.Sprint(15201 + i%100), "SINGLE FAMILY", "4000", "2", year, "3", "1", "1", "1500"})
	}
	w.Flush()
	bw.Flush()
	f.Close()

	t.Setenv("PROPERTYD_DATABASE", filepath.Join(dir, "p.db"))
	fails := filepath.Join(dir, "failures.csv")
	args := []string{"data", "load", "parcels", "-config", filepath.Join("..", "..", "config.yaml"), "-preset", "allegheny",
		"-failures", fails, file}

	// The failures file grows by a line a bad row and is synced with every
	// batch's checkpoint: 20 lines are at least two batches committed.
	out2 := killMidLoad(t, bin, args, func() bool {
		raw, _ := os.ReadFile(fails)
		return strings.Count(string(raw), "\n") > 20
	}, "rows kept", exitRowsFailed) // 300 rows fail: exit 4
	for _, want := range []string{"(resumed)", "rows read:      150,000", "rows kept:      150,000", "rows failed:    300"} {
		if !strings.Contains(out2, want) {
			t.Errorf("the second run does not say %q:\n%s", want, out2)
		}
	}
	raw, err := os.ReadFile(fails)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		if seen[r[2]] {
			t.Errorf("the failures file names %s twice", r[2])
		}
		seen[r[2]] = true
	}
	if len(seen) != rows/500 || recs[0][0] != "file" {
		t.Fatalf("the failures file names %d rows under %v, want %d once each under its header", len(seen), recs[0], rows/500)
	}
}
