package gateway

import (
	"bytes"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
)

// maxParamLen bounds any single query parameter value.
const maxParamLen = 200

// queryParams reads the query string strictly: every parameter must be one
// of allowed, appear at most once, be valid UTF-8 without control characters
// and be at most maxParamLen bytes. Values are copied, so they outlive the
// request; include= is checked but not kept, since includes parses it once
// into the request's state. All problems are reported at once.
func queryParams(c *fiber.Ctx, allowed ...string) (map[string]string, error) {
	if c.Context().QueryArgs().Len() == 0 {
		return nil, nil // reads of a nil map find nothing, and it costs no allocation
	}
	out := make(map[string]string, len(allowed))
	var errs []providers.ParamError
	var seen uint64 // bit i: allowed[i] was given (no endpoint allows 64)
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		i := slices.IndexFunc(allowed, func(a string) bool { return a == string(k) })
		if i < 0 {
			errs = append(errs, providers.ParamError{Parameter: printable(string(k)), Message: "unknown parameter (allowed: " + strings.Join(allowed, ", ") + ")"})
			return
		}
		name := allowed[i]
		switch {
		case seen&(1<<i) != 0:
			errs = append(errs, providers.ParamError{Parameter: name, Message: "given more than once"})
		case len(v) > maxParamLen:
			errs = append(errs, providers.ParamError{Parameter: name, Message: "longer than " + strconv.Itoa(maxParamLen) + " bytes"})
		case !utf8.Valid(v) || hasControl(v):
			errs = append(errs, providers.ParamError{Parameter: name, Message: "contains invalid characters"})
		case name == "include":
			// Parsed once, by includes, into the request's state.
		default:
			out[name] = string(v)
		}
		seen |= 1 << i
	})
	if len(errs) > 0 {
		return nil, invalid(errs...)
	}
	return out, nil
}

// checkEscapes refuses a query string with a malformed percent-escape
// (a % not followed by two hex digits, as in street=1%zzMain), which
// fasthttp would otherwise pass on as the literal text: it is a 400 naming
// the parameter, before anything is charged or sent upstream.
func checkEscapes(raw []byte) error {
	if bytes.IndexByte(raw, '%') < 0 {
		return nil
	}
	var errs []providers.ParamError
	for pair := range bytes.SplitSeq(raw, []byte("&")) {
		if !validEscapes(pair) {
			name, _, _ := bytes.Cut(pair, []byte("=")) // as written
			errs = append(errs, providers.ParamError{Parameter: printable(string(name)),
				Message: "contains a malformed percent-escape (% must be followed by two hex digits; write a literal % as %25)"})
		}
	}
	if len(errs) > 0 {
		return invalid(errs...)
	}
	return nil
}

