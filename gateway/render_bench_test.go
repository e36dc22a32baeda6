package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/store"
)

// These benchmarks are the in-process half of cmd/bench's warm scenarios:
// the JSON rendering of a record alone, and whole warm requests through
// the real Fiber app over fasthttp's in-memory listener (no sockets, no
// load generator on the same cores), so `go test -bench -cpuprofile`
// shows where a warm request spends its time.
//
//	go test -run '^$' -bench . -benchmem -cpuprofile cpu.out ./gateway/

// benchRecord is a geocoded record as the service returns it.
func benchRecord() *providers.Property {
	created := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	return &providers.Property{
		ID: 4242, StreetAddress: "1100 CONGRESS AVE", City: "AUSTIN", State: "TX", ZipCode: "78701",
		County: "Travis County", FIPSCode: "48453", CensusTract: "001100", Latitude: 30.27472, Longitude: -97.74036,
		Source: "census", CreatedAt: created, UpdatedAt: created,
	}
}

// benchSectionData holds a value of each section in the shape its module
// produces, about as large as a real one.
var benchSectionData = map[string]json.RawMessage{
	providers.SectionFlood: json.RawMessage(`{"zone":"X","zone_subtype":"AREA OF MINIMAL FLOOD HAZARD","risk_level":"low",` +
		`"description":"Minimal flood hazard","special_flood_hazard_area":false,"base_flood_elevation_feet":null,` +
		`"panel_number":"48453C0465K","panel_effective_date":"2016-01-22","source":"fema-nfhl"}`),
	providers.SectionDemographics: json.RawMessage(`{"census_tract":"001100","state_fips":"48","county_fips":"453",` +
		`"total_population":3412,"median_household_income":85327,"median_home_value":453200,"median_gross_rent":1415,` +
		`"vacancy_rate":5.57,"owner_occupied_pct":20.21,"renter_occupied_pct":79.79,"median_age":31.1,` +
		`"average_household_size":1.9,"source":"census-acs","vintage":"2022"}`),
	providers.SectionAmenities: benchAmenities(),
	providers.SectionWalkScore: json.RawMessage(`{"walk_score":61,"description":"Somewhat Walkable","method":"osm-distance-decay",` +
		`"source":"osm-walk","breakdown":{"banks":{"weight":8.7,"count":1,"nearest_miles":0.36,"points":8.24},` +
		`"grocery":{"weight":26.09,"count":1,"nearest_miles":0.54,"points":17.59},` +
		`"hospitals":{"weight":4.35,"count":1,"nearest_miles":1.05,"points":0},` +
		`"parks":{"weight":8.7,"count":1,"nearest_miles":0.42,"points":7.64},` +
		`"restaurants":{"weight":26.09,"count":2,"nearest_miles":0.12,"points":10.43},` +
		`"schools":{"weight":8.7,"count":1,"nearest_miles":0.32,"points":8.51},` +
		`"transit":{"weight":17.39,"count":1,"nearest_miles":0.05,"points":8.7}}}`),
	providers.SectionHousing: json.RawMessage(`{"total_housing_units":1902,"occupied_units":1796,"median_year_built":1988,` +
		`"median_rooms":5.1,"units_in_structure_pct":{"single_family_detached":9.73,"single_family_attached":10.41,` +
		`"units_2_4":10.2,"units_5_19":18.7,"units_20_plus":53.71,"mobile_home":0.58},` +
		`"bedrooms_pct":{"0":8.62,"1":30.6,"2":44.27,"3":14.3,"4":1.52,"5_plus":0.68},` +
		`"median_gross_rent":1415,"median_home_value":453200,"source":"census-acs-housing","vintage":"2022"}`),
}

// benchAmenities is an amenities value with ten places.
func benchAmenities() json.RawMessage {
	a := providers.Amenities{RadiusMeters: 2000, Categories: map[string][]providers.Amenity{}, Source: "overpass"}
	for i, c := range providers.AmenityCategories {
		n := 1 + i%3
		for j := range n {
			a.Categories[c] = append(a.Categories[c], providers.Amenity{
				Name: fmt.Sprintf("Congress %s %d", c, j), Type: c, DistanceMiles: 0.1 * float64(i+j+1),
				Latitude: 30.27 + 0.001*float64(i), Longitude: -97.74 - 0.001*float64(j),
			})
			a.TotalCount++
		}
	}
	b, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return b
}

var benchSectionNames = []string{
	providers.SectionFlood, providers.SectionDemographics, providers.SectionAmenities,
	providers.SectionWalkScore, providers.SectionHousing,
}

