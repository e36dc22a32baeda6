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

// TestKill9MidAddressesLoadResumes kills `propertyd data load addresses`
// with SIGKILL once it has committed a batch, runs the same command again,
// and checks on each engine that the second run resumed and that every
// point is kept once: as many points in the served generation as rows in
// the file, each of its own key. The file is 300,000 address points in
// OpenAddresses' CSV columns (LON, LAT, NUMBER, STREET, UNIT, CITY,
// DISTRICT, REGION, POSTCODE, ID, HASH), forty numbers a street.
func TestKill9MidAddressesLoadResumes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	dir := t.TempDir()
	bin := relBuildPropertyd(t, dir)
	const points = 300_000
	file := filepath.Join(dir, "dc-statewide-addresses.csv")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,HASH")
	for i := range points {
		street, n := i/40, 100+2*(i%40)
		unit := ""
		if i%5 == 0 {
			unit = fmt.Sprint("Apt ", i%7+1)
		}
		fmt.Fprintf(w, "%.6f,%.6f,%d,Street %d NW,%s,Washington,,DC,%05d,,%016x\n",
			-77.1+float64(i%1000)*0.0001, 38.8+float64(i/1000)*0.0005, n, street, unit, 20001+street%40, uint64(i)*0x9E3779B97F4A7C15)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	eachEngine(t, func(t *testing.T, db string) {
		t.Setenv("PROPERTYD_DATABASE", db)
		args := []string{"data", "load", "addresses", "-config", filepath.Join("..", "..", "config.yaml"),
			"-failures", filepath.Join(t.TempDir(), "f.csv"), "-state", "DC", file}
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
			return query(`SELECT COALESCE(MAX(done), 0) FROM dataset_loads WHERE kind = 'addresses'`, &done) == nil && done > 0
		}
		out := killMidLoad(t, bin, args, committed, "features kept:", exitOK)
		if strings.Contains(out, "is already loaded") {
			t.Skipf("the load was published before the kill:\n%s", out)
		}
		for _, want := range []string{"addresses:      dc-statewide-addresses (resumed)", "features read:  300,000\n", "features kept:  300,000\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("the second run does not say %q:\n%s", want, out)
			}
		}
		var kept, keys int64
		if err := query(`SELECT COUNT(*), COUNT(DISTINCT key) FROM address_points
			WHERE generation = (SELECT generation FROM datasets WHERE kind = 'addresses')`, &kept, &keys); err != nil {
			t.Fatal(err)
		}
		if kept != points || keys != points {
			t.Errorf("the served generation holds %d points of %d keys, want %d of each", kept, keys, points)
		}
	})
}
