package addrfile

import (
	"math"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// The real ADDRFEAT of Meagher County, Montana (2021), as published (.zip):
// one edge named both "Hwy 360" and "State Hwy 360" is two ranges with one
// line; Main St written 102 to 100 keeps its direction.
func TestAddrfeatRealFile(t *testing.T) {
	_, ranges, rej, sum := readAll(t, []string{td("tiger", "tl_2021_30059_addrfeat.zip")}, Options{})
	if len(rej) != 0 {
		t.Errorf("refusals on a real file: %v", rej)
	}
	if sum.Vintage != "2021" || len(sum.States) != 1 || sum.States[0] != "MT" || sum.Layouts[0] != LayoutAddrfeat {
		t.Errorf("summary = %+v; want vintage 2021, state MT", sum)
	}
	if sum.Ranges != int64(len(ranges)) || len(ranges) < 50 {
		t.Errorf("read %d ranges, summary says %d", len(ranges), sum.Ranges)
	}
	byKey := map[string][]providers.AddressRange{}
	for _, r := range ranges {
		byKey[r.Key] = append(byKey[r.Key], r)
	}
	hwy := byKey["166706795L"]
	if len(hwy) != 2 || hwy[0].Name != "HWY 360" || hwy[1].Name != "STATE HWY 360" {
		t.Fatalf("edge 166706795 left = %+v; want the two names of one edge", hwy)
	}
	for _, r := range hwy {
		if r.From != 1101 || r.To != 1199 || r.Parity != 'O' || r.Side != 'L' || r.Zip != "59645" || r.State != "MT" || len(r.Line) != 6 {
			t.Errorf("range %+v", r)
		}
		if r.Line[0] != (providers.Point{Lat: 46.628445, Lng: -111.075496}) {
			t.Errorf("line starts at %+v; want the edge's first point", r.Line[0])
		}
	}
	main := byKey["166709647L"]
	if len(main) != 2 || main[0].From != 102 || main[0].To != 100 || main[1].From != 198 || main[1].To != 104 {
		t.Fatalf("Main St (166709647 left) = %+v; want 102 to 100 and 198 to 104 as written", main)
	}
	for _, r := range ranges {
		if _, ok := Interpolate(r, r.From); !ok {
			t.Errorf("range %s (%s %d-%d) cannot place its own first number", r.Key, r.Name, r.From, r.To)
		}
	}
	// The lookup of an address on the edge names the range's street.
	n, err := address.Normalize(providers.Address{Street: "1101 State Highway 360", State: "MT"})
	if err != nil {
		t.Fatal(err)
	}
	number, name := address.SplitNumber(n.Street)
	v, _ := address.HouseNumber(number)
	if name != hwy[1].Name || !Holds(hwy[1], v) {
		t.Errorf("the lookup %q (name %q, number %d) misses the range %+v", n.Street, name, v, hwy[1])
	}
}

// Queens ranges (written in ADDRFEAT's columns, converted to a shapefile),
// ranges of letters, and broken sides.
func TestAddrfeatQueensAndBrokenSides(t *testing.T) {
	_, ranges, rej, sum := readAll(t, []string{td("tiger", "queens_constructed_addrfeat.shp")}, Options{State: "NY"})
	byKey := map[string]providers.AddressRange{}
	for _, r := range ranges {
		byKey[r.Key] = r
	}
	q, _ := address.HouseNumber("117-11")
	left := byKey["900000001L"]
	if left.Name != "SUTPHIN BLVD" || !Holds(left, q) || Holds(byKey["900000001R"], q) {
		t.Errorf("117-11 Sutphin Blvd: left %+v holds it %v, right holds it %v; want the odd left side only",
			left, Holds(left, q), Holds(byKey["900000001R"], q))
	}
	back := byKey["900000002L"]
	if f, _ := address.HouseNumber("119-99"); back.From != f {
		t.Errorf("a range written backwards was turned: %+v", back)
	}
	if elm := byKey["900000005L"]; elm.Parity != 'E' {
		t.Errorf("a range without a parity has %q; want E from its even ends", elm.Parity)
	}
	if sum.NonNumeric != 2 || sum.Rejected != 3 || len(rej) != 3 {
		t.Errorf("summary %+v, refusals %v; want the letters and the mixed range counted non-numeric, and the side with one end refused", sum, rej)
	}
	reasons := map[string]string{}
	for _, x := range rej {
		reasons[x.Key] = x.Reason
	}
	for key, want := range map[string]string{
		"900000003L": `"N101" to LTOHN "N199" are not house numbers`,
		"900000004L": "one end is hyphenated",
		"900000006R": "a range needs both ends",
	} {
		if !strings.Contains(reasons[key], want) {
			t.Errorf("%s: reason %q; want %q", key, reasons[key], want)
		}
	}
	if sum.Vintage != "" {
		t.Errorf("vintage %q from a file not named tl_YYYY_", sum.Vintage)
	}
}

// A file that is not named as published has no state but the option's.
func TestAddrfeatNeedsState(t *testing.T) {
	_, err := Open([]string{td("tiger", "queens_constructed_addrfeat.shp")}, Options{})
	if err == nil || !strings.Contains(err.Error(), "give the state") {
		t.Errorf("Open = %v; want it to ask for the state", err)
	}
}

func TestHolds(t *testing.T) {
	r := providers.AddressRange{From: 199, To: 101, Parity: 'O'}
	for _, tc := range []struct {
		n    int64
		want bool
	}{{101, true}, {150, false}, {151, true}, {199, true}, {201, false}, {99, false}} {
		if got := Holds(r, tc.n); got != tc.want {
			t.Errorf("Holds(199-101 odd, %d) = %v", tc.n, got)
		}
	}
	if !Holds(providers.AddressRange{From: 100, To: 100, Parity: 'B'}, 100) || Holds(providers.AddressRange{From: 100, To: 198, Parity: 'E'}, 101) {
		t.Error("parity B or E misread")
	}
}

func TestInterpolate(t *testing.T) {
	// A straight line due north, about 222 m, from 40.0 to 40.002.
	line := []providers.Point{{Lat: 40.000, Lng: -75}, {Lat: 40.001, Lng: -75}, {Lat: 40.002, Lng: -75}}
	r := providers.AddressRange{From: 100, To: 200, Parity: 'E', Side: 'R', Line: line}
	near := func(p, q providers.Point, within float64) bool { return p.DistanceMeters(q) <= within }

	p, ok := Interpolate(r, 100)
	if !ok || !near(p, providers.Point{Lat: 40, Lng: -75}, SideOffset+0.01) {
		t.Errorf("100 placed at %+v; want the first point, %g m aside", p, SideOffset)
	}
	// Walking north, the right side is east: the longitude grows.
	if p.Lng <= -75 || math.Abs(p.DistanceMeters(providers.Point{Lat: 40, Lng: -75})-SideOffset) > 0.01 {
		t.Errorf("right side point %+v is not %g m east", p, SideOffset)
	}
	mid, _ := Interpolate(r, 150)
	if onLine := (providers.Point{Lat: 40.001, Lng: -75}); !near(mid, onLine, SideOffset+0.01) || math.Abs(mid.Lat-40.001) > 1e-9 {
		t.Errorf("150 of 100-200 at %+v; want half way along", mid)
	}
	r.Side = 'L'
	if l, _ := Interpolate(r, 150); l.Lng >= -75 {
		t.Errorf("left side point %+v is not west of a line going north", l)
	}
	// Written backwards: 198 at the first point.
	back := providers.AddressRange{From: 198, To: 100, Parity: 'E', Line: line}
	if p, _ := Interpolate(back, 198); p != line[0] {
		t.Errorf("198 of 198-100 at %+v; want the first point (no side: on the line)", p)
	}
	// One number: the middle.
	one := providers.AddressRange{From: 5, To: 5, Parity: 'O', Line: line}
	if p, _ := Interpolate(one, 5); math.Abs(p.Lat-40.001) > 1e-9 {
		t.Errorf("a one-number range places it at %+v; want the middle", p)
	}
	for name, bad := range map[string]providers.AddressRange{
		"number outside":  {From: 100, To: 198, Parity: 'E', Line: line},
		"wrong parity":    {From: 100, To: 198, Parity: 'O', Line: line},
		"one point":       {From: 100, To: 300, Parity: 'B', Line: line[:1]},
		"not a number":    {From: 100, To: 300, Parity: 'B', Line: []providers.Point{{Lat: math.NaN(), Lng: 1}, {Lat: 1, Lng: 1}}},
		"infinite number": {From: 100, To: 300, Parity: 'B', Line: []providers.Point{{Lat: math.Inf(1), Lng: 1}, {Lat: 1, Lng: 1}}},
	} {
		if _, ok := Interpolate(bad, 250); ok {
			t.Errorf("%s: Interpolate placed 250", name)
		}
	}
	// A line of repeated points has no length: its first point.
	still := providers.AddressRange{From: 1, To: 9, Parity: 'B', Line: []providers.Point{line[0], line[0]}}
	if p, ok := Interpolate(still, 5); !ok || p != line[0] {
		t.Errorf("zero-length line: %+v %v", p, ok)
	}
	// Huge Queens values interpolate within their block.
	a, _ := address.HouseNumber("117-01")
	b, _ := address.HouseNumber("117-99")
	q, _ := address.HouseNumber("117-50")
	queens := providers.AddressRange{From: a, To: b, Parity: 'B', Line: line}
	if p, ok := Interpolate(queens, q); !ok || math.Abs(p.Lat-40.001) > 1e-6 {
		t.Errorf("117-50 of 117-01..117-99 at %+v, %v; want half way", p, ok)
	}
}
