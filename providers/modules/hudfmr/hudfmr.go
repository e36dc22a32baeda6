package hudfmr

import (
	"strconv"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// DefaultBaseURL is the public HUD USER Fair Market Rent API, used when
// config.yaml names no base URL, so the binary works against the real
// service out of the box.
const DefaultBaseURL = "https://www.huduser.gov/hudapi/public/fmr"

// Name is the module name under which the package registers itself; it is
// also the Source of every FairMarketRents the module returns.
const Name = "hud-fmr"

// module is the package's entry in the registry.
var module = providers.Module{Name: Name, Roles: []providers.Role{providers.RoleFairMarketRent},
	DefaultBaseURL: DefaultBaseURL, New: func() any { return new(Client) }}

func init() { providers.Register(module) }

var _ providers.FairMarketRentProvider = (*Client)(nil)

// Options are the module's options in config.yaml.
type Options struct {
	// Token is the HUD USER API access token; required.
	Token string `yaml:"token"`
	// Year is the fiscal year asked for; 0 (the default) asks for HUD's
	// latest.
	Year int `yaml:"year"`
}

// Client talks to the HUD USER Fair Market Rent API. Build it with New; the
// zero value is not usable. Its Options must not change once it is built;
// it holds no mutable state and is safe for concurrent use.
type Client struct {
	Options `yaml:",inline"`
	upstream.Endpoint
	year string // Year as the API takes it; "" for the latest
}

// New builds a Client from s as config.yaml does (see providers.Build): an
// empty s.BaseURL means DefaultBaseURL and a nil s.Client means
// http.DefaultClient. It fails with KindInvalid on an unknown option, a
// missing token option, a year option that is not a four-digit year, or a
// base URL that is not absolute http(s).
func New(s providers.Settings) (*Client, error) { return providers.Build[*Client](module, s) }

// Provision keeps the upstream of s and derives the year asked for.
func (c *Client) Provision(s providers.Settings) error {
	if c.Year != 0 {
		c.year = strconv.Itoa(c.Year)
	}
	return c.Endpoint.Provision(s)
}

// Validate requires the token and a four-digit year.
func (c *Client) Validate() error {
	if c.Token == "" {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option token is required: the HUD USER API access token")
	}
	if c.Year != 0 && (c.Year < 1000 || c.Year > 9999) {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option year %d is not a four-digit fiscal year", c.Year)
	}
	return nil
}

// digits reports whether s is exactly n ASCII digits.
func digits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
