package service

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// Entry declares one role of the service, once. Everything that needs to
// know what a role or a section is reads its entry: the configuration (which
// roles exist, which are required, each section's default TTL), the wiring
// of a built module into the service (Config.Add), include= and its cost,
// the standalone section routes, the include form's renames and the check
// that the OpenAPI document lists what is served. Adding a section is an
// entry here and a provider module that implements its interface.
type Entry struct {
	// Role is the key under providers: in config.yaml.
	Role providers.Role
	// Section names the section in include=, in meta.sections and in the
	// store; it is empty for the geocoder roles, which are no section.
	Section string
	// Internal sections are not offered in include= and have no endpoint:
	// another section embeds them (fair market rents are part of housing).
	// Every other section is offered in include= and has its own endpoint,
	// GET /v1/properties/{id}/{section}, so that a client can ask for any
	// one section without a second form of the question to learn.
	Internal bool
	// Required roles must be configured for the service to start.
	Required bool
	// Radius sections take a radius (amenities): their standalone endpoint
	// reads radius=, and include= uses DefaultRadius.
	Radius bool
	// DefaultTTL is how long a value stays fresh when config.yaml gives no
	// ttl for the role.
	DefaultTTL time.Duration
	// Key is the natural key the section's data is cached under (a point,
	// a tract, a point and a radius, a county), or ok=false when the
	// property lacks it.
	Key func(p *providers.Property, o Options) (key string, ok bool)
	// Embeds maps a member of this section to another section whose value
	// is embedded under that name when it is configured and available.
	Embeds map[string]string
	// Renames are the members the include form renames, old then new name,
	// pairwise: it reads unambiguously beside the property's own fields.
	Renames []string
	// Cost is what the section adds to the cost of a request including it;
	// its own endpoint costs a record's unit plus Cost, as a GET of the
	// record including it would.
	Cost int
	// Bind adapts a built module to the section (see BindTo): ok is false
	// when the module does not implement the role's interface.
	Bind func(mod any) (fetch FetchFunc, ok bool)
	// Region, when set, says how the section's keys group into regions a
	// module may answer whole (see Region); a module that implements
	// Region.Bind's interface is asked by region, any other key by key.
	Region *Region
	// FromAmenities, when set, binds a module that computes the section's
	// value from the amenities around the point alone (osm-walk's walk
	// score): the service reads or fetches those amenities through their
	// section and hands them over (see Derivation). ok is false for any
	// other module, which Bind serves.
	FromAmenities func(mod any) (d Derivation, ok bool)
}

// Derivation is how a section's value is computed from the amenities
// within Radius metres of the point: Value of them. A request that
// includes the amenities at that radius hands the derived section the
// amenities it read or fetched, so that they are read, fetched and decoded
// once for both; any other reads them through their section, as a request
// does (cache tiers, breaker, coalescing), fetched anew when expired.
type Derivation struct {
	Radius int
	Value  func(a *providers.Amenities) any
}

// FetchFunc asks a provider module for a section's value of p.
type FetchFunc func(ctx context.Context, p *providers.Property, o Options) (any, error)

// Around returns f run under a (f itself when a is nil), through the one
// decorator shape of every provider call (providers.WrapCall).
func (f FetchFunc) Around(a providers.Around) FetchFunc {
	if a == nil {
		return f
	}
	type need struct {
		p *providers.Property
		o Options
	}
	call := providers.WrapCall(a, func(ctx context.Context, n need) (any, error) { return f(ctx, n.p, n.o) })
	return func(ctx context.Context, p *providers.Property, o Options) (any, error) { return call(ctx, need{p, o}) }
}

// Amenity radius bounds and default, in metres: include= uses the default,
// the standalone endpoint takes radius= within the bounds.
const (
	MinRadius     = 500
	MaxRadius     = 5000
	DefaultRadius = 2000
)

