package polysql

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
)

// A band's edges answer as the whole shape does at every latitude, those
// where bands meet and the shape's own points included: a shape with
// rings on a grid of latitudes (many edges end on each band's south) and
// long edges that cross many bands.
func TestBandsAnswerAsTheWholeShape(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 9))
	var outer orb.Ring
	for i := range 4000 {
		a := 2 * math.Pi * float64(i) / 4000
		r := 1 + 0.5*rnd.Float64()
		outer = append(outer, orb.Point{math.Round(r*math.Cos(a)*100) / 100, math.Round(r*math.Sin(a)*100) / 100})
	}
	outer = append(outer, outer[0])
	hole := orb.Ring{{-0.5, -0.5}, {-0.5, 0.5}, {0.5, 0.5}, {0.5, -0.5}, {-0.5, -0.5}} // long edges, clockwise
	raw, err := wkb.Marshal(orb.Polygon{outer, hole})
	if err != nil {
		t.Fatal(err)
	}
	s, err := readShape(raw)
	if err != nil {
		t.Fatal(err)
	}
	bs := bands(s)
	if len(bs) < 5 {
		t.Fatalf("%d bands for %d points", len(bs), s.vertices)
	}
	check := func(x, y float64) {
		t.Helper()
		i := len(bs) - 1
		for i >= 0 && bs[i].south > y {
			i--
		}
		got := i >= 0 && chainsHold(bs[i].chains, x, y)
		if want := holds(raw, x, y); got != want {
			t.Fatalf("at (%v, %v): the band (south %v) says inside %v, the shape %v", x, y, bs[max(i, 0)].south, got, want)
		}
	}
	for range 20000 {
		check(-1.6+3.2*rnd.Float64(), -1.6+3.2*rnd.Float64())
	}
	for _, b := range bs {
		for _, x := range []float64{-1.2, -0.5, 0, 0.5, 1.2} {
			check(x, b.south)
		}
	}
	for _, p := range append(outer, hole...) {
		check(p[0], p[1])
	}
}
