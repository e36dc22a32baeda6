package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/propertyd/propertyd/store/internal/storetest"
)

// TestConformance runs the behaviour every engine shares against SQLite,
// each case on a file of its own.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		path := filepath.Join(t.TempDir(), "propertyd.db")
		return func(t testing.TB, now func() time.Time) storetest.Store {
			return openWithNow(t, path, now)
		}
	})
}