// Catalog is every role, in the order sections appear in responses.
var Catalog = []Entry{
	{Role: providers.RoleGeocoder, Required: true},
	{Role: providers.RoleReverseGeocoder, Required: true},
	{
		Role: providers.RoleFlood, Section: providers.SectionFlood, Cost: 1,
		DefaultTTL: 30 * day, Key: pointKey,
		Renames: []string{"zone", "zone_code", "risk_level", "flood_risk_level"},
		Bind: BindTo(func(m providers.FloodProvider, ctx context.Context, p *providers.Property, _ Options) (any, error) {
			return m.Flood(ctx, p.Point())
		}),
	},
	{
		Role: providers.RoleWalkScore, Section: providers.SectionWalkScore, Cost: 1,
		DefaultTTL: 7 * day, Key: pointKey,
		Bind: BindTo(func(m providers.WalkScoreProvider, ctx context.Context, p *providers.Property, _ Options) (any, error) {
			return m.WalkScore(ctx, p.Point(), oneLine(p))
		}),
		FromAmenities: func(mod any) (Derivation, bool) {
			m, ok := mod.(providers.AmenitiesScorer)
			if !ok {
				return Derivation{}, false
			}
			return Derivation{Radius: m.ScoreRadius(), Value: func(a *providers.Amenities) any { return m.ScoreAmenities(a) }}, true
		},
	},
	{
		Role: providers.RoleDemographics, Section: providers.SectionDemographics, Cost: 1,
		DefaultTTL: 365 * day, Key: tractKey,
		Bind: BindTo(func(m providers.DemographicsProvider, ctx context.Context, p *providers.Property, _ Options) (any, error) {
			t, _ := p.Tract()
			return m.Demographics(ctx, t)
		}),
		Region: tractsByState(BindRegion(func(m providers.StateDemographicsProvider, ctx context.Context, state string) (map[string]*providers.Demographics, error) {
			return m.StateDemographics(ctx, state)
		})),
	},
	{
		Role: providers.RoleAmenities, Section: providers.SectionAmenities, Radius: true, Cost: 1,
		DefaultTTL: 7 * day,
		Key: func(p *providers.Property, o Options) (string, bool) {
			return p.Point().Key() + "@" + strconv.Itoa(o.Radius), true
		},
		Bind: BindTo(func(m providers.AmenitiesProvider, ctx context.Context, p *providers.Property, o Options) (any, error) {
			return m.Amenities(ctx, p.Point(), o.Radius)
		}),
	},
	{
		Role: providers.RoleHousing, Section: providers.SectionHousing, Cost: 1,
		DefaultTTL: 365 * day, Key: tractKey,
		Embeds: map[string]string{"fair_market_rents": SectionFairMarketRent},
		Bind: BindTo(func(m providers.HousingProvider, ctx context.Context, p *providers.Property, _ Options) (any, error) {
			t, _ := p.Tract()
			return m.Housing(ctx, t)
		}),
		Region: tractsByState(BindRegion(func(m providers.StateHousingProvider, ctx context.Context, state string) (map[string]*providers.Housing, error) {
			return m.StateHousing(ctx, state)
		})),
	},
	{
		Role: providers.RoleFairMarketRent, Section: SectionFairMarketRent, Internal: true,
		DefaultTTL: 365 * day,
		Key: func(p *providers.Property, _ Options) (string, bool) {
			return p.FIPSCode, len(p.FIPSCode) == 5
		},
		Bind: BindTo(func(m providers.FairMarketRentProvider, ctx context.Context, p *providers.Property, _ Options) (any, error) {
			return m.FairMarketRents(ctx, p.FIPSCode)
		}),
	},
}

// SectionFairMarketRent names the internal section of HUD fair market
// rents, cached per county and embedded in housing.
const SectionFairMarketRent = "fair_market_rent"

const day = 24 * time.Hour

// EntryOf returns the catalogue entry of role.
func EntryOf(role providers.Role) (Entry, bool) {
	for _, e := range Catalog {
		if e.Role == role {
			return e, true
		}
	}
	return Entry{}, false
}

