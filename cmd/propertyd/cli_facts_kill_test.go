package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
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

	first := exec.Command(bin, args...)
	var out1 strings.Builder
	first.Stdout, first.Stderr = &out1, &out1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// The failures file grows by a line a bad row and is synced with every
	// batch's checkpoint: 20 lines are at least two batches committed.
	deadline := time.Now().Add(60 * time.Second)
	for {
		raw, _ := os.ReadFile(fails)
		if strings.Count(string(raw), "\n") > 20 {
			break
		}
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatalf("the load wrote no failures in 60 s:\n%s", out1.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	if strings.Contains(out1.String(), "rows kept") {
		t.Skipf("the load finished before the kill:\n%s", out1.String())
	}

	out2, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("the second run: %v\n%s", err, out2)
	}
	for _, want := range []string{"(resumed)", "rows read:      150,000", "rows kept:      150,000", "rows failed:    300"} {
		if !strings.Contains(string(out2), want) {
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
