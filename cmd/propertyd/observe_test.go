package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// logSink collects a Main's JSON log lines; safe for concurrent writes.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// line returns the decoded log line with msg and, when id is set, that
// request id.
func (s *logSink) line(t *testing.T, msg, id string) map[string]any {
	t.Helper()
	for _, l := range strings.Split(s.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == msg && (id == "" || m["request_id"] == id) {
			return m
		}
	}
	t.Fatalf("no %q log line for request %q in:\n%s", msg, id, s.String())
	return nil
}

// startLogged starts Main like startMain, logging JSON into the returned sink.
func startLogged(t *testing.T, cfg *Config, mt http.RoundTripper) (*Main, *logSink) {
	t.Helper()
	logs := &logSink{}
	m := NewMain(cfg)
	m.HTTPTransport = mt
	m.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m, logs
}

// get sends a GET with the demo key and a request id.
func get(t *testing.T, m *Main, path, requestID string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+m.Addr()+path, nil)
	req.Header.Set("X-API-Key", demoKey)
	req.Header.Set("X-Request-ID", requestID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// scrape reads /metrics, without a key, into samples keyed by series as
// printed (labels sorted by name).
func scrape(t *testing.T, m *Main) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + m.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics without a key answered %d", resp.StatusCode)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
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

func wantSamples(t *testing.T, got map[string]float64, want map[string]float64) {
	t.Helper()
	for series, v := range want {
		have, ok := got[series]
		if !ok {
			t.Errorf("/metrics lacks %s", series)
		} else if have != v {
			t.Errorf("%s = %v, want %v", series, have, v)
		}
	}
}

const richmondLookup = "/v1/properties/lookup?street=2200+West+Broad+Street&city=Richmond&state=VA"

func TestMetricsAndRequestLogEndToEnd(t *testing.T) {
	mt := upstreams()
	m, logs := startLogged(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), mt)
	if st, b := get(t, m, richmondLookup, "first-lookup"); st != 200 {
		t.Fatalf("lookup: %d %s", st, b)
	}
	calls := mt.GetTotalCallCount()
	wantSamples(t, scrape(t, m), map[string]float64{
		`propertyd_requests_total{route="/v1/properties/lookup",status="200"}`: 1,
		`propertyd_upstream_calls_total{provider="census"}`:                    1,
		`propertyd_upstream_attempts_total{provider="census"}`:                 float64(calls),
		`propertyd_cache_reads_total{kind="record",tier="upstream"}`:           1,
		`propertyd_breaker_state{provider="census",role="geocoder"}`:           0,
		`propertyd_breaker_state{provider="census",role="reverse_geocoder"}`:   0,
		`propertyd_breaker_state{provider="fema-nfhl",role="flood"}`:           0,
	})
	line := logs.line(t, "request", "first-lookup")
	if line["upstream_calls"] != float64(calls) || line["cache"] != "upstream" || line["key_name"] != "demo" ||
		line["route"] != "/v1/properties/lookup" || line["status"] != 200.0 {
		t.Fatalf("first lookup logged %v, want %d upstream call(s), cache upstream, key demo", line, calls)
	}

	// The repeat is served from memory: no call, the ristretto tier counts.
	m.cache.Wait()
	if st, _ := get(t, m, richmondLookup, "repeat-lookup"); st != 200 {
		t.Fatalf("repeat: %d", st)
	}
	wantSamples(t, scrape(t, m), map[string]float64{
		`propertyd_requests_total{route="/v1/properties/lookup",status="200"}`: 2,
		`propertyd_upstream_calls_total{provider="census"}`:                    1,
		`propertyd_cache_reads_total{kind="record",tier="ristretto"}`:          1,
	})
	if l := logs.line(t, "request", "repeat-lookup"); l["upstream_calls"] != 0.0 || l["cache"] != "ristretto" {
		t.Fatalf("repeat logged %v, want no upstream call and cache ristretto", l)
	}
	// "2200 " with its space: the house number alone can turn up in a
	// timestamp's nanoseconds.
	for _, secret := range []string{demoKey, "2200 ", "2200+", "BROAD", "Broad", "street="} {
		if strings.Contains(logs.String(), secret) {
			t.Fatalf("the log holds %q:\n%s", secret, logs.String())
		}
	}
}

