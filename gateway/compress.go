package gateway

import (
	"bytes"
	"sync/atomic"

	"github.com/gofiber/fiber/v2/utils"
	"github.com/valyala/fasthttp"
)

// coding is a content coding an answer may be sent in (RFC 9110 section
// 8.4.1). Brotli and gzip are the two every client that compresses
// understands, and the two fasthttp ships; zstd, which only clients that
// also take brotli ask for, would be a dependency of its own.
type coding uint8

const (
	identity coding = iota // sent as it is
	codingBrotli
	codingGzip
	numCodings
)

// codingNames are the codings' names in Content-Encoding and ETags.
var codingNames = [numCodings][]byte{identity: nil, codingBrotli: []byte("br"), codingGzip: []byte("gzip")}

// compressMin is the smallest body worth compressing. A record alone (about
// 1 to 1.5 KB with its meta) would gain some hundreds of bytes, about what
// its headers take, at the cost of choosing a coding on every read: such
// answers, the plain warm GET's among them, and every problem, are sent as
// they are, and say nothing of Accept-Encoding. A record with sections, a
// search page, a batch and the reference's files are larger.
const compressMin = 2048

// Compression levels. An answer is compressed for the request (120 KB of
// JSON in about 2 ms in brotli, 1 ms in gzip) or once for as long as it is
// kept ready, at fasthttp's default levels, which match brotli to gzip's
// 6. The reference's files are compressed once per process at
// higher levels (the docs page's 1.7 MB script: 0.4 MB in brotli in about
// 0.15 s; level 11 took 11 s for a tenth less).
const (
	dynamicBrotli = fasthttp.CompressBrotliDefaultCompression
	dynamicGzip   = fasthttp.CompressDefaultCompression
	staticBrotli  = 6
	staticGzip    = fasthttp.CompressDefaultCompression
)

// appendCoded appends body in coding c (not identity) to dst, at the
// levels given.
func appendCoded(dst, body []byte, c coding, brotliLevel, gzipLevel int) []byte {
	if c == codingBrotli {
		return fasthttp.AppendBrotliBytesLevel(dst, body, brotliLevel)
	}
	return fasthttp.AppendGzipBytesLevel(dst, body, gzipLevel)
}

// appendCodedETag appends the strong ETag of a representation in coding c
// of the body whose own ETag is etag (quoted): "k3x" becomes "k3x-br" or
// "k3x-gzip". Each representation has a validator of its own (RFC 9110
// section 8.8.3: different content codings are different
// representations), so that a cache never takes one coding's bytes for
// another's; an If-None-Match is compared with the ETag of the
// representation the request would get (see negotiate). An ETag of ours
// holds base-36 digits only, so no suffix makes another body's.
func appendCodedETag(dst, etag []byte, c coding) []byte {
	if c == identity || len(etag) < 2 {
		return append(dst, etag...)
	}
	dst = append(dst, etag[:len(etag)-1]...)
	dst = append(dst, '-')
	dst = append(dst, codingNames[c]...)
	return append(dst, '"')
}

// negotiate chooses the coding of an answer at least compressMin long for
// a request whose Accept-Encoding is ae, as RFC 9110 section 12.5.3 has it:
//
//   - no Accept-Encoding, or an empty one: identity;
//   - a coding is acceptable when it is listed, or "*" is and it is not,
//     with a q-value above 0 (gzip;q=0 refuses gzip; x-gzip is gzip);
//   - the acceptable coding of highest q-value is sent, brotli before gzip
//     at the same q-value (it is smaller), and either before identity at
//     the same q-value; identity listed with a higher q-value than every
//     coding wins;
//   - when nothing listed is acceptable, identity included (identity;q=0
//     with gzip;q=0, say), the answer is sent as it is rather than refused
//     with 406, as the section advises.
//
// Other parameters than q are ignored, and so is an element it cannot
// read. Identity not listed counts as acceptable below every coding.
func negotiate(ae []byte) coding {
	if len(ae) == 0 {
		return identity
	}
	// q-values in thousandths; -1: not listed.
	qBrotli, qGzip, qIdentity, qAny := -1, -1, -1, -1
	for len(ae) > 0 {
		var elem []byte
		if i := bytes.IndexByte(ae, ','); i >= 0 {
			elem, ae = ae[:i], ae[i+1:]
		} else {
			elem, ae = ae, nil
		}
		name, params, _ := bytes.Cut(elem, []byte{';'})
		name = bytes.TrimSpace(name)
		if len(name) == 0 {
			continue
		}
		q, ok := qValue(params)
		if !ok {
			continue
		}
		switch {
		case utils.EqualFold(utils.UnsafeString(name), "br"):
			qBrotli = q
		case utils.EqualFold(utils.UnsafeString(name), "gzip"), utils.EqualFold(utils.UnsafeString(name), "x-gzip"):
			qGzip = q
		case utils.EqualFold(utils.UnsafeString(name), "identity"):
			qIdentity = q
		case len(name) == 1 && name[0] == '*':
			qAny = q
		}
	}
	if qAny >= 0 {
		qBrotli, qGzip, qIdentity = unlisted(qBrotli, qAny), unlisted(qGzip, qAny), unlisted(qIdentity, qAny)
	}
	best, q := identity, 0
	for _, c := range [...]struct {
		c coding
		q int
	}{{codingBrotli, qBrotli}, {codingGzip, qGzip}} {
		if c.q > q {
			best, q = c.c, c.q
		}
	}
	if best != identity && qIdentity > q {
		return identity
	}
	return best
}

