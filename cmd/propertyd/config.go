package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/gateway"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/assessor"
	"github.com/propertyd/propertyd/providers/decorators/guard"
	"github.com/propertyd/propertyd/providers/service"
)

// Config is the whole of config.yaml. Durations are strings such as "10s"
// or "720h". ${VAR} and ${VAR:-default} expand from the environment before
// parsing; unknown fields are errors.
type Config struct {
	// Listen is the address to serve on; port 0 picks a free port.
	Listen string `yaml:"listen"`
	// DebugListen, when set, serves the Go runtime's profiles
	// (net/http/pprof: CPU, heap, goroutines, the execution trace) on an
	// address of their own, never on Listen's: they show the process's
	// insides, so bind it to localhost or a private network.
	DebugListen string `yaml:"debug_listen"`
	// Database is the SQLite file, created with its folder on first start,
	// or a postgres:// URL of an existing PostgreSQL database, which several
	// instances can share.
	Database string `yaml:"database"`
	// RequestTimeout bounds one request, upstream calls included.
	RequestTimeout Duration `yaml:"request_timeout"`
	// DatabaseTimeout bounds how long a PostgreSQL server may take to
	// answer one call made for a request (a statement, a batch, the wait
	// for a connection) before the request is answered 503
	// database_unavailable: a server that hangs fails as one that refuses.
	DatabaseTimeout Duration `yaml:"database_timeout"`
	// ShutdownTimeout bounds how long in-flight requests may finish on stop.
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
	// BodyLimitBytes caps request bodies.
	BodyLimitBytes int `yaml:"body_limit_bytes"`
	// ReverseRadiusMeters: a reverse lookup returns an existing record this close.
	ReverseRadiusMeters float64 `yaml:"reverse_radius_meters"`
	// BatchConcurrency bounds the lookups of one batch in flight.
	BatchConcurrency int `yaml:"batch_concurrency"`
	// RefreshConcurrency bounds the background refreshes of expired
	// sections in flight across the service.
	RefreshConcurrency int `yaml:"refresh_concurrency"`
	// MemoryLimitMB is the Go heap's soft limit (runtime/debug.SetMemoryLimit):
	// the collector works harder as the heap nears it instead of letting it
	// double. Default 2 x cache.max_mb + 72; GOMEMLIMIT in the environment
	// wins; a negative value leaves the runtime's default.
	MemoryLimitMB int64       `yaml:"memory_limit_mb"`
	Cache         CacheConfig `yaml:"cache"`
	Keys          []KeyConfig `yaml:"keys"`
	// Providers maps a role of the catalogue (service.Catalog: the geocoders
	// and one role per section) to its module.
	Providers map[string]*ProviderConfig `yaml:"providers"`
	// Redis is what the instances of a fleet share (see fleet.go).
	Redis RedisConfig `yaml:"redis"`
	// CORS says which other origins' web pages may call the API from a
	// browser.
	CORS CORSConfig `yaml:"cors"`
	// Facts declares the assessor datasets records take their facts from.
	Facts FactsConfig `yaml:"facts"`
	// Geocoding says where an address lookup is matched: "auto" (the
	// default) matches it from the loaded address points and ranges
	// (propertyd data load addresses) and asks the geocoder module for any
	// other; "local" never asks it: an address the loaded files do not
	// hold is address_not_found, for a deployment that makes no remote
	// call (see providers/decorators/localmatch).
	Geocoding string `yaml:"geocoding"`
	// Contact is how an upstream's maintainers can reach the operator (an
	// e-mail address or a URL): the modules whose upstream asks for it
	// (overpass) name it in their User-Agent.
	Contact string `yaml:"contact"`

	// memoryLimitDefault is true where MemoryLimitMB was not given and is
	// the serve process's default, which a load of extracts replaces with
	// its own (providers/osmextract.HeapMB).
	memoryLimitDefault bool
}

// The values of Config.Geocoding.
const (
	geocodingAuto  = "auto"
	geocodingLocal = "local"
)

