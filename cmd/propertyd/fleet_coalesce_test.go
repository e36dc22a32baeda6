package main

import (
	"fmt"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// slowUpstreams answers like the fakes after a delay, as a real upstream
// takes its time, and counts the requests by URL: concurrent requests
// overlap only if the call they share takes a while.
type slowUpstreams struct {
	next  http.RoundTripper
	delay time.Duration

	mu    sync.Mutex
	calls map[string]int // "GET host/path?query" -> requests
}

func (s *slowUpstreams) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.calls[r.Method+" "+r.URL.Host+r.URL.Path+"?"+r.URL.RawQuery]++
	s.mu.Unlock()
	time.Sleep(s.delay)
	return s.next.RoundTrip(r)
}

// counts returns the requests so far per URL whose host contains host.
func (s *slowUpstreams) counts(host string) map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for u, n := range s.calls {
		if strings.Contains(u, host) {
			out[u] = n
		}
	}
	return out
}

// snapshot returns the requests so far per URL.
func (s *slowUpstreams) snapshot() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

// since lists the requests made since snapshot was taken, per URL.
func (s *slowUpstreams) since(snapshot map[string]int) map[string]int {
	out := map[string]int{}
	for u, n := range s.snapshot() {
		if d := n - snapshot[u]; d > 0 {
			out[u] = d
		}
	}
	return out
}

// total counts the calls made for some key: every call but the ACS
// discovery document, which each instance reads once a day (in the
// background, when it first compares a stored value's release with the
// newest one) whatever the keys asked for.
func (s *slowUpstreams) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for u, c := range s.calls {
		if !isACSDiscovery(u) {
			n += c
		}
	}
	return n
}

func isACSDiscovery(call string) bool { return strings.Contains(call, "/data.json") }

// Three instances on one PostgreSQL database and one Redis make one
// upstream call per natural key between them: 60 concurrent first lookups
// of one address spread over the three make one geocoder call and return
// one id; with flood and demographics, one FEMA and one ACS call per
// distinct request; and a record one instance created is served by the
// others without a call.
func TestFleetMakesOneUpstreamCallPerKey(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	database := pgtest.Schema(t)
	up := &slowUpstreams{next: upstreams(), delay: 100 * time.Millisecond, calls: map[string]int{}}
	var mains []*Main
	var logs []*logSink
	for range 3 {
		cfg := testConfig(t, database)
		cfg.Redis = RedisConfig{URL: u, Prefix: prefix}
		cfg.Keys[0].Burst, cfg.Keys[0].Rate = 1000, 1000 // the budget is not what this test is about
		m, l := startLogged(t, cfg, up)
		mains, logs = append(mains, m), append(logs, l)
	}
	lookupAll := func(path string) map[any]int {
		ids := map[any]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 60 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, body, _ := getJSON(t, mains[i%3], path)
				mu.Lock()
				defer mu.Unlock()
				if st != 200 {
					t.Errorf("lookup %d on instance %d: %d %v", i, i%3, st, body)
					return
				}
				ids[body["data"].(map[string]any)["id"]]++
			}()
		}
		wg.Wait()
		return ids
	}

	ids := lookupAll(richmondLookup)
	geo := up.counts("geocoding.geo.census.gov")
	if len(ids) != 1 || len(geo) != 1 || sumCounts(geo) != 1 {
		t.Fatalf("60 concurrent first lookups over three instances made geocoder calls %v and gave ids %v; want one call, one id",
			geo, ids)
	}

	ids = lookupAll(richmondLookup + "&include=flood,demographics")
	if len(ids) != 1 {
		t.Fatalf("ids %v, want one", ids)
	}
	for name, host := range map[string]string{"FEMA": "hazards.fema.gov", "ACS": "api.census.gov"} {
		got := up.counts(host)
		if len(got) == 0 {
			t.Fatalf("no %s call at all (calls %v)", name, up.calls)
		}
		for u, n := range got {
			if isACSDiscovery(u) {
				// The ACS discovery document: each instance reads it once a
				// day to learn the newest release, not once per key.
				continue
			}
			if n != 1 {
				t.Errorf("%s was asked %d times for %s by three instances; want once", name, n, u)
			}
		}
	}

	// The first load of Virginia's demographics also loads its housing
	// table in the background (a sibling of the same region): wait for that
	// one call, so that it does not land among the calls counted below on
	// a busy machine.
	waitForCall(t, up, "api.census.gov", housingOnly())

	// A record one instance created is served by every other without a
	// call: by lookup, by id, with its sections.
	before, calls := up.total(), up.snapshot()
	for i, m := range mains {
		for id := range ids {
			if st, body, _ := getJSON(t, m, fmt.Sprintf("/v1/properties/%v?include=flood,demographics", id)); st != 200 {
				t.Fatalf("instance %d GET the record: %d %v", i, st, body)
			}
		}
		if st, body, _ := getJSON(t, m, richmondLookup+"&include=flood,demographics"); st != 200 {
			t.Fatalf("instance %d lookup: %d %v", i, st, body)
		}
	}
	if n := up.total() - before; n != 0 {
		var lines []string
		for i, l := range logs {
			for line := range strings.SplitSeq(l.String(), "\n") {
				if line != "" && !strings.Contains(line, `"msg":"request"`) {
					lines = append(lines, fmt.Sprintf("instance %d: %s", i, line))
				}
			}
		}
		t.Fatalf("serving a record another instance created made %d upstream calls (%v); want none; all calls: %v\n%s", n, up.since(calls), up.snapshot(), strings.Join(lines, "\n"))
	}
}

