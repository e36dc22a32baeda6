package gateway

import (
	"bytes"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/valyala/fasthttp"
)

// readyBody is the answer to GET /v1/properties/{id} without include=,
// kept as the bytes sent and their ETag: a warm GET then neither reads
// nor renders the record, nor hashes the body (together about a tenth of
// its work). It lives in the memory cache beside the record it was
// rendered from, for the same TTL, so it is exactly as current as the
// cached record would be. Immutable once made, but for the compressed
// forms it keeps once asked for them.
type readyBody struct {
	id      int64
	body    []byte
	etag    []byte
	expires time.Time // zero: never
	// vintages are, for a lookup's answer, the sections it includes that
	// carry a release, and theirs: the answer is not served again once
	// a newer release supersedes one of them (see keepLookup).
	vintages []sectionVintage
	// coded are its compressed forms, made on first demand (see in); the
	// bytes sent in a coding never change either.
	coded codedForms
}

// sectionVintage is a section and the release of its value.
type sectionVintage struct{ section, vintage string }

func readyKey(id int64) string { return "b:" + strconv.FormatInt(id, 10) }

// hotSlots is the size of readyBodies' direct-mapped table.
const hotSlots = 4096

// readyBodies keeps readyBodies in the memory cache, and the latest one
// read or made for each id modulo hotSlots in a table in front of it, so
// that a hot record's answer is found with one atomic load: no key to
// build, hash or collect (a ristretto read allocates a few bytes, its key
// and its share of the access buffer, which at 20k requests a second made
// a collection land in the warm GET's latency every half minute). The
// table holds at most hotSlots bodies beyond what the cache counts (a few
// MB), each no longer than its TTL. A nil cache keeps nothing.
type readyBodies struct {
	c   *cache.Cache
	ttl time.Duration
	hot *[hotSlots]atomic.Pointer[readyBody]
}

// newReadyBodies keeps ready bodies in c for ttl; with no cache it keeps
// none and allocates no table.
func newReadyBodies(c *cache.Cache, ttl time.Duration) readyBodies {
	if c == nil {
		return readyBodies{}
	}
	return readyBodies{c: c, ttl: ttl, hot: new([hotSlots]atomic.Pointer[readyBody])}
}

func (r readyBodies) slot(id int64) *atomic.Pointer[readyBody] {
	return &r.hot[uint64(id)%hotSlots]
}

// get returns the ready body of id if one is current at now.
func (r readyBodies) get(id int64, now time.Time) (*readyBody, bool) {
	if r.c == nil {
		return nil, false
	}
	slot := r.slot(id)
	if rb := slot.Load(); rb != nil && rb.id == id && (rb.expires.IsZero() || now.Before(rb.expires)) {
		return rb, true
	}
	v, ok := r.c.Get(readyKey(id))
	if !ok {
		return nil, false
	}
	rb := v.(*readyBody)
	slot.Store(rb)
	return rb, true
}

// put keeps a copy of body (a pooled buffer) for id, from now.
func (r readyBodies) put(id int64, body []byte, now time.Time) *readyBody {
	rb := &readyBody{id: id, body: append([]byte(nil), body...)}
	rb.etag = appendETag(nil, rb.body)
	if r.c != nil {
		if r.ttl > 0 {
			rb.expires = now.Add(r.ttl)
		}
		r.c.Set(readyKey(id), rb, int64(len(rb.body)+len(rb.etag)+96)+codedCost(len(rb.body)), r.ttl)
		r.slot(id).Store(rb)
	}
	return rb
}

// maxAnswerLife bounds a ready answer that nothing else bounds (records
// kept until evicted, no section included).
const maxAnswerLife = 24 * time.Hour

// lookupKey is the key of a lookup's ready answer: its query string as
// sent, which names everything the answer depends on (the address, its
// unit, include=); another spelling of the same request has an answer of
// its own.
func lookupKey(query []byte) string { return "l:" + string(query) }

