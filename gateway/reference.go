package gateway

import (
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
	"github.com/propertyd/propertyd/gateway/docs"
)

// staticFile is an embedded response body with its validators, built once
// per process (see reference), and its compressed forms, made once each
// when first asked for (see codedForms).
type staticFile struct {
	body        []byte
	contentType string
	etag        string
	// compressible: text of compressMin bytes or more, whose answers
	// depend on Accept-Encoding.
	compressible bool
	coded        codedForms
}

func newStaticFile(body []byte, contentType string) *staticFile {
	text := strings.HasPrefix(contentType, "text/") || strings.HasPrefix(contentType, fiber.MIMEApplicationJSON)
	return &staticFile{body: body, contentType: contentType, etag: etagOf(body),
		compressible: text && len(body) >= compressMin}
}

// in returns the file's representation for a request whose
// Accept-Encoding is ae: its body, ETag and coding. A coding that would
// not make the file smaller (an already compressed file) sends it as it is.
func (f *staticFile) in(ae []byte) ([]byte, string, coding) {
	if !f.compressible {
		return f.body, f.etag, identity
	}
	if c := negotiate(ae); c != identity {
		if cb := f.coded.get(f.body, []byte(f.etag), c, staticBrotli, staticGzip); cb.body != nil {
			return cb.body, string(cb.etag), c
		}
	}
	return f.body, f.etag, identity
}

// send writes the file with an ETag, answering 304 when If-None-Match names
// it; header (name, value pairs) is only sent with the body. A
// compressible file is sent in the coding the request accepts (see
// negotiate), with that representation's ETag.
func (f *staticFile) send(c *fiber.Ctx, cacheControl string, header ...string) error {
	body, etag, cd := f.in(c.Request().Header.Peek(fiber.HeaderAcceptEncoding))
	if f.compressible {
		c.Vary(fiber.HeaderAcceptEncoding)
	}
	c.Set(fiber.HeaderETag, etag)
	c.Set(fiber.HeaderCacheControl, cacheControl)
	if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" && etagMatches(inm, etag) {
		c.Status(fiber.StatusNotModified)
		return nil
	}
	for i := 0; i+1 < len(header); i += 2 {
		c.Set(header[i], header[i+1])
	}
	c.Set(fiber.HeaderContentType, f.contentType)
	if cd != identity {
		c.Response().Header.SetContentEncodingBytes(codingNames[cd])
	}
	return c.Send(body)
}

// referenceFiles are the API reference's files: the OpenAPI document, the
// page and its assets by name.
type referenceFiles struct {
	spec, page *staticFile
	assets     map[string]*staticFile
}

// reference returns the reference's files, read once per process: every
// gateway of the process serves the same embedded bytes, compressed once.
var reference = sync.OnceValue(func() *referenceFiles {
	r := &referenceFiles{spec: newStaticFile(docs.Spec(), fiber.MIMEApplicationJSON),
		page: newStaticFile(docs.Page(), fiber.MIMETextHTMLCharsetUTF8), assets: map[string]*staticFile{}}
	_ = fs.WalkDir(docs.Assets(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(docs.Assets(), name)
		if err != nil {
			return err
		}
		r.assets[name] = newStaticFile(b, assetTypes[path.Ext(name)])
		return nil
	})
	return r
})

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
	ref := reference()
	spec, page, assets := ref.spec, ref.page, ref.assets

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
