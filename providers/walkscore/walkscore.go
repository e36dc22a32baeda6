package walkscore

import (
	"net/http"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/upstream"
)

// DefaultBaseURL is the public Walk Score API, used when config.yaml names no
// base URL, so the binary works against the real service out of the box.
const DefaultBaseURL = "https://api.walkscore.com"

// Name is the module name under which the package registers itself; it is
// also the Method and Source of every score the module returns.
const Name = "walkscore-api"

func init() {
	providers.Register(providers.Module{
		Name:           Name,
		Roles:          []providers.Role{providers.RoleWalkScore},
		DefaultBaseURL: DefaultBaseURL,
		New:            providers.Constructor(New),
	})
}

var _ providers.WalkScoreProvider = (*Client)(nil)

// Client talks to the Walk Score API. Build it with New; the zero value is
// not usable. It holds no mutable state and is safe for concurrent use.
type Client struct {
	base string // without trailing slash
	http *http.Client
	key  string
	now  func() time.Time
}

// New returns a Client for s. An empty s.BaseURL means DefaultBaseURL and a
// nil s.Client means http.DefaultClient. It fails with KindInvalid on an
// unknown option, a missing api_key option, or a base URL that is not
// absolute http(s).
func New(s providers.Settings) (*Client, error) {
	if err := s.CheckOptions("api_key"); err != nil {
		return nil, err
	}
	key := strings.TrimSpace(s.Option("api_key", ""))
	if key == "" {
		return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option api_key is required: the wsapikey Walk Score issued for this server")
	}
	base, err := upstream.BaseURL(s, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	return &Client{base: base, http: upstream.Client(s), key: key, now: upstream.Clock(s)}, nil
}
