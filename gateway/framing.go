package gateway

import (
	"bytes"

	"github.com/gofiber/fiber/v2"
	"github.com/propertyd/propertyd/providers"
	"github.com/valyala/fasthttp"
)

// A request's framing is where its request line, its header lines and its
// body begin and end (RFC 9112). A proxy in front of us and we must agree
// on it: where the proxy reads one request and we read two, the second is
// smuggled past the proxy. fasthttp 1.51 parses leniently and has no
// option to do otherwise: of two Content-Length headers the last counts,
// any version string is served, Host is not required, a bare LF ends a
// line, a bare CR is kept in a value, a folded line is joined to the one
// before, and any Transfer-Encoding but "identity" is read as chunked. It
// does refuse, itself and with a close, whitespace before a header's colon
// and a Content-Length that is not digits. The rest is refused here, from
// the header as fasthttp read it (its request line split into method,
// target and version, and a copy of its header lines as sent), before the
// body is read:
//
//   - a version other than HTTP/1.x is a 505, a version not written
//     HTTP/d.d a 400; HTTP/1.2 and later minors are served as HTTP/1.1
//     (RFC 9110 section 2.5);
//   - a CR in the request target is a 400 (one elsewhere in the request
//     line makes its version or its method unknown);
//   - a header line not ended by CRLF, a CR that ends no line, and a line
//     beginning with whitespace (obsolete line folding) are a 400: RFC
//     9112 lets a recipient take a bare LF as a line's end and unfold a
//     folded line, but a proxy that does otherwise would see different
//     headers than we do, and no client sends either;
//   - an HTTP/1.1 request without Host, and any request with two, is a 400;
//   - two Content-Length headers are a 400, even with the same value
//     (RFC 9112 section 6.3 allows taking them as one; no client sends
//     them, and one rule leaves nothing to read two ways), as are
//     Content-Length beside Transfer-Encoding and a Transfer-Encoding other
//     than a single chunked: we read no other coding, and chunked must be
//     the last.
//
// What fasthttp does not keep cannot be checked: how the request line
// ends (a bare LF there passes), and the end of a header section with no
// lines (an HTTP/1.0 request without headers, whose connection closes
// after its answer anyway). A request line without a version (HTTP/0.9's
// form) fasthttp reads as HTTP/1.0.

// The framing refusals, built once: refusing allocates nothing.
var (
	errVersion = &providers.Error{Kind: providers.KindVersion, Code: providers.CodeHTTPVersionNotSupported,
		Message: "the HTTP version is not supported: send HTTP/1.1"}
	errRequestLine     = badFraming("the request line is not a method, a target and an HTTP version (HTTP/1.1)")
	errLineEnd         = badFraming("a header line does not end in CRLF")
	errBareCR          = badFraming("a header line holds a CR that does not end it")
	errFolded          = badFraming("a header line begins with whitespace (obsolete line folding)")
	errHost            = badFraming("an HTTP/1.1 request must have one Host header, and no request two")
	errLengths         = badFraming("the request has more than one Content-Length header")
	errLengthAndCoding = badFraming("the request has both Content-Length and Transfer-Encoding")
	errCoding          = badFraming("the only Transfer-Encoding accepted is a single chunked")
)

func badFraming(message string) *providers.Error {
	return &providers.Error{Kind: providers.KindInvalid, Code: providers.CodeBadRequest, Message: message}
}

// framingError says why the request whose header is h may not be served,
// or nil when it may (see the list above). It runs for every request, the
// warm GET's included: it allocates nothing, and reads the header lines
// with a vectorized search for each line's LF and one vectorized count of
// their CRs.
func framingError(h *fasthttp.RequestHeader) *providers.Error {
	http11 := h.IsHTTP11()
	if !http11 {
		switch p := h.Protocol(); {
		case string(p) == "HTTP/1.0":
		case len(p) == 8 && string(p[:5]) == "HTTP/" && isDigit(p[5]) && p[6] == '.' && isDigit(p[7]):
			if p[5] != '1' {
				return errVersion
			}
			http11 = true
		default:
			return errRequestLine
		}
	}
	if bytes.IndexByte(h.RequestURI(), '\r') >= 0 {
		return errRequestLine
	}
	all := h.RawHeaders()
	lines, hosts, lengths, codings := 0, 0, 0, 0
	chunked := false
	for raw := all; len(raw) > 0; lines++ {
		// The line is raw[:i+1], the empty line that ends the header
		// section included, which fasthttp's copy ends with.
		i := bytes.IndexByte(raw, '\n')
		if i < 1 || raw[i-1] != '\r' {
			return errLineEnd
		}
		if raw[0] == ' ' || raw[0] == '\t' {
			return errFolded
		}
		switch raw[0] | 0x20 { // the name's first letter in lower case
		case 'h':
			if hasName(raw[:i], "host") {
				hosts++
			}
		case 'c':
			if hasName(raw[:i], "content-length") {
				lengths++
			}
		case 't':
			if hasName(raw[:i], "transfer-encoding") {
				codings++
				v := bytes.Trim(raw[len("transfer-encoding:"):i], " \t\r")
				chunked = equalLower(v, "chunked")
			}
		}
		raw = raw[i+1:]
	}
	// Every line ends in the one CR counted; another is a bare CR.
	if bytes.Count(all, []byte{'\r'}) != lines {
		return errBareCR
	}
	switch {
	case hosts > 1 || (http11 && hosts == 0):
		return errHost
	case lengths > 1:
		return errLengths
	case lengths > 0 && codings > 0:
		return errLengthAndCoding
	case codings > 1 || (codings == 1 && !chunked):
		return errCoding
	}
	return nil
}

// hasName reports whether the header line names the header lower (in
// lower case), in any case.
func hasName(line []byte, lower string) bool {
	return len(line) > len(lower) && line[len(lower)] == ':' && equalLower(line[:len(lower)], lower)
}

// equalLower reports whether b is lower (in lower case) in any case of its
// ASCII letters.
func equalLower(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range len(lower) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// refuseFraming is the server's HeaderReceived hook: it runs once a
// request's header is read and before its body is. A request whose
// framing is refused (framingError) is marked to be closed after its
// answer, and its body is not read, as its length cannot be trusted (nor
// is 100 Continue sent for it). The handler answers it (see New): the
// mark is what it looks for, as checking every request again there would
// cost the warm GET twice.
func refuseFraming(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if framingError(h) != nil {
		h.SetContentLength(0)
		h.Del(fiber.HeaderExpect)
		h.SetConnectionClose()
	}
	return fasthttp.RequestConfig{}
}

// refuse answers a request whose framing is refused with its problem, and
// closes the connection after it.
func (g *Gateway) refuse(rctx *fasthttp.RequestCtx, err *providers.Error) {
	rctx.SetConnectionClose()
	c := g.app.AcquireCtx(rctx)
	defer g.app.ReleaseCtx(c)
	_ = g.handleError(c, err)
}
