package metrics_test

import (
	"bufio"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/metrics"
)

// scrape reads m's exposition into samples keyed by series as printed
// (labels sorted by name), e.g. `propertyd_requests_total{route="/x",status="200"}`.
func scrape(t *testing.T, m *metrics.Metrics) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics answered %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("Content-Type = %q, want the text exposition format", ct)
	}
	return parse(t, rec.Body)
}

func parse(t *testing.T, r io.Reader) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("unparsable sample %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

func want(t *testing.T, got map[string]float64, series string, v float64) {
	t.Helper()
	have, ok := got[series]
	if !ok {
		t.Fatalf("/metrics lacks %s", series)
	}
	if have != v {
		t.Fatalf("%s = %v, want %v", series, have, v)
	}
}

func TestEveryMetricMovesUnderItsLabels(t *testing.T) {
	m := metrics.New()
	m.ObserveRequest("/v1/properties/:id", 200, 3*time.Millisecond)
	m.ObserveRequest("/v1/properties/:id", 200, 4*time.Millisecond)
	m.ObserveRequest("/v1/properties/:id", 404, time.Millisecond)
	m.UpstreamCall("census", nil, 120*time.Millisecond)
	m.UpstreamCall("census", providers.ErrNoMatch, 80*time.Millisecond)
	m.UpstreamCall("census", providers.Errorf(providers.KindUpstream, "upstream_error", "down"), time.Second)
	m.UpstreamAttempt("census")
	m.UpstreamAttempt("census")
	m.SetBreakerState("census", "geocoder", "open")
	m.SetBreakerState("census", "reverse_geocoder", "half-open")
	m.SetBreakerState("fema-nfhl", "flood", "closed")
	m.CacheOutcome(providers.ReadRecord, providers.TierMemory, 2)
	m.CacheOutcome(providers.ReadSection, providers.TierUpstream, 3)
	m.RateLimited("demo")
	m.BatchSize(3)
	m.BatchSize(25)

	got := scrape(t, m)
	want(t, got, `propertyd_requests_total{route="/v1/properties/:id",status="200"}`, 2)
	want(t, got, `propertyd_requests_total{route="/v1/properties/:id",status="404"}`, 1)
	want(t, got, `propertyd_request_duration_seconds_count{route="/v1/properties/:id"}`, 3)
	want(t, got, `propertyd_request_duration_seconds_bucket{route="/v1/properties/:id",le="0.0025"}`, 1)
	want(t, got, `propertyd_upstream_calls_total{provider="census"}`, 3)
	want(t, got, `propertyd_upstream_attempts_total{provider="census"}`, 2)
	want(t, got, `propertyd_upstream_errors_total{code="upstream_error",provider="census"}`, 1)
	if _, ok := got[`propertyd_upstream_errors_total{code="address_not_found",provider="census"}`]; ok {
		t.Fatal("a no-match counted as an upstream error")
	}
	want(t, got, `propertyd_upstream_call_duration_seconds_sum{provider="census"}`, 1.2)
	want(t, got, `propertyd_breaker_state{provider="census",role="geocoder"}`, 2)
	want(t, got, `propertyd_breaker_state{provider="census",role="reverse_geocoder"}`, 1)
	want(t, got, `propertyd_breaker_state{provider="fema-nfhl",role="flood"}`, 0)
	want(t, got, `propertyd_cache_reads_total{kind="record",tier="ristretto"}`, 2)
	want(t, got, `propertyd_cache_reads_total{kind="section",tier="upstream"}`, 3)
	want(t, got, `propertyd_rate_limited_total{key_name="demo"}`, 1)
	want(t, got, `propertyd_batch_size_count`, 2)
	want(t, got, `propertyd_batch_size_sum`, 28)
	want(t, got, `propertyd_batch_size_bucket{le="5"}`, 1)
}

func TestCacheTiersAreExposedBeforeAnyRead(t *testing.T) {
	got := scrape(t, metrics.New())
	for _, k := range providers.ReadKinds {
		for _, tier := range providers.Tiers {
			want(t, got, `propertyd_cache_reads_total{kind="`+k+`",tier="`+tier+`"}`, 0)
		}
	}
	if _, ok := got["go_goroutines"]; !ok {
		t.Fatal("the Go runtime collector is missing")
	}
}

func TestUnknownBreakerStateLeavesTheGauge(t *testing.T) {
	m := metrics.New()
	m.SetBreakerState("census", "geocoder", "open")
	m.SetBreakerState("census", "geocoder", "melting")
	want(t, scrape(t, m), `propertyd_breaker_state{provider="census",role="geocoder"}`, 2)
}

func TestNilMetricsRecordNothingAndNeverPanic(t *testing.T) {
	var m *metrics.Metrics
	m.ObserveRequest("/", 200, time.Millisecond)
	m.UpstreamCall("census", nil, time.Millisecond)
	m.UpstreamAttempt("census")
	m.SetBreakerState("census", "geocoder", "open")
	m.CacheOutcome(providers.ReadRecord, providers.TierMemory, 1)
	m.RateLimited("demo")
	m.BatchSize(1)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 404 {
		t.Fatalf("nil metrics handler answered %d, want 404", rec.Code)
	}
}

func TestInstancesDoNotShareSeries(t *testing.T) {
	a, b := metrics.New(), metrics.New()
	a.RateLimited("demo")
	if _, ok := scrape(t, b)[`propertyd_rate_limited_total{key_name="demo"}`]; ok {
		t.Fatal("a refusal recorded in one Metrics shows in another")
	}
}

// propertyd_redis_up is absent until Redis is configured (the wiring sets
// it), then says whether Redis answers.
func TestRedisUpIsShownOnlyOnceSet(t *testing.T) {
	m := metrics.New()
	if _, ok := scrape(t, m)["propertyd_redis_up"]; ok {
		t.Fatal("propertyd_redis_up shown without Redis configured: a dashboard would read it as Redis down")
	}
	m.SetRedisUp(true)
	want(t, scrape(t, m), "propertyd_redis_up", 1)
	m.SetRedisUp(false)
	want(t, scrape(t, m), "propertyd_redis_up", 0)
	var none *metrics.Metrics
	none.SetRedisUp(true) // a nil Metrics records nothing
}

// propertyd_upstream_slots shows, per role, this instance's calls waiting
// for and holding the fleet's concurrency slots.
func TestUpstreamSlotsAreShownPerRole(t *testing.T) {
	m := metrics.New()
	m.SetUpstreamSlots("geocoder", 3, 2)
	got := scrape(t, m)
	want(t, got, `propertyd_upstream_slots{role="geocoder",state="waiting"}`, 3)
	want(t, got, `propertyd_upstream_slots{role="geocoder",state="holding"}`, 2)
	var none *metrics.Metrics
	none.SetUpstreamSlots("geocoder", 1, 1) // a nil Metrics records nothing
}
