package sandbox

import (
	"bytes"
	"context"
	"errors"
	"hash/fnv"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// Options configure a Server. The zero value serves with seed 0, no
// faults and the HUDToken.
type Options struct {
	// Seed seeds the random draws (jitter, error rates), one stream per
	// upstream, restarted whenever that upstream's faults are set: the same
	// seed, faults and sequence of calls to an upstream give the same
	// outcomes.
	Seed int64
	// Faults are the knobs at start, by upstream name. An All ("*") entry
	// applies to every upstream without an entry of its own. New panics on
	// an entry CheckFaults rejects.
	Faults map[string]Faults
	// HUDToken is the bearer token the HUD FMR API accepts; empty means
	// HUDToken.
	HUDToken string
	// Logf, when set, receives one line per upstream call (upstream,
	// route, status, duration and any injected fault).
	Logf func(format string, args ...any)
}

// Server is the sandbox: an http.Handler that serves the wire formats of
// propertyd's upstreams from a list of places, with per-upstream faults and
// call counts. Build it with New, serve it with Start or any HTTP server
// (httptest.NewServer), and Close it when done. It is safe for concurrent
// use.
type Server struct {
	places     []Place
	walkPlaces []Place
	hudToken   string
	seed       int64
	logf       func(format string, args ...any)
	ups        map[string]*upstream

	mu sync.Mutex // guards the mutable fields of every upstream

	done      chan struct{} // closed by Close: releases hanging and delayed calls
	closeOnce sync.Once

	startMu sync.Mutex
	hs      *http.Server
}

// maxUpstreamBody bounds a request body: a full Census batch of 10,000
// addresses is under 1 MB.
const maxUpstreamBody = 32 << 20

// upstream is one fake upstream: its answers, healthy and failing, and its
// knobs and counters.
type upstream struct {
	name    string
	mount   string // path prefix of its base URL, e.g. "/census/geocoder"
	healthy fake

	// guarded by Server.mu
	faults Faults
	rng    *rand.Rand
	fail   map[int]fake // by status; arcGISFailure for fema's error-in-200
	calls  int
	routes map[string]int
}

// New returns a sandbox serving places (see DefaultPlaces and LoadPlaces)
// with opts.
func New(places []Place, opts Options) *Server {
	s := &Server{
		places:   append([]Place(nil), places...),
		hudToken: opts.HUDToken,
		seed:     opts.Seed,
		logf:     opts.Logf,
		ups:      make(map[string]*upstream, len(upstreamMounts)),
		done:     make(chan struct{}),
	}
	if s.hudToken == "" {
		s.hudToken = HUDToken
	}
	for _, p := range s.places {
		if p.WalkScore != nil {
			s.walkPlaces = append(s.walkPlaces, p)
		}
	}
	for _, m := range upstreamMounts {
		u := &upstream{name: m.name, mount: m.mount, healthy: healthyFake(m.name, s.places, s.hudToken),
			fail: map[int]fake{}, routes: map[string]int{}}
		u.rng = s.newRand(u.name)
		s.ups[u.name] = u
	}
	if f, ok := opts.Faults[All]; ok {
		s.SetFaults(All, f)
	}
	for name, f := range opts.Faults {
		if name != All {
			s.SetFaults(name, f)
		}
	}
	return s
}

// Places returns a copy of the places the sandbox serves.
func (s *Server) Places() []Place { return append([]Place(nil), s.places...) }

func (s *Server) newRand(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(uint64(s.seed), h.Sum64()))
}

// SetFaults replaces the knobs of upstream (an upstream name, or All for
// every upstream; with All, ArcGISError is set on fema only) and restarts
// its random stream. It panics when CheckFaults rejects them: a test that
// sets impossible faults is a programming error.
func (s *Server) SetFaults(upstream string, f Faults) {
	if err := CheckFaults(upstream, f); err != nil {
		panic("sandbox: SetFaults: " + err.Error())
	}
	f.RetryAfter = strings.TrimSpace(f.RetryAfter)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.ups {
		if upstream != All && u.name != upstream {
			continue
		}
		uf := f
		if u.name != UpstreamFEMA {
			uf.ArcGISError = false
		}
		u.faults = uf
		u.rng = s.newRand(u.name)
	}
}

// ResetFaults makes every upstream healthy again and restarts the random
// streams.
func (s *Server) ResetFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.ups {
		u.faults = Faults{}
		u.rng = s.newRand(u.name)
	}
}

