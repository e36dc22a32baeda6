package osmextract

import (
	"testing"
)

// The node file gives back what was put, to OSM's 1e-7 degrees, knows the
// nodes it was never given (holes, ids past its end, ids out of range),
// and reads a page from disk once while the cache holds it.
func TestNodeFileKeepsCoordinatesByID(t *testing.T) {
	n, err := newNodeFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	puts := []struct {
		id       int64
		lat, lng float64
	}{
		{1, 38.8951234, -77.0364567},
		{2, -89.9999999, 179.9999999},
		{3, 89.9999999, -180},
		{4, 0, 0}, // Null Island is a place, not a hole
		{pageNodes + 7, 40.1, -75.2},
		{5_000_000_000, 21.3069, -157.8583}, // ids past 2^32, as OSM's are
	}
	for _, p := range puts {
		if err := n.put(p.id, p.lat, p.lng); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range puts {
		got, ok, err := n.get(p.id)
		if err != nil || !ok || got[1] != p.lat || got[0] != p.lng {
			t.Errorf("node %d = %v, %v, %v; want (%v, %v)", p.id, got, ok, err, p.lat, p.lng)
		}
	}
	for _, id := range []int64{0, 5, pageNodes + 6, 7 * pageNodes, 9_000_000_000, -3, maxNodeID} {
		if got, ok, err := n.get(id); ok || err != nil {
			t.Errorf("node %d never put = %v, %v, %v; want not found", id, got, ok, err)
		}
	}
	// An id below the page being written comes out of order: not kept.
	if err := n.put(6, 1, 1); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := n.get(6); ok {
		t.Error("a node put out of order was kept")
	}
	before := n.reads
	for range 3 {
		n.get(1)
		n.get(2)
	}
	if n.reads-before > 1 {
		t.Errorf("%d page reads for one cached page, want at most 1", n.reads-before)
	}
}
