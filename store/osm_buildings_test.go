package store

import (
	"database/sql"
	"testing"

	"github.com/propertyd/propertyd/store/internal/storetest"
)

// A newer extract leaves nothing of the former one's buildings behind
// (migration 0016): see storetest.ReplacedBuildingsGo.
func TestReplacedBuildingsGo(t *testing.T) {
	db := openInternal(t)
	storetest.ReplacedBuildingsGo(t, db, countIn(db.readers))
}

// A newer extract drops every feature of the former one, a range of ids
// at a time: see storetest.ReplacedFeaturesGo.
func TestReplacedFeaturesGo(t *testing.T) {
	db := openInternal(t)
	storetest.ReplacedFeaturesGo(t, db, countIn(db.readers))
}

// countIn runs a query of one number on db, for the checks of storetest
// that read the engine's tables.
func countIn(db *sql.DB) func(t *testing.T, q string) int64 {
	return func(t *testing.T, q string) int64 {
		var n int64
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
}

// Two assessor datasets with generations of one number retire and drop
// each its own: see storetest.RetiredByDatasetGo.
func TestRetiredByDatasetGo(t *testing.T) {
	db := openInternal(t)
	storetest.RetiredByDatasetGo(t, db, countIn(db.readers))
}