// benchSectionResults is the Enrich result of every section, all cached.
func benchSectionResults() []service.SectionResult {
	fetched := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	expires := fetched.Add(30 * 24 * time.Hour)
	out := make([]service.SectionResult, len(benchSectionNames))
	for i, name := range benchSectionNames {
		out[i] = service.SectionResult{Data: benchSectionData[name], Meta: providers.SectionMeta{
			Status: service.StatusOK, Source: "bench", FetchedAt: &fetched, ExpiresAt: &expires, Cache: service.CacheHit,
		}}
	}
	return out
}

// renderRecord is what respondRecord does to produce a body.
func renderRecord(p *providers.Property, inc []string, secs []service.SectionResult) ([]byte, error) {
	data, err := recordWith(p, sectionFields(inc, secs)...)
	if err != nil {
		return nil, err
	}
	return envelope(data, recordMeta{Source: p.Source, Sections: sectionMetas(inc, secs)})
}

// BenchmarkRenderRecord renders the body of GET /v1/properties/{id}.
func BenchmarkRenderRecord(b *testing.B) {
	p := benchRecord()
	b.ReportAllocs()
	var n int
	for b.Loop() {
		body, err := renderRecord(p, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		n = len(body)
	}
	b.SetBytes(int64(n))
}

// BenchmarkRenderRecordAllSections renders a record with all five sections.
func BenchmarkRenderRecordAllSections(b *testing.B) {
	p := benchRecord()
	secs := benchSectionResults()
	b.ReportAllocs()
	var n int
	for b.Loop() {
		body, err := renderRecord(p, benchSectionNames, secs)
		if err != nil {
			b.Fatal(err)
		}
		n = len(body)
	}
	b.SetBytes(int64(n))
}

// benchGeocoder answers every address with the benchRecord's location.
type benchGeocoder struct{}

var _ providers.Geocoder = benchGeocoder{}

func (benchGeocoder) Geocode(context.Context, providers.Address) (providers.Location, error) {
	p := benchRecord()
	return providers.Location{
		MatchedAddress: "1100 CONGRESS AVE, AUSTIN, TX, 78701", Street: p.StreetAddress, City: p.City,
		State: p.State, Zip: p.ZipCode, Point: p.Point(), County: p.County, FIPSCode: p.FIPSCode,
		CensusTract: p.CensusTract,
	}, nil
}

const benchKey = "bench-key"

// benchSpentKey is a key whose budget, a token refilled every 30 years or
// so, is spent by its first request: every later one is a 429.
const benchSpentKey = "bench-spent-key"

// benchServer serves the whole stack (SQLite store, cache, service with
// five sections answering benchSectionData, gateway) on an in-memory
// listener, creates the record by one lookup and fills every cache, and
// returns a client and the record's id.
func benchServer(b *testing.B) (*fasthttp.Client, int64) {
	b.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	c, err := cache.New(64 << 20)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	sections := map[string]*service.Section{}
	for _, name := range benchSectionNames {
		data := benchSectionData[name]
		sections[name] = &service.Section{
			Name: name, Source: "bench", TTL: 24 * time.Hour,
			Key: func(p *providers.Property, o service.Options) (string, bool) {
				return p.Point().Key(), true
			},
			Fetch: func(context.Context, *providers.Property, service.Options) (any, error) { return data, nil },
		}
	}
	svc := service.New(service.Config{
		Store:    cache.NewStore(db, c, time.Hour),
		Geocoder: benchGeocoder{}, GeocoderName: "census", Sections: sections,
	})
	g := New(Config{
		Service: svc, Sections: benchSectionNames,
		Keys: []Key{{Name: "bench", SHA256: sha256.Sum256([]byte(benchKey)), Limit: ratelimit.Limit{Rate: 1e9, Burst: 1e6}},
			{Name: "spent", SHA256: sha256.Sum256([]byte(benchSpentKey)), Limit: ratelimit.Limit{Rate: 1e-9, Burst: 1}}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), AccessLog: io.Discard,
		Answers: c, AnswerTTL: time.Hour, // as propertyd serves
	})
	ln := fasthttputil.NewInmemoryListener()
	go g.App().Listener(ln) //nolint:errcheck // returns when the listener closes
	b.Cleanup(func() { g.App().Shutdown() })
	client := &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }, MaxConnsPerHost: 512}

	var rec struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	for range 20 { // the first creates the record; the others warm the caches
		body := benchGet(b, client, benchLookupAll)
		if err := json.Unmarshal(body, &rec); err != nil {
			b.Fatal(err)
		}
		c.Wait()
	}
	return client, rec.Data.ID
}