// SectionEntry returns the catalogue entry of the section called name.
func SectionEntry(name string) (Entry, bool) {
	for _, e := range Catalog {
		if e.Section != "" && e.Section == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Roles lists every role, in catalogue order.
func Roles() []providers.Role {
	out := make([]providers.Role, len(Catalog))
	for i, e := range Catalog {
		out[i] = e.Role
	}
	return out
}

// PublicSections lists the sections offered in include=, in response order.
func PublicSections() []string {
	var out []string
	for _, e := range Catalog {
		if e.Section != "" && !e.Internal {
			out = append(out, e.Section)
		}
	}
	return out
}

// CostOf is what including the named sections adds to a request's cost:
// the sum of their entries' Cost (unknown names add nothing).
func CostOf(sections []string) int {
	n := 0
	for _, name := range sections {
		e, _ := SectionEntry(name)
		n += e.Cost
	}
	return n
}

// Module is a built provider module as Config.Add wires it: its name
// (reported as the source of what it produced), the module itself, what
// wraps its calls from outside (a breaker, metrics; nil for none), how
// long its values stay fresh and how an expired one is refreshed
// (Section.Refresh; "" is RefreshBackground).
type Module struct {
	Name    string
	Value   any
	Around  providers.Around
	TTL     time.Duration
	Refresh string
}

// Add wires m into the configuration for role as the catalogue declares
// it: the geocoders become the service's, every other role a section with
// its natural key and fetch, every call of it run under m.Around. A module that reshaped its stored values
// (providers.SectionUpgrader) has them read in the new shape; one that
// moves on to newer data releases (providers.Superseder) has values of an
// older release refreshed. It fails when the role is unknown, m does not
// implement the role's interface, or m.Refresh is not a refresh mode.
func (c *Config) Add(role providers.Role, m Module) error {
	e, ok := EntryOf(role)
	if !ok {
		return fmt.Errorf("unknown role %q", role)
	}
	wrong := fmt.Errorf("module %s cannot serve as %s", m.Name, role)
	switch role {
	case providers.RoleGeocoder:
		g, ok := m.Value.(providers.Geocoder)
		if !ok {
			return wrong
		}
		c.Geocoder, c.GeocoderName = providers.GeocoderFunc(providers.WrapCall(m.Around, g.Geocode)), m.Name
		return nil
	case providers.RoleReverseGeocoder:
		r, ok := m.Value.(providers.ReverseGeocoder)
		if !ok {
			return wrong
		}
		c.Reverse, c.ReverseName = providers.ReverseGeocoderFunc(providers.WrapCall(m.Around, r.Reverse)), m.Name
		return nil
	}
	if e.Bind == nil {
		return wrong
	}
	if m.Refresh != "" && m.Refresh != RefreshBackground && m.Refresh != RefreshSync {
		return fmt.Errorf("module %s: refresh %q is neither %s nor %s", m.Name, m.Refresh, RefreshBackground, RefreshSync)
	}
	fetch, ok := e.Bind(m.Value)
	if !ok {
		return wrong
	}
	sec := &Section{Name: e.Section, Source: m.Name, TTL: m.TTL, Refresh: m.Refresh, Key: e.Key}
	if e.FromAmenities != nil {
		if d, ok := e.FromAmenities(m.Value); ok {
			sec.FromAmenities, fetch = &d, sec.derive
		}
	}
	sec.Fetch = fetch.Around(m.Around)
	if u, ok := m.Value.(providers.SectionUpgrader); ok {
		sec.Upgrade = u.UpgradeSection
	}
	if v, ok := m.Value.(providers.Superseder); ok {
		sec.Supersedes = v.Supersedes
	}
	if e.Region != nil {
		if fr, ok := e.Region.Bind(m.Value); ok {
			sec.Region, sec.FetchRegion = e.Region, fr.Around(m.Around)
		}
	}
	if c.Sections == nil {
		c.Sections = map[string]*Section{}
	}
	c.Sections[e.Section] = sec
	return nil
}

// BindTo makes an Entry.Bind from a fetch written against the role's
// module interface M.
func BindTo[M any](f func(m M, ctx context.Context, p *providers.Property, o Options) (any, error)) func(any) (FetchFunc, bool) {
	return func(mod any) (FetchFunc, bool) {
		m, ok := mod.(M)
		if !ok {
			return nil, false
		}
		return func(ctx context.Context, p *providers.Property, o Options) (any, error) { return f(m, ctx, p, o) }, true
	}
}

func pointKey(p *providers.Property, _ Options) (string, bool) {
	return p.Point().Key(), true
}

func tractKey(p *providers.Property, _ Options) (string, bool) {
	t, ok := p.Tract()
	return t.GEOID(), ok
}

// tractsByState is the Region of a section keyed by tract GEOID whose
// module may answer every tract of a state at once (bind): the region of
// a tract is its state's FIPS code, and a tract the state's answer lacks
// is one the source has no figures for.
func tractsByState(bind func(any) (RegionFetchFunc, bool)) *Region {
	return &Region{
		Kind: RegionState,
		Of: func(key string) (string, bool) {
			if len(key) != 11 || strings.Trim(key, "0123456789") != "" {
				return "", false
			}
			return key[:2], true
		},
		Absent: func(key string) *providers.Error {
			return providers.NotFound(providers.CodeTractNotFound, "the source has no figures for census tract "+key)
		},
		Bind: bind,
	}
}

// oneLine is the record's address as one line, for upstreams that want it.
func oneLine(p *providers.Property) string {
	parts := []string{}
	for _, s := range []string{p.StreetAddress, p.City, strings.TrimSpace(p.State + " " + p.ZipCode)} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}
