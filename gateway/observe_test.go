package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/gateway"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/metrics"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/store"
	"github.com/valyala/fasthttp"
)

// syncBuffer is a log sink safe for the concurrent writes of a server.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// observed is a stack whose gateway records metrics and logs JSON at info
// level into a buffer.
type observed struct {
	*stack
	metrics *metrics.Metrics
	logs    *syncBuffer
	direct  bool // request lines through Config.AccessLog, not the Logger
}

func newObserved(t *testing.T, opts stackOptions) *observed {
	t.Helper()
	o := &observed{stack: newStack(t, opts), metrics: metrics.New(), logs: &syncBuffer{}}
	o.rebuild()
	return o
}

// rebuild replaces the stack's gateway with an observed one over the same
// service; call it again after reopen.
func (o *observed) rebuild() {
	burst, rate := o.opts.burst, o.opts.rate
	if burst == 0 {
		burst = 1000
	}
	if rate == 0 {
		rate = 1000
	}
	var names []string
	for _, n := range service.PublicSections() {
		if _, ok := o.opts.sections[n]; ok {
			names = append(names, n)
		}
	}
	// Direct, the logger writes elsewhere: every request line in logs
	// came through AccessLog.
	var access io.Writer
	logger := slog.New(slog.NewJSONHandler(o.logs, nil))
	if o.direct {
		access, logger = o.logs, slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	o.gw = gateway.New(gateway.Config{
		Service: o.svc, Sections: names, Now: o.opts.now, Metrics: o.metrics,
		Logger: logger, AccessLog: access, Answers: o.cache, AnswerTTL: time.Hour,
		Keys: []gateway.Key{
			{Name: "one", SHA256: sha256.Sum256([]byte(testKey)), Limit: ratelimit.Limit{Rate: rate, Burst: burst}},
			{Name: "two", SHA256: sha256.Sum256([]byte(otherKey)), Limit: ratelimit.Limit{Rate: rate, Burst: burst}},
		},
	})
}

// scrape reads /metrics through the app, without an API key, into samples
// keyed by series as printed (labels sorted by name).
func (o *observed) scrape() map[string]float64 {
	o.t.Helper()
	r := o.get("/metrics", "X-API-Key", "")
	if r.status != 200 {
		o.t.Fatalf("/metrics without a key answered %d: %s", r.status, r.body)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			o.t.Fatalf("unparsable sample %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

// value is a sample's value, 0 when the series does not exist yet.
func (o *observed) value(series string) float64 {
	o.t.Helper()
	return o.scrape()[series]
}

func (o *observed) wantValue(series string, want float64) {
	o.t.Helper()
	if got := o.value(series); got != want {
		o.t.Fatalf("%s = %v, want %v", series, got, want)
	}
}

// lines returns the request log lines, decoded.
func (o *observed) lines() []map[string]any {
	o.t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(o.logs.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			o.t.Fatalf("log line is not JSON: %q", l)
		}
		if m["msg"] == "request" {
			out = append(out, m)
		}
	}
	return out
}

// lineFor returns the request log line with the request id.
func (o *observed) lineFor(id string) map[string]any {
	o.t.Helper()
	var found map[string]any
	for _, l := range o.lines() {
		if l["request_id"] == id {
			if found != nil {
				o.t.Fatalf("two request lines for id %s", id)
			}
			found = l
		}
	}
	if found == nil {
		o.t.Fatalf("no request line for id %s in:\n%s", id, o.logs.String())
	}
	return found
}

const (
	reqLookup  = `propertyd_requests_total{route="/v1/properties/lookup",status="200"}`
	recordUp   = `propertyd_cache_reads_total{kind="record",tier="upstream"}`
	recordMem  = `propertyd_cache_reads_total{kind="record",tier="ristretto"}`
	recordDisk = `propertyd_cache_reads_total{kind="record",tier="sqlite"}`
	sectionUp  = `propertyd_cache_reads_total{kind="section",tier="upstream"}`
	sectionMem = `propertyd_cache_reads_total{kind="section",tier="ristretto"}`
	sectionDB  = `propertyd_cache_reads_total{kind="section",tier="sqlite"}`
)

func TestMetricsCountRequestsByRoutePatternAndCacheTier(t *testing.T) {
	o := newObserved(t, stackOptions{})
	first := o.get(lookupURL("123 north main street", "Springfield", "IL", ""))
	if first.status != 200 {
		t.Fatalf("lookup: %d %s", first.status, first.body)
	}
	o.wantValue(reqLookup, 1)
	o.wantValue(recordUp, 1)
	o.wantValue(recordMem, 0)

	o.cache.Wait()
	if r := o.get(lookupURL("123 north main street", "Springfield", "IL", "")); r.status != 200 {
		t.Fatalf("repeat: %d", r.status)
	}
	o.wantValue(reqLookup, 2)
	o.wantValue(recordMem, 1)
	o.wantValue(recordUp, 1)

	id := strconv.Itoa(int(first.data()["id"].(float64)))
	o.get("/v1/properties/" + id)
	o.get("/v1/properties/999999")
	o.get("/v1/nowhere")
	o.get("/v1/properties/"+id, "X-API-Key", "")
	got := o.scrape()
	for series, want := range map[string]float64{
		`propertyd_requests_total{route="/v1/properties/:id",status="200"}`:       1,
		`propertyd_requests_total{route="/v1/properties/:id",status="404"}`:       1,
		`propertyd_requests_total{route="unmatched",status="404"}`:                1,
		`propertyd_requests_total{route="/v1",status="401"}`:                      1,
		`propertyd_request_duration_seconds_count{route="/v1/properties/lookup"}`: 2,
		recordMem: 2,
	} {
		if got[series] != want {
			t.Errorf("%s = %v, want %v", series, got[series], want)
		}
	}
	for series := range got {
		if strings.Contains(series, `route="/v1/properties/`+id) || strings.Contains(series, "999999") ||
			strings.Contains(series, "nowhere") {
			t.Errorf("a raw path became a label: %s", series)
		}
	}
}

func TestMetricsRouteIsAbsentWithoutMetrics(t *testing.T) {
	s := newStack(t, stackOptions{})
	r := s.get("/metrics", "X-API-Key", "")
	wantProblem(t, r, 404, "not_found")
}

func TestSectionReadsCountTheTierThatServedThem(t *testing.T) {
	f := newFakeSections()
	o := newObserved(t, stackOptions{sections: f.sections(time.Hour, nil)})
	url := lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood,demographics"
	if r := o.get(url); r.status != 200 {
		t.Fatalf("lookup: %d %s", r.status, r.body)
	}
	o.wantValue(sectionUp, 2)
	o.cache.Wait()
	r := o.get(url)
	if sectionMeta(t, r, "flood")["cache"] != "hit" {
		t.Fatal("second read of flood was not a hit")
	}
	o.wantValue(sectionMem, 2)
	o.wantValue(sectionUp, 2)
	id := strconv.Itoa(int(r.data()["id"].(float64)))

	// After a restart the memory tier is empty: SQLite serves.
	o.reopen()
	o.rebuild()
	if r := o.get("/v1/properties/" + id + "?include=flood"); r.status != 200 {
		t.Fatalf("get after restart: %d %s", r.status, r.body)
	}
	o.wantValue(sectionDB, 1)
	o.wantValue(recordDisk, 1)
	o.wantValue(sectionUp, 2)
	if n := f.count("flood"); n != 1 {
		t.Fatalf("flood fetched %d times, want 1", n)
	}
}

func TestRateLimitRefusalsCountByKeyName(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	o := newObserved(t, stackOptions{burst: 2, rate: 0.001, now: func() time.Time { return now }})
	for i := 0; i < 2; i++ {
		if r := o.get("/v1/properties/search"); r.status != 200 {
			t.Fatalf("request %d within the burst: %d", i, r.status)
		}
	}
	wantProblem(t, o.get("/v1/properties/search"), 429, "rate_limited")
	wantProblem(t, o.get("/v1/properties/search"), 429, "rate_limited")
	got := o.scrape()
	if v := got[`propertyd_rate_limited_total{key_name="one"}`]; v != 2 {
		t.Fatalf("refusals for key one = %v, want 2", v)
	}
	if v, ok := got[`propertyd_rate_limited_total{key_name="two"}`]; ok {
		t.Fatalf("key two was never refused but counts %v", v)
	}
	if got[`propertyd_requests_total{route="/v1/properties/search",status="429"}`] != 2 {
		t.Fatal("429s not counted under their route")
	}
	r := o.get("/metrics", "X-API-Key", "")
	if bytes.Contains(r.body, []byte(testKey)) || bytes.Contains(o.body(), []byte(testKey)) {
		t.Fatal("an API key appears in the metrics or the log")
	}
}

// body returns everything logged so far.
func (o *observed) body() []byte { return []byte(o.logs.String()) }

func TestBatchSizesAreObserved(t *testing.T) {
	o := newObserved(t, stackOptions{})
	body := `{"addresses":[{"street":"123 N Main St","state":"IL"},{"street":"500 Elm Ave","state":"VA"},{"street":"9 Nowhere Rd","state":"IL"}]}`
	if r := o.do("POST", "/v1/properties/batch", body); r.status != 200 {
		t.Fatalf("batch: %d %s", r.status, r.body)
	}
	o.do("POST", "/v1/properties/batch", `{"addresses":[]}`) // refused: not observed
	got := o.scrape()
	if got["propertyd_batch_size_count"] != 1 || got["propertyd_batch_size_sum"] != 3 {
		t.Fatalf("batch size count %v sum %v, want one batch of 3", got["propertyd_batch_size_count"], got["propertyd_batch_size_sum"])
	}
	if got[recordUp] != 2 {
		t.Fatalf("records from upstream = %v, want 2 (the third address has no match)", got[recordUp])
	}
}

func TestRequestLogLineHasEveryFieldAndNoSecrets(t *testing.T) {
	f := newFakeSections()
	o := newObserved(t, stackOptions{sections: f.sections(time.Hour, nil)})
	r := o.get(lookupURL("123 North Main Street", "Springfield", "IL", "62701")+"&include=flood", "X-Request-ID", "req-42")
	if r.status != 200 {
		t.Fatalf("lookup: %d %s", r.status, r.body)
	}
	line := o.lineFor("req-42")
	want := map[string]any{
		"level": "INFO", "method": "GET", "route": "/v1/properties/lookup", "status": 200.0,
		"key_name": "one", "cache": "upstream", "upstream_calls": 0.0, // the fake geocoder makes no HTTP call
	}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("log field %s = %v, want %v", k, line[k], v)
		}
	}
	if d, ok := line["duration_us"].(float64); !ok || d < 0 || d != float64(int64(d)) {
		t.Errorf("duration_us = %v, want a whole number of microseconds", line["duration_us"])
	}
	o.cache.Wait()
	o.get(lookupURL("123 North Main Street", "Springfield", "IL", "62701")+"&include=flood", "X-Request-ID", "req-43")
	if c := o.lineFor("req-43")["cache"]; c != "ristretto" {
		t.Errorf("warm repeat logged cache %v, want ristretto", c)
	}
	logs := strings.ToLower(o.logs.String())
	// The zip with its quotes or its name: its digits alone can turn up in
	// a timestamp's nanoseconds or a random request id.
	for _, secret := range []string{"main st", "main street", "springfield", `"62701"`, "zip=62701", strings.ToLower(testKey), "street="} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q:\n%s", secret, o.logs.String())
		}
	}
}