func TestBreakerStateGaugeFollowsTheBreaker(t *testing.T) {
	mt := upstreams()
	providertest.CensusFailWith(mt, census.DefaultBaseURL, 500, "internal error")
	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	none := 0
	cfg.Providers["geocoder"].Retries = &none // no backoff between the failures
	m, logs := startLogged(t, cfg, mt)
	failures := int(cfg.Providers["geocoder"].Breaker.Failures)
	for i := 0; i < failures; i++ {
		q := url.Values{"street": {fmt.Sprintf("%d Main St", i+1)}, "state": {"VA"}}
		if st, b := get(t, m, "/v1/properties/lookup?"+q.Encode(), ""); st != 502 {
			t.Fatalf("failing lookup %d: %d %s", i, st, b)
		}
	}
	if st, _ := get(t, m, "/v1/properties/lookup?street=9+Elm+St&state=VA", ""); st != 503 {
		t.Fatalf("with the breaker open: %d, want 503", st)
	}
	wantSamples(t, scrape(t, m), map[string]float64{
		`propertyd_breaker_state{provider="census",role="geocoder"}`:               2,
		`propertyd_breaker_state{provider="census",role="reverse_geocoder"}`:       0,
		`propertyd_upstream_calls_total{provider="census"}`:                        float64(failures),
		`propertyd_upstream_errors_total{code="upstream_error",provider="census"}`: float64(failures),
		`propertyd_requests_total{route="/v1/properties/lookup",status="503"}`:     1,
		`propertyd_requests_total{route="/v1/properties/lookup",status="502"}`:     float64(failures),
		`propertyd_upstream_call_duration_seconds_count{provider="census"}`:        float64(failures),
		`propertyd_cache_reads_total{kind="record",tier="upstream"}`:               0,
	})
	change := logs.line(t, "breaker state changed", "")
	if change["provider"] != "census" || change["role"] != "geocoder" || change["to"] != "open" {
		t.Fatalf("breaker log line = %v", change)
	}
	var ready map[string]any
	resp, err := http.Get("http://" + m.Addr() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&ready)
	resp.Body.Close()
	if resp.StatusCode != 200 || fmt.Sprint(ready["open_breakers"]) != "[census]" {
		t.Fatalf("readyz with census open: %d %v", resp.StatusCode, ready)
	}
}

func TestReadyzIs503WhenTheDatabaseIsClosed(t *testing.T) {
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), upstreams())
	if st, body, _ := getJSON(t, m, "/readyz"); st != 200 || body["status"] != "ready" {
		t.Fatalf("readyz: %d %v", st, body)
	}
	if err := m.db.Close(); err != nil {
		t.Fatal(err)
	}
	st, body, _ := getJSON(t, m, "/readyz")
	if st != 503 || body["status"] != "unavailable" {
		t.Fatalf("readyz with the database closed: %d %v, want 503 unavailable", st, body)
	}
	if st, _, _ := getJSON(t, m, "/healthz"); st != 200 {
		t.Fatalf("healthz with the database closed: %d, want 200 (the process is up)", st)
	}
}

// slowCensus answers the census routes like the fake, after delay, and
// tells started when a call arrives.
func slowCensus(mt *httpmock.MockTransport, delay time.Duration, started chan<- struct{}) {
	inner := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(inner, census.DefaultBaseURL, providertest.CensusPlace{
		Street: "2200 W BROAD ST", City: "RICHMOND", State: "VA", Zip: "23220",
		Lat: 37.5600, Lng: -77.4720, CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760",
		Tract: "041000", Block: "1003",
	})
	providertest.CensusRespondWith(mt, census.DefaultBaseURL, func(req *http.Request) (*http.Response, error) {
		started <- struct{}{}
		time.Sleep(delay)
		return inner.RoundTrip(req)
	})
}

