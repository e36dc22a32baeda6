package overpass

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/upstream"
)

// DefaultBaseURL is the interpreter endpoint of the main public Overpass
// instance, used when config.yaml names no base URL, so the binary works
// against the real service out of the box.
const DefaultBaseURL = "https://overpass-api.de/api/interpreter"

// Name is the module name under which the package registers itself.
const Name = "overpass"

// Source is the value of Amenities.Source in every answer.
const Source = "overpass"

// Radius bounds in metres. Amenities rejects a radius outside
// [MinRadius, MaxRadius]: a larger one makes queries that the public
// instances time out on. DefaultRadius is the radius callers use when the
// client names none; osm-walk asks for it too, so both share a cache entry.
const (
	MinRadius     = 500
	MaxRadius     = 5000
	DefaultRadius = 2000
)

// Defaults and bounds of the module options.
const (
	// DefaultTimeoutSeconds is the server-side query budget ([timeout:N])
	// unless the timeout_seconds option says otherwise.
	DefaultTimeoutSeconds = 25
	// MaxTimeoutSeconds is the largest timeout_seconds accepted: the public
	// instances' default (and ceiling for ordinary users) is 180 seconds.
	MaxTimeoutSeconds = 180
	// DefaultUserAgent is sent unless the user_agent option says otherwise;
	// the public instances ask clients to identify themselves.
	DefaultUserAgent = "propertyd (property enrichment proxy; OpenStreetMap amenities)"
)

// DedupeMeters is the distance under which two items of one category with
// the same name are taken for the same place mapped twice.
const DedupeMeters = 50

func init() {
	providers.Register(providers.Module{
		Name:           Name,
		Roles:          []providers.Role{providers.RoleAmenities},
		DefaultBaseURL: DefaultBaseURL,
		New:            providers.Constructor(New),
	})
}

var _ providers.AmenitiesProvider = (*Client)(nil)

// Client asks an Overpass interpreter for amenities. Build it with New; the
// zero value is not usable. It holds no mutable state and is safe for
// concurrent use.
type Client struct {
	endpoint   string
	http       *http.Client
	timeout    int // seconds, the [timeout:N] of every query
	maxResults int // per category; 0 means no cap
	userAgent  string
	now        func() time.Time
}

// New returns a Client for s. An empty s.BaseURL means DefaultBaseURL (the
// full interpreter URL, not a host) and a nil s.Client means
// http.DefaultClient. Options:
//
//	timeout_seconds  server-side query budget, 1..180 (default 25)
//	max_results      keep only the nearest N items per category (default 0: all)
//	user_agent       User-Agent header (default DefaultUserAgent)
//
// It fails with KindInvalid on an unknown or malformed option or a base URL
// that is not absolute http(s).
func New(s providers.Settings) (*Client, error) {
	if err := s.CheckOptions("timeout_seconds", "max_results", "user_agent"); err != nil {
		return nil, err
	}
	endpoint := strings.TrimSpace(s.BaseURL)
	if endpoint == "" {
		endpoint = DefaultBaseURL
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"base URL %q is not an absolute http(s) URL", s.BaseURL)
	}
	timeout, err := intOption(s, "timeout_seconds", DefaultTimeoutSeconds, 1, MaxTimeoutSeconds)
	if err != nil {
		return nil, err
	}
	maxResults, err := intOption(s, "max_results", 0, 0, 1<<20)
	if err != nil {
		return nil, err
	}
	return &Client{
		endpoint:   endpoint,
		http:       upstream.Client(s),
		timeout:    timeout,
		maxResults: maxResults,
		userAgent:  strings.TrimSpace(s.Option("user_agent", DefaultUserAgent)),
		now:        upstream.Clock(s),
	}, nil
}

// intOption parses the integer option name, def when unset, and checks it
// lies in [lo, hi].
func intOption(s providers.Settings, name string, def, lo, hi int) (int, error) {
	raw := strings.TrimSpace(s.Option(name, ""))
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || n > hi {
		return 0, providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option %s=%q must be an integer from %d to %d", name, raw, lo, hi)
	}
	return n, nil
}

// TimeoutSeconds returns the server-side query budget the client sends.
func (c *Client) TimeoutSeconds() int { return c.timeout }
