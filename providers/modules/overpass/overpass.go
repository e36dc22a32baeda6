package overpass

import (
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
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
	// DefaultMaxResults is the cap of each category (see package
	// amenity) unless the max_results option says otherwise: the nearest
	// 20 places, and the nearest of each other type, as nearby-place APIs
	// list 20 (Google Places, Yelp) rather than every place of a dense
	// downtown (some 3,300 within 2 km, 349 KB). It keeps osm-walk's
	// score what the whole list gives, which needs at least 10.
	DefaultMaxResults = 20
	// QuietAfterRateLimit is how long the fleet sends nothing after an
	// HTTP 429: the public instances' maintainers ask for at least 30 s.
	QuietAfterRateLimit = 30 * time.Second
	// Concurrency is the most queries in flight at once across the fleet
	// unless rate_limit.concurrency says otherwise: the maintainers ask
	// for no parallel workers, one script a user.
	Concurrency = 1
)

// module is the package's entry in the registry. New states the defaults
// of the options.
var module = providers.Module{Name: Name, Roles: []providers.Role{providers.RoleAmenities},
	DefaultBaseURL: DefaultBaseURL, New: func() any {
		return &Client{Options: Options{TimeoutSeconds: DefaultTimeoutSeconds, MaxResults: DefaultMaxResults, UserAgent: DefaultUserAgent}}
	},
	Courtesy: providers.Courtesy{Concurrency: Concurrency, QuietAfterRateLimit: QuietAfterRateLimit}}

func init() { providers.Register(module) }

var _ providers.AmenitiesProvider = (*Client)(nil)

// maxResultsCap bounds the max_results option.
const maxResultsCap = 1 << 20

// Options are the module's options in config.yaml.
type Options struct {
	// TimeoutSeconds is the server-side query budget, 1 to
	// MaxTimeoutSeconds (default DefaultTimeoutSeconds).
	TimeoutSeconds int `yaml:"timeout_seconds"`
	// MaxResults caps each category at its nearest N items and the
	// nearest of each other type (amenity.Collect); 0 keeps all. The
	// default is DefaultMaxResults.
	MaxResults int `yaml:"max_results"`
	// UserAgent is the User-Agent header (default DefaultUserAgent, with
	// the operator's contact from config.yaml appended: see Provision).
	UserAgent string `yaml:"user_agent"`
}

// Client asks an Overpass interpreter for amenities. Build it with New; the
// zero value is not usable. Its Options must not change once it is built;
// it holds no mutable state and is safe for concurrent use. Its base URL is
// the full interpreter URL, not a host.
type Client struct {
	Options `yaml:",inline"`
	upstream.Endpoint
}

// New builds a Client from s as config.yaml does (see providers.Build): an
// empty s.BaseURL means DefaultBaseURL and a nil s.Client means
// http.DefaultClient. It fails with KindInvalid on an unknown or malformed
// option or a base URL that is not absolute http(s).
func New(s providers.Settings) (*Client, error) { return providers.Build[*Client](module, s) }

// Provision keeps the endpoint's settings and names the operator's
// contact (config.yaml's contact) in the default User-Agent, as the public
// instances ask: "propertyd (...; contact: ops@example.com)". A user_agent
// option is sent as it is. Without a contact the public instance is told
// nothing of whom to reach, which Provision logs once.
func (c *Client) Provision(s providers.Settings) error {
	if err := c.Endpoint.Provision(s); err != nil {
		return err
	}
	if c.UserAgent != DefaultUserAgent {
		return nil
	}
	if s.Contact != "" {
		c.UserAgent = UserAgentWith(s.Contact)
	} else if c.Base() == DefaultBaseURL && s.Logger != nil {
		s.Logger.Warn("set contact in config.yaml: the public Overpass instance asks clients to say how to reach them")
	}
	return nil
}

// UserAgentWith is the default User-Agent naming contact.
func UserAgentWith(contact string) string {
	return strings.TrimSuffix(DefaultUserAgent, ")") + "; contact: " + contact + ")"
}

// Validate rejects a query budget the public instances refuse and a
// negative cap.
func (c *Client) Validate() error {
	if err := inRange("timeout_seconds", c.Options.TimeoutSeconds, 1, MaxTimeoutSeconds); err != nil {
		return err
	}
	return inRange("max_results", c.MaxResults, 0, maxResultsCap)
}

// inRange checks the integer option name lies in [lo, hi].
func inRange(name string, n, lo, hi int) error {
	if n < lo || n > hi {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option %s=%d must be an integer from %d to %d", name, n, lo, hi)
	}
	return nil
}

// ResultCap returns the max_results option: the cap of each category of
// an answer (0: none), so that an answer read from a local extract is
// capped alike.
func (c *Client) ResultCap() int { return c.MaxResults }

// TimeoutSeconds returns the server-side query budget the client sends.
func (c *Client) TimeoutSeconds() int { return c.Options.TimeoutSeconds }