func TestCloseFinishesInFlightRequestsThenClosesTheStore(t *testing.T) {
	mt := upstreams()
	started := make(chan struct{}, 1)
	slowCensus(mt, 500*time.Millisecond, started)
	m := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "p.db")), mt)
	addr, db := m.Addr(), m.db

	type result struct {
		status int
		body   []byte
		err    error
	}
	done := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest("GET", "http://"+addr+richmondLookup, nil)
		req.Header.Set("X-API-Key", demoKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- result{status: resp.StatusCode, body: b}
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the lookup never reached the geocoder")
	}
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	took := time.Since(start)
	r := <-done
	if r.err != nil || r.status != 200 {
		t.Fatalf("in-flight lookup during shutdown: %d %s %v, want 200", r.status, r.body, r.err)
	}
	if took < 300*time.Millisecond {
		t.Fatalf("Close returned after %v: it did not wait for the in-flight request", took)
	}
	if err := db.Ping(context.Background()); err == nil {
		t.Fatal("the store still answers after Close")
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Fatal("still accepting connections after Close")
	}
	// The record the in-flight request created was committed.
	m2 := startMain(t, testConfig(t, m.Config.Database), httpmock.NewMockTransport())
	if st, body, _ := getJSON(t, m2, richmondLookup); st != 200 {
		t.Fatalf("after restart the record is missing: %d %v", st, body)
	}
}

func TestCloseGivesUpAtTheShutdownTimeout(t *testing.T) {
	mt := upstreams()
	started := make(chan struct{}, 1)
	slowCensus(mt, time.Second, started)
	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	cfg.ShutdownTimeout = Duration(200 * time.Millisecond)
	m := startMain(t, cfg, mt)
	addr, db := m.Addr(), m.db
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequest("GET", "http://"+addr+richmondLookup, nil)
		req.Header.Set("X-API-Key", demoKey)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	start := time.Now()
	err := m.Close()
	took := time.Since(start)
	if err == nil {
		t.Fatal("Close reported success although a request outlived the shutdown timeout")
	}
	if took > time.Second {
		t.Fatalf("Close took %v with a 200ms shutdown timeout", took)
	}
	if db.Ping(context.Background()) == nil {
		t.Fatal("the store was left open")
	}
	<-done
}

