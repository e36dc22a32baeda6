package gateway

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/valyala/fasthttp"
)

// localState is the Locals key of the request's *requestState.
const localState = "propertyd.request"

// requestState is what the middleware and handlers learn about one request,
// in one allocation: its id, the name of its key, its include list once
// parsed (non-nil then), the Observation the handlers fill from what the
// service returns (tiers and upstream requests), and its deadline context. (Kept apart, as Locals values, a value context and a
// WithTimeout, they were nine allocations and a timer.)
//
// A warm GET answered in front of the app (serveReady) takes its state from
// statePool and hands it back, so that it allocates nothing and gives the
// garbage collector, whose pauses land in every request's latency, nothing
// to do; nothing but the gateway ever sees that state. A request through
// the app has a state of its own: its context goes into the service, where
// a flight, a refresh or a log line may hold it past the answer.
type requestState struct {
	start    time.Time // when the middleware first saw the request
	id       []byte    // in idBuf, or the client's X-Request-ID copied when longer
	idPlain  bool      // id is one of ours (hex digits), which JSON need not escape
	keyName  string
	includes []string
	// includeCost is what the sections of includes cost (parseIncludes).
	includeCost int
	// undelivered is the part of the request's cost that it did not
	// deliver (batch items refused or failed, sections that failed), given
	// back by limit once the handler returns.
	undelivered int
	obs         providers.Observation
	ctx         deadlineCtx
	idBuf       [24]byte
}

var statePool = sync.Pool{New: func() any { return new(requestState) }}

// servedSections counts the tier each of secs was read from, and the
// upstream requests made for it (see requestState.obs): what the service
// returned, not what it was told to count.
func (st *requestState) servedSections(secs []service.SectionResult) {
	for i := range secs {
		st.obs.Served(providers.ReadSection, secs[i].Tier)
		st.obs.AddUpstreamCalls(secs[i].Calls)
	}
}

// served counts a record the service returned with src (its tier and the
// upstream requests made for it), found or not.
func (st *requestState) served(src service.Source) {
	st.obs.Served(providers.ReadRecord, src.Tier)
	st.obs.AddUpstreamCalls(src.Calls)
}

// reset readies a state serveReady used for another request: what it sets
// (it parses no include list and makes no context).
func (st *requestState) reset() {
	st.id, st.keyName, st.undelivered = nil, "", 0
	st.obs.Reset()
}

// stateOf returns the request's state, or nil when the request was refused
// before the middleware ran.
func stateOf(c *fiber.Ctx) *requestState {
	st, _ := c.Locals(localState).(*requestState)
	return st
}

// requestContext is the first middleware of every request. It gives the
// request an id (the client's X-Request-ID when it is sane, else a random
// one) and echoes it, sets the user context (the request deadline, which
// every upstream call inherits), runs the rest of the chain, and then
// observes the request
// (see observe). It is one middleware rather than two so that a request
// walks Fiber's route stack one step less.
func (g *Gateway) requestContext(c *fiber.Ctx) error {
	st := new(requestState)
	st.begin(c.Context(), requestTime(c.Context()), c.Request().Header.Peek(fiber.HeaderXRequestID))
	c.Locals(localState, st)
	st.ctx.Context = context.Background()
	st.ctx.deadline = st.start.Add(g.cfg.RequestTimeout)
	c.SetUserContext(&st.ctx)
	g.observe(c, st, nextReleasing(c, &st.ctx))
	return nil
}

// requestTime is when the request of rctx arrived: the time fasthttp read
// as it handed the request over, or now for a context made by hand (tests
// that call Handler directly), which has none.
func requestTime(rctx *fasthttp.RequestCtx) time.Time {
	if t := rctx.Time(); !t.IsZero() {
		return t
	}
	return time.Now()
}

