package main

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/engine"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// copyFixture fills db with what a database holds after a while: geocoded
// records with keys (two units of one building), a reverse-geocoded record,
// a seeded one, attributes learned later, a section value and a remembered
// miss. It returns the records by id.
func copyFixture(t *testing.T, db engine.Store) map[int64]*providers.Property {
	t.Helper()
	ctx := context.Background()
	out := map[int64]*providers.Property{}
	save := func(np providers.NewProperty) *providers.Property {
		p, _, err := db.Save(ctx, np)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	save(providers.NewProperty{Property: providers.Property{StreetAddress: "10 ELM ST", Unit: "APT 1", City: "AUSTIN",
		State: "TX", ZipCode: "78701", Latitude: 30.27, Longitude: -97.74, Source: "census"},
		Canonical: "10 ELM ST, AUSTIN, TX, 78701", Keys: []string{"10 elm st apt 1|austin|tx|78701", "10 elm apt 1|austin|tx|"}})
	b := save(providers.NewProperty{Property: providers.Property{StreetAddress: "10 ELM ST", Unit: "APT 2", City: "AUSTIN",
		State: "TX", ZipCode: "78701", Latitude: 30.27, Longitude: -97.74, Source: "census"},
		Canonical: "10 ELM ST, AUSTIN, TX, 78701", Keys: []string{"10 elm st apt 2|austin|tx|78701"}})
	save(providers.NewProperty{Property: providers.Property{StreetAddress: "10 ELM ST", Unit: "APT 1", Latitude: 30.27, Longitude: -97.74},
		Canonical: "10 ELM ST, AUSTIN, TX, 78701"}) // a repeat: on PostgreSQL it uses up an id
	save(providers.NewProperty{Property: providers.Property{Latitude: 40.7128, Longitude: -74.006, FIPSCode: "36061", Source: "census"}})
	if err := db.SeedProperties(ctx, []providers.Property{{StreetAddress: "1 SEED ST", City: "DALLAS", State: "TX",
		ZipCode: "75201", Latitude: 32.78, Longitude: -96.8, Bedrooms: ptrTo(3)}}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutImportFacts(ctx, b.ID, providers.Facts{PropertyType: ptrTo("condo"), Bedrooms: ptrTo(2)}, "2026-01-01"); err != nil {
		t.Fatal(err)
	}
	all, _, err := db.Search(ctx, providers.SearchFilter{Page: 1, PerPage: 100})
	if err != nil || len(all) != 4 {
		t.Fatalf("fixture: %d records, %v", len(all), err)
	}
	for i := range all {
		out[all[i].ID] = &all[i]
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	for _, r := range []providers.SectionRecord{
		{Section: "flood", Key: "30.27,-97.74", Data: []byte(`{"zone":"X"}`), Source: "fema-nfhl", FetchedAt: at, ExpiresAt: at.Add(720 * time.Hour)},
		{Section: "demographics", Key: "48453001304", Data: []byte(`{"code":"tract_not_found","message":"no figures"}`),
			Source: "census-acs", Vintage: "2023", FetchedAt: at, ExpiresAt: at.Add(time.Hour), Missing: true},
	} {
		if err := db.PutSection(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

// runCopy runs propertyd copy and returns its exit code and output.
func runCopy(terminal bool, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	c := &copyCommand{console{stdout: &out, stderr: &errb, terminal: func(io.Writer) bool { return terminal }}}
	return c.run(args), out.String(), errb.String()
}

// Copying a database keeps every record's id, fields, times, canonical
// address and keys, and every section; a second copy changes nothing; and
// the destination goes on numbering after the copied ids. Between every
// pair of engines.
func TestCopyKeepsEverythingAndIsIdempotent(t *testing.T) {
	sqlite := func(t *testing.T) string { return filepath.Join(t.TempDir(), "p.db") }
	for _, pair := range []struct {
		name     string
		from, to func(t *testing.T) string
	}{
		{"sqlite to postgres", sqlite, func(t *testing.T) string { return pgtest.Schema(t) }},
		{"postgres to sqlite", func(t *testing.T) string { return pgtest.Schema(t) }, sqlite},
		{"sqlite to sqlite", sqlite, sqlite},
	} {
		t.Run(pair.name, func(t *testing.T) {
			ctx := context.Background()
			from, to := pair.from(t), pair.to(t)
			src, err := engine.Open(ctx, from, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := copyFixture(t, src)
			src.Close()

			code, out, errs := runCopy(true, "-from", from, "-to", to)
			wantOut := "records:   4 read, 4 added\nkeys:      3 added\nsections:  2 read, 2 written\n"
			if code != exitOK || out != wantOut {
				t.Fatalf("copy: exit %d, stdout %q, stderr %q; want\n%s", code, out, errs, wantOut)
			}
			if !strings.Contains(errs, "0/6 rows  copying records") || !strings.Contains(errs, "4/6 rows  copying sections") {
				t.Errorf("copy on a terminal drew no progress bar: %q", errs)
			}
			check := func(round string) {
				dst, err := engine.Open(ctx, to, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer dst.Close()
				for id, p := range want {
					got, err := dst.Property(ctx, id)
					if err != nil || !reflect.DeepEqual(got, p) {
						t.Fatalf("%s: record %d in the destination = %+v, %v; want %+v", round, id, got, err, p)
					}
				}
				for key, unit := range map[string]string{"10 elm st apt 1|austin|tx|78701": "APT 1",
					"10 elm apt 1|austin|tx|": "APT 1", "10 elm st apt 2|austin|tx|78701": "APT 2"} {
					got, err := dst.PropertyByKey(ctx, key)
					if err != nil || got.Unit != unit || !reflect.DeepEqual(got, want[got.ID]) {
						t.Fatalf("%s: key %q resolves to %+v, %v; want the copied record of unit %s", round, key, got, err, unit)
					}
				}
				sec, err := dst.Section(ctx, "demographics", "48453001304")
				if err != nil || !sec.Missing || sec.Vintage != "2023" || sec.FetchedAt != time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC) {
					t.Fatalf("%s: copied section = %+v, %v", round, sec, err)
				}
				if _, n, _ := dst.Search(ctx, providers.SearchFilter{Page: 1, PerPage: 1}); n != len(want) {
					t.Fatalf("%s: %d records in the destination, want %d", round, n, len(want))
				}
			}
			check("first copy")

			code, out, errs = runCopy(false, "-from", from, "-to", to)
			if code != exitOK || out != "records:   4 read, 0 added\nkeys:      0 added\nsections:  2 read, 0 written\n" || errs != "" {
				t.Fatalf("second copy: exit %d, stdout %q, stderr %q; want nothing added", code, out, errs)
			}
			check("second copy")

			dst, err := engine.Open(ctx, to, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer dst.Close()
			// The operator's imported facts travel as the import's: a load
			// on the destination afterwards does not outrank them.
			l, _, err := dst.BeginFacts(ctx, "cook", "f")
			if err != nil {
				t.Fatal(err)
			}
			if err := dst.PutFacts(ctx, &l, nil, []providers.FactRow{{Key: "x", FactsKey: providers.FactsKey("10 ELM ST", "78701", "APT 2"),
				Facts: providers.Facts{Bedrooms: ptrTo(5), YearBuilt: ptrTo(1990)}}}, 1, 0, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := dst.PublishFacts(ctx, l, providers.FactSet{Priority: 1, AsOf: "2026-02-01"}, nil); err != nil {
				t.Fatal(err)
			}
			for _, p := range want {
				if p.Unit != "APT 2" {
					continue
				}
				got, _ := dst.Property(ctx, p.ID)
				if got.Bedrooms == nil || *got.Bedrooms != 2 || got.YearBuilt == nil || *got.YearBuilt != 1990 {
					t.Fatalf("copied record after a load: %+v; want the import's 2 bedrooms and the load's year", got.Facts())
				}
			}
			var maxID int64
			for id := range want {
				maxID = max(maxID, id)
			}
			fresh, created, err := dst.Save(ctx, providers.NewProperty{Property: providers.Property{StreetAddress: "9 NEW ST",
				Latitude: 1, Longitude: 1}, Canonical: "9 NEW ST"})
			if err != nil || !created || fresh.ID <= maxID {
				t.Fatalf("a new record after the copy got id %v (created %v, %v); want one above the copied ids (%d)", fresh, created, err, maxID)
			}
			if _, created, err := dst.Save(ctx, providers.NewProperty{Property: providers.Property{StreetAddress: "10 ELM ST",
				Unit: "APT 2", Latitude: 30.27, Longitude: -97.74}, Canonical: "10 ELM ST, AUSTIN, TX, 78701"}); err != nil || created {
				t.Fatalf("Save of a copied address: created %v, %v; the copy must keep canonical addresses", created, err)
			}
		})
	}
}

func TestCopyRefusesBadArguments(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-from", db}, exitUsage, "both -from and -to are required"},
		{[]string{"-from", db, "-to", db}, exitUsage, "name the same database"},
		{[]string{"-from", db, "-to", filepath.Join(dir, "q.db"), "now"}, exitUsage, `unexpected argument "now"`},
		{[]string{"-from", filepath.Join(dir, "missing.db"), "-to", db}, exitError, "missing.db"},
	} {
		code, out, errs := runCopy(false, tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("copy %v: exit %d, stdout %q, stderr %q; want exit %d saying %q", tc.args, code, out, errs, tc.code, tc.want)
		}
	}
}

// A destination that already has records of its own keeps them as they
// are: a copied record whose id is taken is not copied, and its keys do not
// attach to the record that holds the id.
func TestCopyLeavesTheDestinationsOwnRecordsAlone(t *testing.T) {
	eachEngine(t, func(t *testing.T, to string) {
		ctx := context.Background()
		from := filepath.Join(t.TempDir(), "src.db")
		src, err := engine.Open(ctx, from, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		copyFixture(t, src)
		src.Close()
		dst, err := engine.Open(ctx, to, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		own, _, err := dst.Save(ctx, providers.NewProperty{Property: providers.Property{StreetAddress: "99 OTHER ST",
			Latitude: 1, Longitude: 1}, Canonical: "99 OTHER ST", Keys: []string{"99 other st"}})
		if err != nil || own.ID != 1 {
			t.Fatalf("the destination's own record: %+v, %v", own, err)
		}
		code, out, errs := runCopy(false, "-from", from, "-to", to)
		if code != exitOK || !strings.HasPrefix(out, "records:   4 read, 3 added\nkeys:      1 added\n") {
			t.Fatalf("copy: exit %d, stdout %q, stderr %q; want 3 of 4 records and only APT 2's key added", code, out, errs)
		}
		if got, err := dst.Property(ctx, 1); err != nil || !reflect.DeepEqual(got, own) {
			t.Fatalf("the destination's record 1 became %+v, %v", got, err)
		}
		_, err = dst.PropertyByKey(ctx, "10 elm st apt 1|austin|tx|78701")
		if providers.KindOf(err) != providers.KindNotFound {
			t.Fatalf("the key of a record not copied resolves (%v); it must not attach to another record", err)
		}
	})
}

// A PostgreSQL database that does not exist is the database being
// unavailable (what migrate and serve say too), not an internal error.
func TestCopyToADatabaseThatDoesNotExistSaysUnavailable(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/propertyd_no_such_database"
	u.User = url.UserPassword("postgres", "s3cret-pw")
	src := filepath.Join(t.TempDir(), "p.db")
	if db, err := engine.Open(context.Background(), src, engine.Options{}); err != nil {
		t.Fatal(err)
	} else {
		db.Close()
	}
	code, _, errs := runCopy(false, "-from", src, "-to", u.String())
	if code != exitError || !strings.Contains(errs, "database_unavailable") ||
		!strings.Contains(errs, `database "propertyd_no_such_database" does not exist`) || strings.Contains(errs, "s3cret-pw") {
		t.Fatalf("copy to a missing database: exit %d, stderr %q; want exit 1, database_unavailable with the cause, no password", code, errs)
	}
}

// TestCopySaysWhichLoadsItLeavesBehind copies a database with an assessor
// dataset and an extract loaded: their rows and features are not copied,
// and the copy says so, naming each and the command that loads it again,
// where it once left data status empty on the destination without a word.
func TestCopySaysWhichLoadsItLeavesBehind(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "dst.db")
	path := factsConfigFile(t, src)
	var out, errb bytes.Buffer
	c := &dataCommand{console{stdout: &out, stderr: &errb}}
	if code := c.run([]string{"load", "osm", "-config", path, franklinPBF}); code != exitOK {
		t.Fatalf("load osm: exit %d\n%s", code, errb.String())
	}
	if code := c.run(append([]string{"load", "parcels", "-config", path, "-dataset", "cook", "-failures", filepath.Join(dir, "f.csv")}, cookFiles...)); code != exitRowsFailed {
		t.Fatalf("load parcels: exit %d\n%s", code, errb.String())
	}
	code, stdout, stderr := runCopy(false, "-from", src, "-to", dst)
	if code != exitOK {
		t.Fatalf("copy: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"not copied: the assessor datasets cook (their rows; the records keep the facts they had): load them again on the destination with propertyd data load parcels\n",
		"not copied: the OpenStreetMap extracts franklin (their places, buildings and addresses): load them again on the destination with propertyd data load osm\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the copy's output does not say %q:\n%s", want, stdout)
		}
	}
}