func TestSIGTERMStopsServeCleanly(t *testing.T) {
	dir := t.TempDir()
	testConfig(t, filepath.Join(dir, "p.db")) // sets the listen address and database
	out := &logSink{}
	exit := make(chan int, 1)
	go func() {
		exit <- run([]string{"serve", "-config", filepath.Join("..", "..", "config.yaml")}, out, io.Discard)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "listening on") {
		select {
		case code := <-exit:
			t.Fatalf("serve exited with %d before listening: %s", code, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not start listening")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// While serving, the write-ahead log holds the migrations.
	if fi, err := os.Stat(filepath.Join(dir, "p.db-wal")); err != nil || fi.Size() == 0 {
		t.Fatalf("no write-ahead log while serving (%v): the check after stop would prove nothing", err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		if code != exitOK || !strings.Contains(out.String(), "shutting down") {
			t.Fatalf("after SIGTERM: exit %d, output %q; want a clean stop", code, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve ignored SIGTERM")
	}
	if fi, err := os.Stat(filepath.Join(dir, "p.db-wal")); err == nil && fi.Size() > 0 {
		t.Fatalf("the write-ahead log holds %d bytes after stop: the store was not closed cleanly", fi.Size())
	}
}

// A PostgreSQL server that goes away makes searches answer 503 with code
// database_unavailable (not a 500) and /readyz 503, and the service
// answers again once the server is back, without a restart.
func TestPostgresGoingAwayIs503AndRecovers(t *testing.T) {
	u, relay := pgtest.Relayed(t, pgtest.Schema(t))
	m := startMain(t, testConfig(t, u), upstreams())
	q := url.Values{"street": {"2200 West Broad Street"}, "city": {"Richmond"}, "state": {"VA"}}
	st, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
	if st != 200 {
		t.Fatalf("lookup: %d %v", st, body)
	}
	// A search is not cached: it reaches the database every time.
	path := "/v1/properties/search?zip=23220"
	if st, body, _ := getJSON(t, m, path); st != 200 {
		t.Fatalf("search: %d %v", st, body)
	}

	relay.Stop()
	st, body, hdr := getJSON(t, m, path)
	if st != 503 || body["code"] != "database_unavailable" {
		t.Fatalf("GET %s with the database gone: %d %v, want 503 database_unavailable", path, st, body)
	}
	// An outage is not charged: every 503 costs nothing, so a client that
	// keeps asking is never pushed into 429 by our failure.
	for i := range 40 {
		st, body, hdr := getJSON(t, m, path)
		if st != 503 || hdr.Get("X-Request-Cost") != "0" {
			t.Fatalf("search %d with the database gone: %d %v, X-Request-Cost %q; want 503 at cost 0", i, st, body, hdr.Get("X-Request-Cost"))
		}
	}
	if hdr.Get("Retry-After") != "5" {
		t.Fatalf("503 database_unavailable with Retry-After %q, want 5", hdr.Get("Retry-After"))
	}
	if st, body, _ := getJSON(t, m, "/readyz"); st != 503 || body["status"] != "unavailable" {
		t.Fatalf("readyz with the database gone: %d %v, want 503 unavailable", st, body)
	}

	relay.Start()
	if st, body, _ := getJSON(t, m, path); st != 200 {
		t.Fatalf("GET %s once the database is back: %d %v", path, st, body)
	}
	if st, _, _ := getJSON(t, m, "/readyz"); st != 200 {
		t.Fatalf("readyz once the database is back: %d", st)
	}
}

// A PostgreSQL server that hangs (a black hole: connections open, nothing
// answered) is the database failing, as a refused one is: 503
// database_unavailable with Retry-After, at no cost, within the connect
// timeout and the database's answer timeout the README documents, for a
// search (every request a read) and for a lookup of a new address (a read,
// then a write); not a 504 upstream_timeout at the end of the request's
// whole deadline.
func TestPostgresHangingIs503WithinItsTimeout(t *testing.T) {
	u, relay := pgtest.Relayed(t, pgtest.Schema(t))
	cfg := testConfig(t, u)
	cfg.RequestTimeout = Duration(20 * time.Second)
	m := startMain(t, cfg, upstreams())
	path := "/v1/properties/search?zip=23220"
	if st, body, _ := getJSON(t, m, path); st != 200 {
		t.Fatalf("search: %d %v", st, body)
	}
	relay.Hang()
	q := url.Values{"street": {"2200 West Broad Street"}, "city": {"Richmond"}, "state": {"VA"}}
	for _, p := range []string{path, "/v1/properties/lookup?" + q.Encode(), path} {
		start := time.Now()
		st, body, hdr := getJSON(t, m, p)
		took := time.Since(start)
		if st != 503 || body["code"] != "database_unavailable" || hdr.Get("Retry-After") == "" || hdr.Get("X-Request-Cost") != "0" {
			t.Errorf("GET %s with the database hanging: %d %v, Retry-After %q, X-Request-Cost %q; want 503 database_unavailable with Retry-After at cost 0",
				p, st, body, hdr.Get("Retry-After"), hdr.Get("X-Request-Cost"))
		}
		if took > 7*time.Second {
			t.Errorf("GET %s with the database hanging took %v, want the database's own timeouts (under 7 s)", p, took)
		}
	}
	relay.Stop()
	relay.Start()
	deadline := time.Now().Add(15 * time.Second)
	for {
		st, body, _ := getJSON(t, m, path)
		if st == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s once the database is back: %d %v", path, st, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
