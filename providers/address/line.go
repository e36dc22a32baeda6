package address

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/propertyd/propertyd/providers"
)

// MaxLineLen is the most characters (runes, surrounding spaces aside) a
// one-line address may have: a street and a city at their longest do not
// fit, but no real address comes near it.
const MaxLineLen = 200

// NormalizeAny normalizes a client address given in fields (Normalize) or
// as one line (NormalizeLine, when a.Line is set; no other field may be
// set then: OneForm).
func NormalizeAny(a providers.Address) (Normalized, error) {
	if a.Line != "" {
		if err := OneForm(a.Line, a); err != nil {
			return Normalized{}, err
		}
		return NormalizeLine(a.Line)
	}
	return Normalize(a)
}

// OneForm checks an address given as the line q (a request's q=, a batch
// item's "q", given even when empty): no field of a may be given with it
// (KindInvalid naming q and each field given), and q must not be blank.
// Every caller that takes both forms refuses the mix with these words.
func OneForm(q string, a providers.Address) error {
	var errs []providers.ParamError
	for _, f := range [...]struct{ name, value string }{{"street", a.Street}, {"unit", a.Unit}, {"city", a.City},
		{"state", a.State}, {"zip", a.Zip}} {
		if f.value != "" {
			errs = append(errs, providers.ParamError{Parameter: f.name, Message: "must not be given with q: give the address in one line (q) or in fields (street, ...), not both"})
		}
	}
	if len(errs) > 0 {
		return providers.InvalidParams(append([]providers.ParamError{{Parameter: "q", Message: "must not be given with " + errs[0].Parameter + ": give the address in one line (q) or in fields (street, ...), not both"}}, errs...)...)
	}
	if strings.TrimSpace(q) == "" {
		return providers.Invalid("q", "must not be empty")
	}
	return nil
}

// NormalizeLine reads a whole address typed in one line ("350 5th Ave, New
// York, NY 10118") into the same normalized form, hence the same key, as
// the address in fields would have: the record is the same whichever form
// found it. The line is sent to a geocoder as written (Written.Line), since
// its own parser reads one-line addresses.
//
// The parts are found from the end: a ZIP code (or ZIP+4) as the last
// word, then the state as its USPS code or its name (up to three words:
// "District of Columbia"). Commas then separate the street (the first
// part, with any part between it and the city, such as "Apt 4") from the
// city (the part before the state, or what precedes the state in its own
// part). Without commas the street is taken to end at its first suffix
// after a name ("2525 Buckelew Dr Falls Church VA": street "2525 BUCKELEW
// DR", city "FALLS CHURCH"), with a directional after it; a line with no
// suffix is all street. Commas are the sure way.
//
// Errors are KindInvalid naming q: empty, too long, control characters or
// invalid UTF-8, no state, or a part Normalize refuses (the message names
// the part); KindUnprocessable not_a_property for a PO box.
func NormalizeLine(line string) (Normalized, error) {
	bad := func(msg string) (Normalized, error) { return Normalized{}, providers.Invalid("q", msg) }
	if msg := checkChars(line); msg != "" {
		return bad(msg)
	}
	clean := asWritten(line)
	switch {
	case clean == "":
		return bad("must not be empty")
	case utf8.RuneCountInString(clean) > MaxLineLen:
		return bad("must be at most 200 characters")
	}
	var parts []string
	for p := range strings.SplitSeq(clean, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return bad("must contain a letter or digit")
	}
	// The ZIP code: the last word.
	var zip string
	// Each part is trimmed and not empty: it has a last word.
	last := strings.Fields(parts[len(parts)-1])
	if z := last[len(last)-1]; validZip(z) {
		zip, last = z, last[:len(last)-1]
		if len(last) == 0 {
			parts = parts[:len(parts)-1]
			if len(parts) == 0 {
				return bad("must hold a street and a state, such as \"350 5th Ave, New York, NY 10118\"")
			}
			last = strings.Fields(parts[len(parts)-1])
		}
	}
	// The state: a USPS code as the last word, else the longest run of
	// last words that names one ("West Virginia", not "Virginia"); a code
	// first, so the city of "Washington DC" stays a city.
	state := ""
	if w := last[len(last)-1]; len(w) == 2 && IsState(w) {
		state, last = w, last[:len(last)-1]
	}
	for n := min(3, len(last)); n >= 1 && state == ""; n-- {
		if _, ok := StateCode(strings.Join(last[len(last)-n:], " ")); ok {
			state, last = strings.Join(last[len(last)-n:], " "), last[:len(last)-n]
		}
	}
	if state == "" {
		return bad("must name the state after the street and city, such as \"350 5th Ave, New York, NY 10118\"")
	}
	var street, city string
	switch {
	case len(parts) == 1:
		street, city = splitStreetCity(last)
	case len(last) > 0:
		city = strings.Join(last, " ")
		street = strings.Join(parts[:len(parts)-1], " ")
	case len(parts) == 2:
		street = parts[0]
	default:
		city = parts[len(parts)-2]
		street = strings.Join(parts[:len(parts)-2], " ")
	}
	n, err := Normalize(providers.Address{Street: street, City: city, State: state, Zip: zip})
	if err != nil {
		return Normalized{}, asLineError(err)
	}
	n.Written = providers.Address{Line: clean}
	return n, nil
}

// splitStreetCity splits the words of a line without commas, state and ZIP
// taken off, into the street and the city: the street ends at the first
// suffix that has a house number and a name before it (and a directional
// right after it stays with it).
func splitStreetCity(words []string) (street, city string) {
	for i := 2; i < len(words)-1; i++ {
		u := strings.ToUpper(strings.TrimRightFunc(words[i], func(r rune) bool { return !unicode.IsLetter(r) }))
		if _, ok := suffixes[u]; !ok || !startsWithDigit(words[0]) {
			continue
		}
		end := i + 1
		if _, ok := directionals[strings.ToUpper(strings.Trim(words[end], "."))]; ok {
			end++
		}
		return strings.Join(words[:end], " "), strings.Join(words[end:], " ")
	}
	return strings.Join(words, " "), ""
}

// asLineError names q, the parameter the client gave, in an error of
// Normalize about one of the parts it was read into.
func asLineError(err error) error {
	pe := providers.As(err)
	if len(pe.Params) == 0 {
		return err
	}
	params := make([]providers.ParamError, len(pe.Params))
	for i, p := range pe.Params {
		params[i] = providers.ParamError{Parameter: "q", Message: "the " + p.Parameter + " " + p.Message}
	}
	if pe.Kind == providers.KindInvalid {
		return providers.InvalidParams(params...)
	}
	cp := *pe
	cp.Params = params
	return &cp
}

// validZip reports whether z is a ZIP code ZipCode accepts.
func validZip(z string) bool {
	_, ok := ZipCode(z)
	return ok
}