// begin readies st for the request of rctx, which arrived at start, and
// gives the request its id (the client's X-Request-ID, clientID, when it
// is sane, else a random one), echoed in the response.
func (st *requestState) begin(rctx *fasthttp.RequestCtx, start time.Time, clientID []byte) {
	st.start = start
	if id := clientID; saneRequestID(id) {
		st.id = append(st.idBuf[:0], id...) // in idBuf when it fits, else a copy of its own
		st.idPlain = false
	} else {
		st.id = newRequestID(st.idBuf[:0])
		st.idPlain = true
	}
	rctx.Response.Header.SetCanonical(headerRequestID, st.id)
}

// nextReleasing runs the rest of the chain and ends the request's context
// however the chain ends.
func nextReleasing(c *fiber.Ctx, ctx *deadlineCtx) error {
	defer ctx.release()
	return c.Next()
}

var headerRequestID = []byte(fiber.HeaderXRequestID)

// newRequestID appends 96 random bits in hex to dst. An id names a request
// in logs; it guards nothing, so the runtime's generator serves
// (crypto/rand cost a system call's worth of a warm GET). The digits are
// written two at a time from a table: hex.AppendEncode cost three times
// as many instructions.
func newRequestID(dst []byte) []byte {
	var id [24]byte
	putHex(id[:16], rand.Uint64())
	putHex(id[16:], uint64(rand.Uint32()))
	return append(dst, id[:]...)
}

// hexPairs is the lowercase hex of every byte, two digits each.
const hexPairs = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f" +
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f" +
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f" +
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f" +
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf" +
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf" +
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

// putHex writes the low 4*len(dst) bits of v into dst as lowercase hex,
// the most significant digit first; len(dst) is even.
func putHex(dst []byte, v uint64) {
	for i := len(dst) - 2; i >= 0; i -= 2 {
		p := (v & 0xff) * 2
		dst[i], dst[i+1] = hexPairs[p], hexPairs[p+1]
		v >>= 8
	}
}

