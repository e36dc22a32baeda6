// Package metrics is propertyd's Prometheus instrumentation: a small typed
// API the gateway and the wiring call (requests, upstream calls, breaker
// states, cache tiers, rate-limit refusals, batch sizes) over a registry of
// its own, served in the text exposition format by Handler. It counts what
// the whole service does, not only its HTTP front end, so it lives beside
// the vocabulary it counts in (providers.Observation), not in the gateway. It is the only
// package that imports the Prometheus client, so no other package sees its
// types. Every metric name starts with propertyd_; the README lists them.
//
// Label values are always bounded sets: route patterns (never raw paths),
// module names, role names, tier names, error codes, status codes and API
// key names (never the keys).
package metrics

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/propertyd/propertyd/providers"
)

// Breaker states as the propertyd_breaker_state gauge reports them.
const (
	BreakerClosed   = 0
	BreakerHalfOpen = 1
	BreakerOpen     = 2
)

// latencyBuckets span a warm in-memory answer (sub-millisecond) to the
// default request timeout (30s).
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Metrics holds propertyd's metrics in a registry of its own, so tests and
// several instances in one process never collide. Build one with New; a nil
// *Metrics records nothing, so callers never check whether metrics are on.
// Safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	requests        *prometheus.CounterVec
	requestSeconds  *prometheus.HistogramVec
	upstreamCalls   *prometheus.CounterVec
	upstreamErrors  *prometheus.CounterVec
	upstreamSeconds *prometheus.HistogramVec
	upstreamTries   *prometheus.CounterVec
	breakerState    *prometheus.GaugeVec
	cacheReads      *prometheus.CounterVec
	rateLimited     *prometheus.CounterVec
	batchSize       prometheus.Histogram
	redisUp         *prometheus.GaugeVec // no labels: shown only once set, so only when Redis is configured
	upstreamSlots   *prometheus.GaugeVec

	// Every request records under a route and status, and a read under a
	// kind and tier: the children for those labels are looked up once and
	// kept, since a vector's lookup hashes its label values each time (4%
	// of a warm request when done per request). Both sets are bounded.
	// byRoute is copied on write: a request reads it with one atomic load,
	// where a read lock's shared counter bounced between the cores on
	// every request. Routes and statuses are few, so writes are rare.
	mu         sync.Mutex // serializes writers
	byRoute    atomic.Pointer[map[routeStatus]*routeMetrics]
	cacheTiers [][]prometheus.Counter // [kind][tier], in the order of providers.ReadKinds and Tiers
}

type routeStatus struct {
	route  string
	status int
}

type routeMetrics struct {
	count   prometheus.Counter
	seconds prometheus.Observer
}

