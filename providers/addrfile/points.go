package addrfile

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// point reads one row of an address point file: the number and street
// normalized together by address.Normalize, as a lookup of the address
// is, so the point's Street, Unit, City, State and Zip are the lookup's.
// A row is refused, with the reason, when it has no house number, a
// number column holding more than a number (a whole address, as some
// OpenAddresses sources write), no street, no state (and no
// Options.State), a field Normalize refuses (a PO box, a ZIP that is not
// one, a unit that is not one), or no usable point.
func (r *Reader) point(f *file, rec record) (*providers.AddressPoint, *Rejected) {
	m := &f.layout.mapping
	key := ""
	for _, k := range m.Key {
		if v := rec.get(k); v != "" {
			key = v
			break
		}
	}
	reject := func(reason string) (*providers.AddressPoint, *Rejected) {
		return nil, &Rejected{File: f.path, Index: rec.index, Key: key, Reason: reason}
	}
	number := joinNumber(m.Number, rec.get)
	street := joinWords(m.Street, rec.get)
	switch {
	case number == "":
		return reject("no house number")
	case street == "":
		return reject("no street")
	}
	num := address.City(number) // its words, normalized as a street's are
	if !houseNumberWords(num) {
		return reject("the house number " + strconvQuote(number) + " is not a house number alone")
	}
	a := providers.Address{Street: number + " " + street, City: cell(m.City, rec.get), State: cell(m.State, rec.get),
		Zip: cell(m.Zip, rec.get), Unit: cell(m.Unit, rec.get)}
	if a.City == "" {
		a.City = r.opts.City
	}
	if a.State == "" {
		a.State = r.opts.State
	}
	if a.State == "" {
		return reject("no state: the row gives none and no state was given for the file")
	}
	n, err := address.Normalize(a)
	if err != nil {
		var pe *providers.Error
		if errors.As(err, &pe) && len(pe.Params) > 0 {
			var b strings.Builder
			for i, p := range pe.Params {
				if i > 0 {
					b.WriteString("; ")
				}
				b.WriteString(p.Parameter + " " + p.Message)
			}
			return reject(b.String())
		}
		return reject(err.Error())
	}
	if !strings.HasPrefix(n.Street, num+" ") {
		return reject("the street " + strconvQuote(street) + " leaves no street name after the number")
	}
	pt, reason := rowPoint(f.layout, m, rec)
	if reason != "" {
		return reject(reason)
	}
	if key == "" && rec.line > 0 {
		key = "line " + strconv.Itoa(rec.line)
	}
	return &providers.AddressPoint{Street: n.Street, Unit: n.Unit, City: n.City, State: n.State, Zip: n.Zip, Point: pt, Key: key}, nil
}

// houseNumberWords reports whether the normalized number column is one
// house number: one word holding a digit ("123", "117-11", "12A",
// "N5322"), optionally followed by a fraction ("12 1/2").
func houseNumberWords(num string) bool {
	w := strings.Fields(num)
	if len(w) == 0 || len(w) > 2 || !strings.ContainsAny(w[0], "0123456789") {
		return false
	}
	if len(w) == 2 {
		n, d, ok := strings.Cut(w[1], "/")
		return ok && allDigits(n) && allDigits(d)
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// rowPoint is the row's point: from its coordinate columns, else from its
// geometry; reason says why there is none usable.
func rowPoint(lay layout, m *Mapping, rec record) (providers.Point, string) {
	if m.Lat != "" {
		lat, err1 := strconv.ParseFloat(rec.get(m.Lat), 64)
		lng, err2 := strconv.ParseFloat(rec.get(m.Lng), 64)
		if err1 != nil || err2 != nil {
			return providers.Point{}, "no point: " + m.Lat + " " + strconvQuote(rec.get(m.Lat)) + ", " + m.Lng + " " + strconvQuote(rec.get(m.Lng)) + " are not coordinates"
		}
		return usable(providers.Point{Lat: lat, Lng: lng})
	}
	switch g := rec.geom.(type) {
	case orb.Point:
		return usable(providers.Point{Lat: g.Lat(), Lng: g.Lon()})
	case orb.MultiPoint:
		if len(g) == 1 {
			return usable(providers.Point{Lat: g[0].Lat(), Lng: g[0].Lon()})
		}
	case nil:
		return providers.Point{}, "no point: the feature has no geometry"
	}
	return providers.Point{}, "no point: the geometry is a " + rec.geom.GeoJSONType() + ", not a point"
}

// usable refuses a point that is not a coordinate, or is 0,0 (a
// publisher's placeholder for an address it could not place).
func usable(p providers.Point) (providers.Point, string) {
	switch {
	case math.IsNaN(p.Lat) || math.IsNaN(p.Lng) || math.Abs(p.Lat) > 90 || math.Abs(p.Lng) > 180:
		return providers.Point{}, "no point: " + strconv.FormatFloat(p.Lat, 'f', -1, 64) + ", " + strconv.FormatFloat(p.Lng, 'f', -1, 64) + " is not a latitude and longitude"
	case p.Lat == 0 && p.Lng == 0:
		return providers.Point{}, "no point: 0, 0 is a placeholder, not a place"
	}
	return p, ""
}

// joinNumber joins the number columns: with nothing between them but a
// space before a fraction (see Mapping.Number).
func joinNumber(cols []string, get func(string) string) string {
	var b strings.Builder
	for _, c := range cols {
		v := get(c)
		if v == "" {
			continue
		}
		if b.Len() > 0 && strings.Contains(v, "/") {
			b.WriteByte(' ')
		}
		b.WriteString(v)
	}
	return b.String()
}

// joinWords joins the non-empty values of cols with spaces.
func joinWords(cols []string, get func(string) string) string {
	var parts []string
	for _, c := range cols {
		if v := get(c); v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}

func cell(col string, get func(string) string) string {
	if col == "" {
		return ""
	}
	return get(col)
}

func strconvQuote(s string) string { return strconv.Quote(s) }
