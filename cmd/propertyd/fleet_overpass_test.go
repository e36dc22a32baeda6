package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/overpass"
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
)

// fakeOverpass answers Overpass queries after a delay, as next does, or
// with the public instance's HTTP 429 page while limited is set, or with
// the same page and HTTP 200, as some mirrors send it, while limitedPage
// is, and counts the queries in flight, the most at once, every query, and
// the User-Agents they came with. Other hosts go to next directly.
type fakeOverpass struct {
	next, tooMany, pageOK http.RoundTripper
	delay                 time.Duration
	limited, limitedPage  atomic.Bool

	mu                 sync.Mutex
	now, most, queries int
	agents             map[string]int
}

func newFakeOverpass(delay time.Duration) *fakeOverpass {
	tooMany, pageOK := httpmock.NewMockTransport(), httpmock.NewMockTransport()
	providertest.RegisterOverpassRateLimited(tooMany, overpass.DefaultBaseURL, 0)
	providertest.RegisterOverpassHTMLError(pageOK, overpass.DefaultBaseURL, http.StatusOK, providertest.OverpassRateLimitedMessage, 0)
	return &fakeOverpass{next: upstreams(), tooMany: tooMany, pageOK: pageOK, delay: delay, agents: map[string]int{}}
}

func (f *fakeOverpass) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.Contains(overpass.DefaultBaseURL, r.URL.Host) {
		return f.next.RoundTrip(r)
	}
	f.mu.Lock()
	f.now++
	f.queries++
	f.most = max(f.most, f.now)
	f.agents[r.Header.Get("User-Agent")]++
	f.mu.Unlock()
	time.Sleep(f.delay)
	f.mu.Lock()
	f.now--
	f.mu.Unlock()
	if f.limited.Load() {
		return f.tooMany.RoundTrip(r)
	}
	if f.limitedPage.Load() {
		return f.pageOK.RoundTrip(r)
	}
	return f.next.RoundTrip(r)
}

func (f *fakeOverpass) counts() (queries, most int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries, f.most
}

// amenitiesAt reverse geocodes a point near Richmond's fixture place on m
// with include=amenities and returns the amenities section's meta.
func amenitiesAt(t *testing.T, m *Main, i int) map[string]any {
	t.Helper()
	// Points 100 m apart: each its own record and its own Overpass query.
	path := fmt.Sprintf("/v1/properties/reverse?lat=%.4f&lng=-77.4720&include=amenities", 37.5300+float64(i)*0.0009)
	st, body, _ := getJSON(t, m, path)
	if st != 200 {
		t.Fatalf("reverse %d: %d %v", i, st, body)
	}
	return body["meta"].(map[string]any)["sections"].(map[string]any)["amenities"].(map[string]any)
}

// Three instances sharing a Redis behave as one polite Overpass client:
// with the shipped configuration (no concurrency given: the module's 1),
// concurrent requests for twelve different points over the three have one
// Overpass query in flight at a time, each naming the operator's contact in
// its User-Agent; and once Overpass answers one instance 429, none of the
// three sends it anything (their answers say rate limited, retry after
// about 30 s) though Overpass would answer again.
func TestFleetIsOnePoliteOverpassClient(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	up := newFakeOverpass(40 * time.Millisecond)
	var mains []*Main
	for i := range 3 {
		cfg := testConfig(t, filepath.Join(t.TempDir(), fmt.Sprintf("p%d.db", i)))
		cfg.Redis = RedisConfig{URL: u, Prefix: prefix}
		cfg.Contact = "ops@example.com"
		cfg.Keys[0].Burst, cfg.Keys[0].Rate = 1000, 1000 // the budget is not what this test is about
		am := cfg.Providers["amenities"]
		am.RateLimit = OutboundConfig{Rate: 1000, Burst: 1000} // concurrency left to the module
		m, _ := startLogged(t, cfg, up)
		mains = append(mains, m)
	}

	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			if s := amenitiesAt(t, mains[i%3], i); s["status"] != "ok" || s["source"] != "overpass" {
				t.Errorf("amenities of point %d on instance %d: %v", i, i%3, s)
			}
		})
	}
	wg.Wait()
	queries, most := up.counts()
	if queries != 12 || most != 1 {
		t.Fatalf("three instances sent %d Overpass queries with at most %d in flight at once; want 12, never more than 1", queries, most)
	}
	want := overpass.UserAgentWith("ops@example.com")
	if up.agents[want] != 12 {
		t.Errorf("Overpass saw User-Agents %v; want every query to send %q", up.agents, want)
	}

	up.limited.Store(true)
	s := amenitiesAt(t, mains[0], 20)
	if s["error"] != "upstream_rate_limited" || s["retry_after"] != 30.0 {
		t.Fatalf("amenities when Overpass answers 429: %v; want upstream_rate_limited, retry after 30 s", s)
	}
	up.limited.Store(false) // Overpass would answer now: the fleet still waits
	wantFleetQuiet(t, up, mains, 21, 13, "a 429")
}

