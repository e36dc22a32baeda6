package osmextract

import (
	"strconv"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// FactsPriority is the buildings' place in the precedence of property facts:
// after the operator's import (0) and every assessor dataset (1 and up, in
// their configured order), whatever their number.
const FactsPriority = 1 << 20

// FactsSource is the source records show for facts a building gave.
const FactsSource = "openstreetmap"

// FactsDataset is the name of the facts dataset an extract's buildings are
// loaded as: one per extract, replaced with it.
func FactsDataset(extract string) string { return "osm-" + extract }

// PropertyTypes maps a building tag's value to the property type of the
// records inside the building, following the OpenStreetMap wiki's
// Key:building: a value not listed (yes, residential, commercial...) says
// nothing of the property type, though the building's levels, flats and
// date still count. Treat it as read-only.
//
//	house, detached, bungalow, cabin, farm   single_family  one dwelling, free-standing (a farm is the farmhouse)
//	semidetached_house                      single_family  one dwelling of a pair sharing a wall
//	terrace                                 townhouse      a row of dwellings mapped as one outline
//	apartments                              multi_family   a building of several dwellings
//	static_caravan                          mobile_home    a mobile home set on its lot
var PropertyTypes = map[string]string{
	"house": "single_family", "detached": "single_family", "bungalow": "single_family", "cabin": "single_family",
	"farm": "single_family", "semidetached_house": "single_family",
	"terrace":        "townhouse",
	"apartments":     "multi_family",
	"static_caravan": "mobile_home",
}

// propertyTypeOf is PropertyTypes with each value held once: every
// building of a type points at the same string (a million buildings made
// a million copies).
var propertyTypeOf = func() map[string]*string {
	m := make(map[string]*string, len(PropertyTypes))
	for tag, t := range PropertyTypes {
		m[tag] = &t
	}
	return m
}()

// plainYear reports whether a start_date is a year alone ("1925"): dates
// with a month, approximations ("~1925", "C19", "1920s") and ranges give
// none. (A regexp ran for each of a state's buildings.)
func plainYear(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := range 4 {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// BuildingFacts are the property facts a building gives the records inside
// it: property_type from its building tag (PropertyTypes), stories from
// building:levels, units from building:flats and year_built from a
// start_date that is a plain year, each within the facts' bounds
// (providers.CheckFacts) as of now; ok is false when it gives none.
func BuildingFacts(b providers.OSMBuilding, now time.Time) (f providers.Facts, ok bool) {
	if t, known := propertyTypeOf[b.Building]; known {
		f.PropertyType = t
	}
	f.Stories = b.Levels
	f.Units = b.Flats
	if plainYear(b.StartDate) {
		y, _ := strconv.Atoi(b.StartDate)
		f.YearBuilt = &y
	}
	providers.CheckFacts(&f, now)
	return f, f.PropertyType != nil || f.Stories != nil || f.Units != nil || f.YearBuilt != nil
}