// Faults returns the knobs of upstream; the zero Faults for an unknown name.
func (s *Server) Faults(upstream string) Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.ups[upstream]; ok {
		return u.faults
	}
	return Faults{}
}

// Calls returns how many calls upstream received since the start or the
// last ResetCalls, injected failures included; All gives the total.
func (s *Server) Calls(upstream string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, u := range s.ups {
		if upstream == All || u.name == upstream {
			n += u.calls
		}
	}
	return n
}

// RouteCalls returns upstream's calls by route ("GET
// /census/geocoder/geographies/address"; ACS years and HUD entity ids are
// written {year} and {entityid}).
func (s *Server) RouteCalls(upstream string) map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	if u, ok := s.ups[upstream]; ok {
		for k, v := range u.routes {
			out[k] = v
		}
	}
	return out
}

// ResetCalls zeroes every call count.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.ups {
		u.calls = 0
		u.routes = map[string]int{}
	}
}

// Start serves the sandbox on addr (e.g. "127.0.0.1:0") in the
// background and returns its root URL, e.g. "http://127.0.0.1:41873";
// give it to BaseURLs. A server starts once.
func (s *Server) Start(addr string) (string, error) {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.hs != nil {
		return "", errors.New("sandbox: already started")
	}
	select {
	case <-s.done:
		return "", errors.New("sandbox: closed")
	default:
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	s.hs = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go s.hs.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed after Close
	return "http://" + dialable(ln.Addr()), nil
}

// dialable returns addr with an unspecified IP (a listener on all
// interfaces) replaced by the loopback address.
func dialable(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return addr.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}

// Close stops the server started by Start, dropping open connections, and
// releases calls that hang or wait out a latency (their connections are
// aborted). It is safe to call more than once and without Start; it has no
// result so that t.Cleanup(srv.Close) reads as with httptest.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.hs != nil {
		s.hs.Close() //nolint:errcheck // closing listeners and connections; nothing to report
	}
}

