// Package layergen generates polygon layers at the size of real ones, a
// state's census tracts with its counties and a county's flood map with its
// FIRM panels, in the columns their publishers write (TIGER/Line's tract and
// county layers, the NFHL's S_FLD_HAZ_AR and S_FIRM_PAN), so that loading
// and point lookups can be measured at scale without the files themselves:
// the store's latency test writes the layers straight into each engine, the
// benchmark writes them as shapefiles (WriteShapefile, which also writes
// layers of lines, for package addrgen's street edges) and loads them with
// propertyd data load.
//
// Every layer tiles its area: a point inside a layer's box (Tracts.Inner,
// Flood.Box) is in exactly one of its polygons, so a test can require
// exactly one answer. The layers are the same at every run (the wobble of
// the borders comes from a hash of their indexes, not from a random
// source), and a tract's or zone's shape does not depend on the order it
// is asked for in. Nothing here is safe to change concurrently; the types
// are values, safe to read from several goroutines.
package layergen

import (
	"fmt"
	"math"
	"time"

	"github.com/paulmach/orb"
)

// Feature is one polygon or line of a layer: its key as the publisher
// identifies it (a GEOID, a FLD_AR_ID, a FIRM_PAN, a TLID), its shape and
// its attributes, Values[i] the value of the layer's Columns[i]: a string,
// int64, float64, time.Time (a date) or nil. A polygon is oriented as
// RFC 7946 orients it (outer rings counter-clockwise, holes clockwise,
// every ring closed); a line (a street edge of TIGER/Line's ADDRFEAT) is
// set in Line instead, Polygon nil, and runs from its first point as the
// publisher digitized it. A layer's features are all polygons or all
// lines, as a shapefile holds one shape type.
type Feature struct {
	Key     string
	Polygon orb.Polygon
	Line    orb.LineString
	Values  []any
}

// Vertices is how many points the feature's rings (or line) hold, the
// closing ones included, as a shapefile stores them.
func (f Feature) Vertices() int {
	n := len(f.Line)
	for _, r := range f.Polygon {
		n += len(r)
	}
	return n
}

// Attrs is the feature's attributes by column name.
func (f Feature) Attrs(cols []Column) map[string]any {
	out := make(map[string]any, len(cols))
	for i, c := range cols {
		out[c.Name] = f.Values[i]
	}
	return out
}

// Column is an attribute column as a dBase file declares it: its name, its
// type (C text, N number, D date) and its width and decimals.
type Column struct {
	Name            string
	Type            byte
	Width, Decimals int
}

// Layer is one generated layer: its name (a shapefile's, e.g.
// "S_FLD_HAZ_AR"), its columns and its features, given one at a time to
// the func Each is called with until it returns an error, which Each
// returns.
type Layer struct {
	Name    string
	Columns []Column
	Each    func(yield func(Feature) error) error
}

// noise is a deterministic source of numbers in [0, 1) by index
// (splitmix64), so that two polygons that share a border draw it alike.
type noise uint64