// New returns Metrics with every propertyd metric registered, plus the Go
// runtime and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "propertyd_requests_total",
			Help: "HTTP requests answered, by route pattern and status code.",
		}, []string{"route", "status"}),
		requestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "propertyd_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern.",
			Buckets: latencyBuckets,
		}, []string{"route"}),
		upstreamCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "propertyd_upstream_calls_total",
			Help: "Calls to a provider module through its breaker (retries included in one call), by module.",
		}, []string{"provider"}),
		upstreamErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "propertyd_upstream_errors_total",
			Help: "Provider calls that failed in a way that counts against the upstream's health, by module and error code.",
		}, []string{"provider", "code"}),
		upstreamSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "propertyd_upstream_call_duration_seconds",
			Help:    "Time a provider call took, retries and backoff included, by module.",
			Buckets: latencyBuckets,
		}, []string{"provider"}),
		upstreamTries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "propertyd_upstream_attempts_total",
			Help: "HTTP requests sent to an upstream, each retry counted, by module.",
		}, []string{"provider"}),
		breakerState: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "propertyd_breaker_state",
			Help: "Circuit breaker state by module and role: 0 closed, 1 half-open, 2 open.",
		}, []string{"provider", "role"}),
		cacheReads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "propertyd_cache_reads_total",
			Help: "Records and section values served, by kind (record, section) and the tier that served them (ristretto, sqlite, or upstream when both caches missed).",
		}, []string{"kind", "tier"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "propertyd_rate_limited_total",
			Help: "Requests refused with 429 because their key was over its budget, by key name.",
		}, []string{"key_name"}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "propertyd_batch_size",
			Help:    "Addresses per accepted batch request.",
			Buckets: []float64{1, 2, 5, 10, 15, 20, 25},
		}),
		redisUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "propertyd_redis_up",
			Help: "Whether the Redis the instances share answers (1) or not (0: key budgets and upstream rates are per instance). Absent when no Redis is configured.",
		}, nil),
		upstreamSlots: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "propertyd_upstream_slots",
			Help: "Calls of this instance waiting for (state=waiting) or holding (state=holding) one of the concurrency slots the fleet shares in Redis, by role. Absent without a Redis or a concurrency cap.",
		}, []string{"role", "state"}),
	}
	m.reg.MustRegister(m.requests, m.requestSeconds, m.upstreamCalls, m.upstreamErrors, m.upstreamSeconds,
		m.upstreamTries, m.breakerState, m.cacheReads, m.rateLimited, m.batchSize, m.redisUp, m.upstreamSlots,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Every tier and kind shows from the start, at zero, so rates and ratios
	// work before the first miss.
	for _, k := range providers.ReadKinds {
		var row []prometheus.Counter
		for _, t := range providers.Tiers {
			row = append(row, m.cacheReads.WithLabelValues(k, t))
		}
		m.cacheTiers = append(m.cacheTiers, row)
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveRequest records one answered HTTP request under its route pattern
// (e.g. /v1/properties/:id, never the raw path), its status and how long it
// took.
func (m *Metrics) ObserveRequest(route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	key := routeStatus{route, status}
	var r *routeMetrics
	if byRoute := m.byRoute.Load(); byRoute != nil {
		r = (*byRoute)[key]
	}
	if r == nil {
		r = m.addRoute(key)
	}
	r.count.Inc()
	r.seconds.Observe(d.Seconds())
}

// addRoute returns the metrics of a route and status seen for the first
// time, adding them to a new copy of byRoute.
func (m *Metrics) addRoute(key routeStatus) *routeMetrics {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := map[routeStatus]*routeMetrics{}
	if p := m.byRoute.Load(); p != nil {
		old = *p
	}
	if r := old[key]; r != nil {
		return r
	}
	r := &routeMetrics{
		count:   m.requests.WithLabelValues(key.route, strconv.Itoa(key.status)),
		seconds: m.requestSeconds.WithLabelValues(key.route),
	}
	byRoute := maps.Clone(old)
	byRoute[key] = r
	m.byRoute.Store(&byRoute)
	return r
}

// UpstreamCall records one call to the provider module named provider and
// how long it took. An error counts as an upstream error only when it says
// something about the upstream (providers.IsFailure): a no-match or a client
// that went away does not.
func (m *Metrics) UpstreamCall(provider string, err error, d time.Duration) {
	if m == nil {
		return
	}
	m.upstreamCalls.WithLabelValues(provider).Inc()
	m.upstreamSeconds.WithLabelValues(provider).Observe(d.Seconds())
	if providers.IsFailure(err) {
		m.upstreamErrors.WithLabelValues(provider, providers.CodeOf(err)).Inc()
	}
}

// UpstreamAttempt records one HTTP request sent to provider's upstream; a
// call that is retried makes several.
func (m *Metrics) UpstreamAttempt(provider string) {
	if m != nil {
		m.upstreamTries.WithLabelValues(provider).Inc()
	}
}

// SetBreakerState records the state ("closed", "half-open" or "open") of the
// breaker guarding provider in role. Roles tell apart the breakers of one
// module serving two roles (census as geocoder and reverse geocoder).
// Unknown states are ignored.
func (m *Metrics) SetBreakerState(provider, role, state string) {
	if m == nil {
		return
	}
	var v float64
	switch state {
	case "closed":
		v = BreakerClosed
	case "half-open":
		v = BreakerHalfOpen
	case "open":
		v = BreakerOpen
	default:
		return
	}
	m.breakerState.WithLabelValues(provider, role).Set(v)
}

// CacheOutcome records n values of kind (providers.ReadRecord or
// ReadSection) served from tier (providers.TierMemory, TierDatabase or
// TierUpstream).
func (m *Metrics) CacheOutcome(kind, tier string, n int) {
	if m == nil || n <= 0 {
		return
	}
	if i, j := slices.Index(providers.ReadKinds, kind), slices.Index(providers.Tiers, tier); i >= 0 && j >= 0 {
		m.cacheTiers[i][j].Add(float64(n))
		return
	}
	m.cacheReads.WithLabelValues(kind, tier).Add(float64(n))
}

// RateLimited records one request refused with 429 for the key named
// keyName. Pass the key's configured name, never the key.
func (m *Metrics) RateLimited(keyName string) {
	if m != nil {
		m.rateLimited.WithLabelValues(keyName).Inc()
	}
}

// SetRedisUp records whether the Redis the instances share answers. It is
// only called when Redis is configured, so the metric's absence says none
// is, and 0 says limits are per instance until Redis answers again.
func (m *Metrics) SetRedisUp(up bool) {
	if m == nil {
		return
	}
	v := 0.0
	if up {
		v = 1
	}
	m.redisUp.WithLabelValues().Set(v)
}

// SetUpstreamSlots records how many calls of this instance to the upstream
// of role wait for a concurrency slot the fleet shares and how many hold
// one. Summed over the instances, holding is the fleet's calls in flight
// under the shared cap, and waiting how far the cap holds them back.
func (m *Metrics) SetUpstreamSlots(role string, waiting, holding int) {
	if m == nil {
		return
	}
	m.upstreamSlots.WithLabelValues(role, "waiting").Set(float64(waiting))
	m.upstreamSlots.WithLabelValues(role, "holding").Set(float64(holding))
}

// BatchSize records the number of addresses in an accepted batch.
func (m *Metrics) BatchSize(n int) {
	if m != nil {
		m.batchSize.Observe(float64(n))
	}
}

// CountGeocoding registers propertyd_geocode_lookups_total, the address
// lookups the geocoder answered since start, by where: local (from the
// loaded address points and ranges) or remote (the geocoder module, or,
// under geocoding: local, not found), read from counts when scraped.
func (m *Metrics) CountGeocoding(counts func() (local, remote int64)) {
	if m == nil {
		return
	}
	opts := func(where string) prometheus.CounterOpts {
		return prometheus.CounterOpts{
			Name:        "propertyd_geocode_lookups_total",
			Help:        "Addresses geocoded since start (lookups of a spelling not yet known), by where: local (matched from loaded address points and ranges) or remote (the geocoder module; under geocoding: local, not found).",
			ConstLabels: prometheus.Labels{"answered": where},
		}
	}
	m.reg.MustRegister(
		prometheus.NewCounterFunc(opts("local"), func() float64 { l, _ := counts(); return float64(l) }),
		prometheus.NewCounterFunc(opts("remote"), func() float64 { _, r := counts(); return float64(r) }))
}
