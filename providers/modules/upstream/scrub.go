package upstream

import (
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/propertyd/propertyd/providers"
)

// Redacted stands in, in an error's text, for what Scrub removed.
const Redacted = "<redacted>"

// Scrub returns err with every trace of private removed from its text: a
// module passes what it sent the upstream that a log must never show (the
// street, city and ZIP, the point's coordinates, an API key or a token),
// and gets back an error whose Error() and, for a *providers.Error,
// Message no longer hold any of them. Upstreams echo what they were sent:
// the census geocoder repeats the address in result.input of every answer,
// and an error page may quote the whole request URL, key= included. So
// the body snippets and decoding failures in an error's cause carry the
// request back into the logs unless they are scrubbed where the module
// still knows what it sent.
//
// Each private value is removed whole and, for a value of several words,
// word by word (words of at least four letters, or numbers of at least
// three digits, as whole words), so an upstream that echoes the address
// upper-cased, abbreviated or re-spaced is caught too. Each form is
// matched without regard to case, as written and in the encodings an echo
// uses: URL query and path escaping, a JSON string's escapes (with and
// without the HTML-safe ones) and HTML entities. Values shorter than
// three characters (a state's code) are not removed: they would remove
// too much of any text to leave it readable.
//
// A nil err, or one without text to scrub, is returned as it is;
// errors.Is and errors.As still find everything the original wrapped.
// The *providers.Error returned is a copy: a shared sentinel is never
// changed.
func Scrub(err error, private ...string) error {
	if err == nil {
		return nil
	}
	re := scrubPattern(private)
	if re == nil {
		return err
	}
	if pe, ok := err.(*providers.Error); ok {
		if pe.Err == nil && !re.MatchString(pe.Message) {
			return err
		}
		cp := *pe
		cp.Message = re.ReplaceAllLiteralString(pe.Message, Redacted)
		if pe.Err != nil {
			cp.Err = &scrubbed{err: pe.Err, re: re}
		}
		return &cp
	}
	return &scrubbed{err: err, re: re}
}

// Scrubber removes the same private values from many texts, as Scrub
// does, with its pattern compiled once. The zero value and nil remove
// nothing. It is safe for concurrent use.
type Scrubber struct{ re *regexp.Regexp }

// NewScrubber returns a Scrubber of private (see Scrub for what is removed).
func NewScrubber(private ...string) *Scrubber { return &Scrubber{re: scrubPattern(private)} }

// Text returns s with every trace of the private values replaced by
// Redacted, and whether it changed.
func (s *Scrubber) Text(text string) (string, bool) {
	if s == nil || s.re == nil || !s.re.MatchString(text) {
		return text, false
	}
	return s.re.ReplaceAllLiteralString(text, Redacted), true
}

// Coordinates returns p's latitude and longitude as the modules send them
// (shortest decimal form), for Scrub.
func Coordinates(p providers.Point) []string {
	return []string{strconv.FormatFloat(p.Lat, 'f', -1, 64), strconv.FormatFloat(p.Lng, 'f', -1, 64)}
}

// scrubbed is an error whose text has had a pattern removed; it unwraps to
// the original, so errors.Is and errors.As see the cause as it was.
type scrubbed struct {
	err error
	re  *regexp.Regexp
}

func (e *scrubbed) Error() string { return e.re.ReplaceAllLiteralString(e.err.Error(), Redacted) }

func (e *scrubbed) Unwrap() error { return e.err }

// scrubPattern compiles the one case-insensitive pattern of every form of
// every private value, longest first so that a whole value goes before its
// words; nil when there is nothing to remove.
func scrubPattern(private []string) *regexp.Regexp {
	whole := map[string]bool{}
	words := map[string]bool{}
	for _, v := range private {
		v = strings.TrimSpace(v)
		if len(v) < 3 {
			continue
		}
		for _, f := range encodings(v) {
			whole[f] = true
		}
		for _, w := range strings.FieldsFunc(v, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if scrubWord(w) {
				for _, f := range encodings(w) {
					words[f] = true
				}
			}
		}
	}
	if len(whole) == 0 {
		return nil
	}
	var alts []string
	for f := range whole {
		alts = append(alts, regexp.QuoteMeta(f))
	}
	for f := range words {
		if !whole[f] {
			alts = append(alts, `\b`+regexp.QuoteMeta(f)+`\b`)
		}
	}
	slices.SortFunc(alts, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	re, err := regexp.Compile(`(?i)` + strings.Join(alts, "|"))
	if err != nil { // QuoteMeta makes every alternative literal
		panic("upstream: scrub pattern: " + err.Error())
	}
	return re
}

// scrubWord reports whether w, one word of a private value, is removed on
// its own: a number of three digits or more (a house number, a ZIP, the
// digits of a coordinate) or a word of four letters or more.
func scrubWord(w string) bool {
	digits := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
	if digits {
		return len(w) >= 3
	}
	return len([]rune(w)) >= 4
}

// encodings returns v as written and as an echo may encode it.
func encodings(v string) []string {
	out := []string{v, url.QueryEscape(v), url.PathEscape(v), html.EscapeString(v)}
	if b, err := json.Marshal(v); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		s := strings.TrimSpace(sb.String())
		out = append(out, s[1:len(s)-1])
	}
	return out
}