func TestUpstreamFailureIsLoggedWithTheStatusSent(t *testing.T) {
	o := newObserved(t, stackOptions{})
	o.geo.geocode = func(context.Context, providers.Address) (providers.Location, error) {
		return providers.Location{}, providers.Errorf(providers.KindUpstream, "upstream_error", "census answered 500")
	}
	r := o.get(lookupURL("1 Main St", "", "IL", ""), "X-Request-ID", "failing")
	wantProblem(t, r, 502, "upstream_error")
	if r.json["request_id"] != "failing" {
		t.Fatalf("problem request_id = %v", r.json["request_id"])
	}
	if l := o.lineFor("failing"); l["status"] != 502.0 || l["route"] != "/v1/properties/lookup" {
		t.Fatalf("request line = %v, want status 502 on the lookup route", l)
	}
	o.wantValue(`propertyd_requests_total{route="/v1/properties/lookup",status="502"}`, 1)
}

func TestRequestIDIsHonouredOrGeneratedAndLogged(t *testing.T) {
	o := newObserved(t, stackOptions{})
	cases := []struct {
		name, incoming string
		kept           bool
	}{
		{"sane id kept", "abc-123_X.y", true},
		{"absent", "", false},
		{"space inside", "abc 123", false},
		{"too long", strings.Repeat("a", 129), false},
		{"non-ASCII", "réq-1", false},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := o.get("/v1/properties/search", "X-Request-ID", c.incoming)
			id := r.header.Get("X-Request-ID")
			if c.kept && id != c.incoming {
				t.Fatalf("X-Request-ID = %q, want the client's %q", id, c.incoming)
			}
			if !c.kept {
				if id == "" || id == c.incoming || len(id) != 24 || strings.Trim(id, "0123456789abcdef") != "" {
					t.Fatalf("X-Request-ID = %q, want a fresh 24-hex-digit id", id)
				}
				if seen[id] {
					t.Fatalf("id %s generated twice", id)
				}
				seen[id] = true
			}
			if l := o.lineFor(id); l["route"] != "/v1/properties/search" {
				t.Fatalf("log line for %s = %v", id, l)
			}
		})
	}
	// Problem details carry the same id as the header and the log.
	r := o.get("/v1/properties/0", "X-Request-ID", "bad-id-request")
	if r.json["request_id"] != "bad-id-request" || o.lineFor("bad-id-request")["status"] != 400.0 {
		t.Fatalf("400: request_id %v, log %v", r.json["request_id"], o.lineFor("bad-id-request"))
	}
}

