package providers

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Facts are what public records say about a property's building and lot:
// its use, rooms, areas, age and size. Each is nil when unknown; a known
// value is always within the bounds CheckFacts enforces, since a value
// outside them is dropped (and reported) on the way in, never stored.
type Facts struct {
	PropertyType   *string  // one of PropertyTypes
	Bedrooms       *int     // 0 to MaxBedrooms
	Bathrooms      *float64 // full baths plus 0.5 per half bath: 0 to MaxBathrooms, in halves
	LivingAreaSqft *int     // finished living area, square feet: 1 to MaxLivingAreaSqft
	LotSqft        *int     // land area, square feet: 1 to MaxLotSqft
	YearBuilt      *int     // 1600 to next year
	Stories        *float64 // floors above ground, 2.5 for two and a half: above 0, at most MaxStories
	Units          *int     // residential units in the building: 0 to MaxUnits
}

// The documented bounds of Facts. They are wide enough for every real
// building in the United States (the largest residential buildings have
// a few thousand units and a few million square feet; the Pentagon has
// 6.5 million) and narrow enough to catch a shifted column or a unit
// mix-up (acres or square metres written where square feet belong).
const (
	MaxBedrooms       = 100
	MaxBathrooms      = 50
	MaxLivingAreaSqft = 10_000_000
	MaxLotSqft        = 1_000_000_000 // about 36 square miles
	MinYearBuilt      = 1600
	MaxStories        = 200
	MaxUnits          = 20_000
)

// factSlots are the facts, in the order records show them, each with
// how to copy it from one Facts to another: every per-fact loop (merging,
// Only, Known) goes through this one table.
var factSlots = [...]struct {
	name string
	// take copies the fact of src into dst and reports whether src knows it.
	take func(dst, src *Facts) bool
}{
	{"property_type", func(d, s *Facts) bool { d.PropertyType = s.PropertyType; return s.PropertyType != nil }},
	{"bedrooms", func(d, s *Facts) bool { d.Bedrooms = s.Bedrooms; return s.Bedrooms != nil }},
	{"bathrooms", func(d, s *Facts) bool { d.Bathrooms = s.Bathrooms; return s.Bathrooms != nil }},
	{"living_area_sqft", func(d, s *Facts) bool { d.LivingAreaSqft = s.LivingAreaSqft; return s.LivingAreaSqft != nil }},
	{"lot_sqft", func(d, s *Facts) bool { d.LotSqft = s.LotSqft; return s.LotSqft != nil }},
	{"year_built", func(d, s *Facts) bool { d.YearBuilt = s.YearBuilt; return s.YearBuilt != nil }},
	{"stories", func(d, s *Facts) bool { d.Stories = s.Stories; return s.Stories != nil }},
	{"units", func(d, s *Facts) bool { d.Units = s.Units; return s.Units != nil }},
}

// FactFields names the facts, in the order records show them. A name is
// the record's JSON field and the column a dataset maps to it.
var FactFields = func() []string {
	out := make([]string, len(factSlots))
	for i, f := range factSlots {
		out[i] = f.name
	}
	return out
}()

// BuildingFacts are the facts a unit inherits from a row about its whole
// building (see MergeFacts): a building's bedrooms, baths and areas are the
// building's, not the unit's.
var BuildingFacts = []string{"property_type", "year_built", "stories"}

// Known reports whether f holds at least one fact.
func (f *Facts) Known() bool {
	var scratch Facts
	for _, slot := range factSlots {
		if slot.take(&scratch, f) {
			return true
		}
	}
	return false
}