// quietRoute reports whether route is a probe or a scrape, logged at debug
// level so that a monitoring system polling them does not drown the
// request log.
func quietRoute(route string) bool {
	switch route {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return false
}

// observe logs one structured line per request once it is answered and
// records the request metrics. The line holds the request id, the key's
// name, the route pattern, status, latency, the cache outcome (the dearest
// tier that served a record or section) and the HTTP requests made to
// upstreams, all counted in the request's providers.Observation. It
// never logs the key, the path or the query, so addresses stay out of the
// log. It renders err, the chain's error, itself through handleError, so
// that the status it reports is the one sent.
func (g *Gateway) observe(c *fiber.Ctx, st *requestState, err error) {
	route := routeOf(c, err)
	if err != nil {
		if herr := g.handleError(c, err); herr != nil {
			_ = c.SendStatus(fiber.StatusInternalServerError)
		}
	}
	g.record(c.Response().StatusCode(), c.Method(), st, route)
}

// record counts an answered request in the metrics and writes its request
// log line (see observe), timed from the state's start to now.
func (g *Gateway) record(status int, method string, st *requestState, route string) {
	end := time.Now()
	d := end.Sub(st.start)
	obs := &st.obs
	m := g.cfg.Metrics
	m.ObserveRequest(route, status, d)
	obs.EachRead(m.CacheOutcome)
	level := slog.LevelInfo
	if quietRoute(route) {
		level = slog.LevelDebug
	}
	// The handler is called directly rather than through Logger.LogAttrs,
	// which also walks the stack for a source position we do not log
	// (a fifth of the line's cost).
	h := g.cfg.Logger.Handler()
	if !h.Enabled(context.Background(), level) {
		return
	}
	if g.cfg.AccessLog != nil {
		bp := bodyPool.Get().(*[]byte)
		b := appendAccessLine((*bp)[:0], end, level, st, method, route, status, d, obs)
		_, _ = g.cfg.AccessLog.Write(b)
		*bp = b[:0]
		bodyPool.Put(bp)
		return
	}
	r := slog.NewRecord(end, level, "request", 0)
	r.AddAttrs(
		slog.String("request_id", string(st.id)),
		slog.String("method", method),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Int64("duration_us", d.Microseconds()), // an integer: a float costs its formatting
		slog.String("key_name", st.keyName),
		slog.String("cache", obs.Outcome()),
		slog.Int("upstream_calls", obs.UpstreamCalls()),
	)
	_ = h.Handle(context.Background(), r)
}

// lineStamps formats the request log's times; one for the process, as it
// only caches what any time's formatting gives.
var lineStamps stamps

// appendAccessLine appends the request log line that record writes
// through slog otherwise, as slog's JSON handler writes it: the same
// members in the same order, the time in RFC 3339 with nanoseconds, and a
// newline. The level, the route and the cache tier are names of our own
// (slog's levels, the app's route patterns, providers.Tiers), which hold
// nothing to escape (TestAccessLineNamesNeedNoEscaping), and so is a
// request id we made (hex digits): they are quoted without the scan
// appendJSONString makes. A client's request id, the method and the
// key's name are escaped.
func appendAccessLine(b []byte, at time.Time, level slog.Level, st *requestState, method, route string, status int, d time.Duration, obs *providers.Observation) []byte {
	b = append(b, `{"time":"`...)
	b = lineStamps.append(b, at)
	b = append(b, `","level":`...)
	b = appendQuoted(b, level.String())
	b = append(b, `,"msg":"request","request_id":`...)
	if st.idPlain {
		b = appendQuoted(b, string(st.id))
	} else {
		b = appendJSONString(b, string(st.id)) // copied on the stack, for ids up to 32 bytes
	}
	b = append(b, `,"method":`...)
	b = appendJSONString(b, method)
	b = append(b, `,"route":`...)
	b = appendQuoted(b, route)
	b = append(b, `,"status":`...)
	b = appendDecimal(b, int64(status))
	b = append(b, `,"duration_us":`...)
	b = appendDecimal(b, d.Microseconds())
	b = append(b, `,"key_name":`...)
	b = appendJSONString(b, st.keyName)
	b = append(b, `,"cache":`...)
	b = appendQuoted(b, obs.Outcome())
	b = append(b, `,"upstream_calls":`...)
	b = appendDecimal(b, int64(obs.UpstreamCalls()))
	return append(b, "}\n"...)
}

// appendQuoted appends s in quotes, unescaped: for names of our own that
// hold no character JSON escapes.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// routeOf is the route pattern that answered (e.g. /v1/properties/:id),
// never the raw path: "unmatched" when no route matched, and the group
// prefix (/v1) when a group middleware (authentication) answered first.
func routeOf(c *fiber.Ctx, err error) string {
	if fe, ok := errors.AsType[*fiber.Error](err); ok && (fe.Code == fiber.StatusNotFound || fe.Code == fiber.StatusMethodNotAllowed) {
		return "unmatched"
	}
	return c.Route().Path
}

func saneRequestID(id []byte) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if b := id[i]; b < 0x21 || b > 0x7e {
			return false
		}
	}
	return true
}

func requestID(c *fiber.Ctx) string {
	if st := stateOf(c); st != nil {
		return string(st.id)
	}
	return ""
}

var errUnauthorized = providers.Errorf(providers.KindUnauthorized, providers.CodeUnauthorized,
	"a valid API key is required in the X-API-Key header")

// authenticate resolves X-API-Key to a key name (keyring: SHA-256 compared
// in constant time against every configured key, the first time a key is
// presented). The key itself is never stored or logged.
func (g *Gateway) authenticate(c *fiber.Ctx) error {
	name := g.keyName(c.Request().Header.Peek(headerAPIKey))
	if name == "" {
		return errUnauthorized
	}
	stateOf(c).keyName = name
	return c.Next()
}

const headerAPIKey = "X-API-Key"

// keyName is the name of the configured key presented, or "" when none
// matches (or none was presented): see keyring.
func (g *Gateway) keyName(presented []byte) string { return g.keys.name(presented) }

// costFunc returns the weight of a request, or an error for input that makes
// the weight unknowable (an unknown include name).
type costFunc func(c *fiber.Ctx) (int, error)