// validEscapes reports whether every % in b starts an escape of two hex
// digits.
func validEscapes(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] == '%' {
			if i+2 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func invalid(errs ...providers.ParamError) *providers.Error { return providers.InvalidParams(errs...) }

func hasControl(b []byte) bool {
	// C0 controls and DEL are single bytes in UTF-8, and no byte of a
	// longer sequence is below 0x80, so bytes can be checked one by one.
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

// printable makes an unknown parameter name safe to echo.
func printable(s string) string {
	if len(s) > 40 {
		s = s[:40]
	}
	if !utf8.ValidString(s) || hasControl([]byte(s)) {
		return strconv.Quote(s)
	}
	return s
}

func splitComma(s string) []string {
	parts := strings.Split(s, ",")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseIncludes reads include=: a comma-separated list of section names in
// which blanks and duplicates are ignored; an unknown name is invalid and
// the error lists the allowed ones. The result is in canonical order, with
// the sum of the sections' costs: each name is looked up in the catalogue
// once, here.
func (g *Gateway) parseIncludes(raw string) ([]string, int, error) {
	var want uint64 // bit i: g.public[i] is included
	for name := range strings.SplitSeq(raw, ",") {
		if name = strings.ToLower(strings.TrimSpace(name)); name == "" {
			continue
		}
		i := slices.Index(g.public, name)
		if i < 0 || !g.allowed[name] {
			return nil, 0, invalid(providers.ParamError{Parameter: "include",
				Message: "unknown section " + strconv.Quote(printable(name)) + " (allowed: " + strings.Join(g.sectionList(), ", ") + ")"})
		}
		want |= 1 << i
	}
	if want == 0 {
		return nil, 0, nil
	}
	out, cost := make([]string, 0, bits.OnesCount64(want)), 0
	for i, name := range g.public {
		if want&(1<<i) != 0 {
			out, cost = append(out, name), cost+g.publicCost[i]
		}
	}
	return out, cost, nil
}

func (g *Gateway) sectionList() []string {
	var out []string
	for _, name := range service.PublicSections() {
		if g.allowed[name] {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return []string{"(none configured)"}
	}
	sort.Strings(out)
	return out
}

// includes parses include= once per request and keeps the result, since the
// cost function and the handler both need it.
func (g *Gateway) includes(c *fiber.Ctx) ([]string, error) {
	st := stateOf(c)
	if st.includes != nil {
		return st.includes, nil
	}
	args := c.Context().QueryArgs()
	if n := len(args.PeekMulti("include")); n > 1 {
		return nil, invalid(providers.ParamError{Parameter: "include", Message: "given more than once"})
	}
	inc, cost, err := g.parseIncludes(string(args.Peek("include")))
	if err != nil {
		return nil, err
	}
	if inc == nil {
		inc = []string{}
	}
	st.includes, st.includeCost = inc, cost
	return inc, nil
}

// recordCost is what a record costs a key's budget, before any section.
const recordCost = 1

// costOfIncludes is recordCost plus the cost of each distinct section
// included (1 each in the catalogue).
func (g *Gateway) costOfIncludes(c *fiber.Ctx) (int, error) {
	if _, err := g.includes(c); err != nil {
		return 0, err
	}
	return recordCost + stateOf(c).includeCost, nil
}

// parseInt reads an integer parameter within [min, max], written as plain
// decimal digits: no sign, no leading zero, no spaces, no Go syntax such as
// 1_000 or 0x10 (strconv would take some of those).
func parseInt(params map[string]string, name string, def, min, max int) (int, *providers.ParamError) {
	v, ok := params[name]
	if !ok {
		return def, nil
	}
	if !plainInteger(v) {
		return 0, &providers.ParamError{Parameter: name, Message: "must be an integer written in decimal digits"}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		return 0, &providers.ParamError{Parameter: name, Message: "must be between " + strconv.Itoa(min) + " and " + strconv.Itoa(max)}
	}
	return n, nil
}

// parseFloat reads a required number within [min, max], written as plain
// decimal: an optional minus sign, digits, and optionally a point and more
// digits (38.8977, -77, 0.5). Exponents, hex floats, underscores, a plus
// sign, Inf and NaN are refused.
func parseFloat(params map[string]string, name string, min, max float64) (float64, *providers.ParamError) {
	v, ok := params[name]
	if !ok || v == "" {
		return 0, &providers.ParamError{Parameter: name, Message: "is required"}
	}
	if !plainDecimal(v) {
		return 0, &providers.ParamError{Parameter: name, Message: "must be a decimal number such as -77.0365"}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < min || f > max {
		return 0, &providers.ParamError{Parameter: name, Message: "must be between " +
			strconv.FormatFloat(min, 'f', -1, 64) + " and " + strconv.FormatFloat(max, 'f', -1, 64)}
	}
	return f, nil
}

// plainInteger reports whether s is a non-negative integer in decimal
// digits without a leading zero ("0" itself is plain).
func plainInteger(s string) bool {
	if s == "" || len(s) > 19 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	return digitsOnly(s)
}

// plainDecimal reports whether s is -?digits(.digits)?.
func plainDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, frac, hasPoint := strings.Cut(s, ".")
	return whole != "" && len(s) <= 40 && digitsOnly(whole) && (!hasPoint || (frac != "" && digitsOnly(frac)))
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
