package address

import (
	"strings"
	"unicode/utf8"
)

// ParseUnit splits a street line into the building address and the
// secondary unit, both in the normalized form Normalize gives them:
// ParseUnit("123 North Main Street, Apartment #4-b") is ("123 N MAIN ST",
// "APT 4B"). It neither validates nor refuses anything (a PO box comes back
// as a street); use Normalize for client input. Unit is empty when the line
// names none. It is safe for concurrent use.
func ParseUnit(street string) (building, unit string) {
	var buf [maxTokens]string
	building, unit, _ = normalizeStreet(tokenize(strings.ToUpper(street), buf[:0]), true)
	return building, unit
}

// normalizeStreet turns the tokens of an upper-cased street line into the
// normalized building street and, when withUnit is set, the unit parsed off
// its end, which starts at toks[end] (end is len(toks) when there is none).
func normalizeStreet(toks []string, withUnit bool) (building, unit string, end int) {
	end = len(toks)
	if withUnit {
		var cbuf [maxTokens + 1]int
		p := newUnitParser(toks, cbuf[:0])
		var ubuf [4]unitSpan
		units := ubuf[:0]
		for {
			u, start, ok := p.lastUnit(end)
			if !ok {
				break
			}
			units = append(units, u)
			end = start
		}
		unit = joinUnits(units)
	}
	return buildingStreet(dropHashes(toks[:end])), unit, end
}

// unitParser parses units off the end of a street line. It precomputes what
// the guards need about every prefix of the line, so parsing many units
// stays linear.
type unitParser struct {
	toks []string
	// count[i] is the number of words (tokens other than '#') in toks[:i].
	count []int
	// house is the house number length, in words, of any prefix of two
	// words or more (it depends on the first two words only).
	house int
	// letter is the word position of the first word past the house number
	// holding a letter, or len(toks) when there is none.
	letter int
}

// newUnitParser returns a parser of toks that keeps p.count in count's
// storage when it fits. (A value, not a pointer: the buffers stay on the
// caller's stack.)
func newUnitParser(toks []string, count []int) unitParser {
	p := unitParser{toks: toks, letter: len(toks)}
	var wbuf [2]string
	w := wbuf[:0]
	n := 0
	count = append(count, 0)
	for _, t := range toks {
		if t != hash {
			if len(w) < 2 {
				w = append(w, t)
			}
			n++
		}
		count = append(count, n)
	}
	p.count = count
	p.house = houseLen(w)
	pos := 0
	for _, t := range toks {
		if t == hash {
			continue
		}
		if pos >= p.house && hasLetter(t) {
			p.letter = pos
			break
		}
		pos++
	}
	return p
}

// unitSpan is one parsed secondary unit: its standard designator ("APT", or
// "#" when only a pound sign was given) and its identifier ("4B"), which is
// empty for designators that stand alone ("REAR").
type unitSpan struct {
	designator string
	id         string
}

// lastUnit parses the secondary unit that ends toks[:e], if any, and
// returns it with the index of its first token. A unit is "DESIGNATOR ID",
// "# ID", "DESIGNATOR # ID", a designator run into its number ("APT4B") or
// a standalone designator ("REAR"). Units are parsed from the end, so
// several in a row ("BLDG C APT 4") are all found. The building left over
// must still look like a street (see rangeGuard and standaloneGuard), so
// that "123 Lot St" keeps its street name.
func (p *unitParser) lastUnit(e int) (u unitSpan, start int, ok bool) {
	toks := p.toks
	for e > 0 && toks[e-1] == hash { // "APT 4 #": the sign is noise
		e--
	}
	if e == 0 {
		return unitSpan{}, 0, false
	}
	// A directional typed apart ("UNIT N E") is tried as one identifier
	// first: the building writes it as one word ("NE"), and the normalized
	// line must parse as the input did.
	if e >= 3 {
		if id, ok := mergeDirectionals(toks[e-2], toks[e-1]); ok {
			if u, start, ok := p.unitBefore(e-2, id); ok {
				return u, start, true
			}
		}
	}
	last := toks[e-1]
	if validID(last) {
		if u, start, ok := p.unitBefore(e-1, last); ok {
			return u, start, true
		}
	}
	if std, id, ok := splitDesignator(last); ok && p.rangeGuard(e-1) {
		return unitSpan{designator: std, id: id}, e - 1, true
	}
	if std, ok := designators[last]; ok && standalone[std] && p.standaloneGuard(e-1) {
		return unitSpan{designator: std}, e - 1, true
	}
	return unitSpan{}, 0, false
}

