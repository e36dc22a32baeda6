package gateway

import (
	"slices"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// The bounds of the fact filters search accepts. Years run wider than any
// stored value may (providers.CheckFacts keeps 1600 to next year) so that
// a filter written for next decade is not refused.
const (
	minYearFilter = providers.MinYearBuilt
	maxYearFilter = 2100
)

// parseSearch reads search's query into a filter, with every problem
// found: a parameter given empty (a filter dropped would widen the
// search), a value that is no number or out of its bounds, a minimum above
// its maximum, an unknown or empty property type in the list, a
// census_tract without fips_code, lat, lng and radius_m not given all
// together, a bbox that is not four numbers west,south,east,north within
// the globe, in that order and at most providers.MaxSearchBoxDegrees a
// side, and a bbox with a circle.
func parseSearch(q map[string]string) (providers.SearchFilter, []providers.ParamError) {
	var errs []providers.ParamError
	bad := func(name, msg string) { errs = append(errs, providers.ParamError{Parameter: name, Message: msg}) }
	// Given empty is an error, not a filter dropped: zip= would otherwise
	// return every record. The parameters below skip what is empty.
	for _, name := range searchParams {
		if v, ok := q[name]; ok && strings.TrimSpace(v) == "" {
			bad(name, "must not be empty (leave the parameter out to match any)")
			delete(q, name)
		}
	}
	f := providers.SearchFilter{City: strings.ToUpper(strings.TrimSpace(q["city"])),
		County: strings.Join(strings.Fields(q["county"]), " ")}
	if z := strings.TrimSpace(q["zip"]); z != "" {
		if len(z) != 5 || !digitsOnly(z) {
			bad("zip", "must be 5 digits")
		}
		f.Zip = z
	}
	if s := strings.ToUpper(strings.TrimSpace(q["state"])); s != "" {
		if !address.IsState(s) {
			bad("state", "must be a 2-letter USPS state code")
		}
		f.State = s
	}
	if v := strings.TrimSpace(q["fips_code"]); v != "" {
		if len(v) != 5 || !digitsOnly(v) {
			bad("fips_code", "must be 5 digits (state and county FIPS codes)")
		}
		f.FIPSCode = v
	}
	if v := strings.TrimSpace(q["census_tract"]); v != "" {
		switch {
		case len(v) != 6 || !digitsOnly(v):
			bad("census_tract", "must be 6 digits")
		case q["fips_code"] == "":
			bad("census_tract", "requires fips_code (tract codes repeat from county to county)")
		}
		f.CensusTract = v
	}
	if v, ok := q["property_type"]; ok {
		for t := range strings.SplitSeq(v, ",") {
			t = strings.TrimSpace(t)
			switch {
			case t == "":
				bad("property_type", "has an empty element (write types separated by single commas)")
			case !slices.Contains(providers.PropertyTypes, t):
				bad("property_type", "has "+strconv.Quote(printable(t))+"; each type must be one of "+strings.Join(providers.PropertyTypes, ", "))
			case !slices.Contains(f.PropertyTypes, t):
				f.PropertyTypes = append(f.PropertyTypes, t)
			}
		}
	}
	intRange := func(lo, hi string, dmin, dmax **int, min, max int) {
		for _, b := range []struct {
			name string
			dst  **int
		}{{lo, dmin}, {hi, dmax}} {
			if b.name == "" {
				continue
			}
			if _, ok := q[b.name]; ok {
				if n, perr := parseInt(q, b.name, 0, min, max); perr != nil {
					errs = append(errs, *perr)
				} else {
					*b.dst = &n
				}
			}
		}
		if *dmin != nil && dmax != nil && *dmax != nil && **dmin > **dmax {
			bad(lo, "must not exceed "+hi)
		}
	}
	intRange("min_bedrooms", "max_bedrooms", &f.MinBedrooms, &f.MaxBedrooms, 0, providers.MaxBedrooms)
	intRange("min_year_built", "max_year_built", &f.MinYearBuilt, &f.MaxYearBuilt, minYearFilter, maxYearFilter)
	intRange("min_living_area_sqft", "max_living_area_sqft", &f.MinLivingAreaSqft, &f.MaxLivingAreaSqft, 1, providers.MaxLivingAreaSqft)
	if _, ok := q["min_bathrooms"]; ok {
		n, perr := parseFloat(q, "min_bathrooms", 0, providers.MaxBathrooms)
		switch {
		case perr != nil:
			errs = append(errs, *perr)
		case n*2 != float64(int(n*2)):
			bad("min_bathrooms", "must be a whole or half number (2, 2.5)")
		default:
			f.MinBathrooms = &n
		}
	}
	errs = parseLocation(q, &f, errs)
	var perr *providers.ParamError
	if f.Page, perr = parseInt(q, "page", 1, 1, 1_000_000); perr != nil {
		errs = append(errs, *perr)
	}
	if f.PerPage, perr = parseInt(q, "per_page", 25, 1, 100); perr != nil {
		errs = append(errs, *perr)
	}
	return f, errs
}

// parseLocation reads lat, lng and radius_m (all three or none) into
// f.Near and bbox into f.Box, adding the problems found to errs.
func parseLocation(q map[string]string, f *providers.SearchFilter, errs []providers.ParamError) []providers.ParamError {
	bad := func(name, msg string) { errs = append(errs, providers.ParamError{Parameter: name, Message: msg}) }
	circle := []string{"lat", "lng", "radius_m"}
	given := 0
	for _, name := range circle {
		if _, ok := q[name]; ok {
			given++
		}
	}
	if given > 0 {
		lat, perr1 := parseFloat(q, "lat", -90, 90)
		lng, perr2 := parseFloat(q, "lng", -180, 180)
		r, perr3 := parseInt(q, "radius_m", 0, 1, providers.MaxSearchRadiusMeters)
		for i, perr := range []*providers.ParamError{perr1, perr2, perr3} {
			switch _, ok := q[circle[i]]; {
			case !ok:
				bad(circle[i], "is required with "+strings.Join(slices.Delete(slices.Clone(circle), i, i+1), " and "))
			case perr != nil:
				errs = append(errs, *perr)
			}
		}
		if given == len(circle) && perr1 == nil && perr2 == nil && perr3 == nil {
			f.Near = &providers.Circle{Center: providers.Point{Lat: lat, Lng: lng}, RadiusMeters: float64(r)}
		}
	}
	v, ok := q["bbox"]
	if !ok {
		return errs
	}
	if given > 0 {
		bad("bbox", "cannot be combined with lat, lng and radius_m")
		return errs
	}
	parts := strings.Split(v, ",")
	if len(parts) != 4 {
		bad("bbox", "must be four numbers: west,south,east,north")
		return errs
	}
	var c [4]float64
	for i, p := range parts {
		p = strings.TrimSpace(p)
		n, err := strconv.ParseFloat(p, 64)
		if !plainDecimal(p) || err != nil {
			bad("bbox", "must be four decimal numbers: west,south,east,north")
			return errs
		}
		c[i] = n
	}
	b := providers.BBox{West: c[0], South: c[1], East: c[2], North: c[3]}
	switch {
	case min(b.West, b.East) < -180 || max(b.West, b.East) > 180 || min(b.South, b.North) < -90 || max(b.South, b.North) > 90:
		bad("bbox", "must hold longitudes within -180..180 and latitudes within -90..90")
	case !(b.West < b.East):
		bad("bbox", "west must be less than east (a box may not cross the antimeridian)")
	case !(b.South < b.North):
		bad("bbox", "south must be less than north")
	case b.East-b.West > providers.MaxSearchBoxDegrees || b.North-b.South > providers.MaxSearchBoxDegrees:
		bad("bbox", "must be at most "+strconv.Itoa(providers.MaxSearchBoxDegrees)+" degree on each side")
	default:
		f.Box = &b
	}
	return errs
}
