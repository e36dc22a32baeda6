package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/store"
)

// The fuzz targets feed the request decoders arbitrary input. Their
// invariants: no panic; every refusal is a *providers.Error of a client
// kind (invalid or unprocessable), which the error table maps to a 4xx;
// what is accepted obeys the documented limits. FuzzRequest drives whole
// requests through the Fiber app and checks that nothing answers 5xx.

// wantClientError fails unless err is a *providers.Error of kind
// KindInvalid or KindUnprocessable that names at least one parameter and
// maps to a 4xx status.
func wantClientError(t *testing.T, err error) *providers.Error {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *providers.Error", err, err)
	}
	if pe.Kind != providers.KindInvalid && pe.Kind != providers.KindUnprocessable {
		t.Fatalf("error %v has kind %v, want invalid or unprocessable", pe, pe.Kind)
	}
	if s := statusOf[pe.Kind]; s < 400 || s > 499 {
		t.Fatalf("error %v maps to HTTP %d, want a 4xx", pe, s)
	}
	if len(pe.Params) == 0 {
		t.Fatalf("error %v names no parameter", pe)
	}
	return pe
}

// withCtx runs fn with a Fiber context holding a request with the given
// raw query string and body.
func withCtx(app *fiber.App, query string, body []byte, fn func(c *fiber.Ctx)) {
	fctx := &fasthttp.RequestCtx{}
	fctx.Request.Header.SetMethod(fiber.MethodPost)
	fctx.Request.SetRequestURI("/v1/properties/batch")
	fctx.Request.URI().SetQueryString(query)
	fctx.Request.SetBody(body)
	fctx.Request.Header.SetContentType(fiber.MIMEApplicationJSON)
	c := app.AcquireCtx(fctx)
	defer app.ReleaseCtx(c)
	fn(c)
}

func FuzzParseIncludes(f *testing.F) {
	for _, s := range []string{
		"", "flood", "flood,demographics", " Flood , ,FLOOD,walkscore ", "housing,amenities,walkscore,demographics,flood",
		"bogus", "flood,bogus", ",,,", "flöod", "flood\x00", "flood';--", "\xff\xfe", strings.Repeat("flood,", 50),
		strings.Repeat("é", 30) + "x",
	} {
		f.Add(s, uint8(0x1f))
		f.Add(s, uint8(0x05))
	}
	f.Fuzz(func(t *testing.T, raw string, mask uint8) {
		// mask picks which sections the deployment serves.
		g := &Gateway{allowed: map[string]bool{}}
		g.readCatalogue()
		for i, name := range service.PublicSections() {
			if mask&(1<<i) != 0 {
				g.allowed[name] = true
			}
		}
		out, cost, err := g.parseIncludes(raw)
		if err != nil {
			pe := wantClientError(t, err)
			if pe.Code != "invalid_parameter" || pe.Params[0].Parameter != "include" {
				t.Fatalf("parseIncludes(%q) error %+v, want invalid_parameter naming include", raw, pe)
			}
			return
		}
		// Accepted: allowed names only, each once, in canonical order.
		last := -1
		for _, name := range out {
			i := slices.Index(service.PublicSections(), name)
			if i < 0 || !g.allowed[name] {
				t.Fatalf("parseIncludes(%q) = %v: %q is not an allowed section", raw, out, name)
			}
			if i <= last {
				t.Fatalf("parseIncludes(%q) = %v: not in canonical order or repeated", raw, out)
			}
			last = i
		}
		// Every name asked for is there: nothing is silently dropped.
		for _, part := range strings.Split(raw, ",") {
			if p := strings.ToLower(strings.TrimSpace(part)); p != "" && !slices.Contains(out, p) {
				t.Fatalf("parseIncludes(%q) = %v dropped %q", raw, out, p)
			}
		}
		again, cost2, err := g.parseIncludes(strings.Join(out, ","))
		if err != nil || !slices.Equal(again, out) || cost2 != cost {
			t.Fatalf("parseIncludes is not idempotent: %v (cost %d) -> %v (cost %d), %v", out, cost, again, cost2, err)
		}
		// The cost is the catalogue's, summed once at parsing.
		if want := service.CostOf(out); cost != want {
			t.Fatalf("parseIncludes(%q) cost %d, the catalogue says %d", raw, cost, want)
		}
	})
}

