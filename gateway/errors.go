package gateway

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/propertyd/propertyd/providers"
	"github.com/valyala/fasthttp"
)

// problem is an RFC 9457 problem details body, with propertyd's stable code,
// the request id and, for invalid input, the offending parameters.
type problem struct {
	Type      string                 `json:"type"`
	Title     string                 `json:"title"`
	Status    int                    `json:"status"`
	Detail    string                 `json:"detail"`
	Code      string                 `json:"code"`
	RequestID string                 `json:"request_id"`
	Errors    []providers.ParamError `json:"errors,omitempty"`
	// Candidates are the different addresses of an ambiguous_address.
	Candidates []providers.Candidate `json:"candidates,omitempty"`
}

// statusOf is the one table from error kinds to HTTP statuses.
var statusOf = map[providers.Kind]int{
	providers.KindInternal:         http.StatusInternalServerError,
	providers.KindInvalid:          http.StatusBadRequest,
	providers.KindUnauthorized:     http.StatusUnauthorized,
	providers.KindNotFound:         http.StatusNotFound,
	providers.KindMethod:           http.StatusMethodNotAllowed,
	providers.KindTooLarge:         http.StatusRequestEntityTooLarge,
	providers.KindUnprocessable:    http.StatusUnprocessableEntity,
	providers.KindRateLimited:      http.StatusTooManyRequests,
	providers.KindUpstream:         http.StatusBadGateway,
	providers.KindUnavailable:      http.StatusServiceUnavailable,
	providers.KindTimeout:          http.StatusGatewayTimeout,
	providers.KindCanceled:         499, // never seen by the client, only in logs
	providers.KindUnsupportedMedia: http.StatusUnsupportedMediaType,
	providers.KindUnreachable:      http.StatusBadGateway,
	// 409: the request is well formed but the geocoder's answer does not
	// settle it as asked (ambiguous_address, inexact_match); asking
	// otherwise (a ZIP code, match=best) does.
	providers.KindConflict: http.StatusConflict,
	providers.KindVersion:  http.StatusHTTPVersionNotSupported,
}

// ProblemTypeBase prefixes the type URI of every problem; the fragment is the code.
const ProblemTypeBase = "https://propertyd.dev/problems/"

var (
	errRouteNotFound    = providers.NotFound(providers.CodeNotFound, "no such endpoint")
	errMethodNotAllowed = providers.Errorf(providers.KindMethod, providers.CodeMethodNotAllowed, "method not allowed on this endpoint")
)

// batchPath is the one route served to POST; every other route is read-only.
const batchPath = "/properties/batch"

// allowOf is the Allow header of a 405 on path: POST for the batch
// endpoint, GET and HEAD for every other route.
func allowOf(path string) string {
	if path == "/v1"+batchPath {
		return fiber.MethodPost
	}
	return "GET, HEAD"
}

// fromFiber maps Fiber's own errors (routing, body limit) to provider errors.
func fromFiber(fe *fiber.Error) *providers.Error {
	switch fe.Code {
	case fiber.StatusNotFound:
		return errRouteNotFound
	case fiber.StatusMethodNotAllowed:
		return errMethodNotAllowed
	case fiber.StatusRequestEntityTooLarge:
		return providers.Errorf(providers.KindTooLarge, providers.CodeBodyTooLarge, "the request body is too large")
	case fiber.StatusBadRequest:
		return providers.Errorf(providers.KindInvalid, providers.CodeBadRequest, "the request could not be parsed")
	case fiber.StatusRequestTimeout:
		return providers.Errorf(providers.KindInvalid, providers.CodeRequestTimeout, "the request took too long to arrive")
	}
	if fe.Code >= 400 && fe.Code < 500 {
		return &providers.Error{Kind: providers.KindInvalid, Code: providers.CodeBadRequest, Message: "the request could not be served"}
	}
	return providers.Errorf(providers.KindInternal, providers.CodeInternalError, "an internal error occurred")
}

