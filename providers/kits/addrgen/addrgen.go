// Package addrgen generates a county's addresses with their ground truth,
// at the size of a real county's files: streets on a grid, the TIGER/Line
// Address Range Feature records of their edges (tl_YYYY_SSCCC_addrfeat,
// one range a side of a block, 100-block numbering, odd numbers on one
// side and even on the other, some edges digitized from the high end, ZIP
// codes by area), and an address point for each building along the block
// faces, set back from the street, written as OpenAddresses writes a
// source (its CSV). The benchmark loads both with propertyd data load
// addresses and looks the addresses up; it measures how far the point a
// range places an address at lies from the address's point, since the
// generator knows both.
//
// The county is the same at every run: each edge, its ranges and its
// buildings come from a hash of the edge's index (Edge is random access),
// not from a random source, so a sample of addresses can be drawn without
// generating the rest. Nothing here is safe to change concurrently; the
// types are values, safe to read from several goroutines.
//
// # What is chosen, and why
//
//   - Blocks are 200 m east-west by 100 m north-south, as in many
//     American grids; a block's four faces are four ranges, so n ranges
//     are n/4 blocks; the buildings of a block are three-eighths on each
//     long face and one-eighth on each short one.
//   - Numbers run in hundreds a block (100-block numbering), west to east
//     along the streets and south to north along the avenues; odd numbers
//     on the north and west sides, which is the left walking towards the
//     higher numbers. A range is the block's whole hundred on its side
//     (101 to 199 odd, 100 to 198 even), as TIGER/Line's ranges are often
//     potential ranges rather than the numbers built.
//   - One edge in five is digitized from its high end: its line runs east
//     to west (or north to south), its FROM numbers are the high ones and
//     its odd side is its right.
//   - An edge has a shape point half way, a few metres off the straight
//     line, as TIGER/Line edges follow the road.
//   - The buildings of a face stand on lots of uneven widths between the
//     corner lots (12 to 25 m from each intersection), each point at its
//     lot's middle, 12 to 30 m from the street's centre line: half a road,
//     a front yard and half a house, where an address point (a building's
//     or a parcel's centroid) lies. Three faces in four number their
//     buildings by distance along the block (number = the hundred plus
//     the share of the block, as most grids do); one in four numbers them
//     in turn (101, 103, 105, ...) whatever their place, as subdivisions
//     often do, so that interpolating along the whole hundred misplaces
//     them.
//   - ZIP codes are areas of blocks; a street between two areas has a
//     different ZIP code on each side.
package addrgen

import (
	"fmt"
	"math"
	"strconv"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/kits/layergen"
)

// metresPerDegree is the length of a degree of latitude on a sphere of the
// Earth's mean radius (and of longitude at the equator).
const metresPerDegree = 6371008.8 * math.Pi / 180

// County is a grid of Rows by Cols blocks of BlockWidth (east-west) by
// BlockHeight (north-south) metres from its south-west intersection
// (West, South), with PointsPerBlock buildings a block on average, in ZIP
// areas of ZipRows by ZipCols blocks. State, StateFIPS and CountyFIPS name
// where it is; City is the city its address points give.
type County struct {
	South, West             float64
	Rows, Cols              int
	BlockWidth, BlockHeight float64
	PointsPerBlock          float64
	ZipRows, ZipCols        int
	State, StateFIPS        string
	CountyFIPS, City        string
}

// New returns a county of about points address points and ranges
// ranges (ranges/4 blocks, twice as many rows as columns: a square),
// centred on layergen.Centre, inside the state of layergen.NewTracts and
// under the flood map of layergen.NewFlood: 100,000 ranges make 112 by
// 224 blocks, 22.4 km square.
func New(points, ranges int) County {
	blocks := max(1, ranges/4)
	cols := max(1, int(math.Round(math.Sqrt(float64(blocks)/2))))
	rows := max(1, (blocks+cols-1)/cols)
	g := County{Rows: rows, Cols: cols, BlockWidth: 200, BlockHeight: 100,
		PointsPerBlock: float64(points) / float64(rows*cols),
		ZipRows:        max(1, (rows+3)/4), ZipCols: max(1, (cols+3)/4),
		State: "VA", StateFIPS: "51", CountyFIPS: "107", City: "Benchton"}
	g.South = layergen.Centre.Lat() - float64(rows)*g.BlockHeight/2/metresPerDegree
	g.West = layergen.Centre.Lon() - float64(cols)*g.BlockWidth/2/(metresPerDegree*g.cos())
	return g
}

