package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/gateway"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/extract"
	"github.com/propertyd/propertyd/providers/decorators/floodfile"
	"github.com/propertyd/propertyd/providers/decorators/geographies"
	"github.com/propertyd/propertyd/providers/decorators/guard"
	"github.com/propertyd/propertyd/providers/decorators/localmatch"
	"github.com/propertyd/propertyd/providers/decorators/metrics"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/ratelimit/fleet"
	"github.com/propertyd/propertyd/store/engine"
)

// Main is one running propertyd: configuration in, a listening gateway out.
// End-to-end tests start it on port 0 with Run and stop it with Close.
type Main struct {
	Config   *Config
	Registry *providers.Registry
	Logger   *slog.Logger
	// AccessLog, when set, receives the request log lines straight from
	// the gateway (see gateway.Config.AccessLog); nil sends them through
	// Logger.
	AccessLog io.Writer
	// HTTPTransport reaches the upstreams; nil means a tuned default. Tests
	// put an httpmock transport here.
	HTTPTransport http.RoundTripper

	db       engine.Store
	cache    *cache.Cache
	svc      *service.Service
	gw       *gateway.Gateway
	ln       net.Listener
	debug    *debugServer // nil unless Config.DebugListen
	breakers []*guard.Breaker
	metrics  *metrics.Metrics
	local    *localmatch.Geocoder // nil without a database
	// instance names this process in the geocoder's counts (host, process
	// and start), started when it was opened.
	instance string
	started  time.Time
	fleet    *fleet.Client // nil without a Redis
	served   chan error
	// stopWatch ends watchFacts.
	stopWatch context.CancelFunc
	watched   chan struct{}

	// modules are the built modules that hold something to release, in
	// the order they were built; Close closes them in reverse.
	modules []io.Closer
}

// NewMain returns a Main for cfg using the default module registry.
func NewMain(cfg *Config) *Main {
	return &Main{Config: cfg, Registry: providers.Default, Logger: slog.New(slog.NewJSONHandler(os.Stderr, nil))}
}

// Open builds everything but does not listen: the store (migrations
// applied), the cache, the provider modules with their decorators, the
// service and the gateway. On failure what was built is closed.
func (m *Main) Open(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	cfg := m.Config
	// No log line shows a configured credential, whatever quotes it.
	m.Logger = slog.New(scrubbing(m.Logger.Handler(), configuredSecrets(cfg)))
	if cfg.MemoryLimitMB > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(cfg.MemoryLimitMB << 20)
	}
	m.metrics = metrics.New()
	m.started = time.Now()
	host, _ := os.Hostname()
	m.instance = fmt.Sprintf("%s/%d/%s", host, os.Getpid(), m.started.UTC().Format("20060102T150405.000"))
	if err := m.openFleet(ctx); err != nil {
		return configError{err}
	}
	db, err := engine.Open(ctx, cfg.Database, engine.Options{AnswerTimeout: cfg.DatabaseTimeout.D()})
	if err != nil {
		return fmt.Errorf("opening database %s: %w", engine.Describe(cfg.Database), err)
	}
	m.db = db
	m.cache, err = cache.New(cfg.Cache.MaxMB << 20)
	if err != nil {
		return configError{err}
	}
	st := cache.NewStore(m.db, m.cache, cfg.Cache.RecordTTL.D())
	svcCfg := service.Config{
		Store: st, MissTTL: cfg.Cache.MissTTL.D(),
		ReverseRadius: cfg.ReverseRadiusMeters, BatchConcurrency: cfg.BatchConcurrency,
		RefreshConcurrency: cfg.RefreshConcurrency,
		Sections:           map[string]*service.Section{}, Logger: m.Logger, Leases: m.leases(),
		// A record made by a reverse lookup inside a loaded extract takes
		// the address of its nearest address point that gives one.
		AddressPoints: m.db,
	}
	if err := m.wireModules(&svcCfg); err != nil {
		return configError{err}
	}
	svc := service.New(svcCfg)
	m.svc = svc
	keys, err := gatewayKeys(cfg.Keys)
	if err != nil {
		return configError{err}
	}
	m.gw = gateway.New(gateway.Config{
		Service: svc, Keys: keys, Sections: cfg.Sections(), BodyLimit: cfg.BodyLimitBytes,
		RequestTimeout: cfg.RequestTimeout.D(), Logger: m.Logger, AccessLog: m.AccessLog, Ready: m.ready, Metrics: m.metrics,
		Answers: m.cache, AnswerTTL: cfg.Cache.RecordTTL.D(),
		Limiter: m.budgets(keys), Redis: m.redisUp(), CORS: gateway.CORS{AllowedOrigins: cfg.CORS.AllowedOrigins},
	})
	return nil
}

// configError is a start-up failure that lies in the configuration, one
// check-config reports too (a module's options, a Redis URL, a key): serve
// exits exitConfig for it, and exitError for a failure of the moment (a
// database that does not answer, an address in use).
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