// FactsConfig declares the assessor datasets (`propertyd data load
// parcels`) and how soon a serving instance shows a new load.
type FactsConfig struct {
	// Datasets in precedence order: where two give a record the same
	// fact, the earlier wins; the operator's own import outranks them all,
	// and a dataset loaded with -preset but not declared here comes after
	// them. Each is a preset (preset: cook-county) or a mapping of its
	// columns (see providers/assessor.Mapping).
	Datasets []assessor.Dataset `yaml:"datasets"`
	// Refresh is how often a serving instance asks the database whether a
	// load or an import was published since; when one was, it drops the
	// records and answers it holds in memory, so a load shows within
	// Refresh on every instance of a fleet. Default 10s.
	Refresh Duration `yaml:"refresh"`
}

// dataset returns the declared dataset name, resolved, and its priority
// (1 for the first); ok is false when none is declared by that name.
func (f *FactsConfig) dataset(name string) (d assessor.Dataset, priority int, ok bool, err error) {
	for i, d := range f.Datasets {
		if d.Name == name {
			r, err := d.Resolve()
			return r, i + 1, true, err
		}
	}
	return assessor.Dataset{}, len(f.Datasets) + 1, false, nil
}

// declared finds the dataset name of kind declared in the configuration
// (dataload.Env.Declared): the assessor datasets under facts.datasets,
// resolved, by precedence; a kind the configuration declares nothing of
// finds nothing.
func (c *Config) declared(kind, name string) (decl any, rank int, ok bool, err error) {
	if kind != providers.KindParcels {
		return nil, 0, false, nil
	}
	return c.Facts.dataset(name)
}

// CORSConfig lists the origins whose pages a browser lets call the API and
// read its answers (gateway.CORS). Empty, the default: none, and no
// response carries a CORS header. The API key, not the origin, authorizes.
type CORSConfig struct {
	// AllowedOrigins are origins as a browser sends them,
	// scheme://host[:port] ("https://app.example.com"); "*" allows any.
	AllowedOrigins []string `yaml:"allowed_origins"`
}

// CacheConfig sizes the in-memory tier.
type CacheConfig struct {
	// MaxMB caps the ristretto tier; 0 turns it off.
	MaxMB int64 `yaml:"max_mb"`
	// RecordTTL bounds how long a cached record is served without a read.
	RecordTTL Duration `yaml:"record_ttl"`
	// MissTTL is how long an unmatched address is answered 404 without asking.
	MissTTL Duration `yaml:"miss_ttl"`
}

// KeyConfig is one API consumer. The key is given either as the hex SHA-256
// of the key (sha256) or as the name of an environment variable holding the
// key itself (key_env); the plain key is never written in the file.
type KeyConfig struct {
	Name   string  `yaml:"name"`
	SHA256 string  `yaml:"sha256"`
	KeyEnv string  `yaml:"key_env"`
	Rate   float64 `yaml:"rate"`  // tokens per second
	Burst  int     `yaml:"burst"` // bucket size: the largest request cost
}

// ProviderConfig configures the module filling one role.
type ProviderConfig struct {
	Module string `yaml:"module"`
	// Disabled leaves the role empty (its section is not offered).
	Disabled bool `yaml:"disabled"`
	// BaseURL points the module at any server speaking its protocol;
	// empty means the real public service.
	BaseURL string   `yaml:"base_url"`
	Timeout Duration `yaml:"timeout"`
	// TTL is how long a fetched section stays fresh.
	TTL Duration `yaml:"ttl"`
	// Refresh is what a request finding an expired section does:
	// "background" answers with it at once (stale) while one refresh runs
	// in the background; "sync" fetches a new value first.
	Refresh   string            `yaml:"refresh,omitempty"`
	Retries   *int              `yaml:"retries"`
	Breaker   BreakerConfig     `yaml:"breaker"`
	RateLimit OutboundConfig    `yaml:"rate_limit"`
	Options   map[string]string `yaml:"options"`
}

// BreakerConfig sets a provider's circuit breaker.
type BreakerConfig struct {
	Failures uint32   `yaml:"failures"`
	OpenFor  Duration `yaml:"open_for"`
}