// cos is the cosine of the county's middle latitude, by which a metre
// east is a fraction of a degree of longitude.
func (g County) cos() float64 {
	return math.Cos(layergen.Centre.Lat() * math.Pi / 180)
}

// point is the point x metres east and y north of the south-west
// intersection.
func (g County) point(x, y float64) orb.Point {
	return orb.Point{g.West + x/(metresPerDegree*g.cos()), g.South + y/metresPerDegree}
}

// Box is the county's box, intersection to intersection: every address
// point lies within it.
func (g County) Box() orb.Bound {
	return orb.Bound{Min: g.point(0, 0), Max: g.point(float64(g.Cols)*g.BlockWidth, float64(g.Rows)*g.BlockHeight)}
}

// Edges is the number of street edges: the streets' (east-west) and the
// avenues' (north-south), intersection to intersection.
func (g County) Edges() int { return (g.Rows+1)*g.Cols + (g.Cols+1)*g.Rows }

// Ranges is the number of address ranges: four a block, one on each face.
func (g County) Ranges() int { return 4 * g.Rows * g.Cols }

// Edge is one street edge as ADDRFEAT records it, with the buildings of
// each side: Sides[0] is its left and Sides[1] its right, walking from the
// line's first point.
type Edge struct {
	Index int
	TLID  int64
	// Name is the street as TIGER/Line's FULLNAME writes it ("12th St",
	// "Oak Ave"); OAName as an OpenAddresses source spells it out ("12th
	// Street", "Oak Avenue").
	Name, OAName string
	Line         orb.LineString
	Sides        [2]Side
	// Reversed is set when the edge is digitized from its high end.
	Reversed bool
}

// Side is one side of an edge: its range (From and To zero when no block
// is on that side, which ADDRFEAT leaves empty), its ZIP code, its parity
// ('O' or 'E'), how its buildings are numbered and the buildings.
type Side struct {
	From, To   int64
	Zip        string
	Parity     byte
	Sequential bool // numbered in turn (101, 103, ...), not by distance
	Buildings  []Building
}

// Empty reports whether the side has no range (the county's edge).
func (s Side) Empty() bool { return s.From == 0 && s.To == 0 }

// Building is an address point: its house number (on its edge's street),
// its point and how far it is set back from the street's centre line.
type Building struct {
	Number  int64
	Point   orb.Point
	Setback float64 // metres
}

// streetName is the name of the east-west street j (from the south):
// "1st St", "2nd St", ...; avenueName that of the north-south avenue a
// (from the west): a tree and a type, then numbered avenues.
func streetName(j int) (tiger, oa string) {
	o := ordinal(j + 1)
	return o + " St", o + " Street"
}

var (
	trees = []string{"Oak", "Maple", "Cedar", "Elm", "Pine", "Walnut", "Spruce", "Birch",
		"Ash", "Willow", "Hickory", "Chestnut", "Poplar", "Magnolia", "Sycamore", "Laurel"}
	types = [][2]string{{"Ave", "Avenue"}, {"Dr", "Drive"}, {"Way", "Way"}, {"Ln", "Lane"},
		{"Blvd", "Boulevard"}, {"Ct", "Court"}, {"Pl", "Place"}, {"Ter", "Terrace"}}
)

func avenueName(a int) (tiger, oa string) {
	if a < len(trees)*len(types) {
		t := types[a/len(trees)]
		return trees[a%len(trees)] + " " + t[0], trees[a%len(trees)] + " " + t[1]
	}
	o := ordinal(a + 1)
	return o + " Ave", o + " Avenue"
}

