package gateway

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
	"github.com/valyala/fasthttp"
)

// CORS says which web pages of other origins may call the API from a
// browser (fetch, XMLHttpRequest). The zero value allows none: no response
// carries a CORS header, and a browser keeps every answer from such a page.
type CORS struct {
	// AllowedOrigins lists the origins allowed, each as a browser sends it
	// in Origin: scheme://host or scheme://host:port, http or https, no
	// path (see CheckOrigin); "*" allows every origin. The API key, not the
	// origin, is what authorizes a request: the list only decides which
	// pages a browser lets read the answers.
	AllowedOrigins []string
}

// Preflight and exposure policy, stated once.
const (
	// corsMaxAge is how long a browser may reuse a preflight's answer
	// before asking again (Chromium keeps one two hours at most).
	corsMaxAge = 10 * time.Minute
	// corsMethods are the methods the API serves.
	corsMethods = "GET,HEAD,POST"
	// corsRequestHeaders are the request headers a page may send beyond
	// the ones browsers always allow: the key, a conditional GET, a
	// batch's JSON body and the client's request id.
	corsRequestHeaders = "X-API-Key,If-None-Match,Content-Type,X-Request-ID"
	// corsExposed are the response headers a page may read beyond the
	// ones browsers always expose: the budget, the charge, the ETag to
	// send back in If-None-Match, the request id to quote in a report, and
	// when to retry.
	corsExposed = "ETag,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset,RateLimit-Policy,RateLimit,X-Request-Cost,X-Request-ID,Retry-After"
)

// CheckOrigin reports what is wrong with origin as an entry of
// CORS.AllowedOrigins, or nil: it must be "*" or exactly what a browser
// sends in Origin, scheme://host[:port] with scheme http or https and
// nothing after the host, since a browser's Origin is compared with the
// entries as they are written (case aside).
func CheckOrigin(origin string) error {
	if origin == "*" {
		return nil
	}
	u, err := url.Parse(origin)
	switch {
	case err != nil:
		return errors.New("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("must start with http:// or https://")
	case u.Host == "" || u.User != nil || u.Opaque != "":
		return errors.New("must name a host, as scheme://host or scheme://host:port")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(origin, "?") || strings.HasSuffix(origin, "#"):
		return errors.New("must be scheme://host or scheme://host:port, with nothing after the host (not even a /)")
	case strings.Contains(u.Host, "*"):
		return errors.New(`must name one host; "*" alone allows every origin`)
	}
	return nil
}

// newCORS returns the middleware that answers browsers for the origins of
// cfg, or nil when cfg allows none. A request from an allowed origin gets
// Access-Control-Allow-Origin and -Expose-Headers, on errors too (the
// middleware runs before authentication and routing, whose 401, 404 and
// 429 a page must be able to read); its preflight (OPTIONS with
// Access-Control-Request-Method) is answered 204 at once, before the key
// is checked or anything charged, since a browser sends a preflight
// without the key. A request from any other origin, and an OPTIONS that
// is no preflight, pass on untouched: no CORS header, and an OPTIONS is
// the 405 of any method a route does not serve. Fiber's cors middleware
// does the work; it would otherwise answer every origin's preflight.
func newCORS(cfg CORS) fiber.Handler {
	if len(cfg.AllowedOrigins) == 0 {
		return nil
	}
	every := slices.Contains(cfg.AllowedOrigins, "*")
	allowed := make(map[string]bool, len(cfg.AllowedOrigins))
	for _, o := range cfg.AllowedOrigins {
		allowed[strings.ToLower(o)] = true
	}
	allow := func(origin string) bool { return every || allowed[strings.ToLower(origin)] }
	inner := cors.New(cors.Config{
		AllowOriginsFunc: allow,
		AllowMethods:     corsMethods,
		AllowHeaders:     corsRequestHeaders,
		ExposeHeaders:    corsExposed,
		MaxAge:           int(corsMaxAge / time.Second),
	})
	return func(c *fiber.Ctx) error {
		if origin := c.Get(fiber.HeaderOrigin); origin != "" && !allow(origin) {
			// The answer depends on the origin all the same.
			c.Vary(fiber.HeaderOrigin)
			return c.Next()
		}
		return inner(c)
	}
}

// serveFast answers rctx in front of the app when serveReady can, and
// reports whether it did. With CORS on, a request from a page (one with
// an Origin) goes through the app, where the CORS middleware answers it,
// and an answer made here says it depends on Origin, as the app's do.
func (g *Gateway) serveFast(rctx *fasthttp.RequestCtx) bool {
	if !g.serveReady(rctx) {
		return false
	}
	if g.cors != nil {
		rctx.Response.Header.Add(fiber.HeaderVary, fiber.HeaderOrigin)
	}
	return true
}