// unlisted is the q-value of a coding listed with q (-1: not listed) where
// "*" has qAny.
func unlisted(q, qAny int) int {
	if q >= 0 {
		return q
	}
	return qAny
}

// qValue reads the q parameter among an Accept-Encoding element's params
// (";q=0.5;x=y"), in thousandths; 1000 when there is none. ok is false
// when q is not a q-value (RFC 9110 section 12.4.2: 0 to 1, at most three
// decimals).
func qValue(params []byte) (q int, ok bool) {
	for len(params) > 0 {
		var p []byte
		p, params, _ = bytes.Cut(params, []byte{';'})
		k, v, _ := bytes.Cut(bytes.TrimSpace(p), []byte{'='})
		if len(k) != 1 || (k[0] != 'q' && k[0] != 'Q') {
			continue
		}
		return parseQ(bytes.TrimSpace(v))
	}
	return 1000, true
}

// parseQ reads a qvalue: "0", "0.5", "1", "1.000".
func parseQ(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 5 || (v[0] != '0' && v[0] != '1') {
		return 0, false
	}
	q := int(v[0]-'0') * 1000
	if len(v) > 1 {
		if v[1] != '.' {
			return 0, false
		}
		scale := 100
		for _, d := range v[2:] {
			if d < '0' || d > '9' {
				return 0, false
			}
			q += int(d-'0') * scale
			scale /= 10
		}
	}
	if q > 1000 {
		return 0, false
	}
	return q, true
}

// chooseCoding is the coding an answer of n bytes is sent in for a request
// whose Accept-Encoding is ae, and whether the answer depends on
// Accept-Encoding at all (n is at least compressMin): only then does it
// say Vary: Accept-Encoding.
func chooseCoding(n int, ae []byte) (c coding, varies bool) {
	if n < compressMin {
		return identity, false
	}
	return negotiate(ae), true
}

// setCodedBody sets a copy of body, compressed in coding c for this
// request (see compressMin), as the response's, and its Content-Encoding.
func setCodedBody(rctx *fasthttp.RequestCtx, body []byte, c coding) {
	if c == identity {
		rctx.Response.SetBody(body)
		return
	}
	bp := bodyPool.Get().(*[]byte)
	z := appendCoded((*bp)[:0], body, c, dynamicBrotli, dynamicGzip)
	rctx.Response.SetBody(z)
	rctx.Response.Header.SetContentEncodingBytes(codingNames[c])
	if cap(z) <= maxPooledBody {
		*bp = z[:0]
		bodyPool.Put(bp)
	}
}

// codedBody is a body in one coding and that representation's ETag (see
// appendCodedETag); a nil body when the coding did not make it smaller.
type codedBody struct{ body, etag []byte }

// codedForms are a body's compressed forms, each made once, when first
// asked for, and kept: a ready answer's (see readyBody) and a reference
// file's (see staticFile). Safe for concurrent use; two requests asking
// for a form at once may both compress it, and one result is kept.
type codedForms [numCodings]atomic.Pointer[codedBody]

// get returns body (whose ETag is etag) in coding c, compressed at the
// levels given, making it the first time.
func (f *codedForms) get(body, etag []byte, c coding, brotliLevel, gzipLevel int) *codedBody {
	p := &f[c]
	if cb := p.Load(); cb != nil {
		return cb
	}
	cb := &codedBody{}
	if z := appendCoded(nil, body, c, brotliLevel, gzipLevel); len(z) < len(body) {
		cb.body, cb.etag = z, appendCodedETag(nil, etag, c)
	}
	if !p.CompareAndSwap(nil, cb) {
		cb = p.Load()
	}
	return cb
}

// in returns the ready body in coding c, that representation's ETag and
// its coding: identity, the body as it is, when c would not make it
// smaller.
func (rb *readyBody) in(c coding) (body, etag []byte, _ coding) {
	if c != identity {
		if cb := rb.coded.get(rb.body, rb.etag, c, dynamicBrotli, dynamicGzip); cb.body != nil {
			return cb.body, cb.etag, c
		}
	}
	return rb.body, rb.etag, identity
}

// codedCost is what a ready body of n bytes is charged in the cache for
// the compressed forms it may come to keep (see readyBody.in): JSON of
// that size compresses to well under a quarter in either coding.
func codedCost(n int) int64 {
	if n < compressMin {
		return 0
	}
	return int64(n / 2)
}