func (n noise) unit(i uint64) float64 {
	z := uint64(n) + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// Centre is the point both generated areas are centred on, in northern
// Virginia: the state's tracts around it and the county's flood map inside
// them, whatever their sizes.
var Centre = orb.Point{-77.5, 39}

// Tracts is a state's census tracts: Rows by Cols cells of Height by Width
// degrees from the south-west corner (West, South), each border Side points
// long, wavy across its line by up to a tenth of the cell (not at the
// corners), the same for the two cells that share it; and its counties,
// blocks of CountyRows by CountyCols cells whose borders are their tracts'.
type Tracts struct {
	South, West, Height, Width float64
	Rows, Cols, Side           int
	CountyRows, CountyCols     int
	State                      string // STATEFP
}

// NewTracts returns a state of about n tracts (rows of twice as many
// columns, at least n), 0.08 by 0.05 degrees each, borders of 150 points a
// side (601 points a tract), centred on Centre, in counties of 5 by 10
// tracts: 5,000 tracts make 50 rows of 100, 4 by 5 degrees, 3 million
// points, 100 counties.
func NewTracts(n int) Tracts {
	rows := max(1, int(math.Round(math.Sqrt(float64(n)/2))))
	cols := (n + rows - 1) / rows
	g := Tracts{Height: 0.08, Width: 0.05, Rows: rows, Cols: cols, Side: 150, CountyRows: 5, CountyCols: 10, State: "51"}
	g.South = Centre.Lat() - float64(rows)*g.Height/2
	g.West = Centre.Lon() - float64(cols)*g.Width/2
	return g
}

// Len is the number of tracts.
func (g Tracts) Len() int { return g.Rows * g.Cols }

// Inner is the box inside the state's wavy outer border: a point in it is
// in exactly one tract.
func (g Tracts) Inner() orb.Bound {
	return orb.Bound{
		Min: orb.Point{g.West + g.Width/10, g.South + g.Height/10},
		Max: orb.Point{g.West + float64(g.Cols)*g.Width - g.Width/10, g.South + float64(g.Rows)*g.Height - g.Height/10},
	}
}

// border is the points of the border from corner (r, c) going north
// (vertical) or east, its far corner left out.
func (g Tracts) border(r, c int, vertical bool) []orb.Point {
	seed := uint64(r*100_003+c) * 2
	if vertical {
		seed++
	}
	n := noise(seed)
	pts := make([]orb.Point, 0, g.Side)
	x0, y0 := g.corner(r, c)
	for k := range g.Side {
		f := float64(k) / float64(g.Side)
		wave := math.Sin(math.Pi*f) * (2*n.unit(uint64(k)) - 1) / 10
		if vertical {
			pts = append(pts, orb.Point{x0 + wave*g.Width, y0 + f*g.Height})
		} else {
			pts = append(pts, orb.Point{x0 + f*g.Width, y0 + wave*g.Height})
		}
	}
	return pts
}

func (g Tracts) corner(r, c int) (x, y float64) {
	return g.West + float64(c)*g.Width, g.South + float64(r)*g.Height
}

// outline is the ring around the cells of rows r0 to r1 and columns c0
// to c1 (the far ones left out), counter-clockwise from corner (r0, c0):
// a tract is one cell, a county a block of them, and both are drawn from
// the same borders, so a county's edge is its tracts' edges.
func (g Tracts) outline(r0, c0, r1, c1 int) orb.Ring {
	var ring orb.Ring
	for c := c0; c < c1; c++ {
		ring = append(ring, g.border(r0, c, false)...) // south, going east
	}
	for r := r0; r < r1; r++ {
		ring = append(ring, g.border(r, c1, true)...) // east, going north
	}
	var north []orb.Point
	for c := c0; c < c1; c++ {
		north = append(north, g.border(r1, c, false)...)
	}
	x, y := g.corner(r1, c1)
	north = append(north, orb.Point{x, y})
	reverse(north)
	ring = append(ring, north[:len(north)-1]...) // north, going west
	var west []orb.Point
	for r := r0; r < r1; r++ {
		west = append(west, g.border(r, c0, true)...)
	}
	x, y = g.corner(r1, c0)
	west = append(west, orb.Point{x, y})
	reverse(west)
	return append(ring, west...) // west, going south, back to the start
}

func reverse(pts []orb.Point) {
	for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
		pts[i], pts[j] = pts[j], pts[i]
	}
}

// TractColumns are the columns of TIGER/Line's tract layer
// (tl_YYYY_SS_tract), as the Census Bureau types them.
var TractColumns = []Column{
	{"STATEFP", 'C', 2, 0}, {"COUNTYFP", 'C', 3, 0}, {"TRACTCE", 'C', 6, 0}, {"GEOID", 'C', 11, 0},
	{"NAME", 'C', 7, 0}, {"NAMELSAD", 'C', 20, 0}, {"MTFCC", 'C', 5, 0}, {"FUNCSTAT", 'C', 1, 0},
	{"ALAND", 'N', 14, 0}, {"AWATER", 'N', 14, 0}, {"INTPTLAT", 'C', 11, 0}, {"INTPTLON", 'C', 12, 0},
}

// CountyColumns are the columns of TIGER/Line's county layer
// (tl_YYYY_us_county).
var CountyColumns = []Column{
	{"STATEFP", 'C', 2, 0}, {"COUNTYFP", 'C', 3, 0}, {"COUNTYNS", 'C', 8, 0}, {"GEOID", 'C', 5, 0},
	{"NAME", 'C', 100, 0}, {"NAMELSAD", 'C', 100, 0}, {"LSAD", 'C', 2, 0}, {"CLASSFP", 'C', 2, 0},
	{"MTFCC", 'C', 5, 0}, {"FUNCSTAT", 'C', 1, 0}, {"ALAND", 'N', 14, 0}, {"AWATER", 'N', 14, 0},
	{"INTPTLAT", 'C', 11, 0}, {"INTPTLON", 'C', 12, 0},
}

// countyOf is the county of cell (r, c): its index, and the cell's index
// among the county's.
func (g Tracts) countyOf(r, c int) (county, k int) {
	perRow := (g.Cols + g.CountyCols - 1) / g.CountyCols
	county = r/g.CountyRows*perRow + c/g.CountyCols
	k = r%g.CountyRows*g.CountyCols + c%g.CountyCols
	return county, k
}