const benchLookup = "/v1/properties/lookup?street=1100+Congress+Avenue&city=Austin&state=TX&zip=78701"

// benchLookupAll includes every section the catalogue offers.
var benchLookupAll = benchLookup + "&include=" + strings.Join(service.PublicSections(), ",")

// benchGet sends one GET and returns the body of its 200 answer.
func benchGet(b *testing.B, client *fasthttp.Client, path string) []byte {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://propertyd" + path)
	req.Header.Set("X-API-Key", benchKey)
	if err := client.Do(req, resp); err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		b.Fatalf("GET %s: HTTP %d: %s", path, resp.StatusCode(), resp.Body())
	}
	return append([]byte(nil), resp.Body()...)
}

// benchRequests sends GET path from parallel clients until b.N requests
// were answered, failing on any answer but 200.
func benchRequests(b *testing.B, client *fasthttp.Client, path string) {
	benchRequestsAs(b, client, path, benchKey, fasthttp.StatusOK)
}

// benchRequestsAs is benchRequests with the key key, failing on any
// answer but status.
func benchRequestsAs(b *testing.B, client *fasthttp.Client, path, key string, status int) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		for pb.Next() {
			req.SetRequestURI("http://propertyd" + path)
			req.Header.Set("X-API-Key", key)
			if err := client.Do(req, resp); err != nil {
				b.Error(err)
				return
			}
			if resp.StatusCode() != status {
				b.Errorf("GET %s: HTTP %d: %s", path, resp.StatusCode(), resp.Body())
				return
			}
		}
	})
}

// BenchmarkWarmGet is GET /v1/properties/{id} of a cached record.
func BenchmarkWarmGet(b *testing.B) {
	client, id := benchServer(b)
	benchRequests(b, client, fmt.Sprintf("/v1/properties/%d", id))
}

// BenchmarkRateLimitedGet is GET /v1/properties/{id} of a cached record
// by a key whose budget is spent: a 429, which must cost no more than
// BenchmarkWarmGet's 200, or a client that ignores Retry-After costs more
// than one that is served.
func BenchmarkRateLimitedGet(b *testing.B) {
	client, id := benchServer(b)
	path := fmt.Sprintf("/v1/properties/%d", id)
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	req.SetRequestURI("http://propertyd" + path)
	req.Header.Set("X-API-Key", benchSpentKey)
	if err := client.Do(req, resp); err != nil || resp.StatusCode() != fasthttp.StatusOK {
		b.Fatalf("the spent key's first GET: %v %d", err, resp.StatusCode())
	}
	benchRequestsAs(b, client, path, benchSpentKey, fasthttp.StatusTooManyRequests)
}

// BenchmarkWarmLookup is a lookup by an address spelling seen before.
func BenchmarkWarmLookup(b *testing.B) {
	client, _ := benchServer(b)
	benchRequests(b, client, benchLookup)
}

// BenchmarkWarmLookupAllSections is a lookup with all five sections cached.
func BenchmarkWarmLookupAllSections(b *testing.B) {
	client, _ := benchServer(b)
	benchRequests(b, client, benchLookupAll)
}

// BenchmarkBareFiberSameBytes is the baseline of BenchmarkWarmGet: a bare
// Fiber app answering the same bytes over the same in-memory listener and
// client, doing nothing else. Count both in instructions (callgrind) to
// compare what a warm GET costs against what Fiber alone costs.
func BenchmarkBareFiberSameBytes(b *testing.B) {
	client, id := benchServer(b)
	benchBare(b, benchGet(b, client, fmt.Sprintf("/v1/properties/%d", id)))
}

// benchBare sends GETs to a bare Fiber app that answers body, as
// benchRequests does to propertyd.
func benchBare(b *testing.B, body []byte) {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/get", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(body)
	})
	ln := fasthttputil.NewInmemoryListener()
	go app.Listener(ln) //nolint:errcheck // returns when the listener closes
	b.Cleanup(func() { app.Shutdown() })
	bare := &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }, MaxConnsPerHost: 512}
	benchRequests(b, bare, "/get")
}

// BenchmarkBareFiberSameBytesAllSections is BenchmarkWarmLookupAllSections'
// baseline: bare Fiber answering the same bytes.
func BenchmarkBareFiberSameBytesAllSections(b *testing.B) {
	client, _ := benchServer(b)
	benchBare(b, benchGet(b, client, benchLookupAll))
}
