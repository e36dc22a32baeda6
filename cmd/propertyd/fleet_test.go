package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers/kits/relaytest"
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
)

// The fleet's keys: "a" is driven before and during a Redis outage, "b"
// only once Redis is back, so that its budget tells shared from per
// instance.
const (
	fleetKeyA  = "fleet-test-key-a"
	fleetKeyB  = "fleet-test-key-b"
	fleetRate  = 0.5
	fleetBurst = 20
)

// startFleet starts n instances of propertyd, each with a database of its
// own, sharing the Redis at redisURL under prefix, and returns them with
// their logs.
func startFleet(t *testing.T, n int, redisURL, prefix string) ([]*Main, []*logSink) {
	t.Helper()
	var mains []*Main
	var logs []*logSink
	for i := range n {
		cfg := testConfig(t, filepath.Join(t.TempDir(), fmt.Sprintf("p%d.db", i)))
		cfg.Redis = RedisConfig{URL: redisURL, Prefix: prefix}
		cfg.Keys = nil
		for name, key := range map[string]string{"a": fleetKeyA, "b": fleetKeyB} {
			sum := sha256.Sum256([]byte(key))
			cfg.Keys = append(cfg.Keys, KeyConfig{Name: name, SHA256: hex.EncodeToString(sum[:]), Rate: fleetRate, Burst: fleetBurst})
		}
		m, l := startLogged(t, cfg, upstreams())
		mains, logs = append(mains, m), append(logs, l)
	}
	return mains, logs
}

// searchAs sends a search (cost 1) with key to m and returns the status.
func searchAs(t *testing.T, m *Main, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+m.Addr()+"/v1/properties/search?state=VA", nil)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// drive sends rounds of one search to every instance in turn and counts the
// 200s per instance; anything but 200 and 429 fails the test.
func drive(t *testing.T, mains []*Main, key string, rounds int) []int {
	t.Helper()
	passed := make([]int, len(mains))
	for range rounds {
		for i, m := range mains {
			switch st := searchAs(t, m, key); st {
			case 200:
				passed[i]++
			case 429:
			default:
				t.Fatalf("instance %d answered %d: a fleet must serve or refuse, never fail", i, st)
			}
		}
	}
	return passed
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// readyRedis returns /readyz's status code, status and redis field.
func readyRedis(t *testing.T, m *Main) (int, any, any) {
	t.Helper()
	st, body, _ := getJSON(t, m, "/readyz")
	return st, body["status"], body["redis"]
}

// Three instances on one Redis share a key's budget: burst 20 lets 20
// requests (plus what the rate refills meanwhile) through the fleet, not
// 60. When Redis is cut mid-run they keep serving, each with a bucket of
// its own holding the same limits; each logs one warning, reports
// propertyd_redis_up 0 and /readyz "redis": "down" while staying ready. When
// Redis is back they find it by themselves and share budgets again.
func TestFleetSharesKeyBudgetsAndSurvivesRedis(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	relayed, relay := relaytest.RelayedURL(t, u, "6379")
	start := time.Now()
	mains, logs := startFleet(t, 3, relayed, prefix)

	passed := drive(t, mains, fleetKeyA, 20)
	elapsed := time.Since(start).Seconds()
	want := float64(fleetBurst) + fleetRate*elapsed
	if got := float64(sum(passed)); math.Abs(got-want) > 0.1*want {
		t.Fatalf("three instances let %d of 60 requests through (%v per instance) with a shared burst of %d at %g/s over %.1fs; want %.0f within 10%%",
			sum(passed), passed, fleetBurst, fleetRate, elapsed, want)
	}
	for i, m := range mains {
		if st, status, redis := readyRedis(t, m); st != 200 || status != "ready" || redis != "up" {
			t.Fatalf("instance %d /readyz: %d %v redis %v", i, st, status, redis)
		}
		wantSamples(t, scrape(t, m), map[string]float64{"propertyd_redis_up": 1})
	}
	// The field is the one the OpenAPI document describes, up and down.
	oa := oaNewConformance(t, "http://"+mains[0].Addr())
	oa.do(oaAPICall{name: "readyz with Redis up", method: "GET", path: "/readyz", status: 200})

	relay.Stop()
	passed = drive(t, mains, fleetKeyA, 25)
	oa.do(oaAPICall{name: "readyz with Redis down", method: "GET", path: "/readyz", status: 200})
	for i, n := range passed {
		if n < fleetBurst || n > fleetBurst+2 {
			t.Fatalf("with Redis cut instance %d let %d of 25 through; want its own bucket's %d (per-instance limits, same as configured)", i, n, fleetBurst)
		}
	}
	for i, m := range mains {
		if st, status, redis := readyRedis(t, m); st != 200 || status != "ready" || redis != "down" {
			t.Fatalf("instance %d /readyz with Redis cut: %d %v redis %v; want 200 ready, redis down", i, st, status, redis)
		}
		wantSamples(t, scrape(t, m), map[string]float64{"propertyd_redis_up": 0})
		if n := strings.Count(logs[i].String(), `"redis unreachable`); n != 1 {
			t.Fatalf("instance %d logged %d Redis warnings for one outage, want 1:\n%s", i, n, logs[i])
		}
		if w := logs[i].line(t, "redis unreachable: key budgets and upstream rates are per instance until it answers again", ""); w["level"] != "WARN" {
			t.Fatalf("instance %d: %v, want a warning", i, w)
		}
	}

	relay.Start()
	deadline := time.Now().Add(15 * time.Second)
	for i, m := range mains {
		for {
			if _, _, redis := readyRedis(t, m); redis == "up" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("instance %d still says Redis is down 15s after it came back", i)
			}
			time.Sleep(20 * time.Millisecond)
		}
		wantSamples(t, scrape(t, m), map[string]float64{"propertyd_redis_up": 1})
		logs[i].line(t, "redis answers again: key budgets and upstream rates are shared across instances", "")
	}
	// Key b was never used: per-instance buckets would let 60 through.
	start = time.Now()
	passed = drive(t, mains, fleetKeyB, 20)
	want = float64(fleetBurst) + fleetRate*time.Since(start).Seconds()
	if got := float64(sum(passed)); math.Abs(got-want) > 0.1*want {
		t.Fatalf("after Redis came back the fleet let %d of 60 through (%v); want the shared %.0f", sum(passed), passed, want)
	}
}