func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// Zip is the ZIP code of block (r, c).
func (g County) Zip(r, c int) string {
	perRow := (g.Cols + g.ZipCols - 1) / g.ZipCols
	return strconv.Itoa(20101 + r/g.ZipRows*perRow + c/g.ZipCols)
}

// hash is a number in [0, 1) for an edge and a purpose (splitmix64), so
// that an edge is the same whenever it is asked for.
func hash(edge, what, k int) float64 {
	z := uint64(edge)*0x9e3779b97f4a7c15 + uint64(what)*0xbf58476d1ce4e5b9 + uint64(k+1)*0x94d049bb133111eb
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// The purposes of hash.
const (
	hWobble = iota
	hReverse
	hCount
	hScheme
	hMarginStart
	hMarginEnd
	hWidth
	hJitter
	hSetback
)

// Edge is edge i (0 to Edges()-1): the streets' edges row by row from the
// south, then the avenues' column by column from the west.
func (g County) Edge(i int) Edge {
	e := Edge{Index: i, TLID: 700_000_001 + int64(i)}
	var (
		x0, y0, x1, y1 float64
		base           int64
		blocks         [2]int // the blocks left and right, walking towards higher numbers: r*Cols+c, or -1
		length         float64
		share          float64 // of a block's buildings on each long or short face
	)
	horizontal := (g.Rows + 1) * g.Cols
	if i < horizontal {
		j, k := i/g.Cols, i%g.Cols
		e.Name, e.OAName = streetName(j)
		x0, y0, x1, y1 = float64(k)*g.BlockWidth, float64(j)*g.BlockHeight, float64(k+1)*g.BlockWidth, float64(j)*g.BlockHeight
		base, length, share = 100*int64(k+1), g.BlockWidth, 0.375
		blocks = [2]int{-1, -1}
		if j < g.Rows { // north: left, odd
			blocks[0] = j*g.Cols + k
		}
		if j > 0 {
			blocks[1] = (j-1)*g.Cols + k
		}
	} else {
		v := i - horizontal
		a, k := v/g.Rows, v%g.Rows
		e.Name, e.OAName = avenueName(a)
		x0, y0, x1, y1 = float64(a)*g.BlockWidth, float64(k)*g.BlockHeight, float64(a)*g.BlockWidth, float64(k+1)*g.BlockHeight
		base, length, share = 100*int64(k+1), g.BlockHeight, 0.125
		blocks = [2]int{-1, -1}
		if a > 0 { // west: left, odd
			blocks[0] = k*g.Cols + a - 1
		}
		if a < g.Cols {
			blocks[1] = k*g.Cols + a
		}
	}
	// The line, in metres, towards the higher numbers, with its shape
	// point up to 3 m off the straight line.
	ux, uy := (x1-x0)/length, (y1-y0)/length
	wobble := (hash(i, hWobble, 0) - 0.5) * 6
	line := [][2]float64{{x0, y0}, {(x0+x1)/2 - uy*wobble, (y0+y1)/2 + ux*wobble}, {x1, y1}}
	for s := range 2 {
		if blocks[s] < 0 {
			continue
		}
		r, c := blocks[s]/g.Cols, blocks[s]%g.Cols
		side := Side{Zip: g.Zip(r, c), Parity: 'O', From: base + 1, To: base + 99}
		if s == 1 {
			side.Parity, side.From, side.To = 'E', base, base+98
		}
		side.Sequential = hash(i, hScheme, s) < 0.25
		side.Buildings = g.buildings(i, s, line, length, side, share)
		e.Sides[s] = side
	}
	e.Line = make(orb.LineString, len(line))
	for k, p := range line {
		e.Line[k] = g.point(p[0], p[1])
	}
	if hash(i, hReverse, 0) < 0.2 {
		e.Reversed = true
		for a, b := 0, len(e.Line)-1; a < b; a, b = a+1, b-1 {
			e.Line[a], e.Line[b] = e.Line[b], e.Line[a]
		}
		e.Sides[0], e.Sides[1] = e.Sides[1], e.Sides[0]
		for s := range e.Sides {
			e.Sides[s].From, e.Sides[s].To = e.Sides[s].To, e.Sides[s].From
		}
	}
	return e
}

// buildings places the buildings of side s (0 left, 1 right, walking
// along line towards the higher numbers) of edge i and numbers them.
func (g County) buildings(i, s int, line [][2]float64, length float64, side Side, share float64) []Building {
	mean := share * g.PointsPerBlock
	n := max(1, int(math.Floor(mean*(0.7+0.6*hash(i, hCount, s))+0.5)))
	start, end := 12+13*hash(i, hMarginStart, s), 12+13*hash(i, hMarginEnd, s)
	frontage := length - start - end
	widths := make([]float64, n)
	total := 0.0
	for k := range widths {
		widths[k] = 0.6 + 0.8*hash(i, hWidth, s*1000+k)
		total += widths[k]
	}
	sign := 1.0 // the left normal
	if s == 1 {
		sign = -1
	}
	first := side.From // the lowest number: From before any reversal
	out := make([]Building, 0, n)
	at, last := start, int64(-1)
	for k, w := range widths {
		w *= frontage / total
		along := at + w/2 + (hash(i, hJitter, s*1000+k)-0.5)*0.3*w
		at += w
		number := first + 2*int64(k)
		if !side.Sequential {
			number = first + 2*int64(math.Round(along/length*49))
		}
		if number <= last {
			number = last + 2
		}
		if number > first+98 {
			break
		}
		last = number
		setback := 12 + 18*hash(i, hSetback, s*1000+k)
		x, y, nx, ny := walk(line, along)
		out = append(out, Building{Number: number, Setback: setback,
			Point: g.point(x+sign*nx*setback, y+sign*ny*setback)})
	}
	return out
}

// walk is the point d metres along line and the left normal of the
// segment it is on.
func walk(line [][2]float64, d float64) (x, y, nx, ny float64) {
	for k := 1; k < len(line); k++ {
		a, b := line[k-1], line[k]
		l := math.Hypot(b[0]-a[0], b[1]-a[1])
		if d <= l || k == len(line)-1 {
			t := min(1, max(0, d/l))
			ux, uy := (b[0]-a[0])/l, (b[1]-a[1])/l
			return a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, -uy, ux
		}
		d -= l
	}
	return line[0][0], line[0][1], 0, 1
}

// Range is side s of e as the loader reads it from the file: the
// providers.AddressRange a lookup's number is interpolated along.
func (e Edge) Range(s int, state string) providers.AddressRange {
	sd := e.Sides[s]
	line := make([]providers.Point, len(e.Line))
	for k, p := range e.Line {
		line[k] = providers.Point{Lat: p.Lat(), Lng: p.Lon()}
	}
	return providers.AddressRange{Name: address.StreetName(e.Name), State: state, Zip: sd.Zip,
		From: sd.From, To: sd.To, Parity: sd.Parity, Side: "LR"[s], Line: line,
		Key: fmt.Sprintf("%d%c", e.TLID, "LR"[s])}
}

// Street is the lookup's street of number on e: "123 12th St".
func (e Edge) Street(number int64) string {
	return strconv.FormatInt(number, 10) + " " + e.Name
}

// Vacant is a number of side s's range that no building has (a lookup
// only the range can answer), false when every number is built.
func (e Edge) Vacant(s int) (int64, bool) {
	sd := e.Sides[s]
	if sd.Empty() {
		return 0, false
	}
	used := map[int64]bool{}
	for _, b := range sd.Buildings {
		used[b.Number] = true
	}
	hi, lo := max(sd.From, sd.To), min(sd.From, sd.To)
	for n := hi; n >= lo; n -= 2 {
		if !used[n] {
			return n, true
		}
	}
	return 0, false
}
