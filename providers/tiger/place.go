package tiger

import "strings"

// Place is the location fields of a record that the county and the census
// tract at its point decide, named as providers.Location names them. The
// zero value is a point with neither.
type Place struct {
	County      string // the county's NAMELSAD, e.g. "Fairfax County"
	FIPSCode    string // five digits, state and county
	CensusTract string // six digits
}

// Locate gives the location fields of a point from the county and the
// census tract holding it, either nil when none does, whichever path found
// them (the geocoder's county and tract layers, or the features of loaded
// boundaries containing the point), and reports whether a county holds it:
// a point in no county (at sea, abroad) is not found, while a point in a
// county but in no tract keeps its county and FIPS code.
//
//   - County is the county's NAMELSAD, trimmed, as the geocoder's NAME has
//     it ("Fairfax County", "District of Columbia"); "" when it has none;
//   - FIPSCode is the county's GEOID when it is five digits, else its
//     STATEFP and COUNTYFP when they are two and three digits (a GEOID that
//     lost its leading zero as a number), else the same read from the tract:
//     the first five digits of its 11-digit GEOID, else its STATEFP and
//     COUNTYFP; "" when none is;
//   - CensusTract is the tract's TRACTCE when it is six digits, else the
//     last six of its 11-digit GEOID; "" when neither is.
//
// Codes that are not all digits of the right width are left out rather
// than passed on. Locate does not check that the tract lies in the county:
// both come from one vintage of the same map. It is pure and safe for
// concurrent use.
func Locate(county *County, tract *Tract) (Place, bool) {
	var p Place
	if county != nil {
		p.County = strings.TrimSpace(county.NameLSAD)
		p.FIPSCode = countyFIPS(county.GEOID, county.StateFP, county.CountyFP)
	}
	if tract != nil {
		p.CensusTract = tractCode(tract)
		if p.FIPSCode == "" {
			if id := strings.TrimSpace(tract.GEOID); digits(id, 11) {
				p.FIPSCode = id[:5]
			} else {
				p.FIPSCode = countyFIPS("", tract.StateFP, tract.CountyFP)
			}
		}
	}
	return p, county != nil
}

// countyFIPS returns the five-digit county FIPS code: geoid, else
// state+county, else "".
func countyFIPS(geoid, state, county string) string {
	if id := strings.TrimSpace(geoid); digits(id, 5) {
		return id
	}
	state, county = strings.TrimSpace(state), strings.TrimSpace(county)
	if digits(state, 2) && digits(county, 3) {
		return state + county
	}
	return ""
}

// tractCode returns the six-digit tract code: TRACTCE, else the last six
// digits of the 11-digit GEOID, else "".
func tractCode(t *Tract) string {
	if code := strings.TrimSpace(t.TractCE); digits(code, 6) {
		return code
	}
	if id := strings.TrimSpace(t.GEOID); digits(id, 11) {
		return id[5:]
	}
	return ""
}

// digits reports whether s is exactly n ASCII digits.
func digits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
