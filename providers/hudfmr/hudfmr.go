package hudfmr

import (
	"net/http"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/upstream"
)

// DefaultBaseURL is the public HUD USER Fair Market Rent API, used when
// config.yaml names no base URL, so the binary works against the real
// service out of the box.
const DefaultBaseURL = "https://www.huduser.gov/hudapi/public/fmr"

// Name is the module name under which the package registers itself; it is
// also the Source of every FairMarketRents the module returns.
const Name = "hud-fmr"

func init() {
	providers.Register(providers.Module{
		Name:           Name,
		Roles:          []providers.Role{providers.RoleFairMarketRent},
		DefaultBaseURL: DefaultBaseURL,
		New:            providers.Constructor(New),
	})
}

var _ providers.FairMarketRentProvider = (*Client)(nil)

// Client talks to the HUD USER Fair Market Rent API. Build it with New; the
// zero value is not usable. It holds no mutable state and is safe for
// concurrent use.
type Client struct {
	base  string // without trailing slash
	http  *http.Client
	token string
	year  string // "" asks for HUD's latest fiscal year
	now   func() time.Time
}

// New returns a Client for s. An empty s.BaseURL means DefaultBaseURL and a
// nil s.Client means http.DefaultClient. It fails with KindInvalid on an
// unknown option, a missing token option, a year option that is not a
// four-digit year, or a base URL that is not absolute http(s).
func New(s providers.Settings) (*Client, error) {
	if err := s.CheckOptions("token", "year"); err != nil {
		return nil, err
	}
	token := strings.TrimSpace(s.Option("token", ""))
	if token == "" {
		return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option token is required: the HUD USER API access token")
	}
	year := strings.TrimSpace(s.Option("year", ""))
	if year != "" && !digits(year, 4) {
		return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option year %q is not a four-digit fiscal year", year)
	}
	base, err := upstream.BaseURL(s, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	return &Client{base: base, http: upstream.Client(s), token: token, year: year, now: upstream.Clock(s)}, nil
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
