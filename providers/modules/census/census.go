package census

import (
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
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

// module is the package's entry in the registry. New states the defaults
// of the options.
var module = providers.Module{Name: Name, Roles: []providers.Role{providers.RoleGeocoder, providers.RoleReverseGeocoder},
	DefaultBaseURL: DefaultBaseURL, New: func() any {
		return &Client{Options: Options{Benchmark: DefaultBenchmark, Vintage: DefaultVintage}}
	}}

func init() { providers.Register(module) }

var (
	_ providers.Geocoder        = (*Client)(nil)
	_ providers.ReverseGeocoder = (*Client)(nil)
)

// Options are the module's options in config.yaml.
type Options struct {
	// Benchmark is the address-range benchmark asked for (default
	// DefaultBenchmark).
	Benchmark string `yaml:"benchmark"`
	// Vintage is the geography vintage asked for (default DefaultVintage).
	Vintage string `yaml:"vintage"`
}

// Client talks to the Census geocoder. Build it with New; the zero value is
// not usable. Its Options must not change once it is built; it holds no
// mutable state and is safe for concurrent use.
type Client struct {
	Options `yaml:",inline"`
	upstream.Endpoint
}

// New builds a Client from s as config.yaml does (see providers.Build): an
// empty s.BaseURL means DefaultBaseURL and a nil s.Client means
// http.DefaultClient. It fails with KindInvalid on an unknown option or a
// base URL that is not absolute http(s).
func New(s providers.Settings) (*Client, error) { return providers.Build[*Client](module, s) }

// Benchmark returns the benchmark the client asks for, for logs and the
// vintage recorded with geocoded data.
func (c *Client) Benchmark() string { return c.Options.Benchmark }

// Vintage returns the geography vintage the client asks for.
func (c *Client) Vintage() string { return c.Options.Vintage }