func TestProbesAreKeylessAndLoggedAtDebugOnly(t *testing.T) {
	o := newObserved(t, stackOptions{})
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		if r := o.get(p, "X-API-Key", "", "X-Request-ID", "probe"+p); r.status != 200 {
			t.Fatalf("%s without a key: %d", p, r.status)
		}
	}
	if strings.Contains(o.logs.String(), "probe") {
		t.Fatalf("probes logged at info level:\n%s", o.logs.String())
	}
	if o.value(`propertyd_requests_total{route="/healthz",status="200"}`) != 1 {
		t.Fatal("probes are not counted")
	}
}

func TestReadyzReportsDatabaseAndOpenBreakers(t *testing.T) {
	s := newStack(t, stackOptions{})
	ready, open := true, []string(nil)
	s.gw = gateway.New(gateway.Config{Service: s.svc, Ready: func(context.Context) (bool, []string) { return ready, open }})
	r := s.get("/readyz", "X-API-Key", "")
	if r.status != 200 || r.json["status"] != "ready" {
		t.Fatalf("ready: %d %s", r.status, r.body)
	}
	open = []string{"fema-nfhl"}
	r = s.get("/readyz", "X-API-Key", "")
	if r.status != 200 || fmt.Sprint(r.json["open_breakers"]) != "[fema-nfhl]" {
		t.Fatalf("an open breaker must be reported without failing readiness: %d %s", r.status, r.body)
	}
	ready = false
	r = s.get("/readyz", "X-API-Key", "")
	if r.status != 503 || r.json["status"] != "unavailable" {
		t.Fatalf("database down: %d %s, want 503 unavailable", r.status, r.body)
	}
	if h := s.get("/healthz", "X-API-Key", ""); h.status != 200 {
		t.Fatalf("healthz while not ready: %d, want 200 (the process is up)", h.status)
	}
}