// housingOnly is an ACS variable of the housing table set that the
// demographics set does not ask for, to tell the two state loads apart.
func housingOnly() string {
	for _, v := range censusacs.HousingVariables {
		if !slices.Contains(censusacs.DemographicsVariables, v) {
			return v
		}
	}
	panic("every housing variable is a demographics one too")
}

// waitForCall waits, up to 20 s, until a request to host whose URL holds
// part was made.
func waitForCall(t *testing.T, up *slowUpstreams, host, part string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		for u := range up.counts(host) {
			if strings.Contains(u, part) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no request to %s for %s within 20 s (calls %v)", host, part, up.snapshot())
		}
	}
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// inFlight answers like next after a delay and keeps the most requests to
// hosts containing host that were in flight at once.
type inFlight struct {
	next  http.RoundTripper
	host  string
	delay time.Duration

	mu        sync.Mutex
	now, most int
}

func (f *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.Contains(r.URL.Host, f.host) {
		return f.next.RoundTrip(r)
	}
	f.mu.Lock()
	f.now++
	f.most = max(f.most, f.now)
	f.mu.Unlock()
	time.Sleep(f.delay)
	f.mu.Lock()
	f.now--
	f.mu.Unlock()
	return f.next.RoundTrip(r)
}

// Three instances sharing a Redis hold an upstream's rate_limit.concurrency
// between them: 30 concurrent lookups of different addresses (each its own
// geocoder call) over three instances capped at 2 have at most 2 geocoder
// calls in flight at once, not 6.
func TestFleetCapsConcurrentUpstreamCalls(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	up := &inFlight{next: upstreams(), host: "geocoding.geo.census.gov", delay: 50 * time.Millisecond}
	var mains []*Main
	for i := range 3 {
		cfg := testConfig(t, filepath.Join(t.TempDir(), fmt.Sprintf("p%d.db", i)))
		cfg.Redis = RedisConfig{URL: u, Prefix: prefix}
		cfg.Keys[0].Burst, cfg.Keys[0].Rate = 1000, 1000 // the budget is not what this test is about
		cfg.Providers["geocoder"].RateLimit = OutboundConfig{Concurrency: 2}
		m, _ := startLogged(t, cfg, up)
		mains = append(mains, m)
	}
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			path := fmt.Sprintf("/v1/properties/lookup?street=%d+Main+Street&city=Richmond&state=VA", 100+i)
			if st, body, _ := getJSON(t, mains[i%3], path); st != 200 && st != 404 {
				t.Errorf("lookup %d on instance %d: %d %v", i, i%3, st, body)
			}
		})
	}
	wg.Wait()
	up.mu.Lock()
	defer up.mu.Unlock()
	if up.most != 2 {
		t.Fatalf("three instances with the geocoder's concurrency at 2 had %d geocoder calls in flight at once; want 2 for the fleet", up.most)
	}
}
