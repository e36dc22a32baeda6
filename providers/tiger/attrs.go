package tiger

import (
	"fmt"
	"math"
	"strings"

	"github.com/propertyd/propertyd/providers/geofile"
)

// TractFields are the columns of a TIGER/Line census tract shapefile that
// Tract holds, as the technical documentation names them; a loader can
// check a file for them before reading it. Treat it as read-only.
var TractFields = []string{"STATEFP", "COUNTYFP", "TRACTCE", "GEOID", "NAME", "NAMELSAD", "MTFCC",
	"FUNCSTAT", "ALAND", "AWATER", "INTPTLAT", "INTPTLON"}

// CountyFields are the columns of a TIGER/Line county shapefile that County
// holds. Treat it as read-only.
var CountyFields = []string{"STATEFP", "COUNTYFP", "COUNTYNS", "GEOID", "NAME", "NAMELSAD", "LSAD",
	"CLASSFP", "MTFCC", "FUNCSTAT", "ALAND", "AWATER", "INTPTLAT", "INTPTLON"}

// Tract is one census tract as TIGER/Line writes it: text as written ("" is
// null), numbers nil for null. The zero value is a tract with every
// attribute null.
type Tract struct {
	StateFP  string // STATEFP, e.g. "11"
	CountyFP string // COUNTYFP, e.g. "001"
	TractCE  string // TRACTCE, e.g. "006202"
	GEOID    string // GEOID, state+county+tract, e.g. "11001006202"
	Name     string // NAME, e.g. "62.02"
	NameLSAD string // NAMELSAD, e.g. "Census Tract 62.02"
	MTFCC    string // MTFCC, "G5020"
	FuncStat string // FUNCSTAT, e.g. "S"

	ALand    *int64   // ALAND, square meters
	AWater   *int64   // AWATER, square meters
	IntPtLat *float64 // INTPTLAT, the internal point's latitude
	IntPtLon *float64 // INTPTLON, the internal point's longitude
}

// County is one county or equivalent entity as TIGER/Line writes it. The
// zero value is a county with every attribute null.
type County struct {
	StateFP  string // STATEFP, e.g. "51"
	CountyFP string // COUNTYFP, e.g. "059"
	CountyNS string // COUNTYNS, the GNIS code, e.g. "01480119"
	GEOID    string // GEOID, state+county, e.g. "51059"
	Name     string // NAME, e.g. "Fairfax"
	NameLSAD string // NAMELSAD, e.g. "Fairfax County"
	LSAD     string // LSAD, e.g. "06" (county)
	ClassFP  string // CLASSFP, e.g. "H1"
	MTFCC    string // MTFCC, "G4020"
	FuncStat string // FUNCSTAT, e.g. "A"

	ALand    *int64   // ALAND, square meters
	AWater   *int64   // AWATER, square meters
	IntPtLat *float64 // INTPTLAT
	IntPtLon *float64 // INTPTLON
}

// TractOf reads a census tract from a file feature's attributes by column
// name (as package geofile gives them: string, int64, float64, bool,
// time.Time or nil). Names match without regard to case, and a decennial
// edition's names suffixed with the census year (TRACTCE10, TRACTCE20) are
// taken when the plain name is absent; a column the file lacks is null.
// Text columns take text, trimmed; number columns numbers, or text holding
// one (blank is null). Any other value is an error naming the column, for
// the loader to refuse the row with.
func TractOf(attrs map[string]any) (Tract, error) {
	var t Tract
	r := reader{cols: geofile.Columns{Props: attrs, Suffixes: editions}}
	r.text(&t.StateFP, "STATEFP")
	r.text(&t.CountyFP, "COUNTYFP")
	r.text(&t.TractCE, "TRACTCE")
	r.text(&t.GEOID, "GEOID")
	r.text(&t.Name, "NAME")
	r.text(&t.NameLSAD, "NAMELSAD")
	r.text(&t.MTFCC, "MTFCC")
	r.text(&t.FuncStat, "FUNCSTAT")
	r.integer(&t.ALand, "ALAND")
	r.integer(&t.AWater, "AWATER")
	r.number(&t.IntPtLat, "INTPTLAT")
	r.number(&t.IntPtLon, "INTPTLON")
	if r.err != nil {
		return Tract{}, r.err
	}
	return t, nil
}

// CountyOf reads a county from a file feature's attributes, as TractOf
// reads a tract.
func CountyOf(attrs map[string]any) (County, error) {
	var c County
	r := reader{cols: geofile.Columns{Props: attrs, Suffixes: editions}}
	r.text(&c.StateFP, "STATEFP")
	r.text(&c.CountyFP, "COUNTYFP")
	r.text(&c.CountyNS, "COUNTYNS")
	r.text(&c.GEOID, "GEOID")
	r.text(&c.Name, "NAME")
	r.text(&c.NameLSAD, "NAMELSAD")
	r.text(&c.LSAD, "LSAD")
	r.text(&c.ClassFP, "CLASSFP")
	r.text(&c.MTFCC, "MTFCC")
	r.text(&c.FuncStat, "FUNCSTAT")
	r.integer(&c.ALand, "ALAND")
	r.integer(&c.AWater, "AWATER")
	r.number(&c.IntPtLat, "INTPTLAT")
	r.number(&c.IntPtLon, "INTPTLON")
	if r.err != nil {
		return County{}, r.err
	}
	return c, nil
}

// editions are the suffixes of a decennial edition's column names, tried
// after the plain name.
var editions = []string{"20", "10"}

// reader reads columns into fields, keeping the first error.
type reader struct {
	cols geofile.Columns
	err  error
}

// text reads a text column: null is "", a string is kept trimmed.
func (r *reader) text(dst *string, name string) {
	v, err := r.cols.Text(name)
	if err != nil {
		r.fail(err)
	} else if v != nil {
		*dst = strings.TrimSpace(*v)
	}
}

// number reads a number column (see geofile.Columns.Number).
func (r *reader) number(dst **float64, name string) {
	v, err := r.cols.Number(name)
	if err != nil {
		r.fail(err)
	} else if v != nil {
		*dst = v
	}
}

// integer reads a whole number column (an area in square meters) as number
// does; a fraction is an error.
func (r *reader) integer(dst **int64, name string) {
	var f *float64
	r.number(&f, name)
	if f == nil {
		return
	}
	if *f != math.Trunc(*f) || math.Abs(*f) > 1<<53 {
		r.fail(fmt.Errorf("column %s: %v is not a whole number", name, *f))
		return
	}
	n := int64(*f)
	*dst = &n
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}
