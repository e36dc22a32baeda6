package main

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/kits/relaytest"
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// relFleetKey has a budget small enough that three instances sharing it
// let through far fewer requests than three budgets of their own would.
var relFleetKey = relTestKey{name: "fleet", key: "fleet-process-test-key", rate: 0.5, burst: 20}

// relFleetRecord is a record as the fleet must keep it: the answer's data
// without what depends on the request (its sections and their source).
func relFleetRecord(d map[string]any) map[string]any {
	for _, extra := range []string{"source", "flood", "sections"} {
		delete(d, extra)
	}
	return d
}

// relFleetLoad is what a load sent to the fleet was answered: the record
// acknowledged for each address, and anything else.
type relFleetLoad struct {
	mu       sync.Mutex
	ids      map[string]map[string]any // address -> record, as acknowledged
	bad      []string                  // answers other than 200
	cut      atomic.Int64              // requests to an unreachable instance
	answered atomic.Int64
}

func (l *relFleetLoad) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.bad) < 20 {
		l.bad = append(l.bad, fmt.Sprintf(format, args...))
	}
}

// lookup sends the lookup of place p with unit to the first live instance
// from i on, as a load balancer that retries another instance would, and
// records the record acknowledged.
func (l *relFleetLoad) lookup(procs []*relProc, alive []atomic.Bool, i int, p sandbox.Place, unit string) {
	for try := range len(procs) {
		k := (i + try) % len(procs)
		if !alive[k].Load() {
			continue
		}
		rp, err := relTryCall(procs[k].base, relKey.key, http.MethodGet, relLookupPath(p, unit, "flood"), nil, nil)
		if err != nil {
			l.cut.Add(1)
			continue
		}
		if rp.status != 200 {
			l.fail("instance %d: %s", k, rp)
			return
		}
		rec := relFleetRecord(rp.json()["data"].(map[string]any))
		key := p.ID + "/" + unit
		l.mu.Lock()
		if prev, ok := l.ids[key]; ok && fmt.Sprint(prev) != fmt.Sprint(rec) {
			l.bad = append(l.bad, fmt.Sprintf("%s answered as %v and as %v", key, prev, rec))
		}
		l.ids[key] = rec
		l.mu.Unlock()
		l.answered.Add(1)
		return
	}
	l.fail("no instance answered the lookup of %s %s", p.ID, unit)
}