func fixedCost(n int) costFunc { return func(*fiber.Ctx) (int, error) { return n, nil } }

// notModifiedCost is what a 304 Not Modified costs when everything it
// validated was already stored: the record's unit, never less, so that a
// conditional request is still a request (If-None-Match: * matches any
// body).
const notModifiedCost = 1

// limit charges the request's cost to its key's bucket before any work is
// done, and gives back afterwards what the request did not deliver: a key
// pays only for answers (the README's "What a request costs" is this
// function in a table).
//
//   - A refused request consumes nothing and gets 429 with Retry-After; one
//     that costs more than the bucket holds gets 422 cost_exceeds_limit,
//     since waiting cannot help.
//   - A request that ends in a failure of propertyd or of an upstream (an
//     error of a Failure kind: 500, 502, 503, 504) is refunded in full.
//   - Input refused with a 400, 415 or 422 before any record was read or
//     anything was sent upstream costs nothing, whichever check refused it.
//   - A request that answers in part gives back the cost of the parts it
//     did not deliver (requestState.undelivered): batch items refused as
//     invalid or failed, sections that failed, and the sections of a
//     lookup answered 409 (ambiguous_address, inexact_match), which costs
//     one lookup.
//   - A response that ends as 304 Not Modified is refunded down to
//     notModifiedCost, but only when it was served wholly from stored data:
//     a 304 whose record or sections had to be fetched upstream (even by a
//     request it waited on) pays full price, so a conditional header never
//     buys upstream work.
//
// Every response carries the budget's headers (see setLimitHeaders),
// after the refund, and X-Request-Cost, the final charge: 0 for a request
// refused before its charge (400) or by it (429); a refund the limiter
// could not make, as when shared budgets lose Redis meanwhile, leaves the
// full cost charged and said. A 422 cost_exceeds_limit, charged nothing
// too, says the cost that exceeds the burst, which its detail names.
func (g *Gateway) limit(cost costFunc) fiber.Handler {
	return func(c *fiber.Ctx) error {
		st := stateOf(c)
		if err := checkEscapes(c.Request().URI().QueryString()); err != nil {
			g.budgetHeaders(c, st.keyName)
			return err
		}
		n, err := cost(c)
		if err != nil {
			g.budgetHeaders(c, st.keyName)
			return err
		}
		d := g.limiter.Reserve(st.keyName, n, g.now(st.start))
		charged := n
		if !d.Allowed && !d.Impossible {
			charged = 0 // a 429 charges nothing
		}
		setLimitHeaders(&c.Response().Header, d, charged)
		switch {
		case d.Impossible:
			return &providers.Error{Kind: providers.KindUnprocessable, Code: providers.CodeCostExceedsLimit,
				Message: "this request costs " + strconv.Itoa(n) + " units but the key's burst is " +
					strconv.Itoa(d.Limit) + "; split it into smaller requests"}
		case !d.Allowed:
			g.cfg.Metrics.RateLimited(st.keyName)
			return &providers.Error{Kind: providers.KindRateLimited, Code: providers.CodeRateLimited,
				Message: errRateLimitedMsg, RetryAfter: d.RetryAfter}
		}
		err = c.Next()
		if keep := g.keep(c, st, n, err); keep < n {
			setLimitHeaders(&c.Response().Header, d, d.RefundTo(keep, g.now(st.start)))
		}
		return err
	}
}

// keep is what a request of cost n that ended with err is charged in the
// end (see limit).
func (g *Gateway) keep(c *fiber.Ctx, st *requestState, n int, err error) int {
	obs := &st.obs
	switch {
	case err != nil && providers.KindOf(err).Failure():
		return 0
	case err != nil && rejectedInput(err) && obs.UpstreamCalls() == 0 && obs.Outcome() == "":
		return 0
	case err != nil:
		// An error answer delivered no section: it pays for what it
		// did (a 409's lookup), not for what it did not.
		return n - st.undelivered
	}
	keep := n - st.undelivered
	if keep > notModifiedCost && c.Response().StatusCode() == fiber.StatusNotModified && servedFromStore(obs) {
		keep = notModifiedCost
	}
	return keep
}

