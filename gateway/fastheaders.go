package gateway

import (
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/valyala/fasthttp"
)

// fastHeaders are the request headers serveReady reads: the key, the
// client's request id, If-None-Match, Origin and Accept-Encoding. They are found in one
// pass over the request's headers, where a Peek of each copied and
// normalized its name first (some 250 instructions a Peek under callgrind,
// a twentieth of a warm GET for the four). Each is the header's first
// value, as Peek gives it, or nil (fasthttp hands an empty value over as
// an empty slice, not nil, so an empty first value is kept as found). The
// values point into the request: they are valid only while it is being
// answered.
type fastHeaders struct {
	key, requestID, ifNoneMatch, origin, acceptEncoding []byte
}

// readFastHeaders reads h's fastHeaders. Names are compared without
// regard to case, so the read does not depend on fasthttp having
// normalized them.
func readFastHeaders(h *fasthttp.RequestHeader) fastHeaders {
	var f fastHeaders
	h.VisitAll(f.visit)
	return f
}

func (f *fastHeaders) visit(k, v []byte) {
	var dst *[]byte
	switch len(k) {
	case len(headerAPIKey):
		if utils.EqualFold(utils.UnsafeString(k), headerAPIKey) {
			dst = &f.key
		}
	case len(fiber.HeaderXRequestID):
		if utils.EqualFold(utils.UnsafeString(k), fiber.HeaderXRequestID) {
			dst = &f.requestID
		}
	case len(fiber.HeaderIfNoneMatch):
		if utils.EqualFold(utils.UnsafeString(k), fiber.HeaderIfNoneMatch) {
			dst = &f.ifNoneMatch
		}
	case len(fiber.HeaderOrigin):
		if utils.EqualFold(utils.UnsafeString(k), fiber.HeaderOrigin) {
			dst = &f.origin
		}
	case len(fiber.HeaderAcceptEncoding):
		if utils.EqualFold(utils.UnsafeString(k), fiber.HeaderAcceptEncoding) {
			dst = &f.acceptEncoding
		}
	}
	if dst != nil && *dst == nil {
		*dst = v
	}
}