// OutboundConfig paces calls to an upstream.
type OutboundConfig struct {
	Rate        float64 `yaml:"rate"`
	Burst       int     `yaml:"burst"`
	Concurrency int     `yaml:"concurrency"`
}

// Duration is a time.Duration written as a Go duration string.
type Duration time.Duration

// UnmarshalYAML parses "10s", "720h" and the like. Its errors end with the
// line, as checkFields words every mistake of the file.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return fmt.Errorf("a duration must be a string such as \"10s\" (line %d)", n.Line)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("invalid duration %q; use e.g. \"10s\" or \"720h\" (line %d)", s, n.Line)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration back as a string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// D returns the duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// DefaultDatabaseTimeout is database_timeout when the file does not set
// it: the connect timeout's figure, far above a healthy server's answer
// (milliseconds) and well inside request_timeout.
const DefaultDatabaseTimeout = 5 * time.Second

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandEnv replaces ${VAR} and ${VAR:-default}.
func expandEnv(b []byte) []byte {
	return envRef.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := envRef.FindSubmatch(m)
		if v, ok := os.LookupEnv(string(sub[1])); ok && v != "" {
			return []byte(v)
		}
		return sub[3]
	})
}

// LoadConfig reads, expands, strictly decodes, defaults and validates the
// file at path. Every error names the file and the bad field.
func LoadConfig(path string) (*Config, error) {
	cfg, _, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// readConfig is LoadConfig that also returns the configuration as far as
// it could be read when it has mistakes (nil only when the file cannot be
// read or is no YAML), with the parsed file, so that check-config can
// build its modules too and report every mistake in one run.
func readConfig(path string) (*Config, *yaml.Node, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	cfg, doc, err := parseConfig(raw)
	if err != nil {
		return cfg, doc, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, doc, nil
}

// ParseConfig is LoadConfig on bytes.
func ParseConfig(raw []byte) (*Config, error) {
	cfg, _, err := parseConfig(raw)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// parseConfig reads raw into a Config and returns every mistake of it at
// once: the fields checkFields finds (unknown, of the wrong kind), then
// the values Validate refuses, each with the line of the field in the file
// (or of the nearest mapping holding it, for a field left out). A field of
// the wrong kind keeps its default while the rest is validated. cfg is nil
// only when raw is no YAML.
func parseConfig(raw []byte) (*Config, *yaml.Node, error) {
	raw = expandEnv(raw)
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(raw)).Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	fieldErr := checkFields(&doc)
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(fieldErr == nil)
	var cfg Config
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) && fieldErr == nil {
		return nil, nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	cfg.applyEnv()
	cfg.applyDefaults()
	if err := errors.Join(fieldErr, withLines(&doc, cfg.Validate())); err != nil {
		return &cfg, &doc, err
	}
	return &cfg, &doc, nil
}

// EnvOverrides maps the environment variables that override a field of
// any configuration file, whatever it writes there (and whether it writes
// ${VAR} or not), to the field: set and not empty, the variable wins over
// the file, which wins over the default. They are what a container or a
// second instance on one machine changes without its own file.
var EnvOverrides = map[string]func(*Config) *string{
	"PROPERTYD_DATABASE": func(c *Config) *string { return &c.Database },
	"PROPERTYD_LISTEN":   func(c *Config) *string { return &c.Listen },
}

// applyEnv applies EnvOverrides.
func (c *Config) applyEnv() {
	for name, field := range EnvOverrides {
		if v := os.Getenv(name); v != "" {
			*field(c) = v
		}
	}
}

// applyDefaults fills what the file leaves out. The defaults of the
// components (gateway, core, guard) are theirs, referred to here, so each
// is stated once.
func (c *Config) applyDefaults() {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:8080"
	}
	if c.Database == "" {
		c.Database = "data/propertyd.db"
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = Duration(gateway.DefaultRequestTimeout)
	}
	if c.DatabaseTimeout == 0 {
		// Unset: 5 s, or half the request's bound when that is shorter.
		c.DatabaseTimeout = min(Duration(DefaultDatabaseTimeout), c.RequestTimeout/2)
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = Duration(15 * time.Second)
	}
	if c.BodyLimitBytes == 0 {
		c.BodyLimitBytes = gateway.DefaultBodyLimit
	}
	if c.Geocoding == "" {
		c.Geocoding = geocodingAuto
	}
	if c.ReverseRadiusMeters == 0 {
		c.ReverseRadiusMeters = service.DefaultReverseRadius
	}
	if c.BatchConcurrency == 0 {
		c.BatchConcurrency = service.MaxBatch
	}
	if c.RefreshConcurrency == 0 {
		c.RefreshConcurrency = service.DefaultRefreshConcurrency
	}
	if c.MemoryLimitMB == 0 {
		c.MemoryLimitMB, c.memoryLimitDefault = 2*c.Cache.MaxMB+72, true
	}
	if c.Cache.MissTTL == 0 {
		c.Cache.MissTTL = Duration(service.DefaultMissTTL)
	}
	if c.Facts.Refresh == 0 {
		c.Facts.Refresh = Duration(10 * time.Second)
	}
	c.Redis.applyDefaults()
	for role, p := range c.Providers {
		if p == nil {
			p = &ProviderConfig{}
			c.Providers[role] = p
		}
		if p.Timeout == 0 {
			p.Timeout = Duration(guard.DefaultPolicy.Timeout)
		}
		if e, ok := service.EntryOf(providers.Role(role)); ok && p.TTL == 0 {
			p.TTL = Duration(e.DefaultTTL)
		}
		if e, ok := service.EntryOf(providers.Role(role)); ok && e.Section != "" && p.Refresh == "" {
			p.Refresh = service.RefreshBackground
		}
		if p.Retries == nil {
			two := 2
			p.Retries = &two
		}
		if p.Breaker.Failures == 0 {
			p.Breaker.Failures = guard.DefaultPolicy.FailureThreshold
		}
		if p.Breaker.OpenFor == 0 {
			p.Breaker.OpenFor = Duration(guard.DefaultPolicy.OpenFor)
		}
	}
}

// enabled reports the provider config of role when it is configured and on.
func (c *Config) enabled(role providers.Role) (*ProviderConfig, bool) {
	p, ok := c.Providers[string(role)]
	return p, ok && p != nil && !p.Disabled
}

// Sections lists the enrichment sections this configuration offers in
// include=, in response order.
func (c *Config) Sections() []string {
	var out []string
	for _, e := range service.Catalog {
		if _, on := c.enabled(e.Role); on && e.Section != "" && !e.Internal {
			out = append(out, e.Section)
		}
	}
	return out
}

// maxCost is what one lookup including every offered section costs: the
// least burst a key must have.
func (c *Config) maxCost() int { return 1 + service.CostOf(c.Sections()) }

// Validate rejects values that cannot work, naming the field.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if c.BodyLimitBytes < 1024 {
		bad("body_limit_bytes", "must be at least 1024")
	}
	if c.ReverseRadiusMeters < 0 || c.ReverseRadiusMeters > 10000 {
		bad("reverse_radius_meters", "must be between 0 and 10000")
	}
	if c.Geocoding != geocodingAuto && c.Geocoding != geocodingLocal {
		bad("geocoding", "must be %q or %q", geocodingAuto, geocodingLocal)
	}
	if c.BatchConcurrency < 1 || c.BatchConcurrency > 100 {
		bad("batch_concurrency", "must be between 1 and 100")
	}
	if c.RefreshConcurrency < 1 || c.RefreshConcurrency > 100 {
		bad("refresh_concurrency", "must be between 1 and 100")
	}
	if c.Cache.MaxMB < 0 {
		bad("cache.max_mb", "must not be negative")
	}
	if c.DatabaseTimeout < 0 || (c.RequestTimeout > 0 && c.DatabaseTimeout >= c.RequestTimeout) {
		bad("database_timeout", "must be positive and shorter than request_timeout")
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		bad("listen", "must be host:port (%v)", err)
	}
	if c.DebugListen != "" {
		if _, port, err := net.SplitHostPort(c.DebugListen); err != nil {
			bad("debug_listen", "must be host:port (%v)", err)
		} else if c.DebugListen == c.Listen && port != "0" { // port 0: each picks a free port of its own
			bad("debug_listen", "must differ from listen")
		}
	}
	c.Redis.validate(bad)
	seen := map[string]bool{}
	for i, d := range c.Facts.Datasets {
		field := fmt.Sprintf("facts.datasets[%d]", i)
		if seen[d.Name] {
			bad(field, "a second dataset named %q", d.Name)
		}
		seen[d.Name] = true
		if _, err := d.Resolve(); err != nil {
			bad(field, "%v", err)
		}
	}
	if r := c.Facts.Refresh.D(); r != 0 && r < time.Second {
		bad("facts.refresh", "must be at least 1s")
	}
	for i, o := range c.CORS.AllowedOrigins {
		if err := gateway.CheckOrigin(o); err != nil {
			bad(fmt.Sprintf("cors.allowed_origins[%d]", i), "%q %v", o, err)
		}
	}
	for role, p := range c.Providers {
		field := "providers." + role
		e, known := service.EntryOf(providers.Role(role))
		if !known {
			bad(field, "unknown role (known: %s)", joinRoles(service.Roles()))
			continue
		}
		switch {
		case p.Refresh == "":
		case e.Section == "":
			bad(field+".refresh", "the %s role has no section to refresh", role)
		case !slices.Contains(service.RefreshModes, p.Refresh):
			bad(field+".refresh", "must be %s", strings.Join(service.RefreshModes, " or "))
		}
		if p.Disabled {
			continue
		}
		if p.Module == "" {
			bad(field+".module", "is required")
		}
		if p.BaseURL != "" && !strings.HasPrefix(p.BaseURL, "http://") && !strings.HasPrefix(p.BaseURL, "https://") {
			bad(field+".base_url", "must be an http:// or https:// URL")
		}
		if *p.Retries < 0 || *p.Retries > 10 {
			bad(field+".retries", "must be between 0 and 10")
		}
		if p.RateLimit.Rate < 0 || p.RateLimit.Burst < 0 || p.RateLimit.Concurrency < 0 {
			bad(field+".rate_limit", "values must not be negative")
		}
	}
	if len(c.Contact) > 200 || strings.ContainsFunc(c.Contact, func(r rune) bool { return r < ' ' || r == 0x7f || r > '~' }) {
		bad("contact", "must be at most 200 printable ASCII characters (it is sent in a User-Agent header)")
	}
	for _, e := range service.Catalog {
		if _, ok := c.enabled(e.Role); e.Required && !ok {
			bad("providers."+string(e.Role), "is required")
		}
	}
	if len(c.Keys) == 0 {
		bad("keys", "at least one API key is required")
	}
	maxCost := c.maxCost()
	names := map[string]bool{}
	for i, k := range c.Keys {
		field := fmt.Sprintf("keys[%d]", i)
		if k.Name == "" {
			bad(field+".name", "is required")
		} else if names[k.Name] {
			bad(field+".name", "duplicate key name %q", k.Name)
		}
		names[k.Name] = true
		if (k.SHA256 == "") == (k.KeyEnv == "") {
			bad(field, "give exactly one of sha256 or key_env")
		}
		if k.SHA256 != "" {
			if b, err := hex.DecodeString(k.SHA256); err != nil || len(b) != 32 {
				bad(field+".sha256", "must be 64 hex digits")
			}
		}
		if k.KeyEnv != "" && os.Getenv(k.KeyEnv) == "" {
			bad(field+".key_env", "environment variable %s is not set", k.KeyEnv)
		}
		if k.Rate <= 0 {
			bad(field+".rate", "must be positive")
		}
		if k.Burst < maxCost {
			bad(field+".burst", "must be at least %d, the cost of one lookup with every section", maxCost)
		}
	}
	return errors.Join(errs...)
}

func joinRoles(roles []providers.Role) string {
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}