// wantFleetQuiet fails t unless every instance of mains, asked for the
// amenities of points from on just after instance 0 was told to keep
// quiet by what, answers rate limited for about 30 s without sending
// anything: up has still seen sent queries.
func wantFleetQuiet(t *testing.T, up *fakeOverpass, mains []*Main, from, sent int, what string) {
	t.Helper()
	for i, m := range mains {
		s := amenitiesAt(t, m, from+i)
		if ra, _ := s["retry_after"].(float64); s["error"] != "upstream_rate_limited" || ra < 25 || ra > 30 {
			t.Errorf("amenities on instance %d just after instance 0 got %s: %v; want rate limited, retry after about 30 s", i, what, s)
		}
	}
	if q, _ := up.counts(); q != sent {
		t.Errorf("Overpass got %d queries after %s, want none for 30 s from any instance", q-sent, what)
	}
}

// An Overpass mirror that answers the rate-limit page with HTTP 200 gets the
// quiet a 429 gets: the instance answers rate limited, retry after 30 s,
// and sends nothing for those 30 s though the mirror would answer again;
// on the section's own route the answer carries Retry-After.
func TestARateLimitPageSentWith200KeepsOverpassQuiet(t *testing.T) {
	up := newFakeOverpass(0)
	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	cfg.Keys[0].Burst, cfg.Keys[0].Rate = 1000, 1000
	m, _ := startLogged(t, cfg, up)
	st, body, _ := getJSON(t, m, "/v1/properties/reverse?lat=37.5300&lng=-77.4720")
	if st != 200 {
		t.Fatalf("reverse: %d %v", st, body)
	}
	route := fmt.Sprintf("/v1/properties/%v/amenities", body["data"].(map[string]any)["id"])

	up.limitedPage.Store(true)
	st, body, h := getJSON(t, m, route)
	if st != 502 || body["code"] != "upstream_rate_limited" || h.Get("Retry-After") != "30" {
		t.Fatalf("amenities when the mirror sends its rate-limit page with 200: %d %v, Retry-After %q; want 502 upstream_rate_limited, Retry-After 30",
			st, body, h.Get("Retry-After"))
	}
	up.limitedPage.Store(false) // the mirror would answer now: the instance still waits
	st, body, h = getJSON(t, m, route)
	if ra := h.Get("Retry-After"); st != 502 || body["code"] != "upstream_rate_limited" || (ra != "30" && ra != "29") {
		t.Errorf("amenities just after the rate-limit page: %d %v, Retry-After %q; want 502 upstream_rate_limited, Retry-After about 30",
			st, body, ra)
	}
	if s := amenitiesAt(t, m, 1); s["error"] != "upstream_rate_limited" {
		t.Errorf("amenities of another point in the quiet: %v; want upstream_rate_limited", s)
	}
	if q, _ := up.counts(); q != 1 {
		t.Errorf("the mirror got %d queries after its rate-limit page, want none for 30 s", q-1)
	}
}

// Three instances sharing a Redis: once an Overpass mirror answers one of
// them with the rate-limit page and HTTP 200, none of the three sends it
// anything for 30 s, as after a 429.
func TestFleetKeepsQuietAfterARateLimitPageSentWith200(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	up := newFakeOverpass(0)
	var mains []*Main
	for i := range 3 {
		cfg := testConfig(t, filepath.Join(t.TempDir(), fmt.Sprintf("p%d.db", i)))
		cfg.Redis = RedisConfig{URL: u, Prefix: prefix}
		cfg.Keys[0].Burst, cfg.Keys[0].Rate = 1000, 1000
		m, _ := startLogged(t, cfg, up)
		mains = append(mains, m)
	}
	up.limitedPage.Store(true)
	if s := amenitiesAt(t, mains[0], 0); s["error"] != "upstream_rate_limited" || s["retry_after"] != 30.0 {
		t.Fatalf("amenities when the mirror sends its rate-limit page with 200: %v; want upstream_rate_limited, retry after 30 s", s)
	}
	up.limitedPage.Store(false)
	wantFleetQuiet(t, up, mains, 1, 1, "the rate-limit page")
}
