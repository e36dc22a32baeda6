package osmextract

import (
	"slices"
	"testing"

	"github.com/paulmach/osm"
)

// The nodes set aside are counted in the file's order; those let through
// are queued with their element number, taken in the same order; a node
// taken that was never let through is no number at all.
func TestNodesAsideKeepTheFilesCount(t *testing.T) {
	nodes, err := newNodeFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer nodes.close()
	l := &loader{nodes: nodes}
	a := &nodeAside{l: l}
	school := osm.Tags{{Key: "amenity", Value: "school"}, {Key: "name", Value: "A School"}}
	address := osm.Tags{{Key: "addr:housenumber", Value: "1"}, {Key: "addr:street", Value: "K Street"}}
	var through []bool
	for i, tags := range []osm.Tags{nil, school, nil, nil, address, {{Key: "created_by", Value: "x"}}} {
		through = append(through, a.node(&osm.Node{ID: osm.NodeID(i + 1), Lat: 38.9, Lon: -77, Tags: tags}))
	}
	if want := []bool{false, true, false, false, true, false}; !slices.Equal(through, want) {
		t.Fatalf("let through %v, want %v", through, want)
	}
	for _, want := range []int64{1, 4} {
		if n, ok := a.take(); !ok || n != want {
			t.Fatalf("take = %d, %v; want %d", n, ok, want)
		}
	}
	if n, ok := a.take(); ok {
		t.Fatalf("take past the queue = %d, want none", n)
	}
	if a.seenAll() != 6 || a.late {
		t.Fatalf("seen %d (late %v), want 6 in order", a.seenAll(), a.late)
	}
	// A node after a way marks the file unsorted and touches nothing of
	// the loader's: readAll may be reading the coordinates by then.
	a.other(&osm.Way{})
	if a.node(&osm.Node{ID: 7, Lat: 38.9, Lon: -77}) || !a.late {
		t.Fatal("a node after a way is let through or not marked late")
	}
	if _, kept, _ := nodes.get(7); kept || a.seenAll() != 6 {
		t.Fatalf("the late node was kept (%v) or counted (%d nodes seen)", kept, a.seenAll())
	}
}
