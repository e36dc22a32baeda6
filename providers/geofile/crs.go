package geofile

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// CRS is the coordinate system of a file's coordinates: one of the two
// the reader takes, both geographic (longitude, latitude in degrees).
// NAD83 (EPSG:4269) is what TIGER/Line and the NFHL use, WGS 84
// (EPSG:4326) what GeoJSON uses (RFC 7946); they differ by about a metre in
// the United States, less than the data's own accuracy, so coordinates are
// taken as they are in both. Anything else, projected coordinates above
// all (metres or feet, such as a state plane or Web Mercator), is refused
// with ErrCRS: reproject first (ogr2ogr -t_srs EPSG:4269).
type CRS struct {
	// EPSG is 4269 or 4326.
	EPSG int
	// Name is "NAD83" or "WGS 84".
	Name string
}

var (
	nad83 = CRS{EPSG: 4269, Name: "NAD83"}
	wgs84 = CRS{EPSG: 4326, Name: "WGS 84"}
)

// String returns "NAD83 (EPSG:4269)".
func (c CRS) String() string { return fmt.Sprintf("%s (EPSG:%d)", c.Name, c.EPSG) }

// crsOfEPSG returns the system of an EPSG code.
func crsOfEPSG(code int) (CRS, bool) {
	switch code {
	case 4269:
		return nad83, true
	case 4326:
		return wgs84, true
	}
	return CRS{}, false
}

// crsOfWKT reads a coordinate system's OGC WKT (version 1, in ESRI's
// flavour as a .prj holds it or OGC's as a GeoPackage does; or WKT 2): a
// geographic system whose datum is NAD83 or WGS 84, with Greenwich as its
// prime meridian and degrees as its unit. A projected one is refused by
// its name, any other as unknown.
func crsOfWKT(wkt string) (CRS, error) {
	root, err := parseWKT(wkt)
	if err != nil {
		return CRS{}, fmt.Errorf("%w: unreadable definition: %v", ErrCRS, err)
	}
	name := root.text(0)
	switch root.key {
	case "PROJCS", "PROJCRS", "PROJECTEDCRS":
		return CRS{}, fmt.Errorf("%w: projected coordinates (%s %q): only geographic NAD83 (EPSG:4269) or WGS 84 (EPSG:4326) are read; reproject with ogr2ogr -t_srs EPSG:4269", ErrCRS, root.key, name)
	case "GEOGCS", "GEOGCRS", "GEOGRAPHICCRS", "GEODCRS", "GEODETICCRS":
	default:
		return CRS{}, fmt.Errorf("%w: unknown coordinate system (%s %q)", ErrCRS, root.key, name)
	}
	if id := root.child("AUTHORITY", "ID"); id != nil && strings.EqualFold(id.text(0), "EPSG") {
		if code, err := strconv.Atoi(id.text(1)); err == nil {
			if c, ok := crsOfEPSG(code); ok {
				return c, nil
			}
		}
	}
	unknown := fmt.Errorf("%w: unknown geographic coordinate system %q: only NAD83 (EPSG:4269) and WGS 84 (EPSG:4326) are read", ErrCRS, name)
	var c CRS
	datum := root.child("DATUM", "GEODETICDATUM", "TRF", "ENSEMBLE")
	if datum == nil {
		return CRS{}, unknown
	}
	switch d := datumKey(datum.text(0)); d {
	case "NORTH_AMERICAN_1983", "NORTH_AMERICAN_DATUM_1983":
		c = nad83
	case "WGS_1984", "WORLD_GEODETIC_SYSTEM_1984", "WORLD_GEODETIC_SYSTEM_1984_ENSEMBLE":
		c = wgs84
	default:
		return CRS{}, unknown
	}
	if pm := root.child("PRIMEM", "PRIMEMERIDIAN"); pm != nil {
		if v, err := strconv.ParseFloat(pm.text(1), 64); err != nil || v != 0 {
			return CRS{}, unknown
		}
	}
	if unit := root.child("UNIT", "ANGLEUNIT"); unit != nil {
		if v, err := strconv.ParseFloat(unit.text(1), 64); err != nil || math.Abs(v-math.Pi/180) > 1e-12 {
			return CRS{}, unknown
		}
	}
	return c, nil
}

// datumKey spells a datum's name one way: capitals, underscores, without
// ESRI's "D_" prefix ("D_North_American_1983", "North American Datum
// 1983").
func datumKey(name string) string {
	name = strings.ToUpper(name)
	name = strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
	return strings.TrimPrefix(name, "D_")
}

// wktNode is a WKT keyword with its bracketed values: strings, numbers
// (as written) and nodes.
type wktNode struct {
	key  string
	args []any
}

// text returns the i-th value as text ("" when it is a node or absent).
func (n *wktNode) text(i int) string {
	if i < len(n.args) {
		if s, ok := n.args[i].(string); ok {
			return s
		}
	}
	return ""
}

// child returns the first direct child node with one of the keywords.
func (n *wktNode) child(keys ...string) *wktNode {
	for _, a := range n.args {
		if c, ok := a.(*wktNode); ok {
			for _, k := range keys {
				if c.key == k {
					return c
				}
			}
		}
	}
	return nil
}

// parseWKT parses one WKT node: KEYWORD[value, ...], with [] or ().
func parseWKT(s string) (*wktNode, error) {
	p := &wktParser{s: s}
	n, err := p.node()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("text after the definition at byte %d", p.i)
	}
	return n, nil
}

type wktParser struct {
	s string
	i int
}

func (p *wktParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *wktParser) word() string {
	p.space()
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '.' || c == '-' || c == '+' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *wktParser) node() (*wktNode, error) {
	key := p.word()
	if key == "" {
		return nil, fmt.Errorf("no keyword at byte %d", p.i)
	}
	p.space()
	if p.i >= len(p.s) || (p.s[p.i] != '[' && p.s[p.i] != '(') {
		return nil, fmt.Errorf("%s without its [ at byte %d", key, p.i)
	}
	closer := byte(']')
	if p.s[p.i] == '(' {
		closer = ')'
	}
	p.i++
	n := &wktNode{key: strings.ToUpper(key)}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("%s left open", key)
		}
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			var b strings.Builder
			for {
				if p.i >= len(p.s) {
					return nil, fmt.Errorf("a quoted name left open in %s", key)
				}
				if p.s[p.i] == '"' {
					if p.i+1 < len(p.s) && p.s[p.i+1] == '"' {
						b.WriteByte('"')
						p.i += 2
						continue
					}
					p.i++
					break
				}
				b.WriteByte(p.s[p.i])
				p.i++
			}
			n.args = append(n.args, b.String())
		default:
			save := p.i
			w := p.word()
			if w == "" {
				return nil, fmt.Errorf("unexpected %q at byte %d", c, p.i)
			}
			p.space()
			if p.i < len(p.s) && (p.s[p.i] == '[' || p.s[p.i] == '(') {
				p.i = save
				child, err := p.node()
				if err != nil {
					return nil, err
				}
				n.args = append(n.args, child)
			} else {
				n.args = append(n.args, w)
			}
		}
		p.space()
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("%s left open", key)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case closer:
			p.i++
			return n, nil
		default:
			return nil, fmt.Errorf("unexpected %q in %s at byte %d", p.s[p.i], key, p.i)
		}
	}
}
