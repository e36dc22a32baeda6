package storetest

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/paulmach/orb/planar"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("PolygonsAtHoldTheirInsideHolesOutIslandsIn", testPolygonsAt)
	register("PolygonsAtOfManyPointsAnswerAsTheirWholeShape", testPolygonsOfManyPoints)
	register("PolygonsOnASharedEdgeHoldItOnce", testPolygonsSharedEdge)
	register("PolygonsDropTheirGenerationOnly", testPolygonsDrop)
	register("PolygonsRefusedWriteNothing", testPolygonsRefused)
}

// shapeOf is g as WKB, in the byte order given (little-endian without).
func shapeOf(g orb.Geometry, order ...binary.ByteOrder) []byte {
	raw, err := wkb.Marshal(g, order...)
	if err != nil {
		panic(err)
	}
	return raw
}

// rect is the ring of a rectangle, drawn counterclockwise and closed.
func rect(west, south, east, north float64) orb.Ring {
	return orb.Ring{{west, south}, {east, south}, {east, north}, {west, north}, {west, south}}
}

func keysOf(ps []providers.LayerPolygon) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Key)
	}
	return out
}

// at returns the keys of the polygons of layer and generation that hold
// (lat, lng).
func at(t *testing.T, db Store, layer string, gen int64, lat, lng float64) []string {
	t.Helper()
	got, err := db.PolygonsAt(context.Background(), layer, gen, providers.Point{Lat: lat, Lng: lng})
	if err != nil {
		t.Fatalf("PolygonsAt(%s, %d, %v, %v): %v", layer, gen, lat, lng, err)
	}
	return keysOf(got)
}

