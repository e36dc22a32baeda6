package main

import (
	"fmt"
	"net/http"
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
	for range 3 {
		cfg := testConfig(t, database)
		cfg.Redis = RedisConfig{URL: u, Prefix: prefix}
		cfg.Keys[0].Burst, cfg.Keys[0].Rate = 1000, 1000 // the budget is not what this test is about
		m, _ := startLogged(t, cfg, up)
		mains = append(mains, m)
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

	// A record one instance created is served by every other without a
	// call: by lookup, by id, with its sections.
	before := up.total()
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
		t.Fatalf("serving a record another instance created made %d upstream calls; want none", n)
	}
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}
