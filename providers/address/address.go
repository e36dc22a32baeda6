package address

import (
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// MaxLen is the most characters (runes, after trimming surrounding spaces)
// a street or city may have: the Census geocoder's limit on its address
// fields.
const MaxLen = 100

// Normalized is a client address in the standard form that identifies it,
// with the building address as the client wrote it: two spellings of one
// address normalize to equal Street, Unit, City, State and Zip, hence equal
// keys, and keep their own Written. The zero value is no address. It is a
// plain value, safe to copy and share.
type Normalized struct {
	// Street is the building address in USPS standard form: upper case,
	// punctuation removed (except a '-' or '/' between two digits, as in
	// the house number "123-45" or the fraction "1/2"), single spaces,
	// directionals and the street suffix abbreviated: "123 N MAIN ST".
	Street string
	// Unit is the secondary unit parsed off the street, designator
	// abbreviated ("APT 4B", "STE 200", "BLDG C APT 4"), or "# 12" when only
	// a pound sign was given; empty when there is none. It is part of the
	// identity: two apartments are two properties.
	Unit string
	// City is upper case with punctuation removed and single spaces
	// ("ST LOUIS", "WINSTON SALEM"); words are kept as typed, so "SAINT
	// LOUIS" stays distinct. Empty when the client gave none.
	City string
	// State is the two-letter USPS code.
	State string
	// Zip is the five-digit ZIP code (the +4 of a ZIP+4 is dropped, since
	// geocoders match on five digits); empty when the client gave none.
	Zip string

	// Written is the building address as the client wrote it, which is
	// what the geocoder is sent (see Building); it is no part of the
	// identity. Its Street is the client's street line with blanks
	// trimmed and collapsed, typographic apostrophes and the backtick
	// written as the ASCII apostrophe TIGER street names use, and the
	// unit, when one was parsed off, cut away with the separators before
	// it ("42 O'Brien Court, Apt 4" is "42 O'Brien Court"). Its City is
	// the client's with blanks trimmed and collapsed and apostrophes
	// written the same way. Its State and Zip are the normalized ones: the
	// USPS code, which the geocoder is known to accept where a state name
	// is not, and the five digits geocoders match on; neither loses
	// anything the geocoder could use.
	Written providers.Address
}

// Key returns the stable lookup key of the whole address, unit included:
// "123 N MAIN ST|APT 4B|SPRINGFIELD|IL|62701". Empty parts stay as empty
// fields, so an address with and without a city are two keys. No part can
// contain the '|' separator or a control character.
func (n Normalized) Key() string {
	return n.Street + "|" + n.Unit + "|" + n.City + "|" + n.State + "|" + n.Zip
}

// Building returns what is sent to the geocoder: the building address
// without the unit, which geocoders do not match on, as the client wrote it
// (Written). Normalization is for identity only: it drops what the
// geocoder may need, such as the apostrophe that TIGER keeps in "O'BRIEN"
// or the hyphen of "I-95", and rewrites words the geocoder reads for
// itself ("North West End Ave"). A Normalized made by hand, with no
// Written street, gives its normalized building. An address typed in one
// line (NormalizeLine) gives the line, with no other field.
func (n Normalized) Building() providers.Address {
	if n.Written.Street != "" || n.Written.Line != "" {
		return n.Written
	}
	return providers.Address{Street: n.Street, City: n.City, State: n.State, Zip: n.Zip}
}

// Normalize validates a client address and returns it in normalized form.
//
// The street is required, at most MaxLen characters and must hold a letter
// or digit; the state is required and must be a USPS code or a state name;
// the zip is optional, five digits or ZIP+4; the city is optional and at
// most MaxLen characters. No field may hold invalid UTF-8 or a control
// character (NUL, tab, newline...); surrounding spaces are trimmed. Every
// invalid field is reported in one KindInvalid error (code
// invalid_parameter) whose Params name them all (street, unit, city,
// state, zip).
//
// The unit, when given apart from the street, is optional and read as if
// typed after a '#' on the street line (see withUnit): it must parse as a
// secondary unit and agree with any unit the street names, else it is an
// invalid unit. The import's unit column and lookup's unit= come here, so
// a unit has one reading wherever it is given.
//
// A valid street that is a post office box or private mailbox returns a
// KindUnprocessable error with code providers.CodeNotAProperty naming street.
//
// The strings of the result may share memory with a's fields (an input
// already in standard form is not copied): a caller whose strings are only
// valid for a while, such as Fiber's request values, copies them first.
// Normalize is safe for concurrent use.
func Normalize(a providers.Address) (Normalized, error) {
	street := strings.TrimSpace(a.Street)
	city := strings.TrimSpace(a.City)
	state := strings.TrimSpace(a.State)
	zip := strings.TrimSpace(a.Zip)

	var ebuf [4]providers.ParamError
	errs := ebuf[:0]
	fail := func(param, msg string) { errs = append(errs, providers.ParamError{Parameter: param, Message: msg}) }

	if msg := checkText(a.Street, street, true); msg != "" {
		fail("street", msg)
	}
	if msg := checkText(a.City, city, false); msg != "" {
		fail("city", msg)
	}
	if msg := checkChars(a.Unit); msg != "" {
		fail("unit", msg)
	}
	var stateCode, zip5 string
	if msg := checkChars(a.State); msg != "" {
		fail("state", msg)
	} else if state == "" {
		fail("state", "is required")
	} else if code, ok := StateCode(state); !ok {
		fail("state", "must be a US state, DC or territory: a two-letter USPS code or its name")
	} else {
		stateCode = code
	}
	if msg := checkChars(a.Zip); msg != "" {
		fail("zip", msg)
	} else if zip != "" {
		if z, ok := ZipCode(zip); ok {
			zip5 = z
		} else {
			fail("zip", "must be 5 digits or ZIP+4 (12345-6789)")
		}
	}
	if len(errs) > 0 {
		return Normalized{}, invalid(errs)
	}

	var buf [maxTokens]string
	var abuf [maxTokens]int
	upper := strings.ToUpper(street)
	toks, at := tokenizeAt(upper, buf[:0], abuf[:0])
	if isPOBox(toks) {
		return Normalized{}, &providers.Error{
			Kind:    providers.KindUnprocessable,
			Code:    providers.CodeNotAProperty,
			Message: "a post office box or private mailbox is not a property",
			Params: []providers.ParamError{{Parameter: "street",
				Message: "is a post office box or private mailbox, not a property address"}},
		}
	}
	n := Normalized{State: stateCode, Zip: zip5}
	var end int
	n.Street, n.Unit, end = normalizeStreet(toks, true)
	n.City = City(city)
	cut := len(upper)
	if end < len(at) {
		cut = at[end]
	}
	n.Written = providers.Address{Street: writtenStreet(street, upper, cut), City: asWritten(city),
		State: stateCode, Zip: zip5}
	if unit := strings.TrimSpace(a.Unit); unit != "" {
		return n.withUnit(unit)
	}
	return n, nil
}

// withUnit is n with unit, a secondary unit given apart from the street,
// as its unit. The unit is read as if typed after a '#' on the street
// line, so "Apt 4B" is "APT 4B" and a bare "4B" is "# 4B": the units a
// client typing "12 Elm St Apt 4B" or "12 Elm St #4B" gets, so that both
// ways of giving a unit name one record. A unit that does not parse as
// one, or that differs from the unit the street already names, is an
// invalid unit.
func (n Normalized) withUnit(unit string) (Normalized, error) {
	u, err := Normalize(providers.Address{Street: n.Street + " # " + unit, State: n.State})
	if err != nil || u.Unit == "" || u.Street != n.Street {
		return Normalized{}, providers.Invalid("unit", `is not a secondary unit such as "Apt 4B" or "4B"`)
	}
	if n.Unit != "" && n.Unit != u.Unit {
		return Normalized{}, providers.Invalid("unit", "is "+u.Unit+" but the street names "+n.Unit)
	}
	n.Unit = u.Unit
	return n, nil
}

// invalid returns one invalid_parameter error naming every field in errs.
func invalid(errs []providers.ParamError) error { return providers.InvalidParams(errs...) }

// City returns a city name in the form Normalized.City holds it: upper case,
// punctuation removed, single spaces. Use it wherever a client gives a city
// (a search filter, say) so it compares equal to stored records.
func City(s string) string {
	var buf [maxTokens]string
	return joinWords(dropHashes(tokenize(strings.ToUpper(s), buf[:0])))
}

// joinWords joins words with single spaces.
func joinWords(w []string) string {
	switch len(w) {
	case 0:
		return ""
	case 1:
		return w[0]
	}
	var b strings.Builder
	for i, t := range w {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// ZipCode returns the five-digit ZIP code of s, which may be "12345",
// "12345-6789" or "123456789" (the +4 is dropped), and ok=false for
// anything else.
func ZipCode(s string) (zip string, ok bool) {
	switch {
	case len(s) == 5 && asciiDigits(s):
	case len(s) == 10 && s[5] == '-' && asciiDigits(s[:5]) && asciiDigits(s[6:]):
	case len(s) == 9 && asciiDigits(s):
	default:
		return "", false
	}
	return s[:5], true
}

func asciiDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Canonical returns the normalized form of a geocoder's one-line matched
// address ("1600 Pennsylvania Ave NW, WASHINGTON, DC, 20502") so the store's
// unique constraint compares like with like: the street part gets the
// street normalization of Normalize (no unit is parsed off it), the city is
// normalized as City, a state name becomes its code, a ZIP+4 its five
// digits, and the parts are joined with ", ". Other parts are normalized as
// a city. Canonical(Canonical(s)) == Canonical(s). It is safe for
// concurrent use.
func Canonical(matchedAddress string) string {
	var b strings.Builder
	b.Grow(len(matchedAddress))
	for i := 0; ; i++ {
		part, rest, more := strings.Cut(matchedAddress, ",")
		part = strings.TrimSpace(part)
		if i > 0 {
			b.WriteString(", ")
		}
		switch i {
		case 0:
			var buf [maxTokens]string
			street, _, _ := normalizeStreet(tokenize(strings.ToUpper(part), buf[:0]), false)
			b.WriteString(street)
		case 2:
			b.WriteString(canonicalPart(part, StateCode))
		case 3:
			b.WriteString(canonicalPart(part, ZipCode))
		default:
			b.WriteString(City(part))
		}
		if !more {
			break
		}
		matchedAddress = rest
	}
	return b.String()
}

// canonicalPart returns parse(part), or parse of its city form, or its city
// form: trying the city form too keeps Canonical idempotent when part is
// only punctuation away from a state or ZIP code.
func canonicalPart(part string, parse func(string) (string, bool)) string {
	if v, ok := parse(part); ok {
		return v
	}
	c := City(part)
	if v, ok := parse(c); ok {
		return v
	}
	return c
}
