package geofile_test

import (
	"io"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers/geofile"
)

// circle is a closed ring of n points around (x, y), clockwise or not.
func circle(x, y, radius float64, n int, clockwise bool) []orb.Point {
	r := make([]orb.Point, 0, n+1)
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		if clockwise {
			a = -a
		}
		r = append(r, orb.Point{x + radius*math.Cos(a), y + radius*math.Sin(a)})
	}
	return append(r, r[0])
}

// BenchmarkReadShapefile reads a generated shapefile of a million vertices:
// 1,000 tract-like polygons of 900 points with a hole of 100, and three
// TIGER-like attributes, reporting vertices read a second (the loaders
// that will use the reader aim at a million a second, storing included).
func BenchmarkReadShapefile(b *testing.B) {
	const features, outer, hole = 1000, 899, 99 // points before each ring's closing one
	shapes := make([][][]orb.Point, features)
	rows := make([][]string, features)
	for i := range shapes {
		x, y := -77.1+float64(i%40)*0.005, 38.8+float64(i/40)*0.005
		shapes[i] = [][]orb.Point{circle(x, y, 0.002, outer, true), circle(x, y, 0.0005, hole, false)}
		rows[i] = []string{"11001" + strconv.Itoa(100000+i), strconv.Itoa(1000000 + i), "Census Tract " + strconv.Itoa(i)}
	}
	base := filepath.Join(b.TempDir(), "bench")
	writeShapefile(b, base, shapes, []testField{{"GEOID", 'C', 11, 0}, {"ALAND", 'N', 14, 0}, {"NAMELSAD", 'C', 20, 0}}, rows)
	vertices := 0
	for _, s := range shapes {
		for _, r := range s {
			vertices += len(r)
		}
	}

	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := geofile.Open(base+".shp", geofile.Options{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			f, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			for _, ring := range f.Geometry.(orb.Polygon) {
				n += len(ring)
			}
		}
		r.Close()
		if n != vertices {
			b.Fatalf("read %d vertices, wrote %d", n, vertices)
		}
	}
	b.ReportMetric(float64(vertices)*float64(b.N)/b.Elapsed().Seconds(), "vertices/s")
}
