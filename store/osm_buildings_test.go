package store

import (
	"testing"

	"github.com/propertyd/propertyd/store/internal/storetest"
)

// A newer extract leaves nothing of the former one's buildings behind
// (migration 0016): see storetest.ReplacedBuildingsGo.
func TestReplacedBuildingsGo(t *testing.T) {
	db := openInternal(t)
	storetest.ReplacedBuildingsGo(t, db, func(t *testing.T, q string) int64 {
		var n int64
		if err := db.writer.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	})
}