// CheckFacts drops every value of f outside its documented bounds and
// returns one ParamError per value dropped, naming the field: the caller
// reports them (a load's failures file, an import's report) and keeps the
// rest of the row. now decides "next year" for year_built.
func CheckFacts(f *Facts, now time.Time) []ParamError {
	var errs []ParamError
	bad := func(field, msg string) { errs = append(errs, ParamError{Parameter: field, Message: msg}) }
	if f.PropertyType != nil && !slices.Contains(PropertyTypes, *f.PropertyType) {
		bad("property_type", "must be one of "+strings.Join(PropertyTypes, ", "))
		f.PropertyType = nil
	}
	if f.Bedrooms != nil && (*f.Bedrooms < 0 || *f.Bedrooms > MaxBedrooms) {
		bad("bedrooms", fmt.Sprintf("must be a whole number from 0 to %d, not %d", MaxBedrooms, *f.Bedrooms))
		f.Bedrooms = nil
	}
	if f.Bathrooms != nil {
		if b := *f.Bathrooms; !(b >= 0 && b <= MaxBathrooms) || b*2 != math.Trunc(b*2) {
			bad("bathrooms", fmt.Sprintf("must be from 0 to %d in halves, not %s", MaxBathrooms, formatFact(b)))
			f.Bathrooms = nil
		}
	}
	checkInt := func(field string, v **int, lo, hi int) {
		if *v != nil && (**v < lo || **v > hi) {
			bad(field, fmt.Sprintf("must be from %d to %d, not %d", lo, hi, **v))
			*v = nil
		}
	}
	checkInt("living_area_sqft", &f.LivingAreaSqft, 1, MaxLivingAreaSqft)
	checkInt("lot_sqft", &f.LotSqft, 1, MaxLotSqft)
	checkInt("year_built", &f.YearBuilt, MinYearBuilt, now.UTC().Year()+1)
	checkInt("units", &f.Units, 0, MaxUnits)
	if f.Stories != nil {
		if s := *f.Stories; !(s > 0 && s <= MaxStories) {
			bad("stories", fmt.Sprintf("must be above 0 and at most %d, not %s", MaxStories, formatFact(s)))
			f.Stories = nil
		}
	}
	return errs
}

func formatFact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// SourcedFacts are the facts one source gives a record, with what decides
// between sources: the lower Priority wins each fact (the operator's own
// import is 0, assessor datasets follow in their configured order).
// Building marks facts about the whole building applied to one unit of it:
// only BuildingFacts are taken from them.
type SourcedFacts struct {
	Source   string // dataset name, e.g. "cook-county"; "import" for the operator's import
	AsOf     string // the date the source's data is as of, YYYY-MM-DD
	Priority int
	Building bool
	Facts    Facts
}

// MergeFacts returns the record's facts from every source that gives some,
// each fact from the source of the lowest Priority that knows it (a tie
// goes to the earlier in srcs), and their provenance as the JSON the record
// shows under "facts" (see factsProvenance); "" when no source knows any.
func MergeFacts(srcs []SourcedFacts) (Facts, string) {
	order := make([]int, len(srcs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return srcs[a].Priority - srcs[b].Priority })
	var out Facts
	from := make([]int, len(factSlots))
	top := -1
	for fi, slot := range factSlots {
		from[fi] = -1
		for _, si := range order {
			s := &srcs[si]
			if s.Building && !slices.Contains(BuildingFacts, slot.name) {
				continue
			}
			if slot.take(&out, &s.Facts) {
				from[fi] = si
				if top < 0 || srcs[si].Priority < srcs[top].Priority || (srcs[si].Priority == srcs[top].Priority && si < top) {
					top = si
				}
				break
			}
		}
	}
	if top < 0 {
		return Facts{}, ""
	}
	return out, factsProvenance(srcs, top, from)
}

