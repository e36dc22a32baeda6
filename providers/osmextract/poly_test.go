package osmextract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/paulmach/orb/planar"

	"github.com/propertyd/propertyd/providers"
)

// The polygon files of these tests are written in the OpenStreetMap wiki's
// "Osmosis/Polygon Filter File Format", the format of the .poly files
// Geofabrik publishes beside its extracts: a line naming the file; sections
// of a name line ("!" before the name for a hole), "longitude latitude"
// lines (scientific notation, as Osmosis writes them, or plain decimals)
// and END; a last END. testdata/franklin-square.poly is one (its README
// says what it draws).
const fixturePoly = "testdata/franklin-square.poly"

func TestReadPolyReadsAreasAndHoles(t *testing.T) {
	b, err := ReadPoly(fixturePoly)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "franklin-square" || b.File != fixturePoly || b.Areas != 1 || b.Holes != 1 || b.Points != 9 {
		t.Errorf("read %q from %q: %d areas, %d holes, %d points; want franklin-square, 1 area, 1 hole, 9 points",
			b.Name, b.File, b.Areas, b.Holes, b.Points)
	}
	g, err := wkb.Unmarshal(b.WKB())
	if err != nil {
		t.Fatalf("the polygon's WKB does not read back: %v", err)
	}
	mp, ok := g.(orb.MultiPolygon)
	if !ok || len(mp) != 1 || len(mp[0]) != 2 {
		t.Fatalf("the polygon read back as %T %v; want a MultiPolygon of one area with one hole", g, g)
	}
	if hole := mp[0][1]; len(hole) != 5 || hole[0] != hole[4] {
		t.Errorf("the hole's ring %v; want its four points closed by the first again", hole)
	}
	for _, tc := range []struct {
		name   string
		pt     orb.Point
		inside bool
	}{
		{"Franklin Square", orb.Point{-77.03, 38.9}, true},
		{"the hole", orb.Point{-76.9975, 38.904}, false},
		{"the corner cut off", orb.Point{-76.992, 38.928}, false},
		{"beside the cut, inside", orb.Point{-77.01, 38.925}, true},
		{"outside the box", orb.Point{-77.1, 38.9}, false},
	} {
		if got := planar.MultiPolygonContains(mp, tc.pt); got != tc.inside {
			t.Errorf("%s %v inside = %v, want %v", tc.name, tc.pt, got, tc.inside)
		}
	}
}