// CountyFP is the three-digit code of the county of index i: odd numbers,
// as most states number their counties.
func CountyFP(i int) string { return fmt.Sprintf("%03d", 2*i+1) }

// area is the land of a box of h by w degrees at latitude lat, in square
// metres (a sphere's, near enough for an attribute no one reads).
func area(lat, h, w float64) int64 {
	const m = 111_195.0 // metres a degree of latitude
	return int64(h * m * w * m * math.Cos(lat*math.Pi/180))
}

func internalPoint(x, y float64) (lat, lon string) {
	return fmt.Sprintf("%+011.7f", y), fmt.Sprintf("%+012.7f", x)
}

// Tract is the tract of cell (r, c): the c-th of the r-th row from the
// south-west, in TractColumns.
func (g Tracts) Tract(r, c int) Feature {
	county, k := g.countyOf(r, c)
	tractce := fmt.Sprintf("%04d00", 100+k)
	geoid := g.State + CountyFP(county) + tractce
	name := fmt.Sprint(100 + k)
	x, y := g.corner(r, c)
	lat, lon := internalPoint(x+g.Width/2, y+g.Height/2)
	return Feature{Key: geoid, Polygon: orb.Polygon{g.outline(r, c, r+1, c+1)}, Values: []any{
		g.State, CountyFP(county), tractce, geoid, name, "Census Tract " + name, "G5020", "S",
		area(y, g.Height, g.Width), int64(0), lat, lon,
	}}
}

// At is the tract holding p, found among the cells around p's; false when
// p is outside the state.
func (g Tracts) At(p orb.Point) (Feature, bool) {
	r0, c0 := int(math.Floor((p.Lat()-g.South)/g.Height)), int(math.Floor((p.Lon()-g.West)/g.Width))
	for r := r0 - 1; r <= r0+1; r++ {
		for c := c0 - 1; c <= c0+1; c++ {
			if r < 0 || c < 0 || r >= g.Rows || c >= g.Cols {
				continue
			}
			if t := g.Tract(r, c); ringContains(t.Polygon[0], p) {
				return t, true
			}
		}
	}
	return Feature{}, false
}

// TractLayer is the tracts, row by row from the south, as the layer of
// tl_YYYY_SS_tract.
func (g Tracts) TractLayer(year int) Layer {
	return Layer{Name: fmt.Sprintf("tl_%d_%s_tract", year, g.State), Columns: TractColumns,
		Each: func(yield func(Feature) error) error {
			for r := range g.Rows {
				for c := range g.Cols {
					if err := yield(g.Tract(r, c)); err != nil {
						return err
					}
				}
			}
			return nil
		}}
}

// County is the county of index i, in CountyColumns, named "Bench i
// County".
func (g Tracts) County(i int) Feature {
	perRow := (g.Cols + g.CountyCols - 1) / g.CountyCols
	r0, c0 := i/perRow*g.CountyRows, i%perRow*g.CountyCols
	r1, c1 := min(r0+g.CountyRows, g.Rows), min(c0+g.CountyCols, g.Cols)
	fp := CountyFP(i)
	x, y := g.corner(r0, c0)
	h, w := float64(r1-r0)*g.Height, float64(c1-c0)*g.Width
	lat, lon := internalPoint(x+w/2, y+h/2)
	name := fmt.Sprintf("Bench %d", i+1)
	return Feature{Key: g.State + fp, Polygon: orb.Polygon{g.outline(r0, c0, r1, c1)}, Values: []any{
		g.State, fp, fmt.Sprintf("%08d", 1_000_000+i), g.State + fp, name, name + " County", "06", "H1", "G4020", "A",
		area(y, h, w), int64(0), lat, lon,
	}}
}

// Counties is the number of counties.
func (g Tracts) Counties() int {
	return (g.Rows + g.CountyRows - 1) / g.CountyRows * ((g.Cols + g.CountyCols - 1) / g.CountyCols)
}

// CountyLayer is the counties as the layer of tl_YYYY_us_county (the
// state's alone).
func (g Tracts) CountyLayer(year int) Layer {
	return Layer{Name: fmt.Sprintf("tl_%d_us_county", year), Columns: CountyColumns,
		Each: func(yield func(Feature) error) error {
			for i := range g.Counties() {
				if err := yield(g.County(i)); err != nil {
					return err
				}
			}
			return nil
		}}
}

