// Package gateway is propertyd's HTTP front end: the Fiber app, its routes,
// API-key authentication, weighted per-key rate limits, ETags, and the one
// error handler that turns every error into RFC 9457 problem details. It
// knows HTTP and the property service, not upstream formats and not SQL. It
// is the only package that imports Fiber.
package gateway

import (
	"context"
	"io"
	"log/slog"
	"net"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/providers/decorators/metrics"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/valyala/fasthttp"
)

// Limiter charges a request's cost to its key's budget. ratelimit.Keyed
// (this instance's own buckets) and fleet.Budgets (budgets shared by every
// instance through Redis) are the two; both answer with the same Decision,
// refunds included. Implementations must be safe for concurrent use.
type Limiter interface {
	// Reserve charges cost tokens to the key named key at now; see
	// ratelimit.Keyed.Reserve.
	Reserve(key string, cost int, now time.Time) ratelimit.Decision
}

// Key is one API consumer: its name (logged and used for metrics, never the
// key itself), the SHA-256 of its key, and its token bucket.
type Key struct {
	Name   string
	SHA256 [32]byte
	Limit  ratelimit.Limit
}

// Defaults of Config, stated once: the service's configuration applies
// them too.
const (
	DefaultBodyLimit      = 64 << 10
	DefaultRequestTimeout = 30 * time.Second
)

// Config is what the gateway is built from.
type Config struct {
	Service *service.Service
	Keys    []Key
	// Sections lists the enrichment sections this deployment serves;
	// include= accepts exactly these names.
	Sections []string
	// BodyLimit caps request bodies in bytes (default 64 KiB).
	BodyLimit int
	// RequestTimeout bounds the work of one request, upstream calls
	// included (default 30s).
	RequestTimeout time.Duration
	// Ready reports whether the service can serve (the database answers),
	// and which breakers are open, for /readyz.
	Ready  func(ctx context.Context) (ok bool, openBreakers []string)
	Logger *slog.Logger
	// AccessLog, when set, receives the request log lines (see observe)
	// directly, one Write per line, in the JSON shape of slog's JSON
	// handler, rather than through Logger: building a slog record and
	// walking its attributes was a third of a warm GET's own work. Logger
	// still decides which levels are written, and logs everything else.
	// It must be safe for concurrent use.
	AccessLog io.Writer
	// Answers, when set, keeps the answers of GET /v1/properties/{id}
	// without include= as ready bytes for AnswerTTL (0: until evicted);
	// give it the cache and TTL of the records (see readyBody).
	Answers   *cache.Cache
	AnswerTTL time.Duration
	// Metrics, when set, records every request and is served at /metrics
	// (without a key); nil means no metrics and no /metrics route.
	Metrics *metrics.Metrics
	// Limiter keeps the keys' budgets; nil means this instance's own
	// buckets, built from Keys.
	Limiter Limiter
	// Redis, when set, reports whether the Redis the instances share
	// answers, for /readyz's "redis" field; nil (no Redis configured)
	// leaves the field out.
	Redis func() (up bool)
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// CORS says which other origins' pages may call the API from a
	// browser; the zero value allows none.
	CORS CORS
}

// fastPath says whether New answers a plain warm GET in front of the Fiber
// app (serveFast). It is always on in the service; the gateway's tests run
// once with it and once without, so both paths give the same answers (see
// TestMain).
var fastPath = true

// Gateway is the HTTP front end. Safe for concurrent use.
type Gateway struct {
	cfg     Config
	app     *fiber.App
	limiter Limiter
	keys    *keyring
	allowed map[string]bool // enrichment sections served
	public  []string        // the catalogue's public sections, in its order
	// publicCost is what including public[i] costs (its catalogue entry's
	// Cost), read once.
	publicCost []int
	ready      readyBodies
	conns      conns // served through Serve, for Shutdown
	// realClock is set when Config.Now is the real clock: a request's
	// budget is then charged at the time its middleware first saw it
	// (see now), rather than by reading the clock again.
	realClock bool
	handler   fasthttp.RequestHandler
	cors      fiber.Handler // nil: no origin is allowed
}

// New builds the Fiber app with every route.
func New(cfg Config) *Gateway {
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = DefaultBodyLimit
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	realClock := cfg.Now == nil
	if realClock {
		cfg.Now = time.Now
	}
	g := &Gateway{cfg: cfg, keys: newKeyring(cfg.Keys), allowed: map[string]bool{},
		ready: newReadyBodies(cfg.Answers, cfg.AnswerTTL), realClock: realClock, cors: newCORS(cfg.CORS)}
	g.readCatalogue()
	g.limiter = cfg.Limiter
	if g.limiter == nil {
		limits := map[string]ratelimit.Limit{}
		for _, k := range cfg.Keys {
			limits[k.Name] = k.Limit
		}
		g.limiter = ratelimit.NewKeyed(limits)
	}
	for _, s := range cfg.Sections {
		g.allowed[s] = true
	}
	ioTimeout, idleTimeout := ServerTimeouts(cfg.RequestTimeout)
	g.app = fiber.New(fiber.Config{
		AppName:               "propertyd",
		DisableStartupMessage: true,
		BodyLimit:             cfg.BodyLimit,
		ErrorHandler:          g.handleError,
		ReadTimeout:           ioTimeout,
		WriteTimeout:          ioTimeout,
		IdleTimeout:           idleTimeout,
		// One resource, one URL: /V1/properties/1 and /v1/properties/1/
		// are no spelling of /v1/properties/1 but paths that name no
		// endpoint, a 404 that costs nothing (a redirect would cost the
		// client a round trip to learn the same).
		CaseSensitive: true,
		StrictRouting: true,
	})
	g.conns.slack = deadlineSlack(min(ioTimeout, idleTimeout))
	g.routes()
	// A warm GET of a record is answered in front of the app when it can
	// be (serveFast). Fiber answers a method it does not know (FETCH, say)
	// in plain text before any handler or the error handler runs; answer it
	// as a problem.
	inner := g.app.Handler()
	fast := fastPath
	g.handler = func(rctx *fasthttp.RequestCtx) {
		// A request whose framing refuseFraming refused comes marked to be
		// closed: only those are checked again, to say why.
		if rctx.Request.Header.ConnectionClose() {
			if err := framingError(&rctx.Request.Header); err != nil {
				g.refuse(rctx, err)
				return
			}
		}
		if fast && g.serveFast(rctx) {
			return
		}
		if !slices.Contains(fiber.DefaultMethods, string(rctx.Method())) {
			g.unknownMethod(rctx)
			return
		}
		inner(rctx)
	}
	g.app.Server().Handler = g.handler
	g.app.Server().HeaderReceived = refuseFraming
	return g
}