// rejectedInput reports whether err refuses the request's input (400, 415,
// 422) rather than reporting on work done.
func rejectedInput(err error) bool {
	switch providers.KindOf(err) {
	case providers.KindInvalid, providers.KindUnsupportedMedia, providers.KindUnprocessable:
		return true
	}
	return false
}

// servedFromStore reports whether a request read only stored values: it
// sent nothing upstream and no record or section came from an upstream.
func servedFromStore(obs *providers.Observation) bool {
	return obs.UpstreamCalls() == 0 && obs.Outcome() != providers.TierUpstream
}

// budgetHeaders sets the budget's headers on the answer to a request of
// the key named name that is answered before it is charged (a 405, input
// refused before the charge): the budget as it stands, read by a charge
// of nothing, and X-Request-Cost 0. A request without a valid key (name
// "") gets none: it has no budget to show.
func (g *Gateway) budgetHeaders(c *fiber.Ctx, name string) {
	if name == "" {
		return
	}
	st := stateOf(c)
	d := g.limiter.Reserve(name, 0, g.now(st.start))
	setLimitHeaders(&c.Response().Header, d, 0)
}

// The rate-limit and ETag headers are set under these exact names with
// SetCanonical, which skips fasthttp's per-call normalization of the name,
// from values formatted on the stack: no allocation per header.
var (
	headerLimit     = []byte("X-RateLimit-Limit")
	headerRemaining = []byte("X-RateLimit-Remaining")
	headerReset     = []byte("X-RateLimit-Reset")
	headerCost      = []byte("X-Request-Cost")
	headerPolicy    = []byte("RateLimit-Policy")
	headerRateLimit = []byte("RateLimit")
	headerETag      = []byte(fiber.HeaderETag)
)

// rateLimitPolicy is the name of a key's one quota policy in the
// RateLimit-Policy and RateLimit fields.
const rateLimitPolicy = `"default"`

// setLimitHeaders sets the headers of the budget d reports on, for a
// request charged cost in the end:
//
//   - X-RateLimit-Limit, the burst; X-RateLimit-Remaining, the whole
//     tokens left; X-RateLimit-Reset, the seconds until the bucket holds
//     one token more than that (0 when full: see ratelimit.Limit.State),
//     rounded up; X-Request-Cost, cost.
//   - The same in the fields of draft-ietf-httpapi-ratelimit-headers-11:
//     RateLimit-Policy: "default";q=<burst>;w=<seconds to fill from
//     empty, rounded up> and RateLimit: "default";r=<remaining>;t=<reset>,
//     where t is the draft's effective window: within it the client can
//     spend no more than r.
func setLimitHeaders(h *fasthttp.ResponseHeader, d ratelimit.Decision, cost int) {
	var buf [64]byte
	reset := int64((d.Reset + time.Second - 1) / time.Second)
	h.SetCanonical(headerLimit, appendDecimal(buf[:0], int64(d.Limit)))
	h.SetCanonical(headerRemaining, appendDecimal(buf[:0], int64(d.Remaining)))
	h.SetCanonical(headerReset, appendDecimal(buf[:0], reset))
	h.SetCanonical(headerCost, appendDecimal(buf[:0], int64(cost)))
	b := append(buf[:0], rateLimitPolicy+";q="...)
	b = appendDecimal(b, int64(d.Limit))
	b = append(b, ";w="...)
	b = appendDecimal(b, max(int64((d.Window+time.Second-1)/time.Second), 1))
	h.SetCanonical(headerPolicy, b)
	b = append(buf[:0], rateLimitPolicy+";r="...)
	b = appendDecimal(b, int64(d.Remaining))
	b = append(b, ";t="...)
	b = appendDecimal(b, reset)
	h.SetCanonical(headerRateLimit, b)
}
