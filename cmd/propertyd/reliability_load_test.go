package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

// relLoadKey is one API key of the load test and what it is offered.
type relLoadKey struct {
	relTestKey
	// offered is the demand in tokens per second, as a multiple of rate:
	// above 1 the key is over budget and must get exactly its rate.
	offered float64
}

// relKeyStats are the outcomes of one key's requests.
type relKeyStats struct {
	mu        sync.Mutex
	ok        int // 2xx answers
	tokens    int // their X-Request-Cost, summed
	limited   int // 429s
	unexpect  []string
	latencies []time.Duration
}

func (s *relKeyStats) record(rp relReply, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		s.unexpect = append(s.unexpect, err.Error())
	case rp.status >= 200 && rp.status < 300:
		s.ok++
		cost, _ := strconv.Atoi(rp.header.Get("X-Request-Cost"))
		s.tokens += cost
		s.latencies = append(s.latencies, rp.elapsed)
	case rp.status == http.StatusTooManyRequests:
		s.limited++
		if s.limited <= 3 {
			// A refusal is a problem with a Retry-After, like any other.
			if rp.header.Get("Retry-After") == "" || !strings.Contains(string(rp.body), `"code":"rate_limited"`) {
				s.unexpect = append(s.unexpect, "429 without Retry-After or code: "+rp.String())
			}
		}
	default:
		s.unexpect = append(s.unexpect, rp.String())
	}
}

