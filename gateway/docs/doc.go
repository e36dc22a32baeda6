// Package docs holds propertyd's API reference: the hand-written OpenAPI 3.1
// document (openapi.json, the contract the gateway's responses are tested
// against) and the interactive page that renders it with Swagger UI. Both are
// embedded, so the binary serves its own reference with no CDN and no file
// next to it. It knows nothing of HTTP servers: the gateway serves what it
// returns.
//
// The Swagger UI files under assets/ come from the swagger-ui-dist npm
// package; update-assets.sh re-fetches them (assets/README.md names the
// version and licence).
package docs

import (
	"embed"
	"io/fs"
)

//go:embed openapi.json
var spec []byte

//go:embed index.html
var page []byte

//go:embed assets/swagger-ui-bundle.js assets/swagger-ui.css assets/propertyd-docs.js
var assets embed.FS

// ContentSecurityPolicy is the policy the page is served with: scripts,
// styles, fonts and requests only from this server (Swagger UI sets inline
// style attributes, hence 'unsafe-inline' for styles; its icons are data:
// URIs). A renderer update that tries to reach another host fails loudly in
// the browser instead of leaking requests.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'"

// Spec returns the OpenAPI 3.1 document as JSON. The slice is shared: do not
// modify it. Safe for concurrent use.
func Spec() []byte { return spec }

// Page returns the HTML of the reference page, which loads its scripts and
// style sheet from /docs/assets/ and the document from /openapi.json. The
// slice is shared: do not modify it. Safe for concurrent use.
func Page() []byte { return page }

// Assets returns the files the page loads, by the name that follows
// /docs/assets/ (swagger-ui-bundle.js, swagger-ui.css, propertyd-docs.js).
// Safe for concurrent use.
func Assets() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	return sub
}