// handleError is Fiber's ErrorHandler: every error a handler or middleware
// returns becomes a problem details response here, and nowhere else. It
// never shows a cause, a stack trace or an internal message to the client.
func (g *Gateway) handleError(c *fiber.Ctx, err error) error {
	if fe, ok := errors.AsType[*fiber.Error](err); ok && (fe.Code == fiber.StatusRequestTimeout || fe.Code == fiber.StatusBadGateway) {
		// No request arrived within the read timeout, most often on a
		// spare connection a client opened and has not used yet. Close it
		// without an answer, as net/http does: an answer written now could
		// be read as the response to the request the client sends next.
		// Fiber's 502 is the same without the wait: reading the request
		// failed on the connection itself (reset by the client, or closed
		// by Shutdown because it never sent one), so there is no request
		// to answer, count or log.
		_ = c.Context().Conn().Close()
		return nil
	}
	if stateOf(c) == nil {
		// Fiber refused the request before any middleware ran (a request
		// line or headers over the read buffer, a body over the limit): it
		// still gets a request id, in the body and the header, and is
		// counted and logged, under the route "unmatched", once answered.
		// The id is the client's X-Request-ID when it was read and is
		// sane, as on every other answer, else one of ours.
		st := new(requestState)
		st.begin(c.Context(), requestTime(c.Context()), c.Request().Header.Peek(fiber.HeaderXRequestID))
		c.Locals(localState, st)
		defer func() { g.record(c.Response().StatusCode(), c.Method(), st, "unmatched") }()
		if fe, ok := errors.AsType[*fiber.Error](err); ok && fe.Code == fiber.StatusRequestEntityTooLarge {
			drainRefusedBody(c)
		}
	}
	var pe *providers.Error
	var fe *fiber.Error
	switch {
	case errors.As(err, &pe):
	case errors.As(err, &fe):
		pe = fromFiber(fe)
	default:
		pe = providers.As(err)
	}
	status, ok := statusOf[pe.Kind]
	if !ok {
		status = http.StatusInternalServerError
	}
	detail := pe.Message
	code := pe.Code
	if pe.Kind == providers.KindInternal {
		detail, code = "an internal error occurred", providers.CodeInternalError
	}
	if status >= 500 && pe.Kind != providers.KindVersion { // a 505 is the client's protocol, not our failure
		g.cfg.Logger.Error("request failed", "request_id", requestID(c), "route", c.Route().Path,
			"status", status, "code", code, "error", err.Error())
	}
	if pe.Kind == providers.KindMethod {
		c.Set(fiber.HeaderAllow, allowOf(c.Path()))
		g.budgetHeaders(c, g.methodKeyName(c))
	}
	setRetryAfter(&c.Response().Header, pe.RetryAfter)
	title := http.StatusText(status)
	if status == 499 {
		title = "Client Closed Request"
	}
	c.Status(status)
	c.Response().Header.SetCanonical(headerCacheControl, noStore) // a problem is no answer to keep
	c.Response().Header.SetContentTypeBytes(mimeProblem)
	if len(pe.Params) == 0 && len(pe.Candidates) == 0 {
		// Most problems have no list: their body is written directly,
		// the same bytes json.Marshal gives without its reflection.
		var buf [512]byte
		b := appendProblemHead(buf[:0], code, title, status, detail)
		c.Response().SetBody(appendProblemTail(b, stateOf(c)))
		return nil
	}
	body := problem{
		Type: ProblemTypeBase + code, Title: title, Status: status,
		Detail: detail, Code: code, RequestID: requestID(c), Errors: pe.Params, Candidates: pe.Candidates,
	}
	b, jerr := json.Marshal(body)
	if jerr != nil {
		return c.SendString(`{"status":500,"code":"internal_error"}`)
	}
	return c.Send(b)
}

