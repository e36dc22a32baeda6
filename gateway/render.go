package gateway

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/valyala/fasthttp"
)

// appendRecord appends the JSON of a property record to b: the same bytes
// encoding/json would write for the documented shape (a test holds it to
// that), without reflection, since every response renders records. Unknown
// values are null, never "" (a reverse-geocoded record has no street
// address).
func appendRecord(b []byte, p *providers.Property) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, p.ID, 10)
	for _, f := range [...]struct {
		name, value string
	}{
		{`,"street_address":`, p.StreetAddress}, {`,"unit":`, p.Unit}, {`,"city":`, p.City},
		{`,"state":`, p.State}, {`,"zip_code":`, p.ZipCode}, {`,"county":`, p.County},
		{`,"fips_code":`, p.FIPSCode}, {`,"census_tract":`, p.CensusTract},
	} {
		b = append(b, f.name...)
		if f.value == "" {
			b = append(b, "null"...)
		} else {
			b = appendJSONString(b, f.value)
		}
	}
	b = append(b, `,"latitude":`...)
	b = appendJSONFloat(b, p.Latitude)
	b = append(b, `,"longitude":`...)
	b = appendJSONFloat(b, p.Longitude)
	b = append(b, `,"property_type":`...)
	if p.PropertyType == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, *p.PropertyType)
	}
	b = appendInt(append(b, `,"bedrooms":`...), p.Bedrooms)
	b = appendFloat(append(b, `,"bathrooms":`...), p.Bathrooms)
	b = appendInt(append(b, `,"living_area_sqft":`...), p.LivingAreaSqft)
	b = appendInt(append(b, `,"lot_sqft":`...), p.LotSqft)
	b = appendInt(append(b, `,"year_built":`...), p.YearBuilt)
	b = appendFloat(append(b, `,"stories":`...), p.Stories)
	b = appendInt(append(b, `,"units":`...), p.Units)
	// The provenance is stored as the JSON it is shown as (MergeFacts).
	b = append(b, `,"facts":`...)
	if p.FactsOrigin == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, p.FactsOrigin...)
	}
	b = append(b, `,"created_at":"`...)
	b = p.CreatedAt.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","updated_at":"`...)
	b = p.UpdatedAt.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, `"}`...)
}

func appendInt(b []byte, v *int) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(*v), 10)
}

func appendFloat(b []byte, v *float64) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return appendJSONFloat(b, *v)
}

// jsonPlain marks the bytes a JSON string holds as they are: ASCII but
// for control characters, '"', '\\' and encoding/json's HTML escapes.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s as a JSON string, escaped as encoding/json
// does (including its HTML-safe escapes and U+FFFD for invalid UTF-8).
// The plain prefix, most often all of s, is found with one table load per
// byte and appended at once.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	i := 0
	for i < len(s) && jsonPlain[s[i]] {
		i++
	}
	b = append(b, '"')
	b = append(b, s[:i]...)
	if i == len(s) {
		return append(b, '"')
	}
	start := i
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// field is one extra member appended to a JSON object: value through
// encoding/json, or, when value is nil, raw as is (null when nil too).
// raw spares a section's JSON, on every response, the allocation of
// boxing it in an interface.
type field struct {
	name  string
	value any
	raw   json.RawMessage
}

// recordWith renders p and appends the extra members, in order; a
// json.RawMessage value is written as is.
func recordWith(p *providers.Property, extra ...field) ([]byte, error) {
	return appendRecordWith(make([]byte, 0, 400), p, extra...)
}

// appendRecordWith is recordWith appending to dst.
func appendRecordWith(dst []byte, p *providers.Property, extra ...field) ([]byte, error) {
	dst = appendRecord(dst, p)
	if len(extra) == 0 {
		return dst, nil
	}
	dst = dst[:len(dst)-1] // reopen the object
	for _, f := range extra {
		dst = append(dst, ',')
		dst = appendJSONString(dst, f.name)
		dst = append(dst, ':')
		raw, isRaw := f.raw, f.value == nil
		if r, ok := f.value.(json.RawMessage); ok {
			raw, isRaw = r, true
		}
		switch {
		case !isRaw:
			vb, err := json.Marshal(f.value)
			if err != nil {
				return nil, err
			}
			dst = append(dst, vb...)
		case raw == nil:
			dst = append(dst, "null"...)
		default:
			dst = append(dst, raw...)
		}
	}
	return append(dst, '}'), nil
}