// Flood is a county's flood map: N by N cells of a square of Size degrees
// from its south-west corner (West, South), each with a flood zone (a
// wobbly ring of Ring points at 0.25 to 0.45 of the cell from its centre),
// and the 16 blocks of a 4 by 4 grid over them, each an area of minimal
// flood hazard (zone X): its rectangle with its cells' zones as holes, as
// the NFHL draws zone X around the special flood hazard areas; and Panels
// by Panels FIRM panels tiling the square. DFIRMID is the county's map.
type Flood struct {
	South, West, Size float64
	N, Ring, Panels   int
	DFIRMID           string
	Effective         time.Time // the panels' EFF_DATE
}

// NewFlood returns a county's flood map of at least zones zones (N the
// square root, rounded up), 100 points a zone and as many again for its
// hole in zone X (200 points a zone in all: 20 million at 100,000), 0.6
// degrees square, centred on Centre, on 8 by 8 panels.
func NewFlood(zones int) Flood {
	const size = 0.6
	return Flood{South: Centre.Lat() - size/2, West: Centre.Lon() - size/2, Size: size,
		N: max(4, int(math.Ceil(math.Sqrt(float64(zones))))), Ring: 100, Panels: 8,
		DFIRMID: "51107C", Effective: time.Date(2024, time.June, 18, 0, 0, 0, 0, time.UTC)}
}

// Zones is the number of flood zones, the blocks of zone X aside.
func (g Flood) Zones() int { return g.N * g.N }

// Box is the map's square: a point in it is in exactly one hazard area
// (a zone or a block of zone X) and one panel.
func (g Flood) Box() orb.Bound {
	return orb.Bound{Min: orb.Point{g.West, g.South}, Max: orb.Point{g.West + g.Size, g.South + g.Size}}
}

// HazardColumns are the columns of the NFHL's S_FLD_HAZ_AR that a loader
// reads, with FLD_AR_ID, its key.
var HazardColumns = []Column{
	{"DFIRM_ID", 'C', 6, 0}, {"FLD_AR_ID", 'C', 32, 0}, {"FLD_ZONE", 'C', 17, 0}, {"ZONE_SUBTY", 'C', 76, 0},
	{"SFHA_TF", 'C', 1, 0}, {"STATIC_BFE", 'N', 13, 2}, {"DEPTH", 'N', 13, 2},
}

// PanelColumns are the columns of the NFHL's S_FIRM_PAN that a loader
// reads; EFF_DATE is a date field, as in FEMA's shapefiles.
var PanelColumns = []Column{
	{"DFIRM_ID", 'C', 6, 0}, {"PANEL", 'C', 4, 0}, {"SUFFIX", 'C', 1, 0}, {"FIRM_PAN", 'C', 11, 0},
	{"PANEL_TYP", 'C', 30, 0}, {"EFF_DATE", 'D', 8, 0},
}

func (g Flood) ring(i, j int) orb.Ring {
	cell := g.Size / float64(g.N)
	cx, cy := g.West+(float64(j)+0.5)*cell, g.South+(float64(i)+0.5)*cell
	n := noise(uint64(i*g.N + j))
	ring := make(orb.Ring, 0, g.Ring)
	for k := range g.Ring - 1 {
		a := 2 * math.Pi * float64(k) / float64(g.Ring-1)
		r := cell * (0.25 + 0.2*n.unit(uint64(k)))
		ring = append(ring, orb.Point{cx + r*math.Cos(a), cy + r*math.Sin(a)})
	}
	return append(ring, ring[0])
}

// ZoneCentre is the centre of zone (i, j), which the zone holds.
func (g Flood) ZoneCentre(i, j int) orb.Point {
	cell := g.Size / float64(g.N)
	return orb.Point{g.West + (float64(j)+0.5)*cell, g.South + (float64(i)+0.5)*cell}
}

// Zone is the flood zone of cell (i, j), in HazardColumns: mostly AE with
// a base flood elevation, some of them floodway, and some A, AO (with a
// depth) and the 0.2 percent annual chance area of zone X.
func (g Flood) Zone(i, j int) Feature {
	idx := i*g.N + j
	v := noise(0x5eed).unit(uint64(idx))
	var (
		zone, subtype, sfha any = "AE", nil, "T"
		bfe, depth          any = float64(10 + idx%25), -9999.0
	)
	switch {
	case v < 0.1:
		zone, bfe = "A", -9999.0
	case v < 0.2:
		zone, bfe, depth = "AO", -9999.0, float64(1+idx%3)
	case v < 0.3:
		zone, subtype, sfha, bfe = "X", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", "F", -9999.0
	case v < 0.4:
		subtype = "FLOODWAY"
	}
	id := fmt.Sprintf("%s_%d", g.DFIRMID, idx+1)
	return Feature{Key: id, Polygon: orb.Polygon{g.ring(i, j)},
		Values: []any{g.DFIRMID, id, zone, subtype, sfha, bfe, depth}}
}