// isConfigError reports whether err is, or wraps, a configError.
func isConfigError(err error) bool { return errors.As(err, new(configError)) }

// wireModules builds every enabled module and adds it to svcCfg for its
// role, each call run through its breaker. serve and check-config both
// wire through it, so what check-config accepts is what serve builds.
func (m *Main) wireModules(svcCfg *service.Config) error {
	// osm-walk reads amenities through the amenities section.
	mods, err := m.buildModules(svcCfg.Amenities())
	var bounds *geographies.Boundaries // one listing of the boundaries for both geocoders
	if m.db != nil {
		bounds = geographies.NewBoundaries(m.db)
	}
	for _, b := range mods {
		mod := service.Module{Name: b.pc.Module, Value: b.value, Around: b.breaker.Around, TTL: b.pc.TTL.D(), Refresh: b.pc.Refresh}
		if next, ok := b.value.(providers.AmenitiesProvider); ok && b.role == providers.RoleAmenities && m.db != nil {
			// A loaded OpenStreetMap extract answers before the module,
			// outside its breaker: only the module's own calls count
			// for or against the upstream.
			mod.Value, mod.Around = extract.New(m.db, next, b.breaker.Around), nil
		}
		// Loaded TIGER/Line boundaries give the county and tract of a
		// point they hold, outside the geocoder's breaker likewise.
		if next, ok := b.value.(providers.Geocoder); ok && b.role == providers.RoleGeocoder && bounds != nil {
			mod.Value, mod.Around = geographies.NewGeocoder(bounds, next, b.breaker.Around), nil
			// Loaded address points and ranges match an address before
			// the geocoder is asked (or instead, under geocoding: local).
			m.local = localmatch.New(m.db, mod.Value.(providers.Geocoder), m.Config.Geocoding == geocodingLocal)
			mod.Value = m.local
			local := m.local
			m.metrics.CountGeocoding(func() (int64, int64) { c := local.Counts(); return c.Local, c.Remote })
		}
		if next, ok := b.value.(providers.ReverseGeocoder); ok && b.role == providers.RoleReverseGeocoder && bounds != nil {
			mod.Value, mod.Around = geographies.NewReverse(bounds, next, b.breaker.Around), nil
		}
		if next, ok := b.value.(providers.FloodProvider); ok && b.role == providers.RoleFlood && m.db != nil {
			// So does a loaded flood map, where its panels hold the
			// point: FEMA is asked only off every loaded map.
			mod.Value, mod.Around = floodfile.New(m.db, next, b.breaker.Around), nil
		}
		if aerr := svcCfg.Add(b.role, mod); aerr != nil {
			err = errors.Join(err, fmt.Errorf("providers.%s: %w", b.role, aerr))
		}
	}
	return err
}

// builtModule is a module built for its role, and the breaker its calls
// go through.
type builtModule struct {
	role    providers.Role
	pc      *ProviderConfig
	value   any
	breaker *guard.Breaker
}

// buildModules builds the enabled modules of the given roles (every role
// in the catalogue when none is given), in catalogue order, as serve runs
// them: each with an HTTP client whose transport retries and paces calls
// to its upstream and a breaker; both report to the metrics, and breaker
// state changes are logged. It is the one builder of serve, check-config
// and import. It returns what it could build and every error, each naming
// its role. Every module built that is an io.Closer is closed by Close (or
// closeModules), also when a later one fails to build.
func (m *Main) buildModules(amenities providers.AmenitiesProvider, roles ...providers.Role) ([]builtModule, error) {
	if len(roles) == 0 {
		roles = service.Roles()
	}
	base := m.HTTPTransport
	if base == nil {
		base = defaultTransport
	}
	met := m.metrics
	var out []builtModule
	var errs []error
	for _, role := range roles {
		pc, ok := m.Config.enabled(role)
		if !ok {
			continue
		}
		courtesy := providers.Courtesy{}
		if mod, ok := m.Registry.Lookup(pc.Module); ok {
			courtesy = mod.Courtesy
		}
		limiter := m.outbound(role, pc, courtesy)
		client := &http.Client{Transport: &guard.Retry{
			Base: base, Max: *pc.Retries,
			Limiter:   limiter,
			OnAttempt: func(*http.Request) { met.UpstreamAttempt(pc.Module) },
		}}
		mod, err := m.Registry.Build(role, pc.Module, providers.Settings{
			BaseURL: strings.TrimRight(pc.BaseURL, "/"), Client: client, Options: pc.Options, Amenities: amenities,
			Logger: m.Logger.With("module", pc.Module, "role", string(role)), Contact: m.Config.Contact,
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("providers.%s: %w", role, err))
			continue
		}
		if c, ok := mod.(io.Closer); ok {
			m.modules = append(m.modules, c)
		}
		b := guard.NewBreaker(pc.Module, guard.Policy{
			Timeout: pc.Timeout.D(), FailureThreshold: pc.Breaker.Failures, OpenFor: pc.Breaker.OpenFor.D(),
			OnStateChange: func(name, from, to string) {
				met.SetBreakerState(name, string(role), to)
				m.Logger.Warn("breaker state changed", "provider", name, "role", string(role), "from", from, "to", to)
			},
			OnCall: met.UpstreamCall,
			// A rate limit the module read in an answer the transport
			// took for a success (a rate-limit page sent with 200)
			// keeps the upstream quiet as a 429 does.
			RateLimited: limiter.RateLimited,
		})
		met.SetBreakerState(pc.Module, string(role), b.State())
		m.breakers = append(m.breakers, b)
		out = append(out, builtModule{role: role, pc: pc, value: mod, breaker: b})
	}
	return out, errors.Join(errs...)
}