// relHeapInUse returns the live heap after a collection.
func relHeapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestLoadMixedTrafficManyKeys runs 60s (5s with -short) of mixed traffic
// (lookups, includes, records by id, batches, search) from six keys at
// once against propertyd and the sandbox: five keys ask for twice their
// budget and must each get their rate within 10% (tokens spent by 2xx
// answers against rate x duration + burst), a sixth asks for a quarter of
// its budget and must never be refused; nothing but 429 may fail; the heap
// and the goroutine count stay flat from the 10s mark (1s with -short) to
// the end.
func TestLoadMixedTrafficManyKeys(t *testing.T) {
	duration, sampleAt := 60*time.Second, 10*time.Second
	if testing.Short() {
		duration, sampleAt = 5*time.Second, time.Second
	}
	keys := []relLoadKey{
		{relTestKey{name: "k10", key: "load-key-10", rate: 10, burst: 20}, 2},
		{relTestKey{name: "k20", key: "load-key-20", rate: 20, burst: 20}, 2},
		{relTestKey{name: "k40", key: "load-key-40", rate: 40, burst: 30}, 2},
		{relTestKey{name: "k80", key: "load-key-80", rate: 80, burst: 40}, 2},
		{relTestKey{name: "k160", key: "load-key-160", rate: 160, burst: 60}, 2},
		{relTestKey{name: "quiet", key: "load-key-quiet", rate: 40, burst: 40}, 0.25},
	}
	cfg := relConfig{cacheMB: 16, keys: []relTestKey{relKey}}
	for _, k := range keys {
		cfg.keys = append(cfg.keys, k.relTestKey)
	}
	r := relNewRig(t, cfg)

	// Warm up with the unthrottled key: 70 records with their sections,
	// so the window measures the steady state.
	type known struct {
		place sandbox.Place
		unit  string
		id    int
	}
	var set []known
	for _, p := range r.sb.Places() {
		for u := range 10 {
			unit := fmt.Sprintf("UNIT %d", u+1)
			rp := r.get(relLookupPath(p, unit, "flood,demographics,amenities"))
			relWantStatus(t, rp, 200)
			set = append(set, known{p, unit, int(relData(t, rp)["id"].(float64))})
		}
	}
	callsBefore := r.sb.Calls(sandbox.All)
	goroutinesBefore := relSettledGoroutines()

	// One request of the mix; returns its reply. Costs: lookup 1, lookup
	// with two sections 3, record with amenities 2, batch of 3 3, search 1.
	request := func(rng *rand.Rand, key string) (relReply, error) {
		k := set[rng.IntN(len(set))]
		switch n := rng.IntN(100); {
		case n < 35:
			return relTryCall(r.base, key, http.MethodGet, relLookupPath(k.place, k.unit, ""), nil, nil)
		case n < 55:
			return relTryCall(r.base, key, http.MethodGet, relLookupPath(k.place, k.unit, "flood,demographics"), nil, nil)
		case n < 70:
			return relTryCall(r.base, key, http.MethodGet, fmt.Sprintf("/v1/properties/%d?include=amenities", k.id), nil, nil)
		case n < 85:
			items := make([]map[string]string, 3)
			for i := range items {
				o := set[rng.IntN(len(set))]
				items[i] = map[string]string{"street": o.place.Street + " " + o.unit, "city": o.place.City,
					"state": o.place.State, "zip": o.place.Zip}
			}
			body, _ := json.Marshal(map[string]any{"addresses": items})
			return relTryCall(r.base, key, http.MethodPost, "/v1/properties/batch", body, nil)
		default:
			return relTryCall(r.base, key, http.MethodGet, "/v1/properties/search?per_page=10&state="+k.place.State, nil, nil)
		}
	}
	const meanCost = 0.35*1 + 0.20*3 + 0.15*2 + 0.15*3 + 0.15*1

	stats := make([]*relKeyStats, len(keys))
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i, k := range keys {
		stats[i] = &relKeyStats{}
		// Open-loop pacing: tickets at the offered request rate, served by
		// a few workers; a ticket nobody can take is dropped.
		perSecond := k.rate * k.offered / meanCost
		tickets := make(chan struct{}, 64)
		wg.Go(func() {
			defer close(tickets)
			tick := time.NewTicker(time.Duration(float64(time.Second) / perSecond))
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					select {
					case tickets <- struct{}{}:
					default:
					}
				}
			}
		})
		for w := range 6 {
			rng := rand.New(rand.NewPCG(uint64(i), uint64(w)))
			wg.Go(func() {
				for range tickets {
					if ctx.Err() != nil {
						continue
					}
					rp, err := request(rng, k.key)
					stats[i].record(rp, err)
				}
			})
		}
	}

	time.Sleep(sampleAt)
	heapMid := relHeapInUse()
	wg.Wait()
	elapsed := time.Since(start)
	heapEnd, goroutinesEnd := relHeapInUse(), relSettledGoroutines()

	for i, k := range keys {
		s := stats[i]
		slices.Sort(s.latencies)
		p50, p99 := time.Duration(0), time.Duration(0)
		if n := len(s.latencies); n > 0 {
			p50, p99 = s.latencies[n/2], s.latencies[n*99/100]
		}
		budget := k.rate*duration.Seconds() + float64(k.burst)
		t.Logf("key %-5s rate %3.0f/s: %5d ok (%5d tokens of a %6.0f budget, %5.1f%%), %5d refused; p50 %v p99 %v",
			k.name, k.rate, s.ok, s.tokens, budget, 100*float64(s.tokens)/budget, s.limited, p50, p99)
		if len(s.unexpect) > 0 {
			t.Errorf("key %s: %d answers other than 2xx and 429, e.g.:\n%s", k.name, len(s.unexpect), strings.Join(s.unexpect[:min(5, len(s.unexpect))], "\n"))
		}
		if k.offered < 1 {
			if s.limited > 0 {
				t.Errorf("key %s asked for a quarter of its budget and was refused %d times: another key's load leaked into its bucket", k.name, s.limited)
			}
			continue
		}
		// The bucket can never give more than rate x elapsed + burst; a
		// key asking for twice that must get at least 90% of it.
		ceiling := k.rate*elapsed.Seconds() + float64(k.burst)
		if float64(s.tokens) > ceiling+1 {
			t.Errorf("key %s spent %d tokens in %v, more than its bucket allows (%.0f)", k.name, s.tokens, elapsed, ceiling)
		}
		if float64(s.tokens) < 0.9*budget {
			t.Errorf("key %s spent %d tokens of its %.0f budget while asking for twice as much: under 90%%", k.name, s.tokens, budget)
		}
		if s.limited == 0 {
			t.Errorf("key %s asked for twice its rate and was never refused", k.name)
		}
	}
	if got := r.sb.Calls(sandbox.All); got != callsBefore {
		t.Errorf("the load of known records made %d upstream calls; every answer should come from the store", got-callsBefore)
	}

	// Memory: everything the load touches is fixed in size (70 records,
	// their sections, a 16 MB cache tier, six buckets, a fixed pool of
	// connections), so after the warm-up the live heap must not trend up.
	// 8 MiB is far above the noise of a collection taken mid-traffic
	// (in-flight requests and buffers, about 1-2 MiB here) and far below
	// what a leak of even 100 bytes per request would add over the window
	// (a minute at ~250 requests/s is 15,000 requests: 1.5 MB per 100 B,
	// so 8 MiB catches a leak of ~550 bytes per request).
	t.Logf("heap in use: %.1f MiB at %v, %.1f MiB at the end; goroutines %d before, %d after",
		float64(heapMid)/(1<<20), sampleAt, float64(heapEnd)/(1<<20), goroutinesBefore, goroutinesEnd)
	if heapEnd > heapMid+8<<20 {
		t.Errorf("heap grew from %.1f MiB to %.1f MiB under steady load", float64(heapMid)/(1<<20), float64(heapEnd)/(1<<20))
	}
	// The load's own goroutines are gone and its connections closed, so
	// the server must be back to the goroutines it had before.
	if goroutinesEnd > goroutinesBefore+5 {
		t.Errorf("goroutines grew from %d before the load to %d after it", goroutinesBefore, goroutinesEnd)
		var b strings.Builder
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Logf("goroutines now:\n%s", b.String())
	}
}

// relSettledGoroutines closes the client's idle connections and returns
// how many goroutines are left once the count stops falling, leaving out
// the pools that keep idle goroutines on purpose: fasthttp's workers (kept
// up to 10s after their connection closed) and HTTP connections still
// open on either side.
func relSettledGoroutines() int {
	relClient.CloseIdleConnections()
	count := func() int {
		buf := make([]byte, 1<<20)
		for {
			n := runtime.Stack(buf, true)
			if n < len(buf) {
				buf = buf[:n]
				break
			}
			buf = make([]byte, 2*len(buf))
		}
		total := 0
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "fasthttp.(*workerPool).workerFunc") || strings.Contains(g, "net/http.(*persistConn)") ||
				strings.Contains(g, "net/http.(*conn).serve") {
				continue
			}
			total++
		}
		return total
	}
	n := count()
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		m := count()
		if m >= n {
			return m
		}
		n = m
	}
	return n
}
