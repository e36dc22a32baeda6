package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
	"github.com/propertyd/propertyd/store/internal/storetest"
)

// rebuildAlways makes every publish of db merge around a rebuild of the
// search indexes, the way a load that merges most records does.
func rebuildAlways(db *store.DB) *store.DB {
	db.Store.Facts.RebuildAt = func(merged, records int64) bool { return true }
	return db
}

// TestConformanceFactsRebuilding runs the facts behaviours again with every
// publish rebuilding the search indexes: both ways of merging give the same
// records.
func TestConformanceFactsRebuilding(t *testing.T) {
	storetest.RunFacts(t, func(t *testing.T) storetest.Opener {
		path := filepath.Join(t.TempDir(), "propertyd.db")
		return func(t testing.TB, now func() time.Time) storetest.Store {
			return rebuildAlways(openWithNow(t, path, now))
		}
	})
}

// TestPublishRebuildingKeepsIndexesAndReaders checks what a rebuilding
// publish leaves: every index of properties as the migrations made it, the
// planner's statistics of each, and a reader that began before it still
// reading the former facts through the former indexes.
func TestPublishRebuildingKeepsIndexesAndReaders(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "propertyd.db")
	db := rebuildAlways(openAt(t, path))
	a, _, err := db.Save(ctx, storetest.NewAt("1 MAIN ST", 39.8, -89.65))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Save(ctx, storetest.NewAt("2 MAIN ST", 39.8, -89.64)); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	indexes := func() []string {
		t.Helper()
		var out []string
		rows, err := raw.QueryContext(ctx, `SELECT m.sql, COALESCE(s.stat, 'no statistics') FROM sqlite_master m
			LEFT JOIN sqlite_stat1 s ON s.idx = m.name
			WHERE m.type = 'index' AND m.tbl_name = 'properties' AND m.sql IS NOT NULL ORDER BY m.name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var q, stat string
			if err := rows.Scan(&q, &stat); err != nil {
				t.Fatal(err)
			}
			out = append(out, q+" -- "+stat)
		}
		return out
	}
	before := indexes()
	if len(before) < 12 {
		t.Fatalf("%d indexes on properties before the load, want the search indexes: %v", len(before), before)
	}

	// A reader that began before the publish.
	old, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Rollback()
	var oldYear sql.NullInt64
	if err := old.QueryRowContext(ctx, `SELECT year_built FROM properties WHERE id = ?`, a.ID).Scan(&oldYear); err != nil {
		t.Fatal(err)
	}

	l, _, err := db.BeginFacts(ctx, "allegheny", "f1")
	if err != nil {
		t.Fatal(err)
	}
	rows := []providers.FactRow{{Key: "A", FactsKey: providers.FactsKey("1 MAIN ST", "62701", ""),
		Facts: providers.Facts{YearBuilt: ptrInt(1931), Bedrooms: ptrInt(3)}}}
	if err := db.PutFacts(ctx, &l, nil, rows, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PublishFacts(ctx, l, providers.FactSet{Priority: 1, AsOf: "2026-09-30"}, nil); err != nil {
		t.Fatal(err)
	}

	if after := indexes(); !slices.Equal(before, after) {
		t.Fatalf("indexes after a rebuilding publish:\n%v\nwant as before:\n%v", after, before)
	}
	var year int
	if err := old.QueryRowContext(ctx, `SELECT COUNT(*) FROM properties INDEXED BY properties_year
		WHERE year_built = 1931`).Scan(&year); err != nil || year != 0 || oldYear.Valid {
		t.Fatalf("the reader that began before the publish counts %d records built in 1931 (%v), year was %v: want the former state", year, err, oldYear)
	}
	old.Rollback()
	got, _, err := db.Search(ctx, providers.SearchFilter{Zip: "62701", MinYearBuilt: ptrInt(1900), Page: 1, PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != a.ID || got[0].YearBuilt == nil || *got[0].YearBuilt != 1931 {
		t.Fatalf("search by zip and year after the publish = %+v, want record %d built 1931", got, a.ID)
	}
}

func ptrInt(n int) *int { return &n }

// TestConformanceFactsFromRecords runs the facts behaviours again with
// every publish finding the records near its rows from the records' side:
// both sides find the same records and count the same rows matched.
func TestConformanceFactsFromRecords(t *testing.T) {
	storetest.RunFacts(t, func(t *testing.T) storetest.Opener {
		path := filepath.Join(t.TempDir(), "propertyd.db")
		return func(t testing.TB, now func() time.Time) storetest.Store {
			db := openWithNow(t, path, now)
			db.Store.Facts.FromRecords = func(rows, records int64) bool { return true }
			return db
		}
	})
}