// getAnswer returns the ready answer kept under key, if one is current at
// now.
func (r readyBodies) getAnswer(key string, now time.Time) (*readyBody, bool) {
	if r.c == nil {
		return nil, false
	}
	v, ok := r.c.Get(key)
	if !ok {
		return nil, false
	}
	rb := v.(*readyBody)
	return rb, now.Before(rb.expires)
}

// putAnswer keeps a copy of body (a pooled buffer) under key until
// expires (zero: no bound of its own), and at most the records' TTL from
// now.
func (r readyBodies) putAnswer(key string, body []byte, now, expires time.Time, vintages []sectionVintage) *readyBody {
	rb := &readyBody{body: append([]byte(nil), body...), expires: expires, vintages: vintages}
	rb.etag = appendETag(nil, rb.body)
	if r.ttl > 0 && (rb.expires.IsZero() || now.Add(r.ttl).Before(rb.expires)) {
		rb.expires = now.Add(r.ttl)
	}
	if rb.expires.IsZero() {
		rb.expires = now.Add(maxAnswerLife)
	}
	if r.c != nil && now.Before(rb.expires) {
		r.c.Set(key, rb, int64(len(key)+len(rb.body)+len(rb.etag)+96+32*len(vintages))+codedCost(len(rb.body)), rb.expires.Sub(now))
	}
	return rb
}

// keepLookup says whether a lookup's answer may be kept ready, and until
// when: when it created nothing, read its record from storage and every
// section it includes is settled (service.SectionResult.Until: read fresh
// from storage, the sections it embeds too, without a call), until the
// first of them expires. Such an answer is the same bytes for every
// request of the same query until then, unless a newer release of a
// section's data supersedes the one it holds (see lookupReady). A warm
// lookup with all five sections then costs what a warm GET by id does,
// not a rendering of five sections.
func keepLookup(src service.Source, inc []string, secs []service.SectionResult) (expires time.Time, vintages []sectionVintage, ok bool) {
	if src.Created || src.Tier == providers.TierUpstream || src.Tier == "" {
		return time.Time{}, nil, false
	}
	for i, r := range secs {
		if r.Until.IsZero() {
			return time.Time{}, nil, false
		}
		if expires.IsZero() || r.Until.Before(expires) {
			expires = r.Until
		}
		if v := r.Meta.Vintage; v != "" {
			vintages = append(vintages, sectionVintage{inc[i], v})
		}
	}
	return expires, vintages, true
}

// lookupReady answers a lookup from its ready answer (see keepLookup),
// when there is a current one; ok is false otherwise and nothing was
// sent.
func (g *Gateway) lookupReady(c *fiber.Ctx, st *requestState) bool {
	if g.ready.c == nil || !isRead(c.Context()) {
		return false
	}
	rb, ok := g.ready.getAnswer(lookupKey(c.Request().URI().QueryString()), st.start)
	if !ok {
		return false
	}
	for _, v := range rb.vintages {
		if g.cfg.Service.Superseded(v.section, v.vintage) {
			return false
		}
	}
	st.obs.Served(providers.ReadRecord, providers.TierMemory)
	for range st.includes {
		st.obs.Served(providers.ReadSection, providers.TierMemory)
	}
	sendReadyTo(c, rb)
	return true
}

// getReady answers GET /v1/properties/{id} from its ready body, when
// there is one and the request includes no section; ok is false otherwise
// and nothing was sent.
func (g *Gateway) getReady(c *fiber.Ctx, id int64) (ok bool, err error) {
	if inc, _ := g.includes(c); len(inc) > 0 || !isRead(c.Context()) {
		return false, nil
	}
	st := stateOf(c)
	rb, ok := g.ready.get(id, st.start)
	if !ok {
		return false, nil
	}
	st.obs.Served(providers.ReadRecord, providers.TierMemory)
	sendReadyTo(c, rb)
	return true, nil
}

// routeProperty is the route of GET /v1/properties/{id} as Fiber names it
// (c.Route().Path), under which serveReady counts and logs its answers.
const routeProperty = "/v1/properties/:id"

// readyPrefix is the path of a record before its id.
var readyPrefix = []byte("/v1/properties/")

