package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	"github.com/propertyd/propertyd/providers"
)

// A point's polygons are sought through the GiST index of their boxes,
// and a drop's statements each through its range of ids, in a table of
// two layers and two generations, just loaded and once analyzed: neither
// reads a layer's generation whole (with an index of the generation, a
// fresh load's points read theirs through it).
func TestPolygonPlansGoThroughTheirIndexes(t *testing.T) {
	db := openOneConn(t)
	ctx := context.Background()
	for _, layer := range []string{"tract", "flood_zone"} {
		for gen := int64(1); gen <= 2; gen++ {
			var ps []providers.LayerPolygon
			for i := range 100 {
				for j := range 50 {
					w, s := -77.0+float64(i)*0.001, 38.8+float64(j)*0.001
					raw, err := wkb.Marshal(orb.Polygon{{{w, s}, {w + 0.001, s}, {w + 0.001, s + 0.001}, {w, s + 0.001}, {w, s}}})
					if err != nil {
						t.Fatal(err)
					}
					ps = append(ps, providers.LayerPolygon{Key: fmt.Sprint(i, ".", j), Shape: raw})
				}
			}
			if err := db.PutPolygons(ctx, layer, gen, ps); err != nil {
				t.Fatal(err)
			}
		}
	}
	plans := polyStatements.Planned()
	// Freshly loaded, before the statistics know the rows, and after.
	for _, analyzed := range []bool{false, true} {
		if analyzed {
			if _, err := db.pool.Exec(ctx, "ANALYZE layer_polygons"); err != nil {
				t.Fatal(err)
			}
		}
		if plan := explain(t, db.pool, plans["polygonsAt"], "tract", int64(1), 38.8205, -76.9705); !strings.Contains(plan, "Index Scan on layer_polygons_box") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("analyzed %v: polygonsAt plan %s; want it through layer_polygons_box", analyzed, plan)
		}
		for _, name := range []string{"dropPolygons", "dropPolygonBands"} {
			plan := explain(t, db.pool, plans[name], "tract", int64(1), int64(1), int64(5000))
			if !strings.Contains(plan, "Index Cond: ((id >= ") || strings.Contains(plan, "Seq Scan") {
				t.Errorf("analyzed %v: %s plan %s; want it through its range of ids", analyzed, name, plan)
			}
		}
	}
}
