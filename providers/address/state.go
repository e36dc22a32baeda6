package address

import "strings"

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