// ServeHTTP answers control requests under /_sandbox/ and upstream calls
// under each upstream's path prefix; anything else is 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/_sandbox" || strings.HasPrefix(r.URL.Path, "/_sandbox/") {
		s.control(w, r)
		return
	}
	u := s.upstreamOf(r.URL.Path)
	if u == nil {
		http.Error(w, "sandbox: no upstream is served under "+r.URL.Path+
			" (prefixes: /census/geocoder, /fema, /acs/data, /overpass/api/interpreter, /walkscore, /hud/fmr; control: /_sandbox/)",
			http.StatusNotFound)
		return
	}
	start := time.Now()
	route := routeKey(u, r.Method, r.URL.Path)
	p := s.admit(u, route)
	// Read the body first: net/http notices a client that has gone only
	// once the body is consumed, and a hanging POST must end with its client.
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpstreamBody))
		if err != nil {
			status := http.StatusBadRequest
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				status = http.StatusRequestEntityTooLarge
			}
			http.Error(w, "sandbox: reading the request body: "+err.Error(), status)
			s.log(u, route, status, start, "")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	if p.delay > 0 && !s.wait(r.Context(), p.delay) {
		s.log(u, route, 0, start, "latency, client gone")
		panic(http.ErrAbortHandler)
	}
	if p.fail && p.faults.Hang {
		s.wait(r.Context(), -1)
		s.log(u, route, 0, start, "hang")
		panic(http.ErrAbortHandler)
	}

	f, fault := u.healthy, ""
	malformed, retryAfter := false, ""
	switch {
	case p.fail && p.faults.Malformed:
		malformed, fault = true, "malformed"
	case p.fail && p.faults.ArcGISError:
		f, fault = s.failing(u, arcGISFailure), "arcgis_error"
	case p.fail:
		f, fault = s.failing(u, p.faults.failStatus()), "status "+strconv.Itoa(p.faults.failStatus())
		retryAfter = p.faults.RetryAfter
	}
	rel, below := strings.CutPrefix(r.URL.Path, u.mount)
	// Below the mount, or beside it as {mount}.json: where the Census data
	// API keeps its discovery document (/acs/data.json for /acs/data).
	below = below && (rel == "" || rel[0] == '/' || rel[0] == '.')
	rep, ok := f.answer(s.incoming(u, r), rel, below)
	if !ok {
		http.Error(w, "sandbox: the "+u.name+" fake has no route "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		s.log(u, route, http.StatusNotFound, start, "no route")
		return
	}
	body := rep.Body
	if malformed {
		body = body[:len(body)/2]
	}
	h := w.Header()
	for k, vs := range rep.Header {
		if k != "Content-Length" {
			h[k] = append([]string(nil), vs...)
		}
	}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	if bodyAllowed(rep.Status) {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(rep.Status)
	if bodyAllowed(rep.Status) && r.Method != http.MethodHead {
		w.Write(body) //nolint:errcheck // the client may have gone
	}
	s.log(u, route, rep.Status, start, fault)
}

func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

func (s *Server) log(u *upstream, route string, status int, start time.Time, fault string) {
	if s.logf == nil {
		return
	}
	line := u.name + " " + route + " -> "
	if status == 0 {
		line += "no answer"
	} else {
		line += strconv.Itoa(status)
	}
	line += " in " + time.Since(start).Round(time.Millisecond).String()
	if fault != "" {
		line += " [fault: " + fault + "]"
	}
	s.logf("%s", line)
}

// upstreamOf returns the upstream whose first path segment path starts
// with, or nil.
func (s *Server) upstreamOf(path string) *upstream {
	for _, m := range upstreamMounts {
		seg := m.mount
		if i := strings.IndexByte(seg[1:], '/'); i >= 0 {
			seg = seg[:i+1]
		}
		if path == seg || strings.HasPrefix(path, seg+"/") {
			return s.ups[m.name]
		}
	}
	return nil
}

var (
	acsRouteRE = regexp.MustCompile(`^/acs/data/[^/]+/acs/acs5$`)
	hudRouteRE = regexp.MustCompile(`^/hud/fmr/data/[^/]+$`)
)

// routeKey names the route of a call for the per-route counts, with the
// variable path parts (ACS year, HUD entity id) replaced by a placeholder.
func routeKey(u *upstream, method, path string) string {
	switch {
	case u.name == UpstreamACS && acsRouteRE.MatchString(path):
		path = "/acs/data/{year}/acs/acs5"
	case u.name == UpstreamHUD && hudRouteRE.MatchString(path):
		path = "/hud/fmr/data/{entityid}"
	case len(path) > 200:
		path = path[:200] + "..."
	}
	return method + " " + path
}

// plan is what the faults decided for one call.
type plan struct {
	faults Faults
	delay  time.Duration
	fail   bool
}

// admit counts a call and draws its delay and fate.
func (s *Server) admit(u *upstream, route string) plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	u.calls++
	u.routes[route]++
	p := plan{faults: u.faults, delay: u.faults.Latency}
	if j := u.faults.Jitter; j > 0 {
		p.delay += time.Duration(u.rng.Int64N(int64(j)))
	}
	switch rate := u.faults.failureRate(); {
	case rate >= 1:
		p.fail = true
	case rate > 0:
		p.fail = u.rng.Float64() < rate
	}
	return p
}

// wait waits d (forever when d < 0); it returns false when ctx ended or
// the server closed first.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

// failing returns the cached failing fake of u for status.
func (s *Server) failing(u *upstream, status int) fake {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := u.fail[status]
	if !ok {
		f = failingFake(u.name, status)
		u.fail[status] = f
	}
	return f
}

// incoming is the request the fakes of u answer: r itself, but for a Walk
// Score request near a place, which is moved onto the place (see
// snapWalkScore).
func (s *Server) incoming(u *upstream, r *http.Request) *http.Request {
	if u.name != UpstreamWalkScore {
		return r
	}
	in := r.Clone(r.Context())
	s.snapWalkScore(in.URL)
	return in
}

// snapWalkScore moves the lat and lon of a Walk Score request that is not
// on a place but within WalkScoreRadius of one onto that place, so any
// point near a place is scored.
func (s *Server) snapWalkScore(u *url.URL) {
	q := u.Query()
	lat, err1 := strconv.ParseFloat(q.Get("lat"), 64)
	lon, err2 := strconv.ParseFloat(q.Get("lon"), 64)
	if err1 != nil || err2 != nil {
		return
	}
	at := providers.Point{Lat: lat, Lng: lon}
	for _, p := range s.walkPlaces {
		if p.Point().Key() == at.Key() {
			return
		}
	}
	p, ok := nearest(s.walkPlaces, at, WalkScoreRadius)
	if !ok {
		return
	}
	q.Set("lat", strconv.FormatFloat(p.Lat, 'f', -1, 64))
	q.Set("lon", strconv.FormatFloat(p.Lng, 'f', -1, 64))
	u.RawQuery = q.Encode()
}
