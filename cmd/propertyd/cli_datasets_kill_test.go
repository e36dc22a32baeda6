package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestKill9MidBoundariesLoadResumes kills `propertyd data load boundaries`
// with SIGKILL once it has committed a batch, runs the same command again,
// and checks on each engine that the second run resumed and that every
// tract is kept once: as many polygons in the served generation as tracts
// in the file. The file is a GeoJSON text sequence of 100,000 square tracts
// with TIGER/Line's columns, named as the Census Bureau names its files.
func TestKill9MidBoundariesLoadResumes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	dir := t.TempDir()
	bin := relBuildPropertyd(t, dir)
	const tracts = 100_000
	file := filepath.Join(dir, "tl_2020_11_tract.geojsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range tracts {
		r, c := i/400, i%400
		s, west := 38.8+float64(r)*0.0004, -77.2+float64(c)*0.0004
		n, east := s+0.0004, west+0.0004
		fmt.Fprintf(w, `{"type":"Feature","properties":{"STATEFP":"11","COUNTYFP":"001","TRACTCE":"%06d","GEOID":"11001%06d","NAMELSAD":"Census Tract %d"},`+
			`"geometry":{"type":"Polygon","coordinates":[[[%.4f,%.4f],[%.4f,%.4f],[%.4f,%.4f],[%.4f,%.4f],[%.4f,%.4f]]]}}`+"\n",
			i, i, i, west, s, east, s, east, n, west, n, west, s)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	eachEngine(t, func(t *testing.T, db string) {
		t.Setenv("PROPERTYD_DATABASE", db)
		args := []string{"data", "load", "boundaries", "-config", filepath.Join("..", "..", "config.yaml"),
			"-failures", filepath.Join(t.TempDir(), "f.csv"), file}
		query := func(q string, dest ...any) error {
			if strings.HasPrefix(db, "postgres") {
				conn, err := pgx.Connect(context.Background(), db)
				if err != nil {
					return err
				}
				defer conn.Close(context.Background())
				return conn.QueryRow(context.Background(), q).Scan(dest...)
			}
			conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro&_busy_timeout=5000")
			if err != nil {
				return err
			}
			defer conn.Close()
			return conn.QueryRow(q).Scan(dest...)
		}
		committed := func() bool {
			var done int64
			// Fails until the load has begun (and made the tables).
			return query(`SELECT COALESCE(MAX(done), 0) FROM dataset_loads`, &done) == nil && done > 0
		}
		out := killMidLoad(t, bin, args, committed, "features kept:", exitOK)
		if strings.Contains(out, "is already loaded") {
			t.Skipf("the load was published before the kill:\n%s", out)
		}
		for _, want := range []string{"boundaries:     tl_2020_11_tract (resumed)", "features read:  100,000\n", "features kept:  100,000\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("the second run does not say %q:\n%s", want, out)
			}
		}
		var polygons, keys int64
		if err := query(`SELECT COUNT(*), COUNT(DISTINCT key) FROM layer_polygons
			WHERE generation = (SELECT generation FROM datasets WHERE kind = 'boundaries')`, &polygons, &keys); err != nil {
			t.Fatal(err)
		}
		if polygons != tracts || keys != tracts {
			t.Errorf("the served generation holds %d polygons of %d keys, want %d of each", polygons, keys, tracts)
		}
	})
}
