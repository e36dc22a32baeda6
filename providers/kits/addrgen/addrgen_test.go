package addrgen_test

import (
	"errors"
	"io"
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/addrfile"
	"github.com/propertyd/propertyd/providers/kits/addrgen"
	"github.com/propertyd/propertyd/providers/kits/layergen"
)

// TestFilesReadBackAsTheLoaderReadsThem writes a small county and reads
// both files with the loader's reader: every point and range comes back,
// none refused, the ranges exactly as Edge.Range gives them (so the
// benchmark's ground truth is what propertyd loads), the state from the
// ADDRFEAT file's name.
func TestFilesReadBackAsTheLoaderReadsThem(t *testing.T) {
	g := addrgen.New(4_000, 400)
	files, err := g.WriteFiles(t.TempDir(), 2024)
	if err != nil {
		t.Fatal(err)
	}
	if files.RangeN != int64(g.Ranges()) || files.EdgeN != int64(g.Edges()) {
		t.Fatalf("wrote %d ranges on %d edges; want %d on %d", files.RangeN, files.EdgeN, g.Ranges(), g.Edges())
	}
	if files.PointN < 3_500 || files.PointN > 4_500 {
		t.Errorf("wrote %d points; want about 4,000", files.PointN)
	}
	want := map[string]providers.AddressRange{}
	points := map[string]orb.Point{}
	for i := range g.Edges() {
		e := g.Edge(i)
		for s, sd := range e.Sides {
			if sd.Empty() {
				continue
			}
			r := e.Range(s, "VA")
			want[r.Key] = r
			for _, b := range sd.Buildings {
				points[address.StreetName(e.Street(b.Number))+"|"+sd.Zip] = b.Point
			}
		}
	}
	r, err := addrfile.Open([]string{files.Points, files.Ranges}, addrfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the loader refused: %v", err)
		}
		switch {
		case it.Range != nil:
			w, ok := want[it.Range.Key]
			if !ok || w.Name != it.Range.Name || w.Zip != it.Range.Zip || w.From != it.Range.From || w.To != it.Range.To ||
				w.Parity != it.Range.Parity || w.Side != it.Range.Side || len(w.Line) != len(it.Range.Line) || it.Range.State != "VA" {
				t.Fatalf("range read %+v; generated %+v", *it.Range, w)
			}
			for k := range w.Line {
				if geo.Distance(orb.Point{w.Line[k].Lng, w.Line[k].Lat}, orb.Point{it.Range.Line[k].Lng, it.Range.Line[k].Lat}) > 0.01 {
					t.Fatalf("range %s: line %v read as %v", w.Key, w.Line, it.Range.Line)
				}
			}
		case it.Point != nil:
			p := it.Point
			w, ok := points[p.Street+"|"+p.Zip]
			if !ok || p.State != "VA" || p.City != "BENCHTON" || geo.Distance(w, orb.Point{p.Point.Lng, p.Point.Lat}) > 0.05 {
				t.Fatalf("point read %+v; generated %v (found %v)", *p, w, ok)
			}
		}
	}
	sum := r.Finish()
	if sum.Points != files.PointN || sum.Ranges != files.RangeN || sum.Rejected != 0 || sum.Vintage != "2024" {
		t.Errorf("read %+v; want %d points and %d ranges, none refused, vintage 2024", sum, files.PointN, files.RangeN)
	}
}

// TestTheCountyIsAsDescribed holds the generator to its package comment:
// 100-block numbering with odd numbers on the left walking towards the
// higher numbers, one edge in five digitized from its high end, one face
// in four numbered in turn, setbacks of 12 to 30 m, every point inside
// the state's generated tracts and the generated flood map, and a
// building numbered by distance placed by its range within its setback
// and the rounding of a number.
func TestTheCountyIsAsDescribed(t *testing.T) {
	g := addrgen.New(1_000_000, 100_000)
	if g.Rows != 224 || g.Cols != 112 || g.Ranges() != 100_352 {
		t.Fatalf("%d by %d blocks, %d ranges; want 224 by 112, about 100,000", g.Rows, g.Cols, g.Ranges())
	}
	tracts, flood := layergen.NewTracts(200), layergen.NewFlood(1000)
	box := g.Box()
	for _, p := range []orb.Point{box.Min, box.Max} {
		if !tracts.Inner().Contains(p) || !flood.Box().Contains(p) {
			t.Fatalf("the county %v is not inside the tracts %v and the flood map %v", box, tracts.Inner(), flood.Box())
		}
	}
	var edges, reversed, faces, sequential, buildings int
	for i := 0; i < g.Edges(); i += 97 {
		e := g.Edge(i)
		edges++
		if e.Reversed {
			reversed++
		}
		for s, sd := range e.Sides {
			if sd.Empty() {
				continue
			}
			faces++
			if sd.Sequential {
				sequential++
			}
			odd := sd.From%2 == 1
			if (odd != (sd.Parity == 'O')) || (odd == (s == 0)) == e.Reversed || (sd.From > sd.To) != e.Reversed ||
				max(sd.From, sd.To)-min(sd.From, sd.To) != 98 || min(sd.From, sd.To)%100 > 1 {
				t.Fatalf("edge %d side %d: %+v (reversed %v); want the block's hundred, odd on the left towards the higher numbers", i, s, sd, e.Reversed)
			}
			r := e.Range(s, "VA")
			for _, b := range sd.Buildings {
				buildings++
				if !addrfile.Holds(r, b.Number) || b.Setback < 12 || b.Setback > 30 || !box.Contains(b.Point) {
					t.Fatalf("edge %d side %d: building %+v outside its range %d-%d, its setbacks or the county", i, s, b, sd.From, sd.To)
				}
				p, _ := addrfile.Interpolate(r, b.Number)
				d := geo.Distance(orb.Point{p.Lng, p.Lat}, b.Point)
				// The range's point lies 10 m off the centre line; the
				// number places it within a 49th of the block.
				if limit := math.Abs(b.Setback-addrfile.SideOffset) + 200.0/49 + 1; !sd.Sequential && d > limit {
					t.Errorf("edge %d side %d: number %d placed %.1f m from its building, want within %.1f m", i, s, b.Number, d, limit)
				}
			}
		}
	}
	if share := float64(reversed) / float64(edges); share < 0.15 || share > 0.25 {
		t.Errorf("%.2f of the edges reversed; want one in five", share)
	}
	if share := float64(sequential) / float64(faces); share < 0.2 || share > 0.3 {
		t.Errorf("%.2f of the faces numbered in turn; want one in four", share)
	}
	if per := float64(buildings) / float64(faces); per < 8 || per > 12 {
		t.Errorf("%.1f buildings a face; want about 10", per)
	}
}

// TestVacantIsANumberOnlyTheRangeHolds: a lookup of a vacant number
// cannot be answered by an address point.
func TestVacantIsANumberOnlyTheRangeHolds(t *testing.T) {
	g := addrgen.New(40_000, 4_000)
	for i := range 50 {
		e := g.Edge(i)
		for s, sd := range e.Sides {
			n, ok := e.Vacant(s)
			if sd.Empty() {
				if ok {
					t.Errorf("edge %d side %d has no range but a vacant number %d", i, s, n)
				}
				continue
			}
			if !ok || !addrfile.Holds(e.Range(s, "VA"), n) {
				t.Fatalf("edge %d side %d: vacant %d, %v; want a number of its range", i, s, n, ok)
			}
			for _, b := range sd.Buildings {
				if b.Number == n {
					t.Fatalf("edge %d side %d: vacant number %d has a building", i, s, n)
				}
			}
		}
	}
}
