package osmextract

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	"github.com/propertyd/propertyd/providers"
)

// ErrPoly is the cause of the error ReadPoly returns for a file that is not
// a readable polygon file. Nothing is loaded.
var ErrPoly = errors.New("not a readable polygon file")

// Boundary is an extract's bounding polygon, read from the Osmosis polygon
// file its publisher cut it with (Geofabrik publishes <region>.poly beside
// each <region>-latest.osm.pbf). An extract loaded with one
// (Options.Boundary) answers a circle only when the whole circle lies
// inside the polygon, not merely inside its bounding box. Build it with
// ReadPoly; it does not change once read and is safe for concurrent use.
type Boundary struct {
	// File is the file it was read from; Name the file's first line.
	File, Name string
	// Areas and Holes count its sections, Points their points.
	Areas, Holes, Points int

	shape orb.MultiPolygon
	wkb   []byte
}

// ReadPoly reads the Osmosis polygon file at path. The spec is the
// OpenStreetMap wiki's "Osmosis/Polygon Filter File Format": a first line
// naming the file; then sections, each a name line (a name starting with
// "!" makes the section a hole, subtracted from the sections before it),
// one "longitude latitude" pair a line (any numeric form: Osmosis writes
// scientific notation), and END on a line of its own; then a last END. A
// section's ring is closed if its last point does not repeat its first.
// The sections are combined in order, as Osmosis does: a hole is cut out
// of the areas before it that it meets (one that meets none cuts nothing),
// and a point inside an area and inside none of its holes is inside.
//
// It returns an error wrapping ErrPoly and naming the line for a file
// that does not follow the format: no area, a section left without its
// END or a file without its last, a line that is not two numbers,
// coordinates out of range, a ring of fewer than three distinct points, a
// hole before any area, or anything after the last END.
func ReadPoly(path string) (*Boundary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := parsePoly(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b.File = path
	return b, nil
}

// PolyBeside returns the polygon file that lies beside the extract file,
// "" when there is none: <name>.poly, where name is the file's base name
// without .osm.pbf, or without that and Geofabrik's -latest or -YYMMDD
// suffix (district-of-columbia.poly beside
// district-of-columbia-latest.osm.pbf, as Geofabrik names them).
func PolyBeside(file string) string {
	dir, name := filepath.Dir(file), NameOf(file)
	names := []string{name}
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if suffix := name[i+1:]; suffix == "latest" || (len(suffix) == 6 && strings.Trim(suffix, "0123456789") == "") {
			names = append(names, name[:i])
		}
	}
	for _, n := range names {
		p := filepath.Join(dir, n+".poly")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// polyError is a format error at line n.
func polyError(n int, format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrPoly, n, fmt.Sprintf(format, args...))
}

func parsePoly(r io.Reader) (*Boundary, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	next := func() (string, bool) {
		for sc.Scan() {
			n++
			if line := strings.TrimSpace(sc.Text()); line != "" {
				return line, true
			}
		}
		return "", false
	}
	name, ok := next()
	if !ok {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrPoly, err)
		}
		return nil, fmt.Errorf("%w: the file is empty", ErrPoly)
	}
	b := &Boundary{Name: name}
	ended := false
	for !ended {
		section, ok := next()
		switch {
		case !ok:
			if err := sc.Err(); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrPoly, err)
			}
			return nil, polyError(n, "the file ends without its last END")
		case section == "END":
			if b.Areas == 0 {
				return nil, polyError(n, "no polygon section before the last END")
			}
			ended = true
			continue
		}
		start := n
		var ring orb.Ring
		for {
			line, ok := next()
			if !ok {
				return nil, polyError(start, "section %q has no END", section)
			}
			if line == "END" {
				break
			}
			p, err := polyPoint(line)
			if err != nil {
				return nil, polyError(n, "%v", err)
			}
			ring = append(ring, p)
		}
		if len(ring) > 0 && ring[0] != ring[len(ring)-1] {
			ring = append(ring, ring[0])
		}
		if distinct(ring) < 3 {
			return nil, polyError(start, "section %q has fewer than three distinct points", section)
		}
		b.Points += len(ring) - 1
		if !strings.HasPrefix(section, "!") {
			b.shape = append(b.shape, orb.Polygon{ring})
			b.Areas++
			continue
		}
		if b.Areas == 0 {
			return nil, polyError(start, "hole %q comes before any area it could be cut from", section)
		}
		for i := range b.shape {
			if b.shape[i][0].Bound().Intersects(ring.Bound()) {
				b.shape[i] = append(b.shape[i], ring)
			}
		}
		b.Holes++
	}
	if line, ok := next(); ok {
		return nil, polyError(n, "%q after the last END", line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPoly, err)
	}
	raw, err := wkb.Marshal(b.shape)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPoly, err)
	}
	b.wkb = raw
	return b, nil
}

// polyPoint reads one "longitude latitude" line. Longitudes up to 360
// degrees either way are taken as written (a file may draw an area across
// the antimeridian so); a point given in -180..180 is then not inside the
// part beyond, which only makes the coverage smaller.
func polyPoint(line string) (orb.Point, error) {
	fs := strings.Fields(line)
	if len(fs) != 2 {
		return orb.Point{}, fmt.Errorf("%q is not a longitude and a latitude", line)
	}
	lon, err1 := strconv.ParseFloat(fs[0], 64)
	lat, err2 := strconv.ParseFloat(fs[1], 64)
	if err1 != nil || err2 != nil {
		return orb.Point{}, fmt.Errorf("%q is not a longitude and a latitude", line)
	}
	if math.IsNaN(lon) || math.IsNaN(lat) || math.Abs(lon) > 360 || math.Abs(lat) > 90 {
		return orb.Point{}, fmt.Errorf("%q is out of range (longitude, then latitude, in degrees)", line)
	}
	return orb.Point{lon, lat}, nil
}

// distinct counts the distinct points of a closed ring (its last point
// repeats its first).
func distinct(r orb.Ring) int {
	seen := map[orb.Point]bool{}
	for _, p := range r {
		seen[p] = true
	}
	return len(seen)
}

// WKB is the polygon as WKB (a MultiPolygon of longitude, latitude), as
// the store keeps it (providers.OSMExtract.Boundary).
func (b *Boundary) WKB() []byte { return b.wkb }

// within returns the coverage of an extract whose file holds box and
// whose polygon is b: the polygon's bounding box, cut to box (the file
// holds nothing beyond it). An error wrapping ErrPoly says the two do not
// meet: the polygon is another area's.
func (b *Boundary) within(box providers.BBox) (providers.BBox, error) {
	pb := b.shape.Bound()
	out := providers.BBox{West: max(pb.Min[0], box.West), South: max(pb.Min[1], box.South),
		East: min(pb.Max[0], box.East), North: min(pb.Max[1], box.North)}
	if out.West >= out.East || out.South >= out.North {
		return out, fmt.Errorf("%w: the polygon of %s lies outside the extract's bounding box %.4f,%.4f,%.4f,%.4f (west,south,east,north): it is another area's",
			ErrPoly, b.File, box.West, box.South, box.East, box.North)
	}
	return out, nil
}

// fingerprint names a load of the file named fp with b as its polygon: the
// same file with another polygon (or none) is another load.
func (b *Boundary) fingerprint(fp string) string {
	h := sha256.New()
	h.Write([]byte(fp))
	h.Write(b.wkb)
	return hex.EncodeToString(h.Sum(nil))[:32]
}
