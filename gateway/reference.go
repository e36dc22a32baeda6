package gateway

import (
	"io/fs"
	"path"

	"github.com/gofiber/fiber/v2"
	"github.com/propertyd/propertyd/gateway/docs"
)

// staticFile is an embedded response body with its validators, built once.
type staticFile struct {
	body        []byte
	contentType string
	etag        string
}

func newStaticFile(body []byte, contentType string) staticFile {
	return staticFile{body: body, contentType: contentType, etag: etagOf(body)}
}

// send writes the file with an ETag, answering 304 when If-None-Match names
// it; header (name, value pairs) is only sent with the body.
func (f staticFile) send(c *fiber.Ctx, cacheControl string, header ...string) error {
	c.Set(fiber.HeaderETag, f.etag)
	c.Set(fiber.HeaderCacheControl, cacheControl)
	if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" && etagMatches(inm, f.etag) {
		c.Status(fiber.StatusNotModified)
		return nil
	}
	for i := 0; i+1 < len(header); i += 2 {
		c.Set(header[i], header[i+1])
	}
	c.Set(fiber.HeaderContentType, f.contentType)
	return c.Send(f.body)
}

// assetTypes are the content types of the page's assets, fixed here rather
// than read from the system's MIME tables, which differ between machines.
var assetTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
}

// referenceRoutes serves the API reference without an API key: the OpenAPI
// document, the page that renders it, and the page's scripts and styles.
// The document and the page are revalidated on every use (no-cache), so a
// deploy shows at once; assets may be reused for an hour.
func (g *Gateway) referenceRoutes() {
	spec := newStaticFile(docs.Spec(), fiber.MIMEApplicationJSON)
	page := newStaticFile(docs.Page(), fiber.MIMETextHTMLCharsetUTF8)
	assets := map[string]staticFile{}
	_ = fs.WalkDir(docs.Assets(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(docs.Assets(), name)
		if err != nil {
			return err
		}
		assets[name] = newStaticFile(b, assetTypes[path.Ext(name)])
		return nil
	})

	g.app.Get("/openapi.json", func(c *fiber.Ctx) error { return spec.send(c, "no-cache") })
	g.app.Get("/docs", func(c *fiber.Ctx) error {
		return page.send(c, "no-cache", fiber.HeaderContentSecurityPolicy, docs.ContentSecurityPolicy,
			fiber.HeaderXContentTypeOptions, "nosniff")
	})
	g.app.Get("/docs/assets/*", func(c *fiber.Ctx) error {
		f, ok := assets[c.Params("*")]
		if !ok {
			return errRouteNotFound
		}
		return f.send(c, "public, max-age=3600", fiber.HeaderXContentTypeOptions, "nosniff")
	})
}
