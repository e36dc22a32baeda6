package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/paths"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/propertyd/propertyd/gateway/docs"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
	"github.com/propertyd/propertyd/providers/modules/hudfmr"
	"github.com/propertyd/propertyd/providers/modules/overpass"
	"github.com/propertyd/propertyd/providers/modules/walkscore"
)

// The places the fake Census geocoder knows in the conformance run. Each
// failure case uses a place of its own, so no cached section hides it.
var (
	oaPlaceBroad = providertest.CensusPlace{Street: "2200 W BROAD ST", City: "RICHMOND", State: "VA", Zip: "23220",
		Lat: 37.5600, Lng: -77.4720, CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760", Tract: "041000", Block: "1003"}
	oaPlaceMain = providertest.CensusPlace{Street: "900 E MAIN ST", City: "RICHMOND", State: "VA", Zip: "23219",
		Lat: 37.5380, Lng: -77.4330, CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760", Tract: "060400", Block: "2001"}
	oaPlaceRiver = providertest.CensusPlace{Street: "77 RIVER RD", City: "GOOCHLAND", State: "VA", Zip: "23063",
		Lat: 37.6800, Lng: -77.8800, CountyName: "Goochland County", StateFIPS: "51", CountyFIPS: "075"}
	oaPlaceEighth = providertest.CensusPlace{Street: "400 N 8TH ST", City: "RICHMOND", State: "VA", Zip: "23219",
		Lat: 37.5420, Lng: -77.4320, CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760", Tract: "020100", Block: "1010"}
	oaPlaceCapitol = providertest.CensusPlace{Street: "1000 BANK ST", City: "RICHMOND", State: "VA", Zip: "23219",
		Lat: 37.5390, Lng: -77.4350, CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760", Tract: "020200", Block: "1011"}
	// Grove Ave is in Maryland here: the ACS sections load Virginia's
	// tracts whole at their first need, so only a tract of a state not
	// loaded yet makes a call that can fail.
	oaPlaceGrove = providertest.CensusPlace{Street: "3000 GROVE AVE", City: "BALTIMORE", State: "MD", Zip: "21216",
		Lat: 39.3100, Lng: -76.6700, CountyName: "Baltimore city", StateFIPS: "24", CountyFIPS: "510", Tract: "150300", Block: "3004"}
	oaPlacePatterson = providertest.CensusPlace{Street: "5000 PATTERSON AVE", City: "RICHMOND", State: "VA", Zip: "23226",
		Lat: 37.5800, Lng: -77.5100, CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760", Tract: "010300", Block: "2002"}
	// One street in two towns: an ambiguous address.
	oaPlaceChurchRichmond = providertest.CensusPlace{Street: "10 CHURCH ST", City: "RICHMOND", State: "VA", Zip: "23219",
		Lat: 37.5410, Lng: -77.4300, CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760", Tract: "020100", Block: "1012"}
	oaPlaceChurchBlacksburg = providertest.CensusPlace{Street: "10 CHURCH ST", City: "BLACKSBURG", State: "VA", Zip: "24060",
		Lat: 37.2290, Lng: -80.4140, CountyName: "Montgomery County", StateFIPS: "51", CountyFIPS: "121", Tract: "020300", Block: "1000"}
)

const oaSmallKey = "propertyd-small-key" // burst 6, next to no refill

// oaConformanceUpstreams answers every upstream of the shipped config.
func oaConformanceUpstreams() *httpmock.MockTransport {
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL,
		oaPlaceBroad, oaPlaceMain, oaPlaceRiver, oaPlaceEighth, oaPlaceCapitol, oaPlaceGrove, oaPlacePatterson,
		oaPlaceChurchRichmond, oaPlaceChurchBlacksburg)
	oaRegisterFlood(mt)
	acs := map[string]string{}
	for _, v := range append(append([]string{}, censusacs.DemographicsVariables...), censusacs.HousingVariables...) {
		acs[v] = "120"
	}
	acs["B01003_001E"] = "4120"
	acs["B19013_001E"] = "-666666666" // suppressed: null
	providertest.RegisterACS(mt, censusacs.DefaultBaseURL, map[string]map[string]string{
		"51760041000": acs, "51760010300": acs,
	})
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL,
		providertest.OSMElement{Type: "node", ID: 11, Lat: 37.5608, Lng: -77.4716, Tags: map[string]string{"amenity": "school", "name": "Broad Street Elementary"}},
		providertest.OSMElement{Type: "node", ID: 12, Lat: 37.5596, Lng: -77.4731, Tags: map[string]string{"shop": "supermarket", "name": "Fan Market"}},
		providertest.OSMElement{Type: "node", ID: 13, Lat: 37.5612, Lng: -77.4702, Tags: map[string]string{"highway": "bus_stop", "name": "Broad & Lombardy"}},
	)
	return mt
}

func oaRegisterFlood(mt *httpmock.MockTransport) {
	providertest.RegisterFEMA(mt, femanfhl.DefaultBaseURL, providertest.FloodArea{
		MinLat: 37.50, MinLng: -77.55, MaxLat: 37.60, MaxLng: -77.40,
		Zone: "AE", Subtype: "FLOODWAY", SFHA: true, StaticBFE: 112.5,
		DFIRMID: "51760C", Panel: "51760C0042E", PanelEffective: time.Date(2009, 7, 16, 0, 0, 0, 0, time.UTC),
	})
}

// oaConformanceConfig is the shipped config with upstream retries off (failure
// cases answer at once), a flood breaker that opens after two failures and
// a short flood timeout, a housing TTL that expires at once (for a stale
// section), a roomy demo key and a small second key.
func oaConformanceConfig(t *testing.T) *Config {
	t.Helper()
	t.Setenv("TEST_PROPERTYD_SMALL_KEY", oaSmallKey)
	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	for _, p := range cfg.Providers {
		zero := 0
		p.Retries = &zero
	}
	cfg.Providers["flood"].Breaker.Failures = 2
	cfg.Providers["flood"].Timeout = Duration(300 * time.Millisecond)
	cfg.Providers["housing"].TTL = Duration(time.Millisecond)
	cfg.Keys[0].Rate, cfg.Keys[0].Burst = 1000, 1000
	cfg.Keys = append(cfg.Keys, KeyConfig{Name: "small", KeyEnv: "TEST_PROPERTYD_SMALL_KEY", Rate: 0.0001, Burst: 6})
	return cfg
}

// oaSpecValidity says whether a test request is one the document allows.
type oaSpecValidity int

const (
	oaRequestValid   oaSpecValidity = iota // the document allows it: validate request and response
	oaRequestInvalid                       // the document forbids it: the validator must say so too
	oaRequestOutside                       // no operation describes it (unknown route, wrong method)
)

// oaAPICall is one request of the conformance run and what it must produce.
type oaAPICall struct {
	name    string
	method  string
	path    string
	key     string // X-API-Key; "" sends none
	header  map[string]string
	body    string
	status  int
	code    string // the problem code of an error response
	request oaSpecValidity
	schema  string // for oaRequestOutside: the component schema the body must match
}

// oaConformance drives real requests through a running propertyd and checks
// every request and response against the OpenAPI document.
type oaConformance struct {
	t       *testing.T
	base    string
	doc     *v3.Document
	v       validator.Validator
	loose   validator.Validator // for /openapi.json, whose body is the open-ended document
	opts    *config.ValidationOptions
	covered map[string]bool // "METHOD /template STATUS"
	// gets are the first GET answered 200 of each path template, for
	// headEveryGet.
	gets map[string]oaAPICall
	// exchanges are the responses seen, for checkGeneratedClient.
	exchanges []oaExchange
}

func oaNewConformance(t *testing.T, base string) *oaConformance {
	t.Helper()
	doc, err := libopenapi.NewDocument(docs.Spec())
	if err != nil {
		t.Fatal(err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	// Strict mode also reports undeclared headers and query parameters;
	// only the headers of HTTP itself go undeclared (not ETag, Cache-Control
	// or X-Request-ID, which the library would ignore by default). A batch
	// error's input is the item as sent, and /openapi.json is the document
	// itself: neither has members to declare.
	opts := []config.Option{config.WithFormatAssertions(), config.WithStrictMode(),
		config.WithStrictIgnoredHeaders("content-type", "content-length", "date", "connection",
			"transfer-encoding", "content-encoding", "vary", "host", "user-agent", "accept-encoding", "x-api-key"),
		config.WithStrictIgnorePaths("$.body.data.errors[*].input", "$.body.data.errors[*].input.**")}
	v, errs := validator.NewValidator(doc, opts...)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	loose, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return &oaConformance{t: t, base: base, doc: &model.Model, v: v, loose: loose,
		opts: config.NewValidationOptions(opts...), covered: map[string]bool{}, gets: map[string]oaAPICall{}}
}

func (c *oaConformance) newRequest(call oaAPICall) *http.Request {
	var body io.Reader
	if call.body != "" {
		body = strings.NewReader(call.body)
	}
	req, err := http.NewRequest(call.method, c.base+call.path, body)
	if err != nil {
		c.t.Fatalf("%s: %v", call.name, err)
	}
	if call.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if call.key != "" {
		req.Header.Set("X-API-Key", call.key)
	}
	for k, v := range call.header {
		req.Header.Set(k, v)
	}
	return req
}

// do sends call, checks its status and code, validates it against the
// document and returns the response with its body.
func (c *oaConformance) do(call oaAPICall) (*http.Response, []byte) {
	c.t.Helper()
	resp, err := http.DefaultClient.Do(c.newRequest(call))
	if err != nil {
		c.t.Fatalf("%s: %v", call.name, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.t.Fatalf("%s: %v", call.name, err)
	}
	if resp.StatusCode != call.status {
		c.t.Errorf("%s: %s %s answered %d, want %d: %s", call.name, call.method, call.path, resp.StatusCode, call.status, body)
		return resp, body
	}
	if call.code != "" {
		var p struct{ Code string }
		if err := json.Unmarshal(body, &p); err != nil || p.Code != call.code {
			c.t.Errorf("%s: code %q, want %q: %s", call.name, p.Code, call.code, body)
		}
	}
	c.validate(call, resp, body)
	return resp, body
}

// validate checks the exchange against the document, the way a client
// generated from it would see it.
func (c *oaConformance) validate(call oaAPICall, resp *http.Response, body []byte) {
	c.t.Helper()
	req := c.newRequest(call) // a fresh body for the validator
	c.record(call, req, resp, body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.Request = req
	report := func(what string, errs []error) {
		for _, e := range errs {
			c.t.Errorf("%s: %s: %v", call.name, what, e)
		}
		if len(errs) > 0 {
			c.t.Logf("%s: the response was %d %v\n%s", call.name, resp.StatusCode, resp.Header, oaShorten(body, 2000))
		}
	}
	switch call.request {
	case oaRequestOutside:
		if call.schema == "" {
			c.t.Fatalf("%s: no schema named for a request outside the document", call.name)
		}
		proxy, ok := c.doc.Components.Schemas.Get(call.schema)
		if !ok {
			c.t.Fatalf("%s: no component schema %s", call.name, call.schema)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			c.t.Errorf("%s: Content-Type %q, want application/problem+json", call.name, ct)
		}
		if ok, errs := schema_validation.NewSchemaValidator().ValidateSchemaBytes(proxy.Schema(), body); !ok {
			report("body does not match "+call.schema, oaAsErrors(errs))
		}
		return
	case oaRequestInvalid:
		if ok, _ := c.v.ValidateHttpRequest(req); ok {
			c.t.Errorf("%s: the server refused the request with %d but the document allows it", call.name, resp.StatusCode)
		}
		req = c.newRequest(call)
		if ok, errs := c.v.ValidateHttpResponse(req, resp); !ok {
			report("response", oaAsErrors(errs))
		}
	default:
		v := c.v
		if req.URL.Path == "/openapi.json" {
			v = c.loose
		}
		if ok, errs := v.ValidateHttpRequestResponse(req, resp); !ok {
			report("request/response", oaAsErrors(errs))
		}
	}
	if _, _, tmpl := paths.FindPath(req, c.doc, c.opts); tmpl != "" {
		c.covered[fmt.Sprintf("%s %s %d", call.method, tmpl, resp.StatusCode)] = true
		if _, seen := c.gets[tmpl]; !seen && call.method == http.MethodGet && resp.StatusCode == http.StatusOK {
			c.gets[tmpl] = call
		}
	}
}

// headEveryGet sends, for every path the document declares HEAD on, the
// HEAD of the first GET of it answered 200, and checks that it is that
// answer without a body: the same status and the headers the document
// declares, validated as every other exchange is.
func (c *oaConformance) headEveryGet() {
	c.t.Helper()
	for tmpl, item := range c.doc.Paths.PathItems.FromOldest() {
		if item.Head == nil {
			continue
		}
		get, ok := c.gets[tmpl]
		if !ok {
			c.t.Errorf("HEAD %s: no GET of it was answered 200 to send again as HEAD", tmpl)
			continue
		}
		head := get
		head.name, head.method = "HEAD of "+get.name, http.MethodHead
		if _, body := c.do(head); len(body) != 0 {
			c.t.Errorf("%s: a body of %d bytes", head.name, len(body))
		}
	}
}

func oaAsErrors[E error](errs []E) []error {
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}

func oaDecode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("not a JSON object: %s", body)
	}
	return out
}

func oaLookupPath(p providertest.CensusPlace, include string) string {
	q := url.Values{"street": {p.Street}, "city": {p.City}, "state": {p.State}}
	if include != "" {
		q.Set("include", include)
	}
	return "/v1/properties/lookup?" + q.Encode()
}

var oaEverySection = everySection

// A point given with every digit a float64 holds.
const oaPreciseLat, oaPreciseLng = 37.57012345678901, -77.45098765432109

// TestResponsesMatchTheOpenAPIDocument sends real requests to every endpoint
// of a running propertyd, whose every module talks to a fake of its real
// upstream, and validates each request and response (status, headers and
// body) against gateway/docs/openapi.json. The document's object schemas
// forbid members they do not list and the validator runs in strict mode, so
// a field, header or status added to a response but not to the document
// fails here.
func TestResponsesMatchTheOpenAPIDocument(t *testing.T) {
	mt := oaConformanceUpstreams()
	m := startMain(t, oaConformanceConfig(t), mt)
	c := oaNewConformance(t, "http://"+m.Addr())
	ok := func(name, method, path, body string) oaAPICall {
		return oaAPICall{name: name, method: method, path: path, key: demoKey, body: body, status: 200}
	}
	fail := func(name, method, path, body string, status int, code string, req oaSpecValidity) oaAPICall {
		return oaAPICall{name: name, method: method, path: path, key: demoKey, body: body, status: status, code: code, request: req}
	}

	// Records, with every section.
	_, body := c.do(ok("lookup with every section", "GET", oaLookupPath(oaPlaceBroad, oaEverySection), ""))
	rec := oaDecode(t, body)
	data := rec["data"].(map[string]any)
	id := int64(data["id"].(float64))
	if data["flood"] == nil || data["demographics"] == nil || data["amenities"] == nil ||
		data["walkscore"] == nil || data["housing"] == nil {
		t.Fatalf("a section is missing, so its shape went unchecked: %s", body)
	}
	resp, _ := c.do(ok("lookup again", "GET", oaLookupPath(oaPlaceBroad, ""), ""))
	etag := resp.Header.Get("ETag")
	c.do(oaAPICall{name: "lookup not modified", method: "GET", path: oaLookupPath(oaPlaceBroad, ""), key: demoKey,
		header: map[string]string{"If-None-Match": etag}, status: 304})
	c.do(ok("lookup with a unit and a zip", "GET", "/v1/properties/lookup?street=2200+W+Broad+St+Apt+4B&state=Virginia&zip=23220-1234", ""))
	c.do(ok("lookup with the unit apart", "GET", "/v1/properties/lookup?street=2200+W+Broad+St&unit=4C&state=VA", ""))
	c.do(ok("lookup in one line", "GET", "/v1/properties/lookup?q=2200+W+Broad+St,+Richmond,+VA", ""))
	c.do(fail("an ambiguous address", "GET", "/v1/properties/lookup?street=10+Church+St&state=VA", "", 409, "ambiguous_address", oaRequestValid))
	c.do(ok("the first of several addresses", "GET", "/v1/properties/lookup?street=10+Church+St&state=VA&match=best", ""))
	c.do(fail("a strict lookup the geocoder corrected", "GET", "/v1/properties/lookup?street=2200+W+Broad+St&city=Richmond&state=VA&zip=23221&match=strict",
		"", 409, "inexact_match", oaRequestValid))
	c.do(ok("batch with an ambiguous address", "POST", "/v1/properties/batch", `{"addresses":[{"id":"amb","street":"10 Church Street","city":"Roanoke","state":"VA"},{"id":"line","q":"2200 W Broad St, Richmond, VA"}]}`))
	c.do(ok("reverse to the existing record", "GET", "/v1/properties/reverse?lat=37.56001&lng=-77.47201&include=flood", ""))
	c.do(ok("reverse creating a record", "GET", "/v1/properties/reverse?lat=37.5650&lng=-77.4600", ""))
	// Coordinates keep every digit a float64 has, through the server and
	// through a client generated from the document (float32 would keep 7).
	_, body = c.do(ok("reverse at a point given to 14 decimals", "GET",
		fmt.Sprintf("/v1/properties/reverse?lat=%v&lng=%v", oaPreciseLat, oaPreciseLng), ""))
	if d := oaDecode(t, body)["data"].(map[string]any); d["latitude"] != oaPreciseLat || d["longitude"] != oaPreciseLng {
		t.Errorf("the record made at %v,%v is at %v,%v", oaPreciseLat, oaPreciseLng, d["latitude"], d["longitude"])
	}
	byID := fmt.Sprintf("/v1/properties/%d", id)
	c.do(ok("get with sections", "GET", byID+"?include="+oaEverySection, ""))
	// Housing expires at once here, so a body with it changes every time.
	resp, _ = c.do(ok("get with cached sections", "GET", byID+"?include=flood,demographics", ""))
	c.do(oaAPICall{name: "get not modified", method: "GET", path: byID + "?include=flood,demographics", key: demoKey,
		header: map[string]string{"If-None-Match": resp.Header.Get("ETag")}, status: 304})
	c.do(ok("get without sections", "GET", byID, ""))

	// Standalone sections.
	resp, _ = c.do(ok("flood", "GET", byID+"/flood", ""))
	c.do(oaAPICall{name: "flood not modified", method: "GET", path: byID + "/flood", key: demoKey,
		header: map[string]string{"If-None-Match": resp.Header.Get("ETag")}, status: 304})
	c.do(ok("demographics", "GET", byID+"/demographics", ""))
	c.do(ok("amenities", "GET", byID+"/amenities", ""))
	c.do(ok("amenities within 1500 m", "GET", byID+"/amenities?radius=1500", ""))
	c.do(ok("walkscore", "GET", byID+"/walkscore", ""))
	c.do(ok("housing", "GET", byID+"/housing", ""))

	// Search.
	if err := m.db.PutImportFacts(context.Background(), id, providers.Facts{PropertyType: oaPtr("single_family"), Bedrooms: oaPtr(3)}, "2026-01-01"); err != nil {
		t.Fatal(err)
	}
	resp, _ = c.do(ok("search", "GET", "/v1/properties/search?state=va&city=Richmond&zip=23220&property_type=single_family&min_bedrooms=2&max_bedrooms=4&page=1&per_page=10", ""))
	c.do(oaAPICall{name: "search not modified", method: "GET", path: "/v1/properties/search?state=va&city=Richmond&zip=23220&property_type=single_family&min_bedrooms=2&max_bedrooms=4&page=1&per_page=10",
		key: demoKey, header: map[string]string{"If-None-Match": resp.Header.Get("ETag")}, status: 304})
	c.do(ok("search everything", "GET", "/v1/properties/search", ""))

	// Batch: a record that exists, a new one, and one error of each kind.
	_, body = c.do(ok("batch with sections and errors", "POST", "/v1/properties/batch?include="+oaEverySection, `{"addresses":[
		{"id":"old","street":"2200 West Broad Street","city":"Richmond","state":"VA"},
		{"id":"new","street":"5000 Patterson Avenue","city":"Richmond","state":"VA","zip":"23226"},
		{"id":"box","street":"PO Box 12","city":"Richmond","state":"VA"},
		{"id":null,"street":"1 Nowhere Ln","city":"Richmond","state":"VA"},
		{"street":"9 Elm St","state":"ZZ"}]}`))
	batch := oaDecode(t, body)["data"].(map[string]any)
	if batch["total_found"] != 2.0 || batch["total_errors"] != 3.0 {
		t.Fatalf("batch: want 2 found and 3 errors: %s", body)
	}
	c.do(ok("batch without sections", "POST", "/v1/properties/batch", `{"addresses":[{"street":"2200 W Broad St","state":"VA"}]}`))
	c.do(fail("batch with a malformed item", "POST", "/v1/properties/batch", `{"addresses":[{"street":5,"state":"VA"}]}`, 200, "", oaRequestInvalid))

	// Operations and the reference.
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		c.do(oaAPICall{name: p, method: "GET", path: p, status: 200})
	}
	for _, p := range []string{"/openapi.json", "/docs", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/docs/assets/propertyd-docs.js"} {
		resp, _ := c.do(oaAPICall{name: p, method: "GET", path: p, status: 200})
		c.do(oaAPICall{name: p + " not modified", method: "GET", path: p, status: 304,
			header: map[string]string{"If-None-Match": resp.Header.Get("ETag")}})
	}
	c.do(oaAPICall{name: "an asset that does not exist", method: "GET", path: "/docs/assets/nope.js", status: 404, code: "not_found", request: oaRequestInvalid})

	// Client errors.
	// street (or q) is required, which parameters cannot say: the
	// document says it in words.
	c.do(fail("no street", "GET", "/v1/properties/lookup?state=VA", "", 400, "invalid_parameter", oaRequestValid))
	c.do(fail("q and street at once", "GET", "/v1/properties/lookup?q=2200+W+Broad+St,+Richmond,+VA&street=2200+W+Broad+St", "", 400, "invalid_parameter", oaRequestValid))
	c.do(fail("an empty q", "GET", "/v1/properties/lookup?q=", "", 400, "invalid_parameter", oaRequestInvalid))
	c.do(fail("an unknown section", "GET", oaLookupPath(oaPlaceBroad, "flood,schools"), "", 400, "invalid_parameter", oaRequestInvalid))
	c.do(fail("an unknown parameter", "GET", "/v1/properties/search?colour=red", "", 400, "invalid_parameter", oaRequestInvalid))
	c.do(fail("an unknown state", "GET", "/v1/properties/lookup?street=1+Main+St&state=ZZ", "", 400, "invalid_parameter", oaRequestValid))
	c.do(fail("latitude out of range", "GET", "/v1/properties/reverse?lat=91&lng=0", "", 400, "invalid_parameter", oaRequestInvalid))
	c.do(fail("a bad id", "GET", "/v1/properties/0", "", 400, "invalid_parameter", oaRequestInvalid))
	c.do(fail("a bad page", "GET", "/v1/properties/search?page=0", "", 400, "invalid_parameter", oaRequestInvalid))
	c.do(fail("a bad radius", "GET", byID+"/amenities?radius=100", "", 400, "invalid_parameter", oaRequestInvalid))
	c.do(fail("a body that is not JSON", "POST", "/v1/properties/batch", `{"addresses":`, 400, "invalid_body", oaRequestInvalid))
	c.do(oaAPICall{name: "no key", method: "GET", path: oaLookupPath(oaPlaceBroad, ""), status: 401, code: "unauthorized", request: oaRequestInvalid})
	c.do(oaAPICall{name: "a wrong key", method: "GET", path: oaLookupPath(oaPlaceBroad, ""), key: "not-a-key", status: 401, code: "unauthorized"})
	c.do(fail("an address the geocoder cannot match", "GET", "/v1/properties/lookup?street=1+Nowhere+Ln&state=VA", "", 404, "address_not_found", oaRequestValid))
	c.do(fail("a point in the ocean", "GET", "/v1/properties/reverse?lat=30&lng=-60", "", 404, "location_not_found", oaRequestValid))
	c.do(fail("an unknown id", "GET", "/v1/properties/999999", "", 404, "property_not_found", oaRequestValid))
	c.do(fail("a section of an unknown id", "GET", "/v1/properties/999999/flood", "", 404, "property_not_found", oaRequestValid))
	c.do(oaAPICall{name: "an unknown route", method: "GET", path: "/v1/nothing-here", key: demoKey, status: 404,
		code: "not_found", request: oaRequestOutside, schema: "ProblemNotFound"})
	resp, _ = c.do(oaAPICall{name: "a GET of the batch endpoint", method: "GET", path: "/v1/properties/batch", key: demoKey, status: 405,
		code: "method_not_allowed", request: oaRequestOutside, schema: "ProblemMethodNotAllowed"})
	if got := resp.Header.Get("Allow"); got != "POST" {
		t.Errorf("GET /v1/properties/batch: Allow = %q, want POST", got)
	}
	c.do(oaAPICall{name: "a batch sent as text/plain", method: "POST", path: "/v1/properties/batch", key: demoKey,
		header: map[string]string{"Content-Type": "text/plain"}, body: `{"addresses":[{"street":"2200 W Broad St","state":"VA"}]}`,
		status: 415, code: "unsupported_media_type", request: oaRequestInvalid})
	// Every path answers 405, as its operations document, to a method it
	// does not serve, and names the ones it does in Allow.
	for tmpl, item := range c.doc.Paths.PathItems.FromOldest() {
		path := strings.NewReplacer("{id}", strconv.FormatInt(id, 10), "{asset}", "swagger-ui.css").Replace(tmpl)
		resp, _ := c.do(oaAPICall{name: "DELETE " + tmpl, method: "DELETE", path: path, key: demoKey, status: 405,
			code: "method_not_allowed", request: oaRequestOutside, schema: "ProblemMethodNotAllowed"})
		for method := range item.GetOperations().KeysFromOldest() {
			if allow := resp.Header.Get("Allow"); !strings.Contains(allow, strings.ToUpper(method)) {
				t.Errorf("DELETE %s: Allow %q does not name %s", tmpl, allow, strings.ToUpper(method))
			}
		}
	}
	// The document's length bounds are the server's: a street of 100
	// characters is looked up, one of 101 is refused by both, in a lookup
	// and in a batch (where it is an error entry).
	street := func(n int) string { return "1" + strings.Repeat("+A", n/2-1) + strings.Repeat("B", n%2+1) }
	c.do(fail("a street of 100 characters", "GET", "/v1/properties/lookup?state=VA&street="+street(100), "", 404, "address_not_found", oaRequestValid))
	c.do(fail("a street of 101 characters", "GET", "/v1/properties/lookup?state=VA&street="+street(101), "", 400, "invalid_parameter", oaRequestInvalid))
	c.do(fail("a city of 101 characters", "GET", "/v1/properties/lookup?street=1+Main+St&state=VA&city="+strings.Repeat("A", 101), "", 400, "invalid_parameter", oaRequestInvalid))
	_, body = c.do(fail("a batch address of 101 characters", "POST", "/v1/properties/batch",
		`{"addresses":[{"street":"`+strings.ReplaceAll(street(101), "+", " ")+`","state":"VA"}]}`, 200, "", oaRequestInvalid))
	if !strings.Contains(string(body), `"parameter":"street"`) {
		t.Errorf("a batch address of 101 characters was not refused for its street: %s", body)
	}
	c.do(fail("a post office box", "GET", "/v1/properties/lookup?street=PO+Box+12&state=VA", "", 422, "not_a_property", oaRequestValid))
	c.do(fail("an empty batch", "POST", "/v1/properties/batch", `{"addresses":[]}`, 422, "invalid_batch_size", oaRequestInvalid))
	// A body the document allows (blanks between tokens) that is larger
	// than the server reads.
	big := `{"addresses":[{"street":"2200 W Broad St","state":"VA"}]` + strings.Repeat(" ", 70<<10) + `}`
	c.do(fail("a body over the limit", "POST", "/v1/properties/batch", big, 413, "body_too_large", oaRequestValid))

	// A key's limits.
	small := func(name, method, path, body string, status int, code string) oaAPICall {
		return oaAPICall{name: name, method: method, path: path, key: oaSmallKey, body: body, status: status, code: code}
	}
	c.do(small("a batch over the key's burst", "POST", "/v1/properties/batch?include="+oaEverySection,
		`{"addresses":[{"street":"2200 W Broad St","state":"VA"},{"street":"900 E Main St","state":"VA"}]}`, 422, "cost_exceeds_limit"))
	c.do(small("the key's whole burst", "GET", oaLookupPath(oaPlaceBroad, oaEverySection), "", 200, ""))
	resp, _ = c.do(small("over the key's budget", "GET", oaLookupPath(oaPlaceBroad, ""), "", 429, "rate_limited"))
	if resp.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}

	// Sections that cannot be produced. Each failure uses a place whose
	// section is not cached yet.
	idOf := func(p providertest.CensusPlace) string {
		_, body := c.do(ok("lookup "+p.Street, "GET", oaLookupPath(p, ""), ""))
		return fmt.Sprintf("/v1/properties/%d", int64(oaDecode(t, body)["data"].(map[string]any)["id"].(float64)))
	}
	river, mainSt, eighth, capitol, grove := idOf(oaPlaceRiver), idOf(oaPlaceMain), idOf(oaPlaceEighth), idOf(oaPlaceCapitol), idOf(oaPlaceGrove)
	c.do(fail("demographics of a record without a tract", "GET", river+"/demographics", "", 422, "section_not_applicable", oaRequestValid))
	c.do(fail("demographics of a tract the ACS lacks", "GET", mainSt+"/demographics", "", 404, "tract_not_found", oaRequestValid))
	c.do(ok("a record with sections that are unavailable", "GET", river+"?include=demographics,housing", ""))

	providertest.RegisterFEMAFailure(mt, femanfhl.DefaultBaseURL, providertest.FEMAZonesLayer, providertest.FEMAFailure{Delay: 5 * time.Second})
	c.do(fail("flood timing out", "GET", mainSt+"/flood", "", 504, "upstream_timeout", oaRequestValid))
	providertest.RegisterFEMAFailure(mt, femanfhl.DefaultBaseURL, providertest.FEMAZonesLayer, providertest.FEMAFailure{Status: 500})
	c.do(fail("flood failing", "GET", eighth+"/flood", "", 502, "upstream_error", oaRequestValid))
	resp, _ = c.do(fail("flood behind an open breaker", "GET", capitol+"/flood", "", 503, "upstream_unavailable", oaRequestValid))
	if resp.Header.Get("Retry-After") == "" {
		t.Error("503 from an open breaker without Retry-After")
	}
	_, body = c.do(ok("an unavailable section in a record", "GET", capitol+"?include=flood", ""))
	if sec := oaDecode(t, body)["meta"].(map[string]any)["sections"].(map[string]any)["flood"].(map[string]any); sec["status"] != "unavailable" {
		t.Errorf("flood section = %v, want unavailable", sec)
	}
	_, body = c.do(oaAPICall{name: "readyz with an open breaker", method: "GET", path: "/readyz", status: 200})
	if !strings.Contains(string(body), "fema-nfhl") {
		t.Errorf("readyz does not list the open breaker: %s", body)
	}

	providertest.RegisterACSError(mt, censusacs.DefaultBaseURL, 500, "Internal Server Error", nil)
	c.do(fail("demographics failing", "GET", grove+"/demographics", "", 502, "upstream_error", oaRequestValid))
	_, body = c.do(ok("a stale section", "GET", byID+"?include=demographics,housing", ""))
	if sec := oaDecode(t, body)["meta"].(map[string]any)["sections"].(map[string]any)["housing"].(map[string]any); sec["status"] != "stale" {
		t.Errorf("housing section = %v, want stale (expired and the upstream failing)", sec)
	}

	c.headEveryGet()
	c.requireCoverage()
	c.checkGeneratedClient("http://" + m.Addr())
}

// requireCoverage fails unless every operation was seen answering 200, and
// every error status the run can provoke was seen, so the run cannot shrink
// silently.
func (c *oaConformance) requireCoverage() {
	c.t.Helper()
	for tmpl, item := range c.doc.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().KeysFromOldest() {
			key := fmt.Sprintf("%s %s 200", strings.ToUpper(method), tmpl)
			if !c.covered[key] {
				c.t.Errorf("no request checked %s", key)
			}
		}
	}
	var statuses []string
	for k := range c.covered {
		statuses = append(statuses, k[strings.LastIndex(k, " ")+1:])
	}
	for _, s := range []string{"304", "400", "401", "404", "413", "422", "429", "502", "503", "504"} {
		if !slices.Contains(statuses, s) {
			c.t.Errorf("no response with status %s was checked", s)
		}
	}
}

// TestOptionalModulesMatchTheOpenAPIDocument checks the section shapes of
// the modules the shipped config leaves out: the Walk Score API (transit and
// bike scores) and HUD fair market rents in housing.
func TestOptionalModulesMatchTheOpenAPIDocument(t *testing.T) {
	mt := oaConformanceUpstreams()
	transit, bike := 58, 71
	providertest.RegisterWalkScore(mt, walkscore.DefaultBaseURL, providertest.WalkScoreFake{Places: []providertest.WalkScorePlace{{
		Point: providers.Point{Lat: oaPlaceBroad.Lat, Lng: oaPlaceBroad.Lng}, WalkScore: 88, TransitScore: &transit, BikeScore: &bike,
	}}})
	providertest.RegisterHUDFMR(mt, hudfmr.DefaultBaseURL, map[string]providertest.HUDCounty{
		"51760": {CountyName: "Richmond city, VA", MetroName: "Richmond, VA MSA", AreaName: "Richmond, VA MSA",
			Rents: [5]int{1180, 1260, 1430, 1820, 2190}},
	})
	cfg := oaConformanceConfig(t)
	cfg.Providers["walkscore"] = &ProviderConfig{Module: "walkscore-api", Options: map[string]string{"api_key": "k"}}
	fmr := cfg.Providers["fair_market_rent"]
	fmr.Disabled = false
	fmr.Options = map[string]string{"token": providertest.HUDFMRToken}
	cfg.applyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	m := startMain(t, cfg, mt)
	c := oaNewConformance(t, "http://"+m.Addr())
	_, body := c.do(oaAPICall{name: "walkscore-api and hud-fmr", method: "GET", path: oaLookupPath(oaPlaceBroad, "walkscore,housing"),
		key: demoKey, status: 200})
	d := oaDecode(t, body)["data"].(map[string]any)
	if ws, _ := d["walkscore"].(map[string]any); ws == nil || ws["transit_score"] != 58.0 {
		t.Errorf("walkscore = %v, want the Walk Score API's with a transit score", d["walkscore"])
	}
	if h, _ := d["housing"].(map[string]any); h == nil || h["fair_market_rents"] == nil {
		t.Errorf("housing = %v, want fair market rents", d["housing"])
	}
	c.checkGeneratedClient("")
}

func oaPtr[T any](v T) *T { return &v }

func oaShorten(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "..."
}

// TestAValidatingProxyPassesWhatTheServerServes: a gateway in front of
// propertyd that validates requests against the document (JSON Schema's
// own rules, as Prism and ajv apply them) passes every batch the server
// answers item by item, malformed items included, and every HEAD of a
// read operation the server serves: it never refuses a whole request the
// server would partly serve.
func TestAValidatingProxyPassesWhatTheServerServes(t *testing.T) {
	doc, err := libopenapi.NewDocument(docs.Spec())
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	send := func(method, target, body string) *http.Request {
		req, _ := http.NewRequest(method, "http://propertyd"+target, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("X-API-Key", demoKey)
		return req
	}
	for _, body := range []string{
		`{"addresses":[{"id":"a","street":"2200 W Broad St","state":"VA"}]}`,
		`{"addresses":[{"id":"a","street":42,"state":"VA"}]}`,
		`{"addresses":[{"id":"b","street":"2200 W Broad St","state":"VA","county":"Henrico"}]}`,
		`{"addresses":["not an object",[1,2],null,7]}`,
		`{"addresses":[{"id":"c","street":"` + strings.Repeat("A", 101) + `","state":"VA"},{"street":"2200 W Broad St","state":"VA"}]}`,
	} {
		if ok, errs := v.ValidateHttpRequest(send("POST", "/v1/properties/batch", body)); !ok {
			t.Errorf("a validating proxy refuses the batch %s, which the server answers item by item: %v", body, oaAsErrors(errs))
		}
	}
	for _, target := range []string{
		"/v1/properties/lookup?street=2200+W+Broad+St&state=VA", "/v1/properties/reverse?lat=37.57&lng=-77.45",
		"/v1/properties/search?state=VA", "/v1/properties/1", "/v1/properties/1?include=flood", "/v1/properties/1/flood",
		"/v1/properties/1/amenities?radius=1500", "/healthz", "/readyz", "/openapi.json", "/docs",
	} {
		if ok, errs := v.ValidateHttpRequest(send("HEAD", target, "")); !ok {
			t.Errorf("a validating proxy refuses HEAD %s, which the server serves as GET without a body: %v", target, oaAsErrors(errs))
		}
	}
	// What the server refuses whole, the document refuses too.
	for _, body := range []string{`{"addresses":[]}`, `{"addresses":[{"street":"1 Main St","state":"VA"}],"extra":1}`, `[]`} {
		if ok, _ := v.ValidateHttpRequest(send("POST", "/v1/properties/batch", body)); ok {
			t.Errorf("the document allows the batch %s, which the server refuses whole", body)
		}
	}
}