// unitBefore parses the designator of identifier id, which starts at
// toks[i]: "APT 4", "# 4" or "APT # 4". When the building would end in a
// designator word and be too short without it ("0 UNIT # 4"), the pound
// sign alone is the designator.
func (p *unitParser) unitBefore(i int, id string) (u unitSpan, start int, ok bool) {
	toks := p.toks
	d := i - 1
	if d < 0 {
		return unitSpan{}, 0, false
	}
	if toks[d] != hash {
		if std, ok := rangeDesignator(toks[d]); ok && p.rangeGuard(d) {
			return unitSpan{designator: std, id: id}, d, true
		}
		return unitSpan{}, 0, false
	}
	if d > 0 {
		if std, ok := rangeDesignator(toks[d-1]); ok && p.rangeGuard(d-1) {
			return unitSpan{designator: std, id: id}, d - 1, true
		}
	}
	if p.rangeGuard(d) {
		return unitSpan{designator: hash, id: id}, d, true
	}
	return unitSpan{}, 0, false
}

// rangeGuard reports whether toks[:end] may be left as the building when a
// unit with an identifier follows: at least two words, one of them past
// the house number with a letter in it.
func (p *unitParser) rangeGuard(end int) bool {
	c := p.count[end]
	return c >= 2 && p.letter < c
}

// standaloneGuard reports whether toks[:end] may be left as the building
// when a standalone designator such as REAR follows: the street past the
// house number has at least two words and ends in a suffix or directional,
// so "100 Park Side" and "45 Ocean Front" keep their names.
func (p *unitParser) standaloneGuard(end int) bool {
	if p.count[end] < 2 || p.count[end]-p.house < 2 {
		return false
	}
	i := end - 1
	if p.toks[i] == hash { // runs of '#' are one token
		i--
	}
	last := p.toks[i]
	_, suffix := suffixes[last]
	_, dir := directionals[last]
	return suffix || dir
}

// splitDesignator splits a designator typed run into its identifier
// ("APT4B", "UNIT-3", "STE200") into the standard designator and the
// identifier, which must start with a digit.
func splitDesignator(s string) (designator, id string, ok bool) {
	p := 0
	for p < len(s) && 'A' <= s[p] && s[p] <= 'Z' {
		p++
	}
	if p == 0 || p == len(s) || s[p] < '0' || s[p] > '9' {
		return "", "", false
	}
	designator, ok = rangeDesignator(s[:p])
	if !ok {
		return "", "", false
	}
	return designator, s[p:], true
}

// validID reports whether id can identify a unit: it holds a digit, is a
// directional ("UNIT E"), or is a code of at most three characters that is
// neither a street suffix nor a designator ("BLDG C", "STE AB", but not the
// "RD" of "123 Old Unit Rd"). Like every rule here it depends on the class
// of a word, never on its spelling ("WEST" and "W", "OFFICE" and "OFC" are
// treated alike), since normalization changes spellings.
func validID(id string) bool {
	if hasDigit(id) {
		return true
	}
	if _, dir := directionals[id]; dir {
		return true
	}
	_, suffix := suffixes[id]
	_, designator := designators[id]
	return !suffix && !designator && utf8.RuneCountInString(id) <= 3
}

// rangeDesignator returns the standard form of a designator that takes an
// identifier. Standalone designators never do: "SIDE", "FRONT" or "LOWER"
// followed by a word are far more often a street name ("LAKE SIDE W").
func rangeDesignator(s string) (string, bool) {
	std, ok := designators[s]
	return std, ok && !standalone[std]
}

func joinUnits(units []unitSpan) string {
	switch len(units) {
	case 0:
		return ""
	case 1:
		if units[0].id == "" {
			return units[0].designator
		}
		return units[0].designator + " " + units[0].id
	}
	var b strings.Builder
	for i := len(units) - 1; i >= 0; i-- { // parsed from the end
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(units[i].designator)
		if units[i].id != "" {
			b.WriteByte(' ')
			b.WriteString(units[i].id)
		}
	}
	return b.String()
}

// houseLen returns how many of the leading tokens (pound signs removed)
// form the house number: a first word starting with a digit that is not an
// ordinal ("123", "123-45", "12A"), and a fraction that follows ("1/2").
func houseLen(w []string) int {
	if len(w) == 0 || !startsWithDigit(w[0]) || isOrdinal(w[0]) {
		return 0
	}
	if len(w) > 1 && isFraction(w[1]) {
		return 2
	}
	return 1
}

