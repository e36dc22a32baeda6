package gateway_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/gateway"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/guard"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/store"
)

const (
	testKey  = "test-key-1"
	otherKey = "test-key-2"
)

// fakeGeocoder is a Geocoder and ReverseGeocoder with function fields that
// counts calls.
type fakeGeocoder struct {
	geocode func(context.Context, providers.Address) (providers.Location, error)
	reverse func(context.Context, providers.Point) (providers.Location, error)
	calls   atomic.Int32
	revs    atomic.Int32
}

var (
	_ providers.Geocoder        = (*fakeGeocoder)(nil)
	_ providers.ReverseGeocoder = (*fakeGeocoder)(nil)
)

func (f *fakeGeocoder) Geocode(ctx context.Context, a providers.Address) (providers.Location, error) {
	f.calls.Add(1)
	return f.geocode(ctx, a)
}

func (f *fakeGeocoder) Reverse(ctx context.Context, p providers.Point) (providers.Location, error) {
	f.revs.Add(1)
	return f.reverse(ctx, p)
}

// places the fake geocoder knows, by the street it matches the way the Census
// geocoder does (providertest.CensusSameStreet: case and spelled-out suffixes
// and directionals aside, apostrophes significant).
var places = map[string]providers.Location{
	"123 N MAIN ST": {
		MatchedAddress: "123 N MAIN ST, SPRINGFIELD, IL, 62701", Street: "123 N MAIN ST", City: "SPRINGFIELD",
		State: "IL", Zip: "62701", Point: providers.Point{Lat: 39.8017, Lng: -89.6437},
		County: "Sangamon County", FIPSCode: "17167", CensusTract: "000500",
	},
	"500 ELM AVE": {
		MatchedAddress: "500 ELM AVE, RICHMOND, VA, 23220", Street: "500 ELM AVE", City: "RICHMOND",
		State: "VA", Zip: "23220", Point: providers.Point{Lat: 37.5485, Lng: -77.4601},
		County: "Richmond city", FIPSCode: "51760", CensusTract: "040200",
	},
}

func newFake() *fakeGeocoder {
	return &fakeGeocoder{
		geocode: func(_ context.Context, a providers.Address) (providers.Location, error) {
			for street, loc := range places {
				if providertest.CensusSameStreet(a.Street, street) && loc.State == a.State {
					return loc, nil
				}
			}
			return providers.Location{}, providers.ErrNoMatch
		},
		reverse: func(_ context.Context, p providers.Point) (providers.Location, error) {
			if p.Lat < 0 {
				return providers.Location{}, providers.NotFound("location_not_found", "no county at this point")
			}
			return providers.Location{State: "IL", County: "Sangamon County", FIPSCode: "17167", CensusTract: "000600", Point: p}, nil
		},
	}
}

// stack is a whole service over a temporary SQLite file.
type stack struct {
	t      *testing.T
	path   string
	db     *store.DB
	cache  *cache.Cache
	geo    *fakeGeocoder
	gw     *gateway.Gateway
	svc    *service.Service
	opts   stackOptions
	closed bool
}

type stackOptions struct {
	burst    int
	rate     float64
	now      func() time.Time
	sections map[string]*service.Section
	breaker  *guard.Breaker
	path     string
	// limiter, when set, builds the keys' budgets (else in-process buckets).
	limiter func(map[string]ratelimit.Limit) gateway.Limiter
	// requestTimeout, when set, is the gateway's RequestTimeout.
	requestTimeout time.Duration
	// cors is the gateway's CORS.
	cors gateway.CORS
}

func newStack(t *testing.T, opts stackOptions) *stack {
	t.Helper()
	if opts.path == "" {
		opts.path = filepath.Join(t.TempDir(), "propertyd.db")
	}
	s := &stack{t: t, path: opts.path, geo: newFake(), opts: opts}
	s.open()
	t.Cleanup(s.close)
	return s
}