func FuzzDecodeBatch(f *testing.F) {
	for _, s := range []string{
		`{"addresses":[{"street":"1 Main St","state":"IL"}]}`,
		`{"addresses":[{"id":"a","street":"1 Main St","city":"X","state":"IL","zip":"62701"},{"street":1}]}`,
		`{"addresses":[]}`, `{"addresses":null}`, `{}`, `null`, `[]`, ``, `   `, `{"addresses":{}}`,
		`{"addresses":[` + strings.Repeat(`{},`, 25) + `{}]}`,
		`{"addresses":[{}]} {}`, `{"addresses":[{}]}x`, `{"addresses":[`, "\x00", "\xef\xbb\xbf{}",
		`{"addresses":[1,"a",null,true,[]]}`, `{"Addresses":[{}]}`, `{"addresses":[{}],"addresses":[]}`,
	} {
		f.Add([]byte(s))
	}
	app := fiber.New()
	f.Fuzz(func(t *testing.T, body []byte) {
		withCtx(app, "", body, func(c *fiber.Ctx) {
			r := decodeBatch(c)
			if decodeBatch(c) != r {
				t.Fatal("decodeBatch decoded the body twice in one request")
			}
			if r.err != nil {
				if r.items != nil {
					t.Fatalf("decodeBatch(%q) gave both items and an error", body)
				}
				wantClientError(t, r.err)
				return
			}
			if n := len(r.items); n < 1 || n > service.MaxBatch {
				t.Fatalf("decodeBatch(%q) accepted %d addresses, want 1..%d", body, n, service.MaxBatch)
			}
			if !json.Valid(body) {
				t.Fatalf("decodeBatch accepted a body that is not JSON: %q", body)
			}
			for _, item := range r.items {
				if !json.Valid(item) {
					t.Fatalf("decodeBatch kept an item that is not JSON: %q", item)
				}
			}
		})
	})
}

// queryAllowed are the lookup's parameters, the longest list of any route.
var queryAllowed = []string{"street", "city", "state", "zip", "include"}

func FuzzQueryParams(f *testing.F) {
	for _, s := range []string{
		"", "street=1+Main+St&state=IL", "street=a&street=b", "street=%00", "city=%ff", "zip=" + strings.Repeat("9", 201),
		"foo=1", "=1", "&&&", "street", "street=&state=", "include=flood%2Cdemographics", "%zz=1", "a=%", "street=%E2%80%AE",
		"state=TX%27+OR+%271%27%3D%271", "street=1;state=IL", "street[]=1", "STREET=1",
	} {
		f.Add(s)
	}
	app := fiber.New()
	f.Fuzz(func(t *testing.T, query string) {
		withCtx(app, query, nil, func(c *fiber.Ctx) {
			out, err := queryParams(c, queryAllowed...)
			if err != nil {
				if pe := wantClientError(t, err); pe.Code != "invalid_parameter" {
					t.Fatalf("queryParams(%q) code %q, want invalid_parameter", query, pe.Code)
				}
				return
			}
			args := c.Context().QueryArgs()
			for k, v := range out {
				switch {
				case !slices.Contains(queryAllowed, k):
					t.Fatalf("queryParams(%q) accepted unknown parameter %q", query, k)
				case len(args.PeekMulti(k)) != 1:
					t.Fatalf("queryParams(%q) accepted %q given %d times", query, k, len(args.PeekMulti(k)))
				case len(v) > maxParamLen || !utf8.ValidString(v) || hasControl([]byte(v)):
					t.Fatalf("queryParams(%q) accepted %q=%q", query, k, v)
				case v != string(args.Peek(k)):
					t.Fatalf("queryParams(%q)[%q] = %q, the request says %q", query, k, v, args.Peek(k))
				}
			}
			// include= is checked but not kept: includes parses it into the
			// request's state.
			if kept := args.Len() - len(args.PeekMulti("include")); kept != len(out) {
				t.Fatalf("queryParams(%q) accepted %d of %d parameters without an error", query, len(out), kept)
			}
			if _, ok := out["include"]; ok {
				t.Fatalf("queryParams(%q) kept include=, which includes parses", query)
			}
		})
	})
}

// fuzzKey is the API key FuzzRequest sends.
const fuzzKey = "fuzz-key"

// fuzzSection serves a fixed value for any property with coordinates.
func fuzzSection(name string) *service.Section {
	return &service.Section{
		Name: name, Source: "fuzz", TTL: time.Hour,
		Key: func(p *providers.Property, _ service.Options) (string, bool) { return p.Point().Key(), true },
		Fetch: func(context.Context, *providers.Property, service.Options) (any, error) {
			return map[string]string{"source": "fuzz"}, nil
		},
	}
}

// fuzzGeocoder never matches anything, so fuzzed requests write nothing.
type fuzzGeocoder struct{}

var (
	_ providers.Geocoder        = fuzzGeocoder{}
	_ providers.ReverseGeocoder = fuzzGeocoder{}
)

func (fuzzGeocoder) Geocode(context.Context, providers.Address) (providers.Location, error) {
	return providers.Location{}, providers.ErrNoMatch
}

func (fuzzGeocoder) Reverse(context.Context, providers.Point) (providers.Location, error) {
	return providers.Location{}, providers.NotFound("location_not_found", "no county at this point")
}