// buildingStreet writes the building address in standard form: house
// number, pre-directional, street name, suffix, post-directional.
func buildingStreet(w []string) string {
	if len(w) == 0 {
		return ""
	}
	var b strings.Builder
	size := 0
	for _, t := range w {
		size += len(t) + 1
	}
	b.Grow(size)

	hl := houseLen(w)
	for _, t := range w[:hl] {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	var wbuf [maxTokens]string
	words := wbuf[:0]
	for _, t := range w[hl:] {
		words = append(words, t)
	}
	writeStreetWords(&b, words)
	return b.String()
}

// writeStreetWords classifies the street words after the house number and
// writes them in standard form. Every decision depends only on whether a
// word is a directional, a suffix or a number, never on its spelling, so a
// normalized street classifies as the spelling it came from did.
//
//   - A trailing directional is a post-directional ("ST W", "AVE NW", also
//     typed "N W") unless it is the only word ("100 NORTH").
//   - The last word before it is the suffix, abbreviated, when a name is
//     left before it ("NORTH ST", but "123 PARK" keeps PARK). In a numbered
//     route ("HIGHWAY 50") the word before the number is abbreviated.
//   - A leading directional is a pre-directional when a name is left after
//     it: "N MAIN ST", but "NORTH ST" and "WEST AVE" are names.
//   - A one-word name that is a spelled ordinal is written as a number.
func writeStreetWords(b *strings.Builder, words []string) {
	lo, hi := 0, len(words)
	var pre, post, suffix string
	if hi-lo >= 3 {
		if d, ok := mergeDirectionals(words[hi-2], words[hi-1]); ok {
			post, hi = d, hi-2
		}
	}
	if post == "" && hi-lo >= 2 {
		if d, ok := directionals[words[hi-1]]; ok {
			post, hi = d, hi-1
		}
	}
	route := -1
	if hi-lo >= 2 {
		if s, ok := suffixes[words[hi-1]]; ok {
			suffix, hi = s, hi-1
		} else if _, ok := suffixes[words[hi-2]]; ok && startsWithDigit(words[hi-1]) {
			route = hi - 2
		}
	}
	if hi-lo >= 3 {
		if d, ok := mergeDirectionals(words[lo], words[lo+1]); ok {
			pre, lo = d, lo+2
		}
	}
	if pre == "" && hi-lo >= 2 {
		if d, ok := directionals[words[lo]]; ok {
			pre, lo = d, lo+1
		}
	}
	write := func(s string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	if pre != "" {
		write(pre)
	}
	for i := lo; i < hi; i++ {
		switch {
		case i == route:
			write(suffixes[words[i]])
		case hi-lo == 1:
			if o, ok := ordinals[words[i]]; ok {
				write(o)
			} else {
				write(words[i])
			}
		default:
			write(words[i])
		}
	}
	if suffix != "" {
		write(suffix)
	}
	if post != "" {
		write(post)
	}
}

// mergeDirectionals joins a north/south and an east/west word typed apart
// ("N W", "NORTH WEST", "N.W.") into one directional.
func mergeDirectionals(a, b string) (string, bool) {
	ns, ew := directionals[a], directionals[b]
	switch {
	case ns == "N" && ew == "E":
		return "NE", true
	case ns == "N" && ew == "W":
		return "NW", true
	case ns == "S" && ew == "E":
		return "SE", true
	case ns == "S" && ew == "W":
		return "SW", true
	}
	return "", false
}

// isPOBox reports whether the tokens of a street line name a post office
// box, a private mailbox or general delivery rather than a building: "PO BOX
// 12", "P O BOX", "POST OFFICE BOX", "POB 12", "POBOX12", "BOX 12" as the
// whole street, "PMB 34" anywhere. Streets that merely contain the letters
// ("BOXWOOD LN", "BOX ELDER ST", "123 POST OFFICE RD") are not.
func isPOBox(toks []string) bool {
	var buf [maxTokens]string
	w := dropHashes(append(buf[:0], toks...))
	at := func(i int) string {
		if i < len(w) {
			return w[i]
		}
		return ""
	}
	for i, t := range w {
		switch t {
		case "PMB", "POBOX":
			return true
		case "P":
			if at(i+1) == "O" && (isBoxWord(at(i+2)) || at(i+2) == "B" && startsWithDigit(at(i+3))) {
				return true
			}
			if at(i+1) == "M" && at(i+2) == "B" {
				return true
			}
		case "PO":
			if isBoxWord(at(i+1)) || at(i+1) == "B" && startsWithDigit(at(i+2)) || startsWithDigit(at(i+1)) && i == 0 {
				return true
			}
		case "POST":
			if isBoxWord(at(i+1)) || at(i+1) == "OFFICE" && isBoxWord(at(i+2)) {
				return true
			}
		case "POSTOFFICE":
			if isBoxWord(at(i + 1)) {
				return true
			}
		case "POB":
			if startsWithDigit(at(i + 1)) {
				return true
			}
		case "GENERAL":
			if at(i+1) == "DELIVERY" {
				return true
			}
		default:
			if strings.HasPrefix(t, "POBOX") && allDigits(t[5:]) {
				return true
			}
			if i == 0 && isBoxWord(t) && (t != "BOX" || startsWithDigit(at(1))) {
				return true
			}
		}
	}
	return false
}

// isBoxWord reports whether s is "BOX" or "BOX" run into its number ("BOX12").
func isBoxWord(s string) bool {
	return s == "BOX" || strings.HasPrefix(s, "BOX") && allDigits(s[3:])
}