// Block is the block of zone X of index b (0 to 15, row by row from the
// south-west): its rectangle with its cells' zones as holes.
func (g Flood) Block(b int) Feature {
	bi, bj := b/4, b%4
	cell := g.Size / float64(g.N)
	i0, i1, j0, j1 := bi*g.N/4, (bi+1)*g.N/4, bj*g.N/4, (bj+1)*g.N/4
	s, n := g.South+float64(i0)*cell, g.South+float64(i1)*cell
	w, e := g.West+float64(j0)*cell, g.West+float64(j1)*cell
	poly := orb.Polygon{{{w, s}, {e, s}, {e, n}, {w, n}, {w, s}}}
	for i := i0; i < i1; i++ {
		for j := j0; j < j1; j++ {
			hole := g.ring(i, j)
			reverse(hole)
			poly = append(poly, hole)
		}
	}
	id := fmt.Sprintf("%s_X%d", g.DFIRMID, b+1)
	return Feature{Key: id, Polygon: poly,
		Values: []any{g.DFIRMID, id, "X", "AREA OF MINIMAL FLOOD HAZARD", "F", -9999.0, -9999.0}}
}

// HazardLayer is the zones, row by row, then the 16 blocks of zone X, as
// the layer S_FLD_HAZ_AR.
func (g Flood) HazardLayer() Layer {
	return Layer{Name: "S_FLD_HAZ_AR", Columns: HazardColumns,
		Each: func(yield func(Feature) error) error {
			for i := range g.N {
				for j := range g.N {
					if err := yield(g.Zone(i, j)); err != nil {
						return err
					}
				}
			}
			for b := range 16 {
				if err := yield(g.Block(b)); err != nil {
					return err
				}
			}
			return nil
		}}
}

// Panel is the FIRM panel of index p, row by row from the south-west, in
// PanelColumns.
func (g Flood) Panel(p int) Feature {
	side := g.Size / float64(g.Panels)
	s, w := g.South+float64(p/g.Panels)*side, g.West+float64(p%g.Panels)*side
	number := fmt.Sprintf("%04d", 5*(p+1))
	pan := g.DFIRMID + number + "F" // 51107C0005F
	return Feature{Key: pan, Polygon: orb.Polygon{{{w, s}, {w + side, s}, {w + side, s + side}, {w, s + side}, {w, s}}},
		Values: []any{g.DFIRMID, number, "F", pan, "COUNTYWIDE, PANEL PRINTED", g.Effective}}
}

// PanelLayer is the panels as the layer S_FIRM_PAN.
func (g Flood) PanelLayer() Layer {
	return Layer{Name: "S_FIRM_PAN", Columns: PanelColumns,
		Each: func(yield func(Feature) error) error {
			for p := range g.Panels * g.Panels {
				if err := yield(g.Panel(p)); err != nil {
					return err
				}
			}
			return nil
		}}
}

// ZoneAt is the cell of the zone holding p, false when p is in no zone
// (in zone X around them, or outside the map).
func (g Flood) ZoneAt(p orb.Point) (i, j int, ok bool) {
	cell := g.Size / float64(g.N)
	i, j = int(math.Floor((p.Lat()-g.South)/cell)), int(math.Floor((p.Lon()-g.West)/cell))
	if i < 0 || j < 0 || i >= g.N || j >= g.N {
		return 0, 0, false
	}
	return i, j, ringContains(g.ring(i, j), p)
}

// AreaAt is the key of the hazard area holding p, a point of Box: its
// zone, or else the block of zone X around it.
func (g Flood) AreaAt(p orb.Point) string {
	if i, j, ok := g.ZoneAt(p); ok {
		return g.Zone(i, j).Key
	}
	cell := g.Size / float64(g.N)
	i, j := int(math.Floor((p.Lat()-g.South)/cell)), int(math.Floor((p.Lon()-g.West)/cell))
	block := func(k int) int { // the block row (or column) of cell row (or column) k
		for b := 3; b > 0; b-- {
			if k >= b*g.N/4 {
				return b
			}
		}
		return 0
	}
	return fmt.Sprintf("%s_X%d", g.DFIRMID, block(i)*4+block(j)+1)
}

// ringContains is the even-odd test of p against ring.
func ringContains(ring orb.Ring, p orb.Point) bool {
	in := false
	for k, l := 0, len(ring)-1; k < len(ring); l, k = k, k+1 {
		a, b := ring[k], ring[l]
		if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < (b[0]-a[0])*(p[1]-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}
