package censusacs

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// DefaultBaseURL is the public Census data API, used when config.yaml names
// no base URL, so the binary works against the real service out of the box.
const DefaultBaseURL = "https://api.census.gov/data"

// DefaultYear is the ACS 5-year vintage asked for while the newest one
// is not known (the first discovery failed): the one the upstream
// reference recordings were made with.
const DefaultYear = "2022"

// Latest is the year option's value, and its default, that follows the
// newest 5-year release the API publishes (see Client).
const Latest = "latest"

// firstYear is the first ACS 5-year vintage (2005-2009) the API publishes.
const firstYear = 2009

// Module names under which the package registers itself, one per role.
const (
	Name        = "census-acs"
	HousingName = "census-acs-housing"
)

// modules are the package's entries in the registry, one per role; both
// build a Client, whose defaults New states.
var modules = [...]providers.Module{
	{Name: Name, Roles: []providers.Role{providers.RoleDemographics}, DefaultBaseURL: DefaultBaseURL, New: newClient},
	{Name: HousingName, Roles: []providers.Role{providers.RoleHousing}, DefaultBaseURL: DefaultBaseURL, New: newClient},
}

func newClient() any { return &Client{Options: Options{Year: Latest}} }

func init() {
	for _, m := range modules {
		providers.Register(m)
	}
}

// Options are the module's options in config.yaml.
type Options struct {
	// Year is the ACS 5-year vintage asked for: Latest (the default)
	// follows the newest release, four digits pin one.
	Year string `yaml:"year"`
	// APIKey is the Census API key, sent when given; the API answers a
	// few hundred calls a day without one.
	APIKey string `yaml:"api_key"`
}

var (
	_ providers.DemographicsProvider = (*Client)(nil)
	_ providers.HousingProvider      = (*Client)(nil)
	_ providers.Superseder           = (*Client)(nil)
)

// Client talks to the ACS 5-year data API. Build it with New; the zero value
// is not usable. Safe for concurrent use.
//
// With the year option "latest" (the default) it asks for the newest
// 5-year release the API publishes, learned from the API's discovery
// document (DiscoveryURL) and asked again a day (DiscoveryTTL) after it
// was learned, in the background; only the first fetch waits for it. A
// failed discovery is logged and retried after DiscoveryRetry, and the
// client meanwhile asks for the last release it learned, or DefaultYear.
// A pinned year is asked for as it is, and nothing is discovered.
type Client struct {
	Options `yaml:",inline"`

	base   string       // without trailing slash
	http   *http.Client // a copy of the configured client that never follows redirects
	pinned string       // the year option when it is a year; "" for Latest
	key    string
	now    func() time.Time
	log    *slog.Logger

	latest atomic.Pointer[string] // newest year discovered; nil before the first discovery succeeds
	mu     sync.Mutex
	next   time.Time // when the next discovery is due
	// nextDue mirrors next in unix nanoseconds, for a lock-free check.
	nextDue atomic.Int64
	ends    chan struct{} // closed when the discovery running ends; nil when none runs
}

// New builds a Client from s as config.yaml does (see providers.Build):
// an empty s.BaseURL means DefaultBaseURL and a nil s.Client means
// http.DefaultClient. The client is copied, never modified, so that
// redirects (the upstream's answer to a missing key) are seen instead of
// followed. New fails with KindInvalid on an unknown option, a year that is
// neither "latest" nor a four-digit ACS 5-year vintage, or a base URL that
// is not absolute http(s). It calls no upstream. Its Options must not
// change once it is built.
func New(s providers.Settings) (*Client, error) { return providers.Build[*Client](modules[0], s) }

// Provision keeps the upstream of s, with a client that does not follow
// redirects, and the year to pin.
func (c *Client) Provision(s providers.Settings) error {
	cp := *s.Client
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.base, c.http, c.now, c.log, c.key = s.BaseURL, &cp, s.Now, s.Logger, c.APIKey
	if c.Options.Year != Latest {
		c.pinned = c.Options.Year
	}
	return nil
}

// Validate rejects a year that is no ACS 5-year vintage.
func (c *Client) Validate() error {
	if c.pinned != "" && !isYear(c.pinned) {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"option year %q is neither %q nor an ACS 5-year vintage (four digits, %d or later)", c.Options.Year, Latest, firstYear)
	}
	return nil
}

// isYear reports whether s is a four-digit ACS 5-year vintage.
func isYear(s string) bool {
	y, err := strconv.Atoi(s)
	return err == nil && len(s) == 4 && y >= firstYear
}

// Year returns the ACS 5-year vintage the client asks for now, e.g. "2022":
// the pinned year, or the newest one discovered so far (DefaultYear before
// any discovery succeeded). It calls no upstream.
func (c *Client) Year() string {
	if c.pinned != "" {
		return c.pinned
	}
	if y := c.latest.Load(); y != nil {
		return *y
	}
	return DefaultYear
}

// Vintage returns the vintage recorded with the data, e.g. "2022 ACS 5-year".
func (c *Client) Vintage() string { return Vintage(c.Year()) }

// Vintage names the ACS 5-year release of year as shown in section metadata.
func Vintage(year string) string { return year + vintageSuffix }

const vintageSuffix = " ACS 5-year"

// Supersedes reports whether the release the client asks for now is newer
// than vintage, a value's vintage as Vintage writes it: the service then
// refreshes the value. It is false for a vintage it does not recognize and,
// following the newest release, while no discovery succeeded (falling back
// to DefaultYear must not make newer stored values look old). Following
// the newest release, it starts a discovery in the background when one is
// due, so a service that serves every value from its store still learns
// of a new release; it never waits for it. A pinned year supersedes only
// older vintages: values of a newer one are served until their TTL ends.
// See providers.Superseder.
func (c *Client) Supersedes(vintage string) bool {
	cur := c.pinned
	if cur == "" {
		c.discoverIfDue()
		y := c.latest.Load()
		if y == nil {
			return false
		}
		cur = *y
	}
	stored, ok := strings.CutSuffix(vintage, vintageSuffix)
	return ok && isYear(stored) && cur > stored
}