func TestReadPolyCombinesSectionsInOrder(t *testing.T) {
	// Two areas; a hole that meets the first; a hole that meets none and
	// cuts nothing; decimals rather than scientific notation, blank lines
	// and CRLF ends, all of which Osmosis reads.
	body := "two areas\r\n" +
		"first\r\n 0 0\r\n 10 0\r\n 10 10\r\n 0 10\r\nEND\r\n" +
		"\r\n" +
		"second\r\n 20 0\r\n 30 0\r\n 30 10\r\n 20 10\r\n 20 0\r\nEND\r\n" +
		"!inner\r\n 2 2\r\n 4 2\r\n 4 4\r\n 2 4\r\nEND\r\n" +
		"!nowhere\r\n 50 50\r\n 51 50\r\n 51 51\r\nEND\r\n" +
		"END\r\n"
	b, err := parsePoly(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if b.Areas != 2 || b.Holes != 2 || len(b.shape) != 2 || len(b.shape[0]) != 2 || len(b.shape[1]) != 1 {
		t.Fatalf("%d areas, %d holes, shape %v; want the first area with its hole, the second whole", b.Areas, b.Holes, b.shape)
	}
	for pt, inside := range map[orb.Point]bool{{1, 1}: true, {3, 3}: false, {25, 5}: true, {15, 5}: false, {50.5, 50.2}: false} {
		if got := planar.MultiPolygonContains(b.shape, pt); got != inside {
			t.Errorf("%v inside = %v, want %v", pt, got, inside)
		}
	}
}

func TestReadPolyRefusesAMalformedFile(t *testing.T) {
	area := "1\n 0 0\n 1 0\n 1 1\nEND\n"
	for _, tc := range []struct{ name, body, want string }{
		{"empty", "", "the file is empty"},
		{"a name alone", "x\n", "line 1: the file ends without its last END"},
		{"no area", "x\nEND\n", "line 2: no polygon section before the last END"},
		{"no last END", "x\n" + area, "line 6: the file ends without its last END"},
		{"a section without END", "x\n1\n 0 0\n 1 0\n 1 1\n", "line 2: section \"1\" has no END"},
		{"three numbers", "x\n1\n 0 0 0\n 1 0\n 1 1\nEND\nEND\n", "line 3: \"0 0 0\" is not a longitude and a latitude"},
		{"not a number", "x\n1\n 0 zero\n 1 0\n 1 1\nEND\nEND\n", "line 3: \"0 zero\" is not a longitude and a latitude"},
		{"latitude out of range", "x\n1\n 0 0\n 1 0\n 1 91\nEND\nEND\n", "line 5: \"1 91\" is out of range"},
		{"latitude before longitude", "x\n1\n 38.9 -77.03\n 38.9 -177.03\n 38.8 -99.0\nEND\nEND\n", "line 4: \"38.9 -177.03\" is out of range"},
		{"two distinct points", "x\n1\n 0 0\n 1 1\n 0 0\nEND\nEND\n", "line 2: section \"1\" has fewer than three distinct points"},
		{"a hole first", "x\n!1\n 0 0\n 1 0\n 1 1\nEND\n" + area + "END\n", "line 2: hole \"!1\" comes before any area"},
		{"something after the last END", "x\n" + area + "END\n2\n", "line 8: \"2\" after the last END"},
	} {
		_, err := parsePoly(strings.NewReader(tc.body))
		if !errors.Is(err, ErrPoly) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v; want ErrPoly saying %q", tc.name, err, tc.want)
		}
	}
	// ReadPoly names the file.
	path := filepath.Join(t.TempDir(), "bad.poly")
	if err := os.WriteFile(path, []byte("x\n1\n 0 0\nEND\nEND\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPoly(path); !errors.Is(err, ErrPoly) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("ReadPoly of a bad file: %v; want ErrPoly naming %s", err, path)
	}
}

func TestPolyBesideFindsGeofabriksName(t *testing.T) {
	dir := t.TempDir()
	touch := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dc := touch("district-of-columbia.poly")
	own := touch("maryland-latest.poly")
	touch("maryland.poly")
	for file, want := range map[string]string{
		"district-of-columbia-latest.osm.pbf": dc, // Geofabrik's names
		"district-of-columbia-240101.osm.pbf": dc,
		"district-of-columbia.osm.pbf":        dc,
		"maryland-latest.osm.pbf":             own, // the same base name first
		"delaware-latest.osm.pbf":             "",
		"district-of-columbia-old.osm.pbf":    "",
	} {
		if got := PolyBeside(filepath.Join(dir, file)); got != want {
			t.Errorf("PolyBeside(%s) = %q, want %q", file, got, want)
		}
	}
}

func TestBoundaryWithinTheFilesBox(t *testing.T) {
	b, err := ReadPoly(fixturePoly)
	if err != nil {
		t.Fatal(err)
	}
	header := providers.BBox{West: -77.07, South: 38.87, East: -76.99, North: 38.93}
	if got, err := b.within(header); err != nil || got != header {
		t.Errorf("within the fixture's own box: %+v, %v; want the box", got, err)
	}
	small := providers.BBox{West: -77.05, South: 38.88, East: -77.00, North: 39.5}
	if got, err := b.within(small); err != nil || got != (providers.BBox{West: -77.05, South: 38.88, East: -77.00, North: 38.93}) {
		t.Errorf("within a box that cuts it: %+v, %v; want the polygon's bound cut to the box", got, err)
	}
	elsewhere := providers.BBox{West: -80, South: 40, East: -79, North: 41}
	if _, err := b.within(elsewhere); !errors.Is(err, ErrPoly) || !strings.Contains(err.Error(), "another area's") {
		t.Errorf("within another area's box: %v; want ErrPoly saying the polygon is another area's", err)
	}
	if b.fingerprint("f") == b.fingerprint("g") || b.fingerprint("f") == "f" {
		t.Error("the fingerprint of a load with a polygon does not depend on both the file and the polygon")
	}
}
