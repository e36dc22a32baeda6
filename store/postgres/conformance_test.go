package postgres

import (
	"testing"
	"time"

	"github.com/propertyd/propertyd/store/internal/storetest"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// TestConformance runs the behaviour every engine shares against
// PostgreSQL, each case in a schema of its own.
func TestConformance(t *testing.T) {
	pgtest.URL(t)
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		u := freshSchema(t)
		return func(t testing.TB, now func() time.Time) storetest.Store {
			return openURL(t, u, now)
		}
	})
}

// TestConformanceFactsFromRecords runs the facts behaviours with every
// publish finding the records near its rows from the records' side.
func TestConformanceFactsFromRecords(t *testing.T) {
	pgtest.URL(t)
	storetest.RunFacts(t, func(t *testing.T) storetest.Opener {
		u := freshSchema(t)
		return func(t testing.TB, now func() time.Time) storetest.Store {
			db := openURL(t, u, now)
			db.Store.Facts.FromRecords = func(rows, records int64) bool { return true }
			return db
		}
	})
}
