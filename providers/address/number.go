package address

import (
	"strings"
)

// HyphenBase is where the values of hyphenated house numbers begin (see
// HouseNumber): above every plain number, so a Queens-style number and a
// plain one are never in one range by accident.
const HyphenBase = 1_000_000_000_000

// maxPlain is the first plain house number HouseNumber refuses: no US
// address has a ten-digit number, and a longer run of digits is a key or
// a mistake, not a building.
const maxPlain = 1_000_000_000

// maxHyphenPart bounds each side of a hyphenated number (Queens numbers
// have at most three digits on either side).
const maxHyphenPart = 1_000_000

// HouseNumber returns the numeric value of a house number for comparing it
// with the numbers of an address range (TIGER/Line ADDRFEAT's LFROMHN,
// LTOHN, RFROMHN, RTOHN) and for placing it in proportion along one; ok is
// false when s is no number a range can hold.
//
// The forms, as Normalize writes a house number and as ADDRFEAT writes
// range ends:
//
//   - "123" and "0123" are 123.
//   - A letter suffix is dropped: "12A" is 12, as the Census geocoder and
//     PostGIS's tiger geocoder place it on the range holding 12.
//   - A fraction after the number is dropped: "12 1/2" is 12; a fraction
//     alone ("1/2") is refused.
//   - A hyphenated number, as Queens (and parts of Hawaii) write them
//     ("117-11": block 117, building 11), is HyphenBase + 117×1,000,000 +
//     11. The Census Bureau's ranges for those streets are written in the
//     same form (ADDRFEAT "117-01" to "117-99"), so a hyphenated number
//     falls in a hyphenated range, in proportion along it, and in no plain
//     range; its parity is the parity of the part after the hyphen, the
//     side of the street it is on. The value is not a plain number: where
//     a hyphen means a span of buildings ("1016-18 Willow Ave" in
//     Hoboken), the address matches no range and is left to the remote
//     geocoder rather than guessed at. (Pelias's interpolation refuses
//     both; PostGIS's tiger geocoder reads a range end that is not all
//     digits as 0.)
//   - Refused: no leading digit ("A", "N101" and "W5322", the letters of
//     Midwestern grid addresses, which TIGER keeps in ranges of their
//     own), digits other than ASCII, more than nine digits, or anything
//     else after the number.
//
// HouseNumber is pure and safe for concurrent use.
func HouseNumber(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ' '); i >= 0 {
		frac := strings.TrimSpace(s[i+1:])
		if !isFraction(frac) || !asciiDigits(strings.Replace(frac, "/", "", 1)) {
			return 0, false
		}
		s = s[:i]
	}
	head, rest := leadingDigits(s)
	if head == "" {
		return 0, false
	}
	if rest != "" && rest[0] == '-' {
		tail, after := leadingDigits(rest[1:])
		if tail == "" || !letters(after) {
			return 0, false
		}
		a, ok1 := digitsValue(head, maxHyphenPart)
		b, ok2 := digitsValue(tail, maxHyphenPart)
		if !ok1 || !ok2 {
			return 0, false
		}
		return HyphenBase + a*maxHyphenPart + b, true
	}
	if !letters(rest) {
		return 0, false
	}
	return digitsValue(head, maxPlain)
}

// leadingDigits splits s into its leading ASCII digits and the rest.
func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

// letters reports whether s is empty or one or two ASCII letters, the
// suffix a house number may carry ("12A", "12AB" is rare but real).
func letters(s string) bool {
	if len(s) > 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// digitsValue is the value of a run of ASCII digits, ok=false at limit or
// above (leading zeros do not count against it).
func digitsValue(d string, limit int64) (int64, bool) {
	d = strings.TrimLeft(d, "0")
	if len(d) > 12 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(d); i++ {
		v = v*10 + int64(d[i]-'0')
	}
	if v >= limit {
		return 0, false
	}
	return v, true
}

// SplitNumber splits a building street in the form Normalized.Street holds
// it into its house number and the street name after it:
// "117-11 SUTPHIN BLVD" is ("117-11", "SUTPHIN BLVD"), "12 1/2 ELM ST" is
// ("12 1/2", "ELM ST"), "123 N MAIN ST" is ("123", "N MAIN ST"). The
// number is the leading word when it starts with a digit and is not an
// ordinal ("5TH AVE" has none), with a fraction that follows it: the rule
// Normalize reads a house number by. A street without a number gives ""
// and the whole street. SplitNumber is pure and safe for concurrent use.
func SplitNumber(street string) (number, name string) {
	var buf [maxTokens]string
	w := dropHashes(tokenize(strings.ToUpper(street), buf[:0]))
	hl := houseLen(w)
	return joinWords(w[:hl]), joinWords(w[hl:])
}

// StreetName normalizes a street name given without a house number (a
// TIGER/Line FULLNAME such as "State Hwy 360" or "N Main St", an address
// file's street column) exactly as Normalize normalizes a client's street
// after its number, so that for one street
//
//	_, name := SplitNumber(lookup.Street) // lookup := Normalize(...)
//	name == StreetName(fullname)
//
// and a loaded range or point joins the lookup of its addresses. The name
// is read as if a house number stood before it, by the same code, so every
// rule (directionals, suffixes, numbered routes, spelled ordinals, a unit
// parsed off the end) applies as it does to a lookup. It neither validates
// nor refuses anything. StreetName is pure and safe for concurrent use.
func StreetName(s string) string {
	var buf [maxTokens]string
	building, _, _ := normalizeStreet(tokenize("1 "+strings.ToUpper(s), buf[:0]), true)
	_, name := SplitNumber(building)
	return name
}