// factsProvenance writes the provenance JSON: the top source and its
// date, then, only where sources mix, every known fact's own, in
// FactFields order:
//
//	{"source":"cook-county","as_of":"2026-09-30"}
//	{"source":"import","as_of":"2026-10-01","fields":{"bedrooms":{"source":"import","as_of":"2026-10-01"},"year_built":{"source":"cook-county","as_of":"2026-09-30"}}}
//
// A record keeps it as it is shown, so the short form of the common case
// (one source) also keeps the record small.
func factsProvenance(srcs []SourcedFacts, top int, from []int) string {
	var b strings.Builder
	b.WriteString(`{"source":`)
	b.WriteString(strconv.Quote(srcs[top].Source))
	b.WriteString(`,"as_of":`)
	b.WriteString(strconv.Quote(srcs[top].AsOf))
	mixed := false
	for _, si := range from {
		if si >= 0 && (srcs[si].Source != srcs[top].Source || srcs[si].AsOf != srcs[top].AsOf) {
			mixed = true
		}
	}
	if !mixed {
		b.WriteByte('}')
		return b.String()
	}
	b.WriteString(`,"fields":{`)
	first := true
	for fi, name := range FactFields {
		if from[fi] < 0 {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		s := &srcs[from[fi]]
		b.WriteString(`"` + name + `":{"source":`)
		b.WriteString(strconv.Quote(s.Source))
		b.WriteString(`,"as_of":`)
		b.WriteString(strconv.Quote(s.AsOf))
		b.WriteByte('}')
	}
	b.WriteString("}}")
	return b.String()
}

// FactsKey is the address identity facts join records by: the normalized
// building street, the five-digit ZIP and the unit, in that order so that
// every unit of a building shares the prefix FactsKey(street, zip, "") of
// the building's own key. Street and unit must be normalized the way
// lookups normalize them (address.Normalize); an empty street or ZIP gives
// "", which joins nothing.
//
// Numbered streets lose their ordinal suffix after the house number
// ("417 7TH AVE" is "417 7 AVE"): geocoders write the ordinal where
// assessor files often do not (New York's PLUTO writes "417 7 AVENUE").
func FactsKey(street, zip, unit string) string {
	if street == "" || zip == "" {
		return ""
	}
	return stripOrdinals(street) + "|" + zip + "|" + unit
}

// stripOrdinals drops ST, ND, RD and TH from the numbers after the first
// word of a normalized street.
func stripOrdinals(street string) string {
	words := strings.Split(street, " ")
	changed := false
	for i := 1; i < len(words); i++ {
		w := words[i]
		if len(w) < 3 {
			continue
		}
		n := 0
		for n < len(w) && w[n] >= '0' && w[n] <= '9' {
			n++
		}
		if n == 0 || n != len(w)-2 {
			continue
		}
		switch w[n:] {
		case "ST", "ND", "RD", "TH":
			words[i] = w[:n]
			changed = true
		}
	}
	if !changed {
		return street
	}
	return strings.Join(words, " ")
}

// FactsKeyOf returns the FactsKey of a record saved with its normalized
// canonical address (see address.Canonical): the street is the canonical
// address up to its first comma.
func FactsKeyOf(canonical, zip, unit string) string {
	street, _, _ := strings.Cut(canonical, ",")
	return FactsKey(strings.TrimSpace(street), zip, unit)
}

// SetFact parses text as the named fact (one of FactFields) into f: a
// property type spelled in any case with spaces or hyphens for
// underscores ("Single Family"), a decimal number for bathrooms and
// stories, a whole number for the others, where a written ".0" (as
// assessor files print counts, "3.0") is whole. Blank text leaves the fact
// unknown. It does not check bounds (CheckFacts does); a value it cannot
// read is a ParamError naming the field, and the fact stays unknown.
func SetFact(f *Facts, name, text string) *ParamError {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	bad := func(msg string) *ParamError { return &ParamError{Parameter: name, Message: msg} }
	if name == "property_type" {
		t := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(text))
		f.PropertyType = &t
		return nil
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(text, ",", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return bad(fmt.Sprintf("%q is not a number", text))
	}
	switch name {
	case "bathrooms":
		f.Bathrooms = &v
		return nil
	case "stories":
		f.Stories = &v
		return nil
	}
	if v != math.Trunc(v) || math.Abs(v) > 1e12 {
		return bad(fmt.Sprintf("%q is not a whole number", text))
	}
	n := int(v)
	switch name {
	case "bedrooms":
		f.Bedrooms = &n
	case "living_area_sqft":
		f.LivingAreaSqft = &n
	case "lot_sqft":
		f.LotSqft = &n
	case "year_built":
		f.YearBuilt = &n
	case "units":
		f.Units = &n
	default:
		return bad("is not a fact")
	}
	return nil
}

// Only returns the facts of f named in names (FactFields), the others
// unknown.
func (f *Facts) Only(names ...string) Facts {
	var out Facts
	for _, slot := range factSlots {
		if slices.Contains(names, slot.name) {
			slot.take(&out, f)
		}
	}
	return out
}