// sectionFields renders included sections as members of the record, with
// the members their catalogue entry renames in the include form (flood's
// zone and risk_level read zone_code and flood_risk_level beside the
// property's own fields).
func sectionFields(names []string, secs []service.SectionResult) []field {
	out := make([]field, 0, len(names))
	for i, name := range names {
		data := secs[i].Data
		if e, ok := service.SectionEntry(name); ok && len(e.Renames) > 0 && data != nil {
			data = renameKeys(data, e.Renames...)
		}
		out = append(out, field{name: name, raw: data})
	}
	return out
}

// renameKeys renames members of a flat, compact JSON object as
// encoding/json writes it, given as from, to pairs, keeping the order of the
// members. In compact JSON a name preceded by '{' or ',' and followed by ':'
// can only be a member name (a quote inside a string value is escaped), so
// finding the bytes is exact; it replaced decoding the object into a map and
// encoding it again on every response (11% of a warm lookup with sections).
// The result is one new slice, or obj itself when nothing is renamed: obj
// (a cached section value) is never written to.
func renameKeys(obj json.RawMessage, pairs ...string) json.RawMessage {
	type edit struct {
		at, n int
		to    string
	}
	var buf [4]edit
	edits, grow := buf[:0], 0
	for i := 0; i+1 < len(pairs); i += 2 {
		if at := memberAt(obj, pairs[i]); at >= 0 {
			edits = append(edits, edit{at, len(pairs[i]), pairs[i+1]})
			grow += len(pairs[i+1]) - len(pairs[i])
		}
	}
	if len(edits) == 0 {
		return obj
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.at - b.at })
	out, last := make([]byte, 0, len(obj)+grow), 0
	for _, e := range edits {
		out = append(append(out, obj[last:e.at]...), e.to...)
		last = e.at + e.n
	}
	return append(out, obj[last:]...)
}

// memberAt returns where the member name first appears as a member name
// of the compact object obj (after '{"' or ',"', before '":'), or -1.
func memberAt(obj []byte, name string) int {
	for off := 0; off < len(obj); {
		i := bytes.Index(obj[off:], []byte(name))
		if i < 0 {
			return -1
		}
		at, end := off+i, off+i+len(name)
		if at >= 2 && obj[at-1] == '"' && (obj[at-2] == '{' || obj[at-2] == ',') &&
			end+1 < len(obj) && obj[end] == '"' && obj[end+1] == ':' {
			return at
		}
		off = at + 1
	}
	return -1
}

func sectionMetas(names []string, secs []service.SectionResult) map[string]providers.SectionMeta {
	if len(names) == 0 {
		return nil
	}
	out := make(map[string]providers.SectionMeta, len(names))
	for i, name := range names {
		out[name] = secs[i].Meta
	}
	return out
}

// recordMeta is the meta of a single-record response.
type recordMeta struct {
	Source  string `json:"source"`
	Created *bool  `json:"created,omitempty"`
	// Match is how the record matched the request (lookup, reverse), or
	// how it was first matched (a GET by id), as providers.Match.Text
	// writes it; nil when nobody kept it.
	Match    json.RawMessage                  `json:"match,omitempty"`
	Sections map[string]providers.SectionMeta `json:"sections,omitempty"`
}

// envelope writes {"data": data, "meta": meta}. A recordMeta, the meta of
// every record response, is written without reflection (see appendMeta).
func envelope(data []byte, meta any) ([]byte, error) {
	b := make([]byte, 0, len(data)+96)
	b = append(b, `{"data":`...)
	b = append(b, data...)
	return appendMeta(b, meta)
}

