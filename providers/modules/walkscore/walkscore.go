package walkscore

import (
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// DefaultBaseURL is the public Walk Score API, used when config.yaml names no
// base URL, so the binary works against the real service out of the box.
const DefaultBaseURL = "https://api.walkscore.com"

// Name is the module name under which the package registers itself; it is
// also the Method and Source of every score the module returns.
const Name = "walkscore-api"

// module is the package's entry in the registry.
var module = providers.Module{Name: Name, Roles: []providers.Role{providers.RoleWalkScore},
	DefaultBaseURL: DefaultBaseURL, New: func() any { return new(Client) }}

func init() { providers.Register(module) }

var _ providers.WalkScoreProvider = (*Client)(nil)

// Options are the module's options in config.yaml.
type Options struct {
	// APIKey is the wsapikey Walk Score issued for this server; required.
	APIKey string `yaml:"api_key"`
}

// Client talks to the Walk Score API. Build it with New; the zero value is
// not usable. Its Options must not change once it is built; it holds no
// mutable state and is safe for concurrent use.
type Client struct {
	Options `yaml:",inline"`
	upstream.Endpoint
}

// New builds a Client from s as config.yaml does (see providers.Build): an
// empty s.BaseURL means DefaultBaseURL and a nil s.Client means
// http.DefaultClient. It fails with KindInvalid on an unknown option, a
// missing api_key option, or a base URL that is not absolute http(s).
func New(s providers.Settings) (*Client, error) { return providers.Build[*Client](module, s) }

// Validate requires the key: without one every call would fail.
func (c *Client) Validate() error {
	if c.APIKey == "" {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option api_key is required: the wsapikey Walk Score issued for this server")
	}
	return nil
}
