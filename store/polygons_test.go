package store

import (
	"regexp"
	"strings"
	"testing"
)

// A point's polygons are sought through the R*Tree by box, then each row
// by its id, and a banded shape's band by the key: never the layer's
// generation read whole.
func TestPolygonsAtSeeksTheTree(t *testing.T) {
	db := openInternal(t)
	plan := strings.Join(queryPlan(t, db, polyStatements.Planned()["polygonsAt"], "tract", 1, 38.9, -77.0), " | ")
	if !strings.HasPrefix(plan, "SCAN r VIRTUAL TABLE INDEX 2:") ||
		!strings.Contains(plan, "SEARCH p USING INTEGER PRIMARY KEY (rowid=?)") ||
		!strings.Contains(plan, "SEARCH b USING PRIMARY KEY (polygon_id=? AND south<?)") {
		t.Errorf("polygonsAt plan %q does not search the R*Tree by box, then each polygon and band by its key", plan)
	}
}

// Each statement of a drop reads its range of ids of the generation
// alone: one that read the whole layer at each of a flood layer's twenty
// batches would make a drop quadratic.
func TestDropPolygonsReadsARangeOfIDs(t *testing.T) {
	db := openInternal(t)
	for _, name := range []string{"dropPolygons", "dropPolygonBands"} {
		plan := strings.Join(queryPlan(t, db, polyStatements.Planned()[name], "tract", 1, 1, 5000), " | ")
		if !rangeOfIDs.MatchString(plan) {
			t.Errorf("%s plan %q does not read a range of ids of the generation", name, plan)
		}
	}
}

var rangeOfIDs = regexp.MustCompile(`USING (COVERING )?INDEX layer_polygons_generation \(layer=\? AND generation=\? AND rowid>\? AND rowid<\?\)`)