// appendMeta ends an envelope whose data b holds: the meta member, when
// there is one, and the closing brace. A recordMeta, sections included, is
// written by hand, byte-identical to encoding/json (tested); other metas,
// rarer, through encoding/json.
func appendMeta(b []byte, meta any) ([]byte, error) {
	start := len(b)
	switch m := meta.(type) {
	case nil:
	case recordMeta:
		b = append(b, `,"meta":{"source":`...)
		b = appendJSONString(b, m.Source)
		if m.Created != nil {
			b = append(b, `,"created":`...)
			b = strconv.AppendBool(b, *m.Created)
		}
		if m.Match != nil {
			b = append(b, `,"match":`...)
			b = append(b, m.Match...)
		}
		if len(m.Sections) > 0 {
			b = append(b, `,"sections":{`...)
			var buf [16]string // sorted without allocating, as encoding/json orders a map
			names := buf[:0]
			for name := range m.Sections {
				names = append(names, name)
			}
			slices.Sort(names)
			for i, name := range names {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, name)
				b = append(b, ':')
				var ok bool
				if b, ok = appendSectionMeta(b, m.Sections[name]); !ok {
					return envelopeJSON(b[:start], meta)
				}
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	default:
		return envelopeJSON(b, meta)
	}
	return append(b, '}'), nil
}

// bodyPool recycles the buffers responses are rendered into: sendJSON
// copies a body into fasthttp's own pooled buffer, so ours is free again as
// soon as it returns. (A fresh buffer per response was two thirds of the
// bytes a warm GET allocated, and the collector's work with them.)
var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// maxPooledBody keeps the rare huge body (a batch with every section) from
// pinning its buffer in the pool.
const maxPooledBody = 64 << 10

// renderPooled renders an envelope with render into a pooled buffer and
// sends it.
func renderPooled(c *fiber.Ctx, render func(b []byte) ([]byte, error)) error {
	return renderPooledWith(c, render, sendJSON)
}

// renderPooledWith is renderPooled sending the body with send, which must
// not keep it.
func renderPooledWith(c *fiber.Ctx, render func(b []byte) ([]byte, error), send func(*fiber.Ctx, []byte) error) error {
	bp := bodyPool.Get().(*[]byte)
	b, err := render(append((*bp)[:0], `{"data":`...))
	if err == nil {
		err = send(c, b)
	}
	if cap(b) <= maxPooledBody {
		*bp = b[:0]
		bodyPool.Put(bp)
	}
	return err
}

// appendSectionMeta appends m as encoding/json writes it; ok is false for a
// time encoding/json refuses (a year outside 0 to 9999).
func appendSectionMeta(b []byte, m providers.SectionMeta) (_ []byte, ok bool) {
	b = append(b, `{"status":`...)
	b = appendJSONString(b, m.Status)
	b = append(b, `,"source":`...)
	b = appendJSONString(b, m.Source)
	if m.Vintage != "" {
		b = append(b, `,"vintage":`...)
		b = appendJSONString(b, m.Vintage)
	}
	for _, t := range []struct {
		name string
		at   *time.Time
	}{{`,"fetched_at":`, m.FetchedAt}, {`,"expires_at":`, m.ExpiresAt}} {
		b = append(b, t.name...)
		switch {
		case t.at == nil:
			b = append(b, "null"...)
		case t.at.Year() < 0 || t.at.Year() > 9999:
			return b, false
		default:
			b = append(b, '"')
			b = t.at.AppendFormat(b, time.RFC3339Nano)
			b = append(b, '"')
		}
	}
	b = append(b, `,"cache":`...)
	b = appendJSONString(b, m.Cache)
	if m.AgeSeconds != nil {
		b = append(b, `,"age_seconds":`...)
		b = strconv.AppendInt(b, int64(*m.AgeSeconds), 10)
	}
	if m.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, m.Error)
	}
	if m.RetryAfter != nil {
		b = append(b, `,"retry_after":`...)
		b = strconv.AppendInt(b, int64(*m.RetryAfter), 10)
	}
	if len(m.FailedParts) > 0 {
		b = append(b, `,"failed_parts":[`...)
		for i, part := range m.FailedParts {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, part)
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

func envelopeJSON(b []byte, meta any) ([]byte, error) {
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"meta":`...)
	b = append(b, mb...)
	return append(b, '}'), nil
}

// isRead reports whether the request is a GET or a HEAD, which is a GET
// without a body: the same headers (ETag, rate-limit headers), the same
// conditional answers and the same price (fasthttp drops the body of a
// HEAD's response as it writes it).
func isRead(rctx *fasthttp.RequestCtx) bool { return rctx.IsGet() || rctx.IsHead() }

// sendJSON writes a 200 JSON body with a strong ETag over its bytes; a GET
// or HEAD whose If-None-Match names that ETag gets 304 with no body
// instead. A body of compressMin bytes or more is compressed in the coding
// the request accepts (negotiate), with an ETag of its own. The body is
// copied (the caller may reuse it).
func sendJSON(c *fiber.Ctx, body []byte) error {
	rctx := c.Context()
	if !isRead(rctx) {
		h := &rctx.Response.Header
		h.SetCanonical(headerCacheControl, noStore)
		h.SetContentTypeBytes(mimeJSON)
		cd, varies := chooseCoding(len(body), rctx.Request.Header.Peek(fiber.HeaderAcceptEncoding))
		if varies {
			h.AddBytesKV(headerVary, varyEncoding)
		}
		setCodedBody(rctx, body, cd)
		return nil
	}
	var buf [16]byte
	sendTagged(rctx, body, appendETag(buf[:0], body))
	return nil
}

// sendTagged sends the JSON body of a GET whose ETag is etag, or 304 when
// the request's If-None-Match matches the ETag of the representation it
// would get (see appendCodedETag). body is copied: it may be a pooled
// buffer.
func sendTagged(rctx *fasthttp.RequestCtx, body, etag []byte) {
	cd, varies := chooseCoding(len(body), rctx.Request.Header.Peek(fiber.HeaderAcceptEncoding))
	var buf [32]byte
	if !sendNotModified(rctx, rctx.Request.Header.Peek(fiber.HeaderIfNoneMatch), appendCodedETag(buf[:0], etag, cd), varies) {
		setCodedBody(rctx, body, cd)
	}
}

// sendReady sends a ready body (see readyBody) as sendTagged does, for a
// request whose If-None-Match is inm and Accept-Encoding ae, already
// read. The body is sent where it lies, not copied: a ready body never
// changes, nor do its compressed forms.
func sendReady(rctx *fasthttp.RequestCtx, inm, ae []byte, rb *readyBody) {
	cd, varies := chooseCoding(len(rb.body), ae)
	body, etag, cd := rb.in(cd)
	if !sendNotModified(rctx, inm, etag, varies) {
		rctx.Response.SetBodyRaw(body)
		if cd != identity {
			rctx.Response.Header.SetContentEncodingBytes(codingNames[cd])
		}
	}
}

// sendReadyTo is sendReady for a request through the app.
func sendReadyTo(c *fiber.Ctx, rb *readyBody) {
	h := &c.Request().Header
	sendReady(c.Context(), h.Peek(fiber.HeaderIfNoneMatch), h.Peek(fiber.HeaderAcceptEncoding), rb)
}

// sendNotModified sets the headers of a JSON answer to a key's GET whose
// ETag is etag (see privateNoCache; varies: the answer depends on
// Accept-Encoding too) and, when inm (the request's If-None-Match)
// matches it, answers 304 and reports true: the caller sends the body
// otherwise. A 304 says no Content-Type: it has no content to describe
// (RFC 9110 section 15.4.5 lists what it repeats), and validating proxies
// refuse one that does.
func sendNotModified(rctx *fasthttp.RequestCtx, inm, etag []byte, varies bool) bool {
	h := &rctx.Response.Header
	h.SetCanonical(headerCacheControl, privateNoCache)
	// Added, not set: CORS may have said Origin.
	if varies {
		h.AddBytesKV(headerVary, varyKeyEncoding)
	} else {
		h.AddBytesKV(headerVary, varyKey)
	}
	h.SetCanonical(headerETag, etag)
	if len(inm) > 0 && etagMatches(utils.UnsafeString(inm), utils.UnsafeString(etag)) {
		rctx.SetStatusCode(fiber.StatusNotModified)
		rctx.Response.ResetBody()
		return true
	}
	h.SetContentTypeBytes(mimeJSON)
	return false
}

var mimeJSON = []byte(fiber.MIMEApplicationJSON)

// How caches may keep answers. The key travels in X-API-Key, which RFC
// 9111's protection of Authorization (section 3.5) does not cover: a
// shared cache in front would serve one key's answers to another, past its
// rate limit. So a GET's answer (200 or 304) is private (no shared cache
// stores it), no-cache (a browser's own cache revalidates it with
// If-None-Match every time, which costs notModifiedCost) and varies with
// the key (and with Accept-Encoding when it is large enough to be
// compressed: see compressMin). A batch's answer and every problem are
// no-store: there is nothing to revalidate, and an error is no answer to
// keep.
var (
	headerCacheControl = []byte(fiber.HeaderCacheControl)
	headerVary         = []byte(fiber.HeaderVary)
	privateNoCache     = []byte("private, no-cache")
	noStore            = []byte("no-store")
	varyKey            = []byte(headerAPIKey)
	varyKeyEncoding    = []byte(headerAPIKey + ", " + fiber.HeaderAcceptEncoding)
	varyEncoding       = []byte(fiber.HeaderAcceptEncoding)
)

// appendETag appends the strong ETag of a body: its xxHash64 in base 36,
// quoted, which is stable across restarts and instances and hashes 8 bytes
// at a step (FNV went a byte at a time, 3 to 9% of a warm request).
func appendETag(dst, body []byte) []byte {
	dst = append(dst, '"')
	dst = strconv.AppendUint(dst, xxhash.Sum64(body), 36)
	return append(dst, '"')
}

// etagOf is appendETag as a string, for bodies whose ETag is kept.
func etagOf(body []byte) string { return string(appendETag(nil, body)) }

// etagMatches implements If-None-Match's weak comparison over a list.
func etagMatches(header, etag string) bool {
	for _, part := range splitComma(header) {
		if part == "*" || part == etag || part == "W/"+etag {
			return true
		}
	}
	return false
}