// BenchmarkWarmGetObservability measures a warm GET /v1/properties/{id}
// (record in memory) through the app's handler, with no network in the way:
// "off" has no metrics and a logger that discards before formatting,
// "metrics" adds the Prometheus metrics, "metrics+log" also writes the JSON
// request line (to io.Discard). The differences are the cost of each.
func BenchmarkWarmGetObservability(b *testing.B) {
	db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c, err := cache.New(8 << 20)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	svc := service.New(service.Config{Store: cache.NewStore(db, c, 0), Geocoder: newFake(), GeocoderName: "census"})
	p, _, err := svc.Lookup(context.Background(), providers.Address{Street: "123 N Main St", City: "Springfield", State: "IL"})
	if err != nil {
		b.Fatal(err)
	}
	c.Wait()
	target := "/v1/properties/" + strconv.FormatInt(p.ID, 10)
	for _, v := range []struct {
		name          string
		metrics, logs bool
	}{{"off", false, false}, {"metrics", true, false}, {"metrics+log", true, true}} {
		cfg := gateway.Config{Service: svc, Logger: slog.New(slog.DiscardHandler),
			Keys: []gateway.Key{{Name: "one", SHA256: sha256.Sum256([]byte(testKey)), Limit: ratelimit.Limit{Rate: 1e9, Burst: 1e9}}}}
		if v.metrics {
			cfg.Metrics = metrics.New()
		}
		if v.logs {
			cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
		}
		handler := gateway.New(cfg).App().Handler()
		b.Run(v.name, func(b *testing.B) {
			var ctx fasthttp.RequestCtx
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ctx.Request.Reset()
				ctx.Response.Reset()
				ctx.Request.SetRequestURI(target)
				ctx.Request.Header.Set("X-API-Key", testKey)
				handler(&ctx)
				if ctx.Response.StatusCode() != 200 {
					b.Fatalf("GET %s: %d %s", target, ctx.Response.StatusCode(), ctx.Response.Body())
				}
			}
		})
	}
}

