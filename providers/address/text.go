package address

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The text of a client's address: what it may not hold (checkText,
// checkChars), and how it is kept as written for the geocoder (asWritten,
// writtenStreet), for the fields and the one-line form alike.

// writtenStreet returns the street line as the client typed it (trimmed,
// valid UTF-8) up to the byte offset cut of its upper-cased form upper,
// where a parsed unit starts (len(upper) when there is none), with the
// separators before the unit dropped and blanks and apostrophes as
// asWritten writes them.
func writtenStreet(street, upper string, cut int) string {
	if cut < len(upper) {
		// strings.ToUpper maps rune for rune, so the cut lies as many
		// runes into the street as typed.
		i := 0
		for n := utf8.RuneCountInString(upper[:cut]); n > 0; n-- {
			_, size := utf8.DecodeRuneInString(street[i:])
			i += size
		}
		street = trimSeparators(street[:i])
	}
	return asWritten(street)
}

// trimSeparators drops what ends s after its last word: blanks, commas,
// pound signs, brackets, dashes. A period or apostrophe right after a word
// stays ("Main St." keeps its period).
func trimSeparators(s string) string {
	for s != "" {
		r, size := utf8.DecodeLastRuneInString(s)
		if isWordRune(r) {
			break
		}
		if r == '.' || isApostrophe(r) {
			if p, _ := utf8.DecodeLastRuneInString(s[:len(s)-size]); isWordRune(p) {
				break
			}
		}
		s = s[:len(s)-size]
	}
	return s
}

// asWritten returns s trimmed, with every run of blanks one space and each
// apostrophe (typographic, or a backtick typed for one) the ASCII
// apostrophe, which is how TIGER writes the names the geocoder matches: a
// phone keyboard's "O’Brien" is "O'Brien" there. Everything else stays as
// typed. It returns s itself when nothing changes.
func asWritten(s string) string {
	clean := true
	prevSpace := true // a leading blank needs work too
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			if prevSpace || r != ' ' {
				clean = false
			}
			prevSpace = true
		case isApostrophe(r) && r != '\'':
			clean = false
			prevSpace = false
		default:
			prevSpace = false
		}
		if !clean {
			break
		}
	}
	if clean && !prevSpace || s == "" {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, w := range strings.Fields(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		for _, r := range w {
			if isApostrophe(r) {
				r = '\''
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checkText returns what is wrong with a street or city (raw as sent,
// trimmed without surrounding spaces), or "".
func checkText(raw, trimmed string, required bool) string {
	if msg := checkChars(raw); msg != "" {
		return msg
	}
	if trimmed == "" {
		if required {
			return "is required"
		}
		return ""
	}
	if utf8.RuneCountInString(trimmed) > MaxLen {
		return "must be at most 100 characters"
	}
	for _, r := range trimmed {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return ""
		}
	}
	return "must contain a letter or digit"
}

// checkChars returns what is wrong with the characters of a field, or "".
func checkChars(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return "must not contain control characters"
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return "must be valid UTF-8"
		}
		if unicode.IsControl(r) {
			return "must not contain control characters"
		}
		i += size
	}
	return ""
}
