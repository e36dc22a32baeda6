package address

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// hash is the pound-sign token.
const hash = "#"

// maxTokens is the number of tokens the stack buffers hold; a 100-character
// street has at most 51. Longer inputs (Canonical, ParseUnit) spill to the
// heap and are still handled.
const maxTokens = 64

// tokenize appends the tokens of the upper-cased field u to toks. A token
// holds letters, digits and combining marks, and a '-' or '/' only between
// two digits ("123-45", "1/2"); or it is "#" for a pound sign.
//
// An apostrophe inside a word is dropped ("O'BRIEN" is "OBRIEN"). A '-' or
// '/' next to a digit glues its neighbours into one word and is kept only
// between two digits: "123-45" and "1/2" stay, "4-B" is "4B", "I-95" is
// "I95". Between two letters it separates words ("WILKES BARRE"). A run of
// '#' is one pound-sign token. Every other character that is not a letter,
// digit or mark separates words. Because a token re-tokenizes to itself,
// normalized output parses exactly as the input it came from.
func tokenize(u string, toks []string) []string {
	toks, _ = tokenizeAt(u, toks, nil)
	return toks
}

// tokenizeAt is tokenize that also appends to at, unless at is nil, the
// byte offset in u where each token starts, so that a cut between tokens
// can be made in the text as typed (see writtenStreet).
func tokenizeAt(u string, toks []string, at []int) ([]string, []int) {
	start := -1    // byte offset of the current token, or -1
	clean := false // the current token holds characters to drop
	var last rune  // last word character of the current token
	for i := 0; i < len(u); {
		r, size := utf8.DecodeRuneInString(u[i:])
		next := i + size
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			last = r
			i = next
			continue
		}
		if start >= 0 {
			nr, _ := utf8.DecodeRuneInString(u[next:])
			if next < len(u) && isWordRune(nr) {
				if isApostrophe(r) {
					clean = true
					i = next
					continue
				}
				if (r == '-' || r == '/') && (isDigitRune(last) || isDigitRune(nr)) {
					if !isDigitRune(last) || !isDigitRune(nr) {
						clean = true
					}
					i = next
					continue
				}
			}
			toks = appendToken(toks, u[start:i], clean)
			if at != nil {
				at = append(at, start)
			}
			start, clean = -1, false
		}
		if r == '#' && (len(toks) == 0 || toks[len(toks)-1] != hash) {
			toks = append(toks, hash) // "##" is one pound sign
			if at != nil {
				at = append(at, i)
			}
		}
		i = next
	}
	if start >= 0 {
		toks = appendToken(toks, u[start:], clean)
		if at != nil {
			at = append(at, start)
		}
	}
	return toks, at
}

// appendToken appends the word text; when clean is set it first drops the
// apostrophes and the '-' and '/' that are not between two digits.
func appendToken(toks []string, text string, clean bool) []string {
	if clean {
		var b strings.Builder
		b.Grow(len(text))
		var prev rune
		for i, r := range text {
			switch {
			case isApostrophe(r):
				continue
			case r == '-' || r == '/':
				nr, _ := utf8.DecodeRuneInString(text[i+1:])
				if !isDigitRune(prev) || !isDigitRune(nr) {
					continue
				}
			}
			b.WriteRune(r)
			prev = r
		}
		text = b.String()
	}
	return append(toks, text)
}

// dropHashes removes the pound-sign tokens from toks, in place.
func dropHashes(toks []string) []string {
	out := toks[:0]
	for _, t := range toks {
		if t != hash {
			out = append(out, t)
		}
	}
	return out
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

func isDigitRune(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}

func isApostrophe(r rune) bool {
	return r == '\'' || r == '`' || r == '\u2018' || r == '\u2019'
}

// startsWithDigit reports whether s begins with a decimal digit.
func startsWithDigit(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isDigitRune(r)
}

// isFraction reports whether s is a fraction such as "1/2".
func isFraction(s string) bool {
	num, den, ok := strings.Cut(s, "/")
	return ok && allDigits(num) && allDigits(den)
}

// allDigits reports whether s is non-empty and only decimal digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !isDigitRune(r) {
			return false
		}
	}
	return true
}

// hasDigit and hasLetter report whether s holds a decimal digit or a letter.
func hasDigit(s string) bool {
	for _, r := range s {
		if isDigitRune(r) {
			return true
		}
	}
	return false
}

func hasLetter(s string) bool {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' {
				return true
			}
		} else if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// isOrdinal reports whether s is a numeric ordinal such as "1ST" or "22ND",
// which starts a street name, not a house number.
func isOrdinal(s string) bool {
	n := len(s)
	if n < 3 || !allDigits(s[:n-2]) {
		return false
	}
	switch s[n-2:] {
	case "ST", "ND", "RD", "TH":
		return true
	}
	return false
}