func TestRequestsRefusedBeforeRoutingAreCountedAndLogged(t *testing.T) {
	o := newObserved(t, stackOptions{})
	r := o.declaringHugeBody("POST", "/v1/properties/batch", 2<<20)
	wantProblem(t, r, 413, "body_too_large")
	id := r.header.Get("X-Request-ID")
	if id == "" || r.json["request_id"] != id {
		t.Fatalf("request id %q in the header, %v in the body", id, r.json["request_id"])
	}
	line := o.lineFor(id)
	if line["status"] != float64(413) || line["route"] != "unmatched" {
		t.Fatalf("log line %v, want status 413 on route unmatched", line)
	}
	o.wantValue(`propertyd_requests_total{route="unmatched",status="413"}`, 1)
}

// A request Fiber refused before the middleware ran (a body over the
// limit) answers with the client's own X-Request-ID, as every other
// answer does, so the client can find it in the log.
func TestRequestsRefusedBeforeRoutingKeepTheClientsRequestID(t *testing.T) {
	o := newObserved(t, stackOptions{})
	const id = "client-chosen-id-413"
	r := o.declaringHugeBody("POST", "/v1/properties/batch", 2<<20, "X-Request-ID", id)
	wantProblem(t, r, 413, "body_too_large")
	if got := r.header.Get("X-Request-ID"); got != id || r.json["request_id"] != id {
		t.Fatalf("the 413 answered request id %q in the header and %v in the body; the client sent %q", got, r.json["request_id"], id)
	}
	if line := o.lineFor(id); line["status"] != float64(413) {
		t.Fatalf("log line %v, want the 413 under the client's id", line)
	}
}

// orderedLine is a JSON log line as its members in order, with the values
// that differ from run to run (the time, the duration, an id the gateway
// made) blanked.
func orderedLines(t *testing.T, logs string) [][]string {
	t.Helper()
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var members []string
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("line %q is not a JSON object", line)
		}
		for dec.More() {
			name, _ := dec.Token()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			switch name {
			case "time":
				if _, err := time.Parse(time.RFC3339Nano, v.(string)); err != nil {
					t.Fatalf("time %q of %q: %v", v, line, err)
				}
				v = "-"
			case "duration_us":
				v = "-"
			case "request_id":
				// One the gateway made: 24 hex digits, a new one each run.
				if id, _ := v.(string); len(id) == 24 && strings.Trim(id, "0123456789abcdef") == "" {
					v = "made"
				}
			}
			members = append(members, fmt.Sprintf("%s=%v", name, v))
		}
		out = append(out, members)
	}
	return out
}

func TestTheDirectRequestLogWritesWhatTheLoggerWould(t *testing.T) {
	run := func(direct bool) [][]string {
		f := newFakeSections()
		o := &observed{stack: newStack(t, stackOptions{sections: f.sections(time.Hour, nil)}), metrics: metrics.New(), logs: &syncBuffer{}, direct: direct}
		o.rebuild()
		o.get(lookupURL("123 North Main Street", "Springfield", "IL", "62701")+"&include=flood", "X-Request-ID", `req-"1"\<&>`)
		o.cache.Wait() // the memory cache admits asynchronously: the next read is a memory hit in both runs
		o.get(lookupURL("123 North Main Street", "Springfield", "IL", "62701"), "X-Request-ID", "req-2")
		o.get("/v1/properties/999", "X-Request-ID", "req-3")
		o.get("/v1/properties/998") // an id the gateway makes
		o.get("/v1/properties/1", "X-Request-ID", "req-4", "X-API-Key", "wrong")
		o.get("/healthz", "X-Request-ID", "req-5") // debug level: not written at info
		return orderedLines(t, o.logs.String())
	}
	viaLogger, direct := run(false), run(true)
	if len(viaLogger) != 5 {
		t.Fatalf("the logger wrote %d lines, want 5: %v", len(viaLogger), viaLogger)
	}
	if !reflect.DeepEqual(viaLogger, direct) {
		t.Fatalf("direct lines differ from the logger's:\nlogger: %v\ndirect: %v", viaLogger, direct)
	}
}