var defaultTransport = &http.Transport{
	Proxy:               http.ProxyFromEnvironment,
	DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	MaxIdleConns:        200,
	MaxIdleConnsPerHost: 32,
	IdleConnTimeout:     90 * time.Second,
	TLSHandshakeTimeout: 5 * time.Second,
	ForceAttemptHTTP2:   true,
}

func gatewayKeys(cfg []KeyConfig) ([]gateway.Key, error) {
	keys := make([]gateway.Key, 0, len(cfg))
	for _, k := range cfg {
		gk := gateway.Key{Name: k.Name, Limit: ratelimit.Limit{Rate: k.Rate, Burst: k.Burst}}
		if k.SHA256 != "" {
			b, err := hex.DecodeString(k.SHA256)
			if err != nil || len(b) != 32 {
				return nil, fmt.Errorf("keys %s: sha256 must be 64 hex digits", k.Name)
			}
			copy(gk.SHA256[:], b)
		} else {
			gk.SHA256 = sha256.Sum256([]byte(os.Getenv(k.KeyEnv)))
		}
		keys = append(keys, gk)
	}
	return keys, nil
}

// ready backs /readyz: the database must answer; open breakers are listed.
func (m *Main) ready(ctx context.Context) (bool, []string) {
	var open []string
	for _, b := range m.breakers {
		if b.State() == "open" {
			open = append(open, b.Name())
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return m.db.Ping(ctx) == nil, open
}

// Run opens everything (unless Open was called) and starts serving in the
// background; Addr then reports the address bound.
func (m *Main) Run(ctx context.Context) error {
	if m.gw == nil {
		if err := m.Open(ctx); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", m.Config.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", m.Config.Listen, err)
	}
	if m.Config.DebugListen != "" {
		if m.debug, err = serveDebug(m.Config.DebugListen, m.Logger); err != nil {
			ln.Close()
			return err
		}
	}
	m.ln = ln
	m.served = make(chan error, 1)
	go func() { m.served <- m.gw.Serve(ln) }()
	wctx, stop := context.WithCancel(context.Background())
	m.stopWatch, m.watched = stop, make(chan struct{})
	go func() {
		defer close(m.watched)
		m.watchFacts(wctx, m.Config.Facts.Refresh.D())
	}()
	return nil
}

// DebugAddr returns the address the profiles are served on, once Run
// returned; "" without debug_listen.
func (m *Main) DebugAddr() string {
	if m.debug == nil {
		return ""
	}
	return m.debug.addr()
}

// Addr returns the address the service listens on, once Run returned.
func (m *Main) Addr() string {
	if m.ln == nil {
		return ""
	}
	return m.ln.Addr().String()
}

// Close stops accepting requests, lets in-flight ones and background
// refreshes finish within the configured shutdown timeout (refreshes still
// running then are cancelled), closes the modules (once nothing calls them
// any more), and closes the store cleanly. Safe to call
// on a partly opened Main and more than once.
func (m *Main) Close() error {
	var errs []error
	ctx, cancel := context.WithTimeout(context.Background(), m.Config.ShutdownTimeout.D())
	defer cancel()
	if m.gw != nil && m.ln != nil {
		errs = append(errs, m.gw.Shutdown(ctx))
		m.ln = nil
	}
	if m.stopWatch != nil {
		m.stopWatch()
		<-m.watched
		m.stopWatch = nil
	}
	if m.debug != nil {
		m.debug.close()
		m.debug = nil
	}
	if m.svc != nil {
		m.svc.Close(ctx)
		m.svc = nil
	}
	errs = append(errs, m.closeModules())
	if m.db != nil {
		errs = append(errs, m.db.Close())
		m.db = nil
	}
	if m.cache != nil {
		m.cache.Close()
		m.cache = nil
	}
	if m.fleet != nil {
		errs = append(errs, m.fleet.Close())
		m.fleet = nil
	}
	return errors.Join(errs...)
}

// closeModules closes the built modules that are io.Closers, the last
// built first, as Caddy cleans up: a module may rely on one built before
// it (osm-walk reads amenities). Each is closed once.
func (m *Main) closeModules() error {
	var errs []error
	for i := len(m.modules) - 1; i >= 0; i-- {
		errs = append(errs, m.modules[i].Close())
	}
	m.modules = nil
	return errors.Join(errs...)
}