var (
	mimeProblem       = []byte("application/problem+json")
	headerRetryAfter  = []byte(fiber.HeaderRetryAfter)
	errRateLimitedMsg = "rate limit exceeded for this API key"
	// rateLimitedHead is a 429's body up to its request id, made once:
	// a refused request costs the server less than a served one (see
	// refuseReady).
	rateLimitedHead = appendProblemHead(nil, providers.CodeRateLimited,
		http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests, errRateLimitedMsg)
)

// setRetryAfter sets Retry-After to d in whole seconds, rounded up; a d of
// 0 or less sets nothing.
func setRetryAfter(h *fasthttp.ResponseHeader, d time.Duration) {
	if d <= 0 {
		return
	}
	var buf [20]byte
	h.SetCanonical(headerRetryAfter, appendDecimal(buf[:0], int64((d+time.Second-1)/time.Second)))
}

// appendProblemHead appends a problem body without a list (errors,
// candidates) up to its request id: the members of problem in its order,
// as json.Marshal writes them, and "request_id": (see appendProblemTail).
func appendProblemHead(b []byte, code, title string, status int, detail string) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, ProblemTypeBase+code)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, title)
	b = append(b, `,"status":`...)
	b = appendDecimal(b, int64(status))
	b = append(b, `,"detail":`...)
	b = appendJSONString(b, detail)
	b = append(b, `,"code":`...)
	b = appendJSONString(b, code)
	return append(b, `,"request_id":`...)
}

// appendProblemTail ends a body appendProblemHead began with the request
// id of st ("" when st is nil).
func appendProblemTail(b []byte, st *requestState) []byte {
	switch {
	case st == nil:
		b = append(b, `""`...)
	case st.idPlain:
		b = appendQuoted(b, utils.UnsafeString(st.id))
	default:
		b = appendJSONString(b, utils.UnsafeString(st.id))
	}
	return append(b, '}')
}

// methodKeyName is the name of the key of a request answered 405 on a /v1
// path, whose budget the answer shows as every /v1 answer does: the key
// authentication found, or, for a method Fiber does not route (which
// reaches no middleware), the key presented when it is valid; "" when
// there is none or the path is not under /v1.
func (g *Gateway) methodKeyName(c *fiber.Ctx) string {
	if !strings.HasPrefix(c.Path(), "/v1/") {
		return ""
	}
	if st := stateOf(c); st != nil && st.keyName != "" {
		return st.keyName
	}
	return g.keyName(c.Request().Header.Peek(headerAPIKey))
}

// Bounds on reading a body refused for its size.
const (
	drainMax  = 8 << 20                // bytes read and discarded at most
	drainIdle = 250 * time.Millisecond // a pause this long means the client stopped sending
	drainTime = 5 * time.Second        // the whole drain at most
)

// drainRefusedBody reads and discards, within bounds, what the client still
// sends of a body refused for its size, before the 413 is written and the
// connection closed. Closing a socket with unread data makes the kernel
// reset the connection, and a client still writing its body (Go's
// net/http, unlike curl) then sees "connection reset" instead of the 413.
// A body larger than drainMax, or a client that pauses, still gets the
// close; one that sends only headers gets its answer after drainIdle.
func drainRefusedBody(c *fiber.Ctx) {
	conn := c.Context().Conn()
	if conn == nil {
		return
	}
	limit := drainMax
	if n := c.Request().Header.ContentLength(); n > 0 && n < limit {
		limit = n
	}
	buf := make([]byte, 32<<10)
	end := time.Now().Add(drainTime)
	for read := 0; read < limit; {
		deadline := time.Now().Add(drainIdle)
		if deadline.After(end) {
			deadline = end
		}
		if conn.SetReadDeadline(deadline) != nil {
			break
		}
		n, err := conn.Read(buf)
		read += n
		if err != nil {
			break
		}
	}
	_ = conn.SetReadDeadline(time.Time{})
}