// A GET answered from its ready body hands its request state on to the
// next request (it allocates nothing, so the collector has nothing to
// pause for): what the next request says of itself, its id, key, cache
// outcome and upstream calls, must be its own, whichever path it takes.
func TestAWarmGetsStateCarriesNothingIntoTheNextRequest(t *testing.T) {
	f := newFakeSections()
	o := &observed{stack: newStack(t, stackOptions{sections: f.sections(time.Hour, nil), rate: 1e6, burst: 1e6}), metrics: metrics.New(), logs: &syncBuffer{}, direct: true}
	o.rebuild()
	if r := o.get(lookupURL("123 North Main Street", "Springfield", "IL", "62701")); r.status != 200 {
		t.Fatalf("first lookup: %d %s", r.status, r.body)
	}
	o.cache.Wait()
	if r := o.get("/v1/properties/1"); r.status != 200 {
		t.Fatalf("first GET: %d %s", r.status, r.body)
	}
	o.cache.Wait() // its body is ready from here on

	long := "a-client-chosen-request-id-longer-than-the-generated-ones"
	steps := []struct {
		target, id, key string
		keyName, cache  string
		upstream        float64
	}{
		{"/v1/properties/1", long, testKey, "one", "ristretto", 0},
		{"/v1/properties/1", "", otherKey, "two", "ristretto", 0},
		{"/v1/properties/1", "x", testKey, "one", "ristretto", 0},
		{"/v1/properties/1?include=flood", "", otherKey, "two", "upstream", 0}, // a fake section: no HTTP
		{"/v1/properties/1", "", testKey, "one", "ristretto", 0},
		{"/v1/properties/1?include=flood", "with-flood", testKey, "one", "ristretto", 0},
	}
	seen := map[string]bool{}
	for i, s := range steps {
		hs := []string{"X-API-Key", s.key}
		if s.id != "" {
			hs = append(hs, "X-Request-ID", s.id)
		}
		r := o.get(s.target, hs...)
		o.cache.Wait()
		if r.status != 200 {
			t.Fatalf("step %d: %d %s", i, r.status, r.body)
		}
		id := r.header.Get("X-Request-ID")
		if s.id != "" && id != s.id {
			t.Fatalf("step %d: X-Request-ID %q, want the client's %q", i, id, s.id)
		}
		if s.id == "" && (len(id) != 24 || seen[id]) {
			t.Fatalf("step %d: X-Request-ID %q, want a fresh 24-hex-digit id (seen: %v)", i, id, seen)
		}
		seen[id] = true
		line := o.lineFor(id)
		if line["key_name"] != s.keyName || line["cache"] != s.cache || line["upstream_calls"] != s.upstream {
			t.Fatalf("step %d (%s): request line %v, want key %s, cache %s, %v upstream calls", i, s.target, line, s.keyName, s.cache, s.upstream)
		}
	}
	if got := len(o.lines()); got != 2+len(steps) {
		t.Fatalf("%d request lines, want %d", got, 2+len(steps))
	}

	// And it allocates nothing, so under any number of warm GETs the
	// collector has nothing to do. Before the state was reused and hot
	// answers were kept in front of the cache: four.
	if raceEnabled {
		t.Skip("the race detector allocates on its own: the count is checked without it")
	}
	handler := o.gw.Handler()
	var ctx fasthttp.RequestCtx
	allocs := testing.AllocsPerRun(2000, func() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.Header.SetMethod("GET")
		ctx.Request.SetRequestURI("/v1/properties/1")
		ctx.Request.Header.Set("X-API-Key", testKey)
		handler(&ctx)
		if ctx.Response.StatusCode() != 200 {
			t.Fatalf("GET: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
		}
	})
	if allocs != 0 && gateway.FastPath() { // through the app a request has a state of its own
		t.Fatalf("a warm GET made %v allocations, want none", allocs)
	}
}
