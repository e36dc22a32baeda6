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
