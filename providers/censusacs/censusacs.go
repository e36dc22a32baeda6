package censusacs

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/upstream"
)

// DefaultBaseURL is the public Census data API, used when config.yaml names
// no base URL, so the binary works against the real service out of the box.
const DefaultBaseURL = "https://api.census.gov/data"

// DefaultYear is the ACS 5-year vintage asked for unless the year option
// says otherwise: the one the upstream reference recordings were made with.
const DefaultYear = "2022"

// firstYear is the first ACS 5-year vintage (2005-2009) the API publishes.
const firstYear = 2009

// Module names under which the package registers itself, one per role.
const (
	Name        = "census-acs"
	HousingName = "census-acs-housing"
)

func init() {
	newModule := func(s providers.Settings) (any, error) {
		c, err := New(s)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	providers.Register(providers.Module{
		Name:           Name,
		Roles:          []providers.Role{providers.RoleDemographics},
		DefaultBaseURL: DefaultBaseURL,
		New:            newModule,
	})
	providers.Register(providers.Module{
		Name:           HousingName,
		Roles:          []providers.Role{providers.RoleHousing},
		DefaultBaseURL: DefaultBaseURL,
		New:            newModule,
	})
}

var (
	_ providers.DemographicsProvider = (*Client)(nil)
	_ providers.HousingProvider      = (*Client)(nil)
)

// Client talks to the ACS 5-year data API. Build it with New; the zero value
// is not usable. It holds no mutable state and is safe for concurrent use.
type Client struct {
	base string       // without trailing slash
	http *http.Client // a copy of the configured client that never follows redirects
	year string
	key  string
}

// New returns a Client for s. An empty s.BaseURL means DefaultBaseURL and a
// nil s.Client means http.DefaultClient. The client is copied, never
// modified, so that redirects (the upstream's answer to a missing key) are
// seen instead of followed. New fails with KindInvalid on an unknown option,
// a year that is not a four-digit ACS 5-year vintage, or a base URL that is
// not absolute http(s).
func New(s providers.Settings) (*Client, error) {
	if err := s.CheckOptions("year", "api_key"); err != nil {
		return nil, err
	}
	base, err := upstream.BaseURL(s, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	year := strings.TrimSpace(s.Option("year", DefaultYear))
	if y, err := strconv.Atoi(year); err != nil || len(year) != 4 || y < firstYear {
		return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option year %q is not an ACS 5-year vintage (four digits, %d or later)", year, firstYear)
	}
	cp := *upstream.Client(s)
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{
		base: base,
		http: &cp,
		year: year,
		key:  strings.TrimSpace(s.Option("api_key", "")),
	}, nil
}

// Year returns the ACS 5-year vintage the client asks for, e.g. "2022".
func (c *Client) Year() string { return c.year }

// Vintage returns the vintage recorded with the data, e.g. "2022 ACS 5-year".
func (c *Client) Vintage() string { return Vintage(c.year) }

// Vintage names the ACS 5-year release of year as shown in section metadata.
func Vintage(year string) string { return year + " ACS 5-year" }