// newFuzzGateway is the whole front end over a temporary store holding
// one record (id 1), with every section configured.
func newFuzzGateway(f *testing.F) *Gateway {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	now := time.Now().UTC()
	if _, _, err := db.Save(ctx, providers.NewProperty{
		Property: providers.Property{StreetAddress: "1 MAIN ST", City: "SPRINGFIELD", State: "IL", ZipCode: "62701",
			County: "Sangamon County", FIPSCode: "17167", CensusTract: "000500", Latitude: 39.8, Longitude: -89.6,
			Source: "census", CreatedAt: now, UpdatedAt: now},
		Canonical: "1 MAIN ST, SPRINGFIELD, IL, 62701", Keys: []string{"1 MAIN ST|SPRINGFIELD|IL|62701|"},
	}); err != nil {
		f.Fatal(err)
	}
	sections := map[string]*service.Section{}
	for _, name := range service.PublicSections() {
		sections[name] = fuzzSection(name)
	}
	svc := service.New(service.Config{Store: db, Geocoder: fuzzGeocoder{}, GeocoderName: "census",
		Reverse: fuzzGeocoder{}, ReverseName: "census", Sections: sections})
	return New(Config{
		Service: svc, Sections: service.PublicSections(), BodyLimit: 64 << 10, RequestTimeout: 5 * time.Second,
		Keys:   []Key{{Name: "fuzz", SHA256: sha256.Sum256([]byte(fuzzKey)), Limit: ratelimit.Limit{Rate: 1e9, Burst: 1 << 30}}},
		Logger: slog.New(slog.DiscardHandler),
	})
}

func FuzzRequest(f *testing.F) {
	for _, s := range []struct{ method, uri, body string }{
		{"GET", "/v1/properties/lookup?street=1+Main+St&city=Springfield&state=IL&zip=62701&include=flood", ""},
		{"GET", "/v1/properties/lookup?street=2+Elm+St&state=IL", ""},
		{"GET", "/v1/properties/lookup?street=PO+Box+1&state=IL", ""},
		{"GET", "/v1/properties/reverse?lat=39.8&lng=-89.6&include=walkscore,housing", ""},
		{"GET", "/v1/properties/reverse?lat=-45&lng=170", ""},
		{"GET", "/v1/properties/1?include=" + strings.Join(service.PublicSections(), ","), ""},
		{"GET", "/v1/properties/1/amenities?radius=1500", ""},
		{"GET", "/v1/properties/1/flood", ""},
		{"GET", "/v1/properties/2/demographics", ""},
		{"GET", "/v1/properties/search?state=IL&min_bedrooms=1&max_bedrooms=3&page=2&per_page=5", ""},
		{"POST", "/v1/properties/batch?include=flood", `{"addresses":[{"id":"a","street":"1 Main St","city":"Springfield","state":"IL","zip":"62701"},{"street":"9 Nowhere Rd","state":"IL"},{"street":1}]}`},
		{"POST", "/v1/properties/batch", `{"addresses":[]}`},
		{"DELETE", "/v1/properties/1", ""},
		{"GET", "/v1/properties/%00", ""},
		{"GET", "/v1/properties/1/%ff", ""},
		{"GET", "/v1/nothing", ""},
		{"HEAD", "/v1/properties/1", ""},
		{"OPTIONS", "/v1/properties/lookup", ""},
		{"GET", "/healthz", ""},
		{"GET", "/readyz", ""},
	} {
		f.Add(s.method, s.uri, []byte(s.body))
	}
	g := newFuzzGateway(f)
	handler := g.Handler()
	f.Fuzz(func(t *testing.T, method, uri string, body []byte) {
		fctx := &fasthttp.RequestCtx{}
		fctx.Request.Header.SetMethod(method)
		fctx.Request.SetRequestURI(uri)
		fctx.Request.Header.Set("X-API-Key", fuzzKey)
		fctx.Request.SetBody(body)
		handler(fctx)
		status := fctx.Response.StatusCode()
		if status >= 500 {
			t.Fatalf("%s %q: HTTP %d %s", method, uri, status, fctx.Response.Body())
		}
		if status < 400 {
			return
		}
		if ct := string(fctx.Response.Header.ContentType()); !strings.HasPrefix(ct, "application/problem+json") {
			t.Fatalf("%s %q: HTTP %d with Content-Type %q, want a problem", method, uri, status, ct)
		}
		var p problem
		if err := json.Unmarshal(fctx.Response.Body(), &p); err != nil {
			t.Fatalf("%s %q: problem body is not JSON: %q", method, uri, fctx.Response.Body())
		}
		if p.Status != status || p.Code == "" || p.Title == "" || p.Detail == "" || p.RequestID == "" ||
			p.Type != ProblemTypeBase+p.Code {
			t.Fatalf("%s %q: incomplete problem %+v for HTTP %d", method, uri, p, status)
		}
	})
}