func testPolygonsAt(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	// A tract of 0.1 degrees with a hole of 0.04, an island of 0.02 in
	// the hole (one multipolygon), drawn big-endian; a multipolygon of two
	// squares apart; two squares that overlap; the same tract again in
	// another generation and in another layer.
	tract := orb.MultiPolygon{
		{rect(-77.10, 38.90, -77.00, 39.00), rect(-77.07, 38.93, -77.03, 38.97)},
		{rect(-77.06, 38.94, -77.04, 38.96)},
	}
	twins := orb.MultiPolygon{{rect(-76.90, 38.90, -76.88, 38.92)}, {rect(-76.80, 38.90, -76.78, 38.92)}}
	left, right := orb.Polygon{rect(-76.70, 38.90, -76.60, 39.00)}, orb.Polygon{rect(-76.65, 38.95, -76.55, 39.05)}
	attrs := json.RawMessage(`{"NAME":"Census Tract 62.02","ALAND":1234567}`)
	put := func(layer string, gen int64, ps ...providers.LayerPolygon) {
		t.Helper()
		if err := db.PutPolygons(ctx, layer, gen, ps); err != nil {
			t.Fatalf("PutPolygons(%s, %d): %v", layer, gen, err)
		}
	}
	put("tract", 1,
		providers.LayerPolygon{Key: "11001006202", Attrs: attrs, Shape: shapeOf(tract, binary.BigEndian)},
		providers.LayerPolygon{Key: "twins", Shape: shapeOf(twins)},
		providers.LayerPolygon{Key: "right", Shape: shapeOf(right)},
		providers.LayerPolygon{Key: "left", Shape: shapeOf(left)})
	put("tract", 2, providers.LayerPolygon{Key: "gen2", Shape: shapeOf(tract)})
	put("county", 1, providers.LayerPolygon{Key: "11001", Shape: shapeOf(tract)})

	for _, c := range []struct {
		name     string
		lat, lng float64
		want     []string
	}{
		{"inside the tract, outside its hole", 38.91, -77.09, []string{"11001006202"}},
		{"in the tract's hole", 38.935, -77.065, nil},
		{"on the island in the hole", 38.95, -77.05, []string{"11001006202"}},
		{"in the hole between the island and the tract", 38.965, -77.035, nil},
		{"in the first of two squares apart", 38.91, -76.89, []string{"twins"}},
		{"in the second of two squares apart", 38.91, -76.79, []string{"twins"}},
		{"between two squares apart, inside their box", 38.91, -76.84, nil},
		{"where two squares overlap", 38.97, -76.62, []string{"left", "right"}},
		{"in one of two overlapping squares alone", 38.91, -76.69, []string{"left"}},
		{"inside no polygon of any layer", 40.0, -100.0, nil},
	} {
		if got := at(t, db, "tract", 1, c.lat, c.lng); !slices.Equal(got, c.want) {
			t.Errorf("%s: PolygonsAt = %v, want %v", c.name, got, c.want)
		}
	}
	// What a lookup is told: the key, the attributes as loaded, the box;
	// not the shape.
	got, err := db.PolygonsAt(ctx, "tract", 1, providers.Point{Lat: 38.91, Lng: -77.09})
	if err != nil || len(got) != 1 {
		t.Fatalf("PolygonsAt = %+v, %v", got, err)
	}
	var a, b any
	_ = json.Unmarshal(got[0].Attrs, &a)
	_ = json.Unmarshal(attrs, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("attributes came back as %s, want %s", got[0].Attrs, attrs)
	}
	if want := (providers.BBox{West: -77.10, South: 38.90, East: -77.00, North: 39.00}); got[0].Box != want {
		t.Errorf("box = %+v, want %+v", got[0].Box, want)
	}
	if got[0].Shape != nil {
		t.Errorf("PolygonsAt returned the shape (%d bytes)", len(got[0].Shape))
	}
	// A polygon given no attributes has {}.
	if got := must(db.PolygonsAt(ctx, "tract", 1, providers.Point{Lat: 38.91, Lng: -76.89})); len(got) != 1 || string(got[0].Attrs) != "{}" {
		t.Errorf("a polygon without attributes = %+v, want its attributes {}", got)
	}
	// The other generation and the other layer answer for themselves.
	if got := at(t, db, "tract", 2, 38.91, -77.09); !slices.Equal(got, []string{"gen2"}) {
		t.Errorf("generation 2 = %v, want gen2", got)
	}
	if got := at(t, db, "county", 1, 38.95, -77.05); !slices.Equal(got, []string{"11001"}) {
		t.Errorf("the county layer = %v, want 11001", got)
	}
	if got := at(t, db, "county", 2, 38.95, -77.05); len(got) != 0 {
		t.Errorf("a generation the county layer does not have = %v, want none", got)
	}
	if _, err := db.PolygonsAt(ctx, "tract", 1, providers.Point{Lat: 91, Lng: 0}); providers.KindOf(err) != providers.KindInvalid {
		t.Errorf("a latitude of 91: %v, want invalid", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// jagged is a ring of n points around (lng, lat) at radii between r/2 and
// r degrees, drawn the way a coastline is: every point at its own radius.
func jagged(rnd *rand.Rand, lng, lat, r float64, n int) orb.Ring {
	ring := make(orb.Ring, 0, n+1)
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		d := r * (0.5 + 0.5*rnd.Float64())
		ring = append(ring, orb.Point{lng + d*math.Cos(a), lat + d*math.Sin(a)})
	}
	return append(ring, ring[0])
}

// A shape of many points (a flood zone's hundreds of thousands) is read in
// parts, not whole: whatever the store reads, every point must be inside
// exactly where the whole shape says.
func testPolygonsOfManyPoints(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(20, 36))
	huge := orb.MultiPolygon{
		{jagged(rnd, -90.0, 30.0, 0.5, 60_000), jagged(rnd, -90.0, 30.0, 0.2, 20_000)}, // with a hole
		{jagged(rnd, -90.0, 30.0, 0.08, 5_000)},                                        // an island in the hole
		{jagged(rnd, -88.8, 30.0, 0.3, 15_000)},                                        // a second zone apart
	}
	if err := db.PutPolygons(ctx, "flood_zone", 1, []providers.LayerPolygon{{Key: "X", Shape: shapeOf(huge)}}); err != nil {
		t.Fatal(err)
	}
	in, out := 0, 0
	for range 400 {
		p := orb.Point{-90.6 + 2.2*rnd.Float64(), 29.4 + 1.2*rnd.Float64()}
		want := planar.MultiPolygonContains(huge, p)
		got := at(t, db, "flood_zone", 1, p[1], p[0])
		if want != (len(got) == 1) {
			t.Errorf("at %v: PolygonsAt = %v, want inside %v", p, got, want)
		}
		if want {
			in++
		} else {
			out++
		}
	}
	if in < 50 || out < 50 {
		t.Fatalf("only %d points inside and %d outside: the test tests little", in, out)
	}
	// Each point of the shape itself, and a point just inside and just
	// outside near it, agree too.
	for i := 0; i < len(huge[0][0]); i += 997 {
		v := huge[0][0][i]
		for _, d := range []float64{-1e-9, 1e-9} {
			p := orb.Point{v[0] + d, v[1] + d/3}
			if want := planar.MultiPolygonContains(huge, p); want != (len(at(t, db, "flood_zone", 1, p[1], p[0])) == 1) {
				t.Errorf("near point %d of the outer ring, at %v: inside %v expected", i, p, want)
			}
		}
	}
}

// Polygons that tile an area, as tracts do, share their edges: a point on
// one is in exactly one of them, east of a north-south edge and north of
// an east-west one.
func testPolygonsSharedEdge(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	// Four squares of 0.01 degrees, two by two, the east ones drawn
	// clockwise; and a triangle whose slanted edge the square "nw" does
	// not share.
	sq := map[string]orb.Ring{
		"sw": rect(-77.02, 38.90, -77.01, 38.91), "se": rect(-77.01, 38.90, -77.00, 38.91),
		"nw": rect(-77.02, 38.91, -77.01, 38.92), "ne": rect(-77.01, 38.91, -77.00, 38.92),
	}
	var ps []providers.LayerPolygon
	for k, r := range sq {
		if k == "se" || k == "ne" {
			r = slices.Clone(r)
			slices.Reverse(r)
		}
		ps = append(ps, providers.LayerPolygon{Key: k, Shape: shapeOf(orb.Polygon{r})})
	}
	if err := db.PutPolygons(ctx, "tract", 1, ps); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		lat, lng float64
		want     []string
	}{
		{"on the edge between sw and se", 38.905, -77.01, []string{"se"}},
		{"on the edge between sw and nw", 38.91, -77.015, []string{"nw"}},
		{"on the corner the four share", 38.91, -77.01, []string{"ne"}},
		{"on the west edge of the area", 38.905, -77.02, []string{"sw"}},
		{"on the east edge of the area", 38.905, -77.00, nil},
		{"on the south edge of the area", 38.90, -77.015, []string{"sw"}},
		{"on the north edge of the area", 38.92, -77.015, nil},
	} {
		if got := at(t, db, "tract", 1, c.lat, c.lng); !slices.Equal(got, c.want) {
			t.Errorf("%s: PolygonsAt = %v, want %v", c.name, got, c.want)
		}
	}
	// Two triangles share a slanted edge, each drawing it its own way: a
	// point on it, as near as a float64 can be, is in one of them. The
	// points are those where the edge's longitude, worked out from one end
	// or from the other, is not the same float64 (a few in 100,000).
	a, b := orb.Point{-77.0123, 38.9012}, orb.Point{-77.0057, 38.9071}
	west := orb.Polygon{{a, b, {a[0], b[1]}, a}}
	east := orb.Polygon{{a, {b[0], a[1]}, b, a}}
	if err := db.PutPolygons(ctx, "slant", 1, []providers.LayerPolygon{{Key: "west", Shape: shapeOf(west)},
		{Key: "east", Shape: shapeOf(east)}}); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(5, 8))
	found := 0
	for i := 0; i < 5_000_000 && found < 10; i++ {
		lat := a[1] + (b[1]-a[1])*rnd.Float64()
		fromA, fromB := a[0]+(lat-a[1])*(b[0]-a[0])/(b[1]-a[1]), b[0]+(lat-b[1])*(a[0]-b[0])/(a[1]-b[1])
		if fromA == fromB {
			continue
		}
		found++
		for _, lng := range []float64{fromA, fromB} {
			if got := at(t, db, "slant", 1, lat, lng); len(got) != 1 {
				t.Fatalf("on the slanted edge at (%v, %v): PolygonsAt = %v, want one of the two", lat, lng, got)
			}
		}
	}
	if found < 10 {
		t.Fatalf("found %d points where the edge's ends disagree", found)
	}
}