func (s *stack) open() {
	t := s.t
	t.Helper()
	db, err := store.Open(context.Background(), s.path, store.Options{})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	c, err := cache.New(8 << 20)
	if err != nil {
		t.Fatal(err)
	}
	s.db, s.cache, s.closed = db, c, false
	burst, rate := s.opts.burst, s.opts.rate
	if burst == 0 {
		burst = 1000
	}
	if rate == 0 {
		rate = 1000
	}
	var names []string
	for _, n := range service.PublicSections() {
		if _, ok := s.opts.sections[n]; ok {
			names = append(names, n)
		}
	}
	sections := map[string]*service.Section{}
	for k, v := range s.opts.sections {
		cp := *v
		sections[k] = &cp
	}
	s.svc = service.New(service.Config{
		Store:    cache.NewStore(db, c, time.Hour),
		Geocoder: providers.GeocoderFunc(providers.WrapCall(s.opts.breaker.Around, s.geo.Geocode)), GeocoderName: "census",
		Reverse: s.geo, ReverseName: "census",
		Sections: sections, Now: s.opts.now,
	})
	var limiter gateway.Limiter
	if s.opts.limiter != nil {
		l := ratelimit.Limit{Rate: rate, Burst: burst}
		limiter = s.opts.limiter(map[string]ratelimit.Limit{"one": l, "two": l})
	}
	s.gw = gateway.New(gateway.Config{
		Service: s.svc, Sections: names, Now: s.opts.now, Limiter: limiter, Answers: c, AnswerTTL: time.Hour,
		RequestTimeout: s.opts.requestTimeout, CORS: s.opts.cors,
		Keys: []gateway.Key{
			{Name: "one", SHA256: sha256.Sum256([]byte(testKey)), Limit: ratelimit.Limit{Rate: rate, Burst: burst}},
			{Name: "two", SHA256: sha256.Sum256([]byte(otherKey)), Limit: ratelimit.Limit{Rate: rate, Burst: burst}},
		},
	})
}

func (s *stack) close() {
	if s.closed {
		return
	}
	s.closed = true
	s.svc.Close(context.Background()) // background refreshes end before the store closes
	s.cache.Close()
	if err := s.db.Close(); err != nil {
		s.t.Errorf("close store: %v", err)
	}
}

// reopen simulates a restart: a new store, cache and gateway on the same file.
func (s *stack) reopen() {
	s.close()
	s.open()
}

// response is a decoded HTTP response.
type response struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

func (r response) data() map[string]any {
	d, _ := r.json["data"].(map[string]any)
	return d
}

func (r response) meta() map[string]any {
	m, _ := r.json["meta"].(map[string]any)
	return m
}

func (s *stack) do(method, target string, body string, headers ...string) response {
	s.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-API-Key", testKey)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := s.gw.App().Test(req, -1)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, header: resp.Header, body: b}
	if len(b) > 0 {
		_ = json.Unmarshal(b, &r.json)
	}
	return r
}

func (s *stack) get(target string, headers ...string) response {
	s.t.Helper()
	return s.do("GET", target, "", headers...)
}

// wantProblem asserts a problem details response with status and code.
func wantProblem(t *testing.T, r response, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, want application/problem+json", ct)
	}
	if r.json["code"] != code {
		t.Fatalf("code = %v, want %s; body %s", r.json["code"], code, r.body)
	}
	for _, k := range []string{"type", "title", "status", "detail", "request_id"} {
		if _, ok := r.json[k]; !ok {
			t.Fatalf("problem lacks %q: %s", k, r.body)
		}
	}
	if int(r.json["status"].(float64)) != status {
		t.Fatalf("problem status member = %v, want %d", r.json["status"], status)
	}
}

// paramNamed reports whether the problem's errors name param.
func paramNamed(r response, param string) bool {
	errs, _ := r.json["errors"].([]any)
	for _, e := range errs {
		if m, ok := e.(map[string]any); ok && m["parameter"] == param {
			return true
		}
	}
	return false
}

// countRows counts the properties in the database file.
func (s *stack) countProperties() int {
	s.t.Helper()
	_, total, err := s.db.Search(context.Background(), providers.SearchFilter{Page: 1, PerPage: 1})
	if err != nil {
		s.t.Fatal(err)
	}
	return total
}

// declaringHugeBody sends, over a real listener, request headers that
// announce a body of size bytes and reads the answer: the server must refuse
// by the announced length, before reading the body (app.Test cannot show this).
// headers are more request headers, in name and value pairs.
func (s *stack) declaringHugeBody(method, target string, size int, headers ...string) response {
	s.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	go func() { _ = s.gw.App().Listener(ln) }()
	defer func() { _ = s.gw.App().Shutdown() }()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close()
	var more strings.Builder
	for i := 0; i+1 < len(headers); i += 2 {
		fmt.Fprintf(&more, "%s: %s\r\n", headers[i], headers[i+1])
	}
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: test\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n{\"addresses\":[",
		method, target, testKey, size, more.String())
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		s.t.Fatalf("reading the answer to a huge body: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, header: resp.Header, body: b}
	_ = json.Unmarshal(b, &r.json)
	return r
}
