package census

import (
	"net/http"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/upstream"
)

// DefaultBaseURL is the public Census geocoder, used when config.yaml names
// no base URL, so the binary works against the real service out of the box.
const DefaultBaseURL = "https://geocoding.geo.census.gov/geocoder"

// DefaultBenchmark and DefaultVintage are the address-range benchmark and
// geography vintage asked for unless the benchmark and vintage options say
// otherwise: the most current ones the upstream publishes.
const (
	DefaultBenchmark = "Public_AR_Current"
	DefaultVintage   = "Current_Current"
)

// Name is the module name under which the package registers itself.
const Name = "census"

func init() {
	providers.Register(providers.Module{
		Name:           Name,
		Roles:          []providers.Role{providers.RoleGeocoder, providers.RoleReverseGeocoder},
		DefaultBaseURL: DefaultBaseURL,
		New:            providers.Constructor(New),
	})
}

var (
	_ providers.Geocoder        = (*Client)(nil)
	_ providers.ReverseGeocoder = (*Client)(nil)
)

// Client talks to the Census geocoder. Build it with New; the zero value is
// not usable. It holds no mutable state and is safe for concurrent use.
type Client struct {
	base      string // without trailing slash
	http      *http.Client
	benchmark string
	vintage   string
	now       func() time.Time
}

// New returns a Client for s. An empty s.BaseURL means DefaultBaseURL and a
// nil s.Client means http.DefaultClient. It fails with KindInvalid on an
// unknown option or a base URL that is not absolute http(s).
func New(s providers.Settings) (*Client, error) {
	if err := s.CheckOptions("benchmark", "vintage"); err != nil {
		return nil, err
	}
	base, err := upstream.BaseURL(s, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	return &Client{
		base:      base,
		http:      upstream.Client(s),
		benchmark: strings.TrimSpace(s.Option("benchmark", DefaultBenchmark)),
		vintage:   strings.TrimSpace(s.Option("vintage", DefaultVintage)),
		now:       upstream.Clock(s),
	}, nil
}

// Benchmark returns the benchmark the client asks for, for logs and the
// vintage recorded with geocoded data.
func (c *Client) Benchmark() string { return c.benchmark }

// Vintage returns the geography vintage the client asks for.
func (c *Client) Vintage() string { return c.vintage }
