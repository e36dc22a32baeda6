package address

import (
	"slices"
	"strings"
)

// stateNames maps each accepted two-letter USPS code to the name of its
// state, DC or inhabited territory. Military codes (AA, AE, AP) and the
// freely associated states (FM, MH, PW) are left out: the Census geocoder
// does not cover them and no property there can be enriched.
var stateNames = map[string]string{
	"AL": "ALABAMA", "AK": "ALASKA", "AZ": "ARIZONA", "AR": "ARKANSAS",
	"CA": "CALIFORNIA", "CO": "COLORADO", "CT": "CONNECTICUT", "DE": "DELAWARE",
	"DC": "DISTRICT OF COLUMBIA", "FL": "FLORIDA", "GA": "GEORGIA", "HI": "HAWAII",
	"ID": "IDAHO", "IL": "ILLINOIS", "IN": "INDIANA", "IA": "IOWA",
	"KS": "KANSAS", "KY": "KENTUCKY", "LA": "LOUISIANA", "ME": "MAINE",
	"MD": "MARYLAND", "MA": "MASSACHUSETTS", "MI": "MICHIGAN", "MN": "MINNESOTA",
	"MS": "MISSISSIPPI", "MO": "MISSOURI", "MT": "MONTANA", "NE": "NEBRASKA",
	"NV": "NEVADA", "NH": "NEW HAMPSHIRE", "NJ": "NEW JERSEY", "NM": "NEW MEXICO",
	"NY": "NEW YORK", "NC": "NORTH CAROLINA", "ND": "NORTH DAKOTA", "OH": "OHIO",
	"OK": "OKLAHOMA", "OR": "OREGON", "PA": "PENNSYLVANIA", "RI": "RHODE ISLAND",
	"SC": "SOUTH CAROLINA", "SD": "SOUTH DAKOTA", "TN": "TENNESSEE", "TX": "TEXAS",
	"UT": "UTAH", "VT": "VERMONT", "VA": "VIRGINIA", "WA": "WASHINGTON",
	"WV": "WEST VIRGINIA", "WI": "WISCONSIN", "WY": "WYOMING",
	"AS": "AMERICAN SAMOA", "GU": "GUAM", "MP": "NORTHERN MARIANA ISLANDS",
	"PR": "PUERTO RICO", "VI": "VIRGIN ISLANDS",
}

// stateFIPS maps each code of stateNames to its two-digit FIPS state code,
// the first two digits of every county and tract GEOID there.
var stateFIPS = map[string]string{
	"AL": "01", "AK": "02", "AZ": "04", "AR": "05", "CA": "06", "CO": "08", "CT": "09", "DE": "10",
	"DC": "11", "FL": "12", "GA": "13", "HI": "15", "ID": "16", "IL": "17", "IN": "18", "IA": "19",
	"KS": "20", "KY": "21", "LA": "22", "ME": "23", "MD": "24", "MA": "25", "MI": "26", "MN": "27",
	"MS": "28", "MO": "29", "MT": "30", "NE": "31", "NV": "32", "NH": "33", "NJ": "34", "NM": "35",
	"NY": "36", "NC": "37", "ND": "38", "OH": "39", "OK": "40", "OR": "41", "PA": "42", "RI": "44",
	"SC": "45", "SD": "46", "TN": "47", "TX": "48", "UT": "49", "VT": "50", "VA": "51", "WA": "53",
	"WV": "54", "WI": "55", "WY": "56",
	"AS": "60", "GU": "66", "MP": "69", "PR": "72", "VI": "78",
}

// StateFIPS returns the two-digit FIPS code of the state, DC or inhabited
// territory whose USPS code (any case) is code, and ok=false for any other
// string: upstreams that answer by state (the ACS) name states by it.
func StateFIPS(code string) (fips string, ok bool) {
	if !IsState(code) {
		return "", false
	}
	fips, ok = stateFIPS[upperASCII2(code)]
	return fips, ok
}

// stateOfFIPS is stateFIPS the other way round.
var stateOfFIPS = func() map[string]string {
	m := make(map[string]string, len(stateFIPS))
	for code, fips := range stateFIPS {
		m[fips] = code
	}
	return m
}()

// StateOfFIPS returns the USPS code of the state, DC or inhabited
// territory whose two-digit FIPS code is fips ("11": "DC"), and ok=false
// for any other string: a county or tract read from a TIGER/Line file
// names its state by STATEFP alone, where the geocoder's answer names it
// by its USPS code too.
func StateOfFIPS(fips string) (code string, ok bool) {
	code, ok = stateOfFIPS[fips]
	return code, ok
}

// States returns the USPS code of every state, DC and inhabited territory
// IsState accepts, in FIPS order.
func States() []string {
	out := make([]string, 0, len(stateFIPS))
	for code := range stateFIPS {
		out = append(out, code)
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(stateFIPS[a], stateFIPS[b]) })
	return out
}

// stateByName maps codes and names squeezed to their letters ("NEWYORK") to
// codes, including a few common alternative names.
var stateByName = func() map[string]string {
	m := make(map[string]string, len(stateNames)+8)
	for code, name := range stateNames {
		m[code] = code
		m[strings.ReplaceAll(name, " ", "")] = code
	}
	for name, code := range map[string]string{
		"WASHINGTONDC":                            "DC",
		"USVIRGINISLANDS":                         "VI",
		"UNITEDSTATESVIRGINISLANDS":               "VI",
		"NORTHERNMARIANAS":                        "MP",
		"COMMONWEALTHOFTHENORTHERNMARIANAISLANDS": "MP",
		"COMMONWEALTHOFPUERTORICO":                "PR",
	} {
		m[name] = code
	}
	return m
}()

// maxStateLen bounds the letters StateCode looks at; the longest accepted
// name is well below it.
const maxStateLen = 64

// IsState reports whether code is the two-letter USPS code, in any case, of
// a state, DC or an inhabited territory (AS, GU, MP, PR, VI): the places
// propertyd can look up.
func IsState(code string) bool {
	if len(code) != 2 {
		return false
	}
	_, ok := stateNames[upperASCII2(code)]
	return ok
}

// StateCode returns the upper-case USPS code for s, which may be a code or a
// full name in any case with any punctuation ("va", "Virginia", "N.Y.",
// "District of Columbia"), and ok=false when s names no state, DC or
// inhabited territory. Use it wherever a client gives a state, so a search
// filter compares like with like with stored records.
func StateCode(s string) (code string, ok bool) {
	if len(s) == 2 && IsState(s) {
		return upperASCII2(s), true
	}
	var buf [maxStateLen]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			if n == len(buf) {
				return "", false
			}
			buf[n] = c &^ 0x20 // upper case
			n++
		case '0' <= c && c <= '9' || c >= 0x80:
			return "", false // no accepted name has a digit or a non-ASCII character
		}
	}
	code, ok = stateByName[string(buf[:n])]
	return code, ok
}

// upperASCII2 upper-cases a two-byte string, allocating only when it must.
func upperASCII2(s string) string {
	if 'a' <= s[0] && s[0] <= 'z' || 'a' <= s[1] && s[1] <= 'z' {
		return strings.ToUpper(s)
	}
	return s
}