// serveReady answers GET (or HEAD) /v1/properties/{id} from the record's ready body
// in front of the Fiber app, and reports whether it did. It takes only the
// plainest form of that request: a GET or HEAD of exactly /v1/properties/ and a
// positive id without leading zeros, with no query, a configured key and a
// ready body; with CORS on, no Origin. It then does what the Fiber
// chain does for that request (requestContext, authenticate, limit, get,
// observe), through the same functions, without a Fiber context, route
// matching or the request's deadline context: 11% of a warm GET's
// instructions in BenchmarkWarmGet, its client included. A budget that
// refuses the request is answered here too, 429 as through the app (see
// refuseReady). For anything else it returns false having sent nothing
// and charged nothing, and the Fiber app answers as always, errors
// included.
//
// It is a second path beside the app's chain, kept for throughput alone
// (a warm GET through the app costs 12.5% more instructions: 46,869
// against 41,645 in BenchmarkWarmGet, client included, counted with
// callgrind). So that it cannot drift from the chain, the gateway's whole
// test suite runs twice, with it and without it (TestMain, fastPath):
// every answer, header and charge a test checks is checked on both paths.
func (g *Gateway) serveReady(rctx *fasthttp.RequestCtx) bool {
	if g.ready.c == nil || !isRead(rctx) {
		return false
	}
	id, ok := readyID(rctx.Request.Header.RequestURI())
	if !ok {
		return false
	}
	start := requestTime(rctx)
	rb, ok := g.ready.get(id, start)
	if !ok {
		return false
	}
	// The headers are read once the request is known to be one this path
	// may take, so that others pay nothing for them.
	hdr := readFastHeaders(&rctx.Request.Header)
	if g.cors != nil && len(hdr.origin) > 0 {
		return false // a page's request: the CORS middleware answers it
	}
	name := g.keyName(hdr.key)
	if name == "" {
		return false
	}
	d := g.limiter.Reserve(name, recordCost, g.now(start))
	if d.Impossible {
		return false
	}
	st := statePool.Get().(*requestState)
	st.begin(rctx, start, hdr.requestID)
	st.keyName = name
	if d.Allowed {
		setLimitHeaders(&rctx.Response.Header, d, recordCost)
		st.obs.Served(providers.ReadRecord, providers.TierMemory)
		sendReady(rctx, hdr.ifNoneMatch, hdr.acceptEncoding, rb)
	} else {
		g.refuseReady(rctx, st, d)
	}
	method := fiber.MethodGet
	if rctx.IsHead() {
		method = fiber.MethodHead
	}
	g.record(rctx.Response.StatusCode(), method, st, routeProperty)
	st.reset()
	statePool.Put(st)
	return true
}

// refuseReady answers a request serveReady took whose budget d refused:
// the 429 limit and handleError give it through the app, the same bytes,
// from a body made once with the request id spliced in, so that a client
// ignoring Retry-After costs the server less than one it serves.
func (g *Gateway) refuseReady(rctx *fasthttp.RequestCtx, st *requestState, d ratelimit.Decision) {
	g.cfg.Metrics.RateLimited(st.keyName)
	h := &rctx.Response.Header
	setLimitHeaders(h, d, 0)
	setRetryAfter(h, d.RetryAfter)
	rctx.SetStatusCode(fiber.StatusTooManyRequests)
	h.SetCanonical(headerCacheControl, noStore) // a problem is no answer to keep, as handleError says
	h.SetContentTypeBytes(mimeProblem)
	var buf [256]byte
	rctx.Response.SetBody(appendProblemTail(append(buf[:0], rateLimitedHead...), st))
}

// readyID returns the id of a request URI that is exactly readyPrefix and
// a record's id (see recordID), and whether it is that.
func readyID(uri []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(uri, readyPrefix)
	if !ok {
		return 0, false
	}
	return recordID(utils.UnsafeString(rest))
}

// forget drops the answers kept in the hot table (the cache's are
// cleared by its owner).
func (r readyBodies) forget() {
	if r.hot == nil {
		return
	}
	for i := range r.hot {
		r.hot[i].Store(nil)
	}
}