func testPolygonsDrop(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	// More polygons than a drop deletes in one transaction, a grid of
	// 0.001 degrees, in two layers and two generations written in turns,
	// so that their ids interleave; one of many points among them, read
	// by band.
	grid := func(prefix string, from, to int) []providers.LayerPolygon {
		var ps []providers.LayerPolygon
		for i := from; i < to; i++ {
			for j := range 110 {
				w, s := -77.0+float64(i)*0.001, 38.8+float64(j)*0.001
				ps = append(ps, providers.LayerPolygon{Key: fmt.Sprintf("%s%d.%d", prefix, i, j),
					Shape: shapeOf(orb.Polygon{rect(w, s, w+0.001, s+0.001)})})
			}
		}
		return ps
	}
	big := providers.LayerPolygon{Key: "big", Shape: shapeOf(orb.Polygon{jagged(rand.New(rand.NewPCG(1, 2)), -76.95, 38.85, 0.01, 5000)})}
	for from := 0; from < 110; from += 22 {
		for _, g := range []struct {
			layer string
			gen   int64
		}{{"flood_zone", 1}, {"flood_zone", 2}, {"firm_panel", 1}} {
			ps := grid(g.layer, from, from+22)
			if from == 44 {
				ps = append(ps, big)
			}
			if err := db.PutPolygons(ctx, g.layer, g.gen, ps); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := at(t, db, "flood_zone", 1, 38.8505, -76.9495); !slices.Equal(got, []string{"big", "flood_zone50.50"}) {
		t.Fatalf("before the drop: %v, want big and flood_zone50.50", got)
	}
	if err := db.DropPolygons(ctx, "flood_zone", 1); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]float64{{38.8005, -76.9995}, {38.8505, -76.9495}, {38.9095, -76.8905}} {
		if got := at(t, db, "flood_zone", 1, p[0], p[1]); len(got) != 0 {
			t.Errorf("after the drop, at %v: %v, want none", p, got)
		}
		if got := at(t, db, "flood_zone", 2, p[0], p[1]); len(got) == 0 {
			t.Errorf("the drop of generation 1 took generation 2's polygons at %v", p)
		}
		if got := at(t, db, "firm_panel", 1, p[0], p[1]); len(got) == 0 {
			t.Errorf("the drop of flood_zone took firm_panel's polygons at %v", p)
		}
	}
	// Dropping what is not there is no error.
	if err := db.DropPolygons(ctx, "flood_zone", 1); err != nil {
		t.Errorf("a second drop: %v", err)
	}
}

func testPolygonsRefused(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	good := providers.LayerPolygon{Key: "ok", Shape: shapeOf(orb.Polygon{rect(-77.02, 38.90, -77.01, 38.91)})}
	point := shapeOf(orb.Point{-77.0, 38.9})
	for _, c := range []struct {
		name  string
		layer string
		gen   int64
		bad   providers.LayerPolygon
	}{
		{"a point for a shape", "tract", 1, providers.LayerPolygon{Key: "p", Shape: point}},
		{"a shape cut short", "tract", 1, providers.LayerPolygon{Key: "p", Shape: good.Shape[:len(good.Shape)-3]}},
		{"a latitude of 91", "tract", 1, providers.LayerPolygon{Key: "p", Shape: shapeOf(orb.Polygon{rect(-77, 90.5, -76, 91)})}},
		{"attributes that are a list", "tract", 1, providers.LayerPolygon{Key: "p", Attrs: json.RawMessage(`[1]`), Shape: good.Shape}},
		{"no key", "tract", 1, providers.LayerPolygon{Shape: good.Shape}},
		{"no layer", "", 1, good},
		{"generation 0", "tract", 0, good},
	} {
		err := db.PutPolygons(ctx, c.layer, c.gen, []providers.LayerPolygon{good, c.bad})
		if providers.KindOf(err) != providers.KindInvalid {
			t.Errorf("%s: %v, want invalid", c.name, err)
		}
	}
	if got := at(t, db, "tract", 1, 38.905, -77.015); len(got) != 0 {
		t.Errorf("a refused batch wrote %v", got)
	}
}
