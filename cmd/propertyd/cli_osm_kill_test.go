package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestKill9MidOSMLoadResumes kills `propertyd data load osm` with SIGKILL
// once it has committed some batches, runs the same command again, and
// checks that the second run resumed and counts every feature once, on
// each engine. The
// extract is generated in the OpenStreetMap wiki's "OSM XML" format (which
// the loader reads as it reads PBF, with the same passes): a grid of
// houses, each a closed way of four nodes, and a café every tenth house.
func TestKill9MidOSMLoadResumes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	dir := t.TempDir()
	bin := relBuildPropertyd(t, dir)
	// Some five batches of 20,000 features (osmextract.DefaultBatch), so
	// that the kill lands between two of them.
	const houses = 100_000
	file := filepath.Join(dir, "grid.osm")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, `<?xml version="1.0" encoding="UTF-8"?>`)
	fmt.Fprintln(w, `<osm version="0.6" generator="test">`)
	fmt.Fprintln(w, `  <bounds minlat="38.8" minlon="-77.2" maxlat="39.0" maxlon="-77.0"/>`)
	const ts = `timestamp="2026-11-20T00:00:00Z"`
	id := 0
	for h := range houses {
		r, c := h/250, h%250
		lat, lng := 38.81+float64(r)*0.0007, -77.19+float64(c)*0.0007
		for _, d := range [][2]float64{{0, 0}, {0, 0.0003}, {0.0003, 0.0003}, {0.0003, 0}} {
			id++
			fmt.Fprintf(w, `  <node id="%d" version="1" %s lat="%.7f" lon="%.7f"/>`+"\n", id, ts, lat+d[0], lng+d[1])
		}
		if h%10 == 0 {
			id++
			fmt.Fprintf(w, `  <node id="%d" version="1" %s lat="%.7f" lon="%.7f"><tag k="amenity" v="cafe"/><tag k="name" v="Cafe %d"/></node>`+"\n",
				id, ts, lat+0.0005, lng, h)
		}
	}
	// Ways: node ids follow the order written above, a café's after its
	// house's four.
	next := 0
	for h := range houses {
		first := next + 1
		fmt.Fprintf(w, `  <way id="%d" version="1" %s><nd ref="%d"/><nd ref="%d"/><nd ref="%d"/><nd ref="%d"/><nd ref="%d"/>`+
			`<tag k="building" v="house"/><tag k="building:levels" v="2"/></way>`+"\n", h+1, ts, first, first+1, first+2, first+3, first)
		next += 4
		if h%10 == 0 {
			next++
		}
	}
	fmt.Fprintln(w, `</osm>`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	// On each engine: on PostgreSQL two batches are written side by side,
	// each committing after the one before it, so a kill may land with one
	// written and not committed.
	eachEngine(t, func(t *testing.T, db string) {
		t.Setenv("PROPERTYD_DATABASE", db)
		args := []string{"data", "load", "osm", "-config", filepath.Join("..", "..", "config.yaml"), file}
		committed := func() bool {
			// Batches of 20,000 features commit into the write-ahead
			// log: a few megabytes of it are a batch or two committed.
			st, err := os.Stat(db + "-wal")
			return err == nil && st.Size() > 4<<20
		}
		if strings.HasPrefix(db, "postgres") {
			conn, err := pgx.Connect(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			committed = func() bool {
				var done int64
				// Fails until the load has made its tables.
				err := conn.QueryRow(context.Background(), `SELECT COALESCE(MAX(done), 0) FROM dataset_loads WHERE kind = 'osm'`).Scan(&done)
				return err == nil && done > 0
			}
		}
		out2 := killMidLoad(t, bin, args, committed, "places:", exitOK)
		if strings.Contains(out2, "is already loaded") {
			// Killed after the publish, before its summary: nothing to resume.
			t.Skipf("the load was published before the kill:\n%s", out2)
		}
		for _, want := range []string{"extract:        grid (resumed)", "places:         10,000\n", "buildings:      100,000\n",
			"facts:          100,000 buildings give facts"} {
			if !strings.Contains(out2, want) {
				t.Errorf("the second run does not say %q:\n%s", want, out2)
			}
		}
	})
}