// With a Redis configured, calls to an upstream are paced by a bucket the
// fleet shares, one per role.
func TestFleetPacesUpstreamsThroughRedis(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	mains, _ := startFleet(t, 1, u, prefix)
	req, _ := http.NewRequest("GET", "http://"+mains[0].Addr()+richmondLookup+"&include=flood", nil)
	req.Header.Set("X-API-Key", fleetKeyA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("lookup: %d", resp.StatusCode)
	}
	keys := fleettest.Keys(t, u, prefix)
	for _, want := range []string{prefix + "upstream:geocoder", prefix + "upstream:flood", prefix + "key:a"} {
		if !slices.Contains(keys, want) {
			t.Errorf("Redis lacks %s after a lookup with flood (has %v)", want, keys)
		}
	}
}

// Without a Redis nothing changes: /readyz has no redis field and the
// metric is absent.
func TestNoRedisNoRedisField(t *testing.T) {
	t.Setenv(redisURLEnv, "")
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), upstreams())
	if st, status, redis := readyRedis(t, m); st != 200 || status != "ready" || redis != nil {
		t.Fatalf("/readyz without Redis: %d %v redis %v", st, status, redis)
	}
	if _, ok := scrape(t, m)["propertyd_redis_up"]; ok {
		t.Fatal("propertyd_redis_up shown without a Redis configured")
	}
}

// PROPERTYD_REDIS_URL replaces redis.url, and check-config shows it with
// the password masked; a bad URL is an invalid configuration naming
// redis.url without repeating the password.
func TestRedisURLFromEnvironmentIsMaskedAndChecked(t *testing.T) {
	path := filepath.Join("..", "..", "config.yaml")
	t.Setenv(redisURLEnv, "redis://:hunter2@10.0.0.7:6380/3")
	code, out, errs := runCLI("check-config", "-config", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "hunter2") || !strings.Contains(out, "url: redis://:xxxxx@10.0.0.7:6380/3") ||
		!strings.Contains(out, "prefix: 'propertyd:'") {
		t.Fatalf("check-config must show the Redis URL with its password masked:\n%s", out)
	}
	t.Setenv(redisURLEnv, "redis://:hunter2@10.0.0.7:6380/three")
	code, out, errs = runCLI("check-config", "-config", path)
	if code != exitConfig || !strings.Contains(errs, "redis.url") || strings.Contains(errs, "hunter2") || out != "" {
		t.Fatalf("bad Redis URL: exit %d, stderr %q; want exit 3 naming redis.url without the password", code, errs)
	}
}