// TestFleetOfProcesses starts three propertyd binaries on one PostgreSQL
// database and one Redis (through a relay the test can cut), against the
// upstream sandbox, and checks what the fleet promises: a key's budget
// holds for the fleet (within 10%); 60 concurrent first lookups of one
// address over the three make one geocoder call; a record one instance
// created is served by the others with no upstream call; a Redis outage
// mid-load fails no request and the fleet shares again once Redis is back;
// and with one instance killed mid-load the others keep serving and every
// record acknowledged is there, once.
func TestFleetOfProcesses(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	if testing.Short() {
		t.Skip("builds and runs three binaries")
	}
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	database := pgtest.Schema(t)
	relayed, relay := relaytest.RelayedURL(t, u, "6379")
	dir := t.TempDir()
	bin := relBuildPropertyd(t, dir)

	// Geocoder latency keeps the 60 lookups in flight together.
	sb := sandbox.New(sandbox.DefaultPlaces(), sandbox.Options{Seed: 5,
		Faults: map[string]sandbox.Faults{sandbox.UpstreamCensus: {Latency: 100 * time.Millisecond}}})
	root, err := sb.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	config := filepath.Join(dir, "config.yaml")
	cfg := relConfig{root: root, db: database, cacheMB: 16, redis: relayed, redisPrefix: prefix,
		keys: []relTestKey{relKey, relFleetKey}}
	if err := os.WriteFile(config, []byte(cfg.yaml()), 0o600); err != nil {
		t.Fatal(err)
	}
	var procs []*relProc
	for range 3 {
		procs = append(procs, relStartBinary(t, bin, config))
	}
	alive := make([]atomic.Bool, len(procs))
	for i := range alive {
		alive[i].Store(true)
	}
	places := sb.Places()

	// The shared budget: 20 rounds of one search on each instance.
	start := time.Now()
	passed := 0
	for range 20 {
		for i, p := range procs {
			switch rp := relCall(t, p.base, relFleetKey.key, http.MethodGet, "/v1/properties/search?state=TX", nil, nil); rp.status {
			case 200:
				passed++
			case 429:
			default:
				t.Fatalf("instance %d: %s; a fleet must serve or refuse, never fail", i, rp)
			}
		}
	}
	want := float64(relFleetKey.burst) + relFleetKey.rate*time.Since(start).Seconds()
	if math.Abs(float64(passed)-want) > 0.1*want {
		t.Fatalf("three instances let %d of 60 requests through a shared burst of %d; want %.0f within 10%%",
			passed, relFleetKey.burst, want)
	}

	// 60 concurrent first lookups of one address, spread over the three.
	sb.ResetCalls()
	first := &relFleetLoad{ids: map[string]map[string]any{}}
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Go(func() { first.lookup(procs, alive, i, places[0], "") })
	}
	wg.Wait()
	if len(first.bad) > 0 || first.answered.Load() != 60 {
		t.Fatalf("60 lookups: %d answered, unexpected answers:\n%s", first.answered.Load(), strings.Join(first.bad, "\n"))
	}
	if n := sb.RouteCalls(sandbox.UpstreamCensus); sb.Calls(sandbox.UpstreamCensus) != 1 {
		t.Fatalf("60 concurrent first lookups of one address over three instances made geocoder calls %v; want one", n)
	}

	// Created on one, served by the others without a call.
	rp := relCall(t, procs[0].base, relKey.key, http.MethodGet, relLookupPath(places[1], "", "flood"), nil, nil)
	relWantStatus(t, rp, 200)
	id := relData(t, rp)["id"]
	before := sb.Calls(sandbox.All)
	for i, p := range procs[1:] {
		rp := relCall(t, p.base, relKey.key, http.MethodGet, relLookupPath(places[1], "", "flood"), nil, nil)
		relWantStatus(t, rp, 200)
		if got := relData(t, rp)["id"]; got != id {
			t.Fatalf("instance %d answered id %v for the record instance 0 created as %v", i+1, got, id)
		}
	}
	if n := sb.Calls(sandbox.All) - before; n != 0 {
		t.Fatalf("serving a record another instance created made %d upstream calls; want none", n)
	}

	// A load of new addresses over the three, during which Redis goes
	// away and comes back: no request fails.
	load := &relFleetLoad{ids: map[string]map[string]any{}}
	sb.SetFaults(sandbox.UpstreamCensus, sandbox.Faults{Latency: 5 * time.Millisecond})
	runLoad := func(units int, during func()) {
		next := make(chan int)
		var wg sync.WaitGroup
		for range 12 {
			wg.Go(func() {
				for n := range next {
					p := places[n%len(places)]
					load.lookup(procs, alive, n, p, fmt.Sprintf("UNIT %d", n))
				}
			})
		}
		for n := range units {
			if n == units/3 {
				during()
			}
			next <- n
		}
		close(next)
		wg.Wait()
	}
	runLoad(300, func() {
		relay.Stop()
		go func() { time.Sleep(500 * time.Millisecond); relay.Start() }()
	})
	if len(load.bad) > 0 || load.cut.Load() > 0 {
		t.Fatalf("with Redis cut mid-load: %d requests cut off, unexpected answers:\n%s", load.cut.Load(), strings.Join(load.bad, "\n"))
	}
	for i, p := range procs {
		if !relEventually(15*time.Second, func() bool {
			return relCall(t, p.base, "", http.MethodGet, "/readyz", nil, nil).json()["redis"] == "up"
		}) {
			t.Fatalf("instance %d does not see Redis again 15s after it came back\n%s", i, p.stderr)
		}
		if !p.stderr.has("redis unreachable") {
			t.Fatalf("instance %d logged no warning for the Redis outage\n%s", i, p.stderr)
		}
	}

	// One instance killed with SIGKILL mid-load: the others keep serving.
	load = &relFleetLoad{ids: map[string]map[string]any{}}
	var atKill int64
	runLoad(300, func() {
		// Requests in flight to it are cut off; the balancer (here the
		// load itself) sends them, and all later ones, to another.
		procs[2].kill(t)
		alive[2].Store(false)
		atKill = load.answered.Load()
	})
	if len(load.bad) > 0 {
		t.Fatalf("with an instance killed mid-load the others answered:\n%s", strings.Join(load.bad, "\n"))
	}
	if atKill == 0 || load.answered.Load() != 300 {
		t.Fatalf("%d of 300 lookups answered, %d of them before the kill; want all, some before", load.answered.Load(), atKill)
	}
	t.Logf("killed one instance after %d of 300 lookups; %d requests to it were cut off and sent to another", atKill, load.cut.Load())
	// Every record acknowledged is there, the same, on both survivors, and
	// looking its address up again finds it rather than a second record.
	ids := map[any]string{}
	for key, want := range load.ids {
		for _, p := range procs[:2] {
			rp := relCall(t, p.base, relKey.key, http.MethodGet, fmt.Sprintf("/v1/properties/%v", want["id"]), nil, nil)
			relWantStatus(t, rp, 200)
			if got := relFleetRecord(relData(t, rp)); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("record %v (%s) acknowledged as %v is now %v", want["id"], key, want, got)
			}
		}
		if other, dup := ids[want["id"]]; dup {
			t.Fatalf("%s and %s share id %v", key, other, want["id"])
		}
		ids[want["id"]] = key
	}
	again := &relFleetLoad{ids: map[string]map[string]any{}}
	for key, want := range load.ids {
		id, unit, _ := strings.Cut(key, "/")
		for _, p := range places {
			if p.ID == id {
				again.lookup(procs, alive, 0, p, unit)
			}
		}
		if got := again.ids[key]; got == nil || got["id"] != want["id"] {
			t.Fatalf("%s looked up again: %v, want record %v (no second record)\n%s", key, got, want["id"], strings.Join(again.bad, "\n"))
		}
	}
}

// has reports whether s was logged (within the first MB kept).
func (l *relLockedBuffer) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Contains(l.b.String(), s)
}
