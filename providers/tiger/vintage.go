package tiger

import "fmt"

// Connecticut is the state FIPS code of Connecticut, whose eight counties
// gave way to nine planning regions as county equivalents in 2022.
const Connecticut = "09"

// connecticutRegions is the first TIGER/Line vintage, and the first ACS
// 5-year release (by its last year), with Connecticut's planning regions:
// the county part of every Connecticut tract's GEOID changed with them.
const connecticutRegions = 2022

// firstACS5 is the last year of the first ACS 5-year release, 2005-2009.
const firstACS5 = 2009

// SameTracts reports whether the census tracts of a TIGER/Line vintage
// (tigerYear, as in tl_2020_11_tract) are those an ACS 5-year release
// (acsEndYear, its last year: 2020 for 2016-2020) is tabulated by, in the
// state stateFP ("" for a file of several states, which is checked as if it
// held Connecticut). When they are not, reason says why, for a loader's
// warning; it is "" when they are.
//
// The rules, as the Census Bureau publishes its geography:
//
//   - tracts are redrawn for each decennial census and kept for the decade:
//     TIGER/Line vintages 2010 to 2019 hold the 2010 tracts and 2020 on the
//     2020 tracts; an ACS 5-year release uses the legal boundaries of
//     January 1 of its last year, so the releases ending 2010 to 2019
//     (2006-2010 to 2015-2019) use the 2010 tracts and those ending 2020 on
//     (2016-2020 was the first) the 2020 tracts;
//   - Connecticut's tracts took their planning region's county code in
//     2022: TIGER/Line from 2022 on and the ACS releases ending 2022 on
//     have the new GEOIDs, earlier ones the old.
//
// A handful of tracts were corrected within the 2010s (in New York, Arizona
// and Los Angeles County, in 2011 and 2012); SameTracts does not know them:
// the same year's TIGER/Line is the exact match. There was no ACS 5-year
// release before 2005-2009. SameTracts is pure and safe for concurrent use.
func SameTracts(tigerYear, acsEndYear int, stateFP string) (same bool, reason string) {
	if acsEndYear < firstACS5 {
		return false, fmt.Sprintf("there is no ACS 5-year release ending %d; the first ended %d", acsEndYear, firstACS5)
	}
	if t, a := decade(tigerYear), decade(acsEndYear); t != a {
		return false, fmt.Sprintf("TIGER/Line %d has the %d census tracts; the ACS 5-year release ending %d uses the %d tracts",
			tigerYear, t, acsEndYear, a)
	}
	if stateFP == "" || stateFP == Connecticut {
		if t, a := tigerYear >= connecticutRegions, acsEndYear >= connecticutRegions; t != a {
			return false, fmt.Sprintf("Connecticut's tracts changed county codes to its planning regions in %d: "+
				"TIGER/Line %d and the ACS 5-year release ending %d number them differently",
				connecticutRegions, tigerYear, acsEndYear)
		}
	}
	return true, ""
}

// decade is the decennial census whose tracts a year's geography holds.
func decade(year int) int { return year - year%10 }
