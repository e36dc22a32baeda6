package factsql

import "testing"

// The measured rule of a rebuilding publish (rebuildMin, rebuildShare):
// many records, and a quarter of all of them at least.
func TestRebuildPays(t *testing.T) {
	for _, c := range []struct {
		merged, records int64
		want            bool
	}{
		{500_000, 500_000, true},    // the bench's load: every record
		{50_000, 200_000, true},     // both bounds exactly
		{49_999, 100_000, false},    // too few to be worth holding the writer
		{50_000, 200_001, false},    // under a quarter of the records
		{100_000, 1_000_000, false}, // a tenth: in place
		{0, 0, false},
	} {
		if got := rebuildPays(c.merged, c.records); got != c.want {
			t.Errorf("rebuildPays(%d merged of %d) = %v, want %v", c.merged, c.records, got, c.want)
		}
	}
}
