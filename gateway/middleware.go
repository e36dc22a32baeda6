package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/ratelimit"
)

// Locals keys set by the middleware.
const (
	localRequestID = "propertyd.request_id"
	localKeyName   = "propertyd.key_name"
	localIncludes  = "propertyd.includes"
)

// requestContext gives every request an id (the client's X-Request-ID when
// it is sane, else a random one), echoes it, and sets the user context with
// the request deadline, which every upstream call inherits.
func (g *Gateway) requestContext(c *fiber.Ctx) error {
	id := c.Get(fiber.HeaderXRequestID)
	if !saneRequestID(id) {
		var b [12]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	} else {
		id = utils.CopyString(id)
	}
	c.Locals(localRequestID, id)
	c.Set(fiber.HeaderXRequestID, id)
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.RequestTimeout)
	defer cancel()
	c.SetUserContext(ctx)
	return c.Next()
}

// quietRoutes are probes and scrapes, logged at debug level so that a
// monitoring system polling them does not drown the request log.
var quietRoutes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// observe logs one structured line per request once it is answered and
// records the request metrics. The line holds the request id, the key's
// name, the route pattern, status, latency, the cache outcome (the dearest
// tier that served a record or section) and the HTTP requests made to
// upstreams, all counted through the providers.Observation it puts in the
// user context. It never logs the key, the path or the query, so addresses
// stay out of the log. It renders a chain error itself through handleError,
// so that the status it reports is the one sent.
func (g *Gateway) observe(c *fiber.Ctx) error {
	start := time.Now()
	obs := &providers.Observation{}
	c.SetUserContext(providers.WithObservation(c.UserContext(), obs))
	err := c.Next()
	route := routeOf(c, err)
	if err != nil {
		if herr := g.handleError(c, err); herr != nil {
			_ = c.SendStatus(fiber.StatusInternalServerError)
		}
	}
	status := c.Response().StatusCode()
	d := time.Since(start)
	m := g.cfg.Metrics
	m.ObserveRequest(route, status, d)
	for _, kind := range providers.ReadKinds {
		for _, tier := range providers.Tiers {
			m.CacheOutcome(kind, tier, obs.Reads(kind, tier))
		}
	}
	level := slog.LevelInfo
	if quietRoutes[route] {
		level = slog.LevelDebug
	}
	keyName, _ := c.Locals(localKeyName).(string)
	g.cfg.Logger.LogAttrs(context.Background(), level, "request",
		slog.String("request_id", requestID(c)),
		slog.String("method", c.Method()),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.String("key_name", keyName),
		slog.String("cache", obs.Outcome()),
		slog.Int("upstream_calls", obs.UpstreamCalls()),
	)
	return nil
}

// routeOf is the route pattern that answered (e.g. /v1/properties/:id),
// never the raw path: "unmatched" when no route matched, and the group
// prefix (/v1) when a group middleware (authentication) answered first.
func routeOf(c *fiber.Ctx, err error) string {
	var fe *fiber.Error
	if errors.As(err, &fe) && (fe.Code == fiber.StatusNotFound || fe.Code == fiber.StatusMethodNotAllowed) {
		return "unmatched"
	}
	return c.Route().Path
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
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
	id, _ := c.Locals(localRequestID).(string)
	return id
}

var errUnauthorized = providers.Errorf(providers.KindUnauthorized, "unauthorized",
	"a valid API key is required in the X-API-Key header")

// authenticate resolves X-API-Key to a key name by comparing SHA-256 hashes
// in constant time against every configured key. The key itself is never
// stored or logged.
func (g *Gateway) authenticate(c *fiber.Ctx) error {
	presented := c.Request().Header.Peek("X-API-Key")
	if len(presented) == 0 {
		return errUnauthorized
	}
	sum := sha256.Sum256(presented)
	name := ""
	for _, k := range g.keys {
		if subtle.ConstantTimeCompare(sum[:], k.SHA256[:]) == 1 {
			name = k.Name
		}
	}
	if name == "" {
		return errUnauthorized
	}
	c.Locals(localKeyName, name)
	return c.Next()
}

// costFunc returns the weight of a request, or an error for input that makes
// the weight unknowable (an unknown include name).
type costFunc func(c *fiber.Ctx) (int, error)

func fixedCost(n int) costFunc { return func(*fiber.Ctx) (int, error) { return n, nil } }

// limit charges the request's cost to its key's bucket. A refused request
// consumes nothing and gets 429 with Retry-After; one that costs more than
// the bucket holds gets 422 cost_exceeds_limit, since waiting cannot help.
// A response that ends as 304 Not Modified is refunded. Every response
// carries X-RateLimit-Limit, -Remaining, -Reset and X-Request-Cost.
func (g *Gateway) limit(cost costFunc) fiber.Handler {
	return func(c *fiber.Ctx) error {
		n, err := cost(c)
		if err != nil {
			return err
		}
		name, _ := c.Locals(localKeyName).(string)
		d := g.limiter.Reserve(name, n, g.cfg.Now())
		setLimitHeaders(c, d, n)
		switch {
		case d.Impossible:
			return &providers.Error{Kind: providers.KindUnprocessable, Code: "cost_exceeds_limit",
				Message: "this request costs " + strconv.Itoa(n) + " units but the key's burst is " +
					strconv.Itoa(d.Limit) + "; split it into smaller requests"}
		case !d.Allowed:
			g.cfg.Metrics.RateLimited(name)
			return &providers.Error{Kind: providers.KindRateLimited, Code: "rate_limited",
				Message: "rate limit exceeded for this API key", RetryAfter: d.RetryAfter}
		}
		err = c.Next()
		if err == nil && c.Response().StatusCode() == fiber.StatusNotModified {
			d.Refund(g.cfg.Now())
			setLimitHeaders(c, d, n)
		}
		return err
	}
}

func setLimitHeaders(c *fiber.Ctx, d ratelimit.Decision, cost int) {
	c.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	c.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	c.Set("X-RateLimit-Reset", strconv.Itoa(int((d.Reset+time.Second-1)/time.Second)))
	c.Set("X-Request-Cost", strconv.Itoa(cost))
}

// sendJSON writes a 200 JSON body with a strong ETag over its bytes; a GET
// whose If-None-Match names that ETag gets 304 with no body instead.
func sendJSON(c *fiber.Ctx, body []byte) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	if c.Method() != fiber.MethodGet {
		return c.Send(body)
	}
	etag := etagOf(body)
	c.Set(fiber.HeaderETag, etag)
	if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" && etagMatches(inm, etag) {
		c.Status(fiber.StatusNotModified)
		c.Response().ResetBody()
		return nil
	}
	return c.Send(body)
}

// etagOf is the strong ETag of a body: its xxHash64, which is stable across
// restarts and instances and hashes 8 bytes at a step (FNV went a byte at a
// time, 3 to 9% of a warm request).
func etagOf(body []byte) string {
	return `"` + strconv.FormatUint(xxhash.Sum64(body), 36) + `"`
}

// etagMatches implements If-None-Match's weak comparison over a list.
func etagMatches(header, etag string) bool {
	for _, part := range splitComma(header) {
		if part == "*" || part == etag || part == "W/"+etag {
			return true
		}
	}
	return false
}