// readCatalogue notes the catalogue's public sections, in its order, and
// what including each costs: include= is parsed against them.
func (g *Gateway) readCatalogue() {
	g.public = service.PublicSections()
	g.publicCost = g.publicCost[:0]
	for _, name := range g.public {
		e, _ := service.SectionEntry(name)
		g.publicCost = append(g.publicCost, e.Cost)
	}
}

// Handler returns the fasthttp handler that serves every request, the one
// the server runs; for tests that drive requests without a listener. The
// server checks a request's framing before the handler runs (see
// refuseFraming); called alone, the handler checks only that of requests
// asking for their connection to be closed.
func (g *Gateway) Handler() fasthttp.RequestHandler { return g.handler }

// unknownMethod answers a method Fiber does not route with a 405 problem.
func (g *Gateway) unknownMethod(rctx *fasthttp.RequestCtx) {
	c := g.app.AcquireCtx(rctx)
	defer g.app.ReleaseCtx(c)
	_ = g.handleError(c, errMethodNotAllowed)
}

// ServerTimeouts are the server's read and write timeout (io) and its
// keep-alive idle timeout for requests given requestTimeout: a request has
// its whole time to answer and five seconds more to be read and to be
// written; a kept-alive connection two minutes to send its next request
// (longer than the minute load balancers keep idle connections, so that
// they, not we, close them).
func ServerTimeouts(requestTimeout time.Duration) (io, idle time.Duration) {
	return requestTimeout + 5*time.Second, 2 * time.Minute
}

// App returns the Fiber app, for tests (app.Test) and for serving.
func (g *Gateway) App() *fiber.App { return g.app }

// Serve answers the connections ln accepts until Shutdown. The API
// reference's files are compressed when first asked for in a coding (see
// staticFile.in), not at start: compressing the docs page's script takes
// about a CPU second, which at start would be taken from the first
// requests (and from every measurement of them).
func (g *Gateway) Serve(ln net.Listener) error {
	return g.app.Listener(g.conns.listen(ln))
}

// Shutdown stops accepting connections and waits for in-flight requests
// until ctx ends. Connections between requests are closed at once, and
// connections that never sent a request once they are a second old (see
// conns), so a shutdown lasts as long as the requests it waits for.
func (g *Gateway) Shutdown(ctx context.Context) error {
	done := make(chan struct{})
	defer close(done)
	go g.conns.closeUnusedUntil(ctx, done, 100*time.Millisecond)
	return g.app.ShutdownWithContext(ctx)
}

func (g *Gateway) routes() {
	app := g.app
	app.Use(g.requestContext)
	if g.cors != nil {
		app.Use(g.cors)
	}
	if g.cfg.Metrics != nil {
		app.Get("/metrics", adaptor.HTTPHandler(g.cfg.Metrics.Handler()))
	}
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"status": "ok"}) })
	app.Get("/readyz", g.readyz)
	g.referenceRoutes() // /openapi.json, /docs, /docs/assets/*: no key

	v1 := app.Group("/v1", g.authenticate)
	v1.Get("/properties/lookup", g.limit(g.costOfIncludes), g.lookup)
	v1.Get("/properties/reverse", g.limit(g.costOfIncludes), g.reverse)
	v1.Post(batchPath, g.limit(g.costOfBatch), g.batch)
	// Any other method on the batch path is a 405, not a lookup of the
	// record with id "batch" through the route below.
	v1.All(batchPath, func(*fiber.Ctx) error { return errMethodNotAllowed })
	v1.Get("/properties/search", g.limit(fixedCost(1)), g.search)
	v1.Get("/properties/:id", g.limit(g.costOfIncludes), g.get)
	// One route per section of the catalogue, rather than one taking any
	// name: a path naming no section then matches no route and is the 404
	// of any path that names no endpoint, charged nothing.
	for _, name := range g.public {
		e, _ := service.SectionEntry(name)
		v1.Get("/properties/:id/"+name, g.limit(fixedCost(recordCost+e.Cost)), g.section(e))
	}
	// Unmatched paths and methods fall through to Fiber's 404 and 405
	// errors, which handleError renders as problem details.
}

// now is the time a request that arrived at start is charged at: start,
// with the real clock, else Config.Now's.
func (g *Gateway) now(start time.Time) time.Time {
	if g.realClock {
		return start
	}
	return g.cfg.Now()
}

// ForgetAnswers drops every answer the gateway keeps ready in front of
// the cache, after the records' facts changed underneath it; the caller
// clears the cache (Config.Answers) itself.
func (g *Gateway) ForgetAnswers() { g.ready.forget() }
