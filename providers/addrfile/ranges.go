package addrfile

import (
	"fmt"
	"strings"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// ranges reads one ADDRFEAT feature: one address range and one street
// name of one edge (an edge with two names, "Hwy 360" and "State Hwy 360",
// is two features with the same TLID and line). Each side with house
// numbers is one AddressRange; a side with none (TIGER leaves LFROMHN and
// LTOHN empty where no address range is on it) is nothing. A side is
// refused, with the reason, when it has one end and not the other, when
// its numbers are not numbers (address.HouseNumber: TIGER writes grid
// addresses such as "N101" in ranges of their own; those are counted as
// NonNumeric), when one end is hyphenated and the other not, or when the
// feature has no name or no line.
//
// The numbers are kept as the file writes them, From at the line's first
// point and To at its last, whichever is larger (TIGER writes 102 to 100
// as readily as 100 to 102). An empty PARITY, which the record layout
// does not foresee but converted files hold, is read from the numbers:
// both odd 'O', both even 'E', else 'B'.
func (r *Reader) ranges(f *file, rec record) []result {
	tlid := rec.get("TLID")
	var out []result
	rejectSide := func(side, reason string, nonNumeric bool) {
		out = append(out, result{rejected: &Rejected{File: f.path, Index: rec.index, Key: tlid + side,
			Reason: reason, NonNumeric: nonNumeric}})
	}
	type sideCols struct{ side, from, to, zip, parity string }
	sides := []sideCols{{"L", "LFROMHN", "LTOHN", "ZIPL", "PARITYL"}, {"R", "RFROMHN", "RTOHN", "ZIPR", "PARITYR"}}
	line, lineReason := edgeLine(rec.geom)
	name := address.StreetName(rec.get("FULLNAME"))
	for _, sc := range sides {
		from, to := rec.get(sc.from), rec.get(sc.to)
		if from == "" && to == "" {
			continue
		}
		switch {
		case from == "" || to == "":
			rejectSide(sc.side, fmt.Sprintf("%s %q and %s %q: a range needs both ends", sc.from, from, sc.to, to), false)
			continue
		case name == "":
			rejectSide(sc.side, "no street name (FULLNAME is empty)", false)
			continue
		case lineReason != "":
			rejectSide(sc.side, lineReason, false)
			continue
		}
		a, okA := address.HouseNumber(from)
		b, okB := address.HouseNumber(to)
		if !okA || !okB {
			rejectSide(sc.side, fmt.Sprintf("%s %q to %s %q are not house numbers", sc.from, from, sc.to, to), true)
			continue
		}
		if (a >= address.HyphenBase) != (b >= address.HyphenBase) {
			rejectSide(sc.side, fmt.Sprintf("%s %q to %s %q: one end is hyphenated and the other not", sc.from, from, sc.to, to), true)
			continue
		}
		zip, _ := address.ZipCode(rec.get(sc.zip))
		rg := &providers.AddressRange{Name: name, State: f.state, Zip: zip, From: a, To: b,
			Parity: parity(rec.get(sc.parity), a, b), Side: sc.side[0], Line: line, Key: tlid + sc.side}
		r.count(f.state, line...)
		r.sum.Ranges++
		out = append(out, result{item: Item{Range: rg}})
	}
	return out
}

// parity is a PARITY column's value, or when it is none of O, E and B,
// the parity the two ends make.
func parity(v string, a, b int64) byte {
	switch strings.ToUpper(v) {
	case "O":
		return 'O'
	case "E":
		return 'E'
	case "B":
		return 'B'
	}
	switch {
	case a%2 == 1 && b%2 == 1:
		return 'O'
	case a%2 == 0 && b%2 == 0:
		return 'E'
	}
	return 'B'
}

// edgeLine is the feature's line, from its first point; reason says why
// there is none (a MultiLineString of several parts has no one direction).
func edgeLine(g orb.Geometry) ([]providers.Point, string) {
	var ls orb.LineString
	switch g := g.(type) {
	case orb.LineString:
		ls = g
	case orb.MultiLineString:
		if len(g) != 1 {
			return nil, fmt.Sprintf("the edge is %d lines, not one", len(g))
		}
		ls = g[0]
	case nil:
		return nil, "the edge has no line"
	default:
		return nil, "the edge is a " + g.GeoJSONType() + ", not a line"
	}
	if len(ls) < 2 {
		return nil, "the edge's line has fewer than two points"
	}
	out := make([]providers.Point, len(ls))
	for i, p := range ls {
		if _, reason := usable(providers.Point{Lat: p.Lat(), Lng: p.Lon()}); reason != "" {
			return nil, "the edge's line has a point that is not a coordinate"
		}
		out[i] = providers.Point{Lat: p.Lat(), Lng: p.Lon()}
	}
	return out, ""
}
