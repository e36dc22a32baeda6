package service

import (
	"context"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// Defaults of Config, stated once: the service's configuration applies
// them too.
const (
	DefaultMissTTL       = time.Hour
	DefaultReverseRadius = 50.0 // metres
	// DefaultAddressPointRadius is how far (metres) the nearest address
	// point of a loaded OpenStreetMap extract may be from a reverse
	// lookup's point to give the record it creates its address: about the
	// width of a city lot, so that the point names the building it is on
	// or the next one, not a house down the street.
	DefaultAddressPointRadius = 30.0
	// DefaultRefreshConcurrency bounds the background refreshes of
	// expired sections in flight across the service.
	DefaultRefreshConcurrency = 8
	// DefaultRefreshRetry is how long a value whose background refresh
	// failed is served stale before it is tried again, when the failure
	// did not say (an open breaker says how long it stays open).
	DefaultRefreshRetry = 30 * time.Second
)

// Config is what a Service is built from. Geocoder and Store are required.
type Config struct {
	Store providers.Store

	Geocoder     providers.Geocoder
	GeocoderName string // module name, reported as the record's source

	Reverse     providers.ReverseGeocoder
	ReverseName string

	// MissTTL is how long a spelling the geocoder could not match is
	// answered 404 without asking again (default 1h; negative: never). The
	// miss is kept in the store, so a restart or another instance on the
	// same database does not ask again either.
	MissTTL time.Duration
	// ReverseRadius is how far (metres) an existing record may be from a
	// reverse lookup's point to be returned instead of a new one (default 50).
	ReverseRadius float64
	// AddressPoints, when set, gives a record created by a reverse lookup
	// the street, city and ZIP of the nearest address point of a loaded
	// OpenStreetMap extract within AddressPointRadius (default
	// DefaultAddressPointRadius); the reverse geocoder still gives its
	// state, county and tract. Nil leaves such records without an
	// address, as the reverse geocoder answers none.
	AddressPoints      providers.AddressPoints
	AddressPointRadius float64
	// BatchConcurrency bounds the lookups of one batch in flight (default
	// MaxBatch: a full batch costs one upstream round trip; the outbound
	// limits of each provider still pace the upstreams).
	BatchConcurrency int

	// Leases, when set, makes the instances sharing a store also share
	// each upstream call: see Leases. Nil coalesces within this instance
	// only.
	Leases Leases

	// Sections are the enrichment sections by name; see Section. Add
	// fills them from built modules as the catalogue declares each.
	Sections map[string]*Section
	// RefreshConcurrency bounds the background refreshes of expired
	// values in flight across the service (default
	// DefaultRefreshConcurrency). When every slot is taken, an expired
	// value is served stale without starting one; a later request for it
	// does. Each refresh is paced by its module's outbound limits too.
	RefreshConcurrency int
	// RefreshRetry is how long after a failed background refresh the value
	// is served stale without trying again, unless the failure carries a
	// Retry-After (default DefaultRefreshRetry).
	RefreshRetry time.Duration

	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Logger receives section failures (never addresses or keys); nil
	// discards them.
	Logger *slog.Logger
}

// Leases hands out, across the instances of a fleet, the right to make
// the upstream call of one natural key ("geo:<lookup key>",
// "rev:<point>", "sec:<section>:<natural key>", and
// "region:<section>:<region>" for a region loaded whole, see Region), so
// that concurrent first
// requests spread over instances make one call. Within an instance calls
// are already coalesced; a lease only decides which instance calls.
//
// Lease blocks until this instance holds key's lease or ctx ends, and
// returns the function that gives it back. An instance that waited then
// finds the holder's result in the store (with Leases, every shared call
// reads the store again first, past memory) and makes no call. Lease must not fail a request for want of its
// own backing service: when it cannot coordinate it returns at once as
// held. Its only error is ctx's. Implementations must be safe for
// concurrent use.
type Leases interface {
	Lease(ctx context.Context, key string) (release func(), err error)
}

// Service resolves and enriches property records. Safe for concurrent use.
// Close stops its background refreshes.
type Service struct {
	cfg   Config
	reads providers.Reads // the store's reads, through its tiers
	fl    flights
	bg    refresher
}

// New returns a Service; it applies Config defaults.
func New(cfg Config) *Service {
	if cfg.MissTTL == 0 {
		cfg.MissTTL = DefaultMissTTL
	}
	if cfg.ReverseRadius <= 0 {
		cfg.ReverseRadius = DefaultReverseRadius
	}
	if cfg.AddressPointRadius <= 0 {
		cfg.AddressPointRadius = DefaultAddressPointRadius
	}
	if cfg.BatchConcurrency <= 0 {
		cfg.BatchConcurrency = MaxBatch
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.RefreshConcurrency <= 0 {
		cfg.RefreshConcurrency = DefaultRefreshConcurrency
	}
	if cfg.RefreshRetry <= 0 {
		cfg.RefreshRetry = DefaultRefreshRetry
	}
	s := &Service{cfg: cfg, reads: providers.ReadsOf(cfg.Store)}
	s.fl.leases = cfg.Leases
	s.fl.ended.init()
	s.fl.misses = misses{store: cfg.Store, reads: s.reads.Section, fleet: cfg.Leases != nil, ttl: cfg.MissTTL,
		now: cfg.Now, source: cfg.GeocoderName, logger: cfg.Logger}
	s.bg.init(cfg.RefreshConcurrency)
	for _, sec := range cfg.Sections {
		sec.svc = s
		// A section embeds what its catalogue entry names, of what is
		// configured (housing carries the fair market rents when a module
		// serves them).
		if e, ok := SectionEntry(sec.Name); ok && sec.Embed == nil {
			for member, other := range e.Embeds {
				if _, on := cfg.Sections[other]; on {
					if sec.Embed == nil {
						sec.Embed = map[string]string{}
					}
					sec.Embed[member] = other
				}
			}
		}
	}
	return s
}

// Source names where a lookup's record came from.
type Source struct {
	// Geocoder is the module that produced the record (its Source).
	Geocoder string
	// Created is true when this call created the record.
	Created bool
	// Tier is where the record came from: TierMemory, TierDatabase, or
	// TierUpstream when a geocoder had to be asked. Metrics and the
	// request log count it.
	Tier string
	// Calls is the HTTP requests this call sent upstream for the record
	// (see providers.Calls), also when it failed: the request log counts
	// them, and a request that made some is not free.
	Calls int
	// Match is how the record was matched to this call's address or
	// point (meta.match: address_point for a record a reverse lookup
	// made from an address point of a loaded extract); zero for a Get,
	// whose record keeps how it was first matched (Property.Match).
	Match providers.Match
}

// Get returns the record with id: KindNotFound (property_not_found).
func (s *Service) Get(ctx context.Context, id int64) (*providers.Property, Source, error) {
	p, tier, err := s.reads.Property.Get(ctx, id)
	if err != nil {
		return nil, Source{}, err
	}
	return p, Source{Geocoder: p.Source, Tier: tier}, nil
}

// Search returns a page of records and the total; KindInvalid for bad paging.
func (s *Service) Search(ctx context.Context, f providers.SearchFilter) ([]providers.Property, int, error) {
	return s.cfg.Store.Search(ctx, f)
}

// Reverse returns the nearest existing record within the configured radius
// of p, or reverse geocodes p and creates a record holding its coordinates
// and census geographies, and the address of the nearest address point of
// a loaded extract when Config.AddressPoints has one within
// AddressPointRadius (Source.Match says so). Errors: KindInvalid for out-of-range coordinates,
// KindNotFound (location_not_found) outside any county, and upstream kinds.
func (s *Service) Reverse(ctx context.Context, p providers.Point) (*providers.Property, Source, error) {
	if err := ValidatePoint(p); err != nil {
		return nil, Source{}, err
	}
	pk := p.Key()
	note := s.fl.note(pk)
	if rec, err := s.cfg.Store.Nearest(ctx, p, s.cfg.ReverseRadius); err == nil {
		return rec, Source{Geocoder: rec.Source, Tier: providers.TierDatabase, Match: nearestMatch(p, rec)}, nil
	} else if providers.KindOf(err) != providers.KindNotFound {
		return nil, Source{}, err
	}
	if s.cfg.Reverse == nil {
		return nil, Source{}, providers.Errorf(providers.KindUnavailable, providers.CodeUpstreamUnavailable, "no reverse geocoder is configured")
	}
	l, err := fly(&s.fl, ctx, context.WithoutCancel(ctx), trip[geocoded]{
		key: "rev:" + pk, note: note,
		// A trip that ended since the read may have created a record
		// nearby.
		recheck: func(ctx context.Context) (geocoded, bool) {
			rec, err := s.cfg.Store.Nearest(ctx, p, s.cfg.ReverseRadius)
			return geocoded{p: rec}, err == nil
		},
		fetch: func(ctx context.Context) (geocoded, string, error) {
			loc, err := s.cfg.Reverse.Reverse(ctx, p)
			if err != nil {
				return geocoded{}, providers.TierUpstream, err
			}
			now := s.cfg.Now().UTC()
			prop := providers.Property{
				State: loc.State, County: loc.County, FIPSCode: loc.FIPSCode, CensusTract: loc.CensusTract,
				Latitude: p.Lat, Longitude: p.Lng, Source: s.cfg.ReverseName, CreatedAt: now, UpdatedAt: now,
			}
			m := s.addressPoint(ctx, p, &prop)
			prop.Match = m.Text()
			rec, created, err := s.cfg.Store.Save(ctx, providers.NewProperty{Property: prop})
			return geocoded{p: rec, created: created, match: m}, providers.TierUpstream, err
		},
	})
	if err != nil {
		return nil, Source{Calls: l.calls}, err
	}
	m := l.val.match
	if m.Type == "" {
		m = nearestMatch(p, l.val.p)
	}
	return l.val.p, Source{Geocoder: l.val.p.Source, Created: l.val.created && l.led, Tier: l.tier, Calls: l.calls, Match: m}, nil
}

// reverseMatch is the match of a record the reverse geocoder made.
var reverseMatch = providers.Match{Type: providers.MatchReverseGeocode}

// nearestMatch is the match of the stored record rec answering a reverse
// lookup of p: nearest_record, with the distance (whole metres).
func nearestMatch(p providers.Point, rec *providers.Property) providers.Match {
	d := providers.Circle{Center: p}.Distance(rec.Point())
	return providers.Match{Type: providers.MatchNearestRecord, MatchedAddress: recordAddress(rec), DistanceM: &d}
}

// addressPoint gives prop, a record the reverse geocoder made for p, the
// address of the nearest address point of a loaded extract within
// AddressPointRadius whose address it can use (pointAddress), and returns
// the match saying so: address_point, with the distance and the address
// point's address as OpenStreetMap writes it; reverse_geocode when there
// is none. A nearer point whose address cannot be used is passed over for
// the next within the radius. The record keeps no canonical address and no lookup key: it is
// still identified by its coordinates, and a forward lookup of the same
// address asks the geocoder, whose match is the record of that address.
// An extract that cannot be read leaves the record without an address (the
// reverse lookup does not fail for it); the failure is logged.
func (s *Service) addressPoint(ctx context.Context, p providers.Point, prop *providers.Property) providers.Match {
	if s.cfg.AddressPoints == nil || prop.State == "" {
		return reverseMatch
	}
	usable := func(a providers.OSMAddress) bool {
		_, ok := pointAddress(a, prop.State)
		return ok
	}
	_, a, d, err := s.cfg.AddressPoints.OSMAddressNearest(ctx, p, s.cfg.AddressPointRadius, usable)
	if err != nil {
		if providers.KindOf(err) != providers.KindNotFound {
			s.cfg.Logger.Warn("reading the address points of the OpenStreetMap extracts", "error", err)
		}
		return reverseMatch
	}
	n, ok := pointAddress(a, prop.State)
	if !ok {
		return reverseMatch // an AddressPoints that did not ask usable
	}
	prop.StreetAddress, prop.City, prop.ZipCode = n.Street, n.City, n.Zip
	d = math.Round(d)
	written := a.HouseNumber + " " + a.Street
	for _, part := range []string{a.City, a.Postcode} {
		if part != "" {
			written += ", " + part
		}
	}
	return providers.Match{Type: providers.MatchAddressPoint, MatchedAddress: written, DistanceM: &d}
}

// pointAddress is the address an address point a gives a record of state:
// its own spelling, in the standard form of every record's address, with
// the ZIP code its addr:postcode gives (pointZip). ok is false when the
// point cannot give one: its postcode is no US form or names another
// state, or its house number and street do not normalize, or they name a
// unit (the point asked names a building, not one of its dwellings; an
// addr:unit apart is left out for the same reason).
func pointAddress(a providers.OSMAddress, state string) (n address.Normalized, ok bool) {
	zip, ok := pointZip(a.Postcode, state)
	if !ok {
		return n, false
	}
	n, err := address.Normalize(providers.Address{Street: a.HouseNumber + " " + a.Street, City: a.City,
		State: state, Zip: zip})
	if err != nil || n.Unit != "" {
		return n, false
	}
	return n, true
}

// pointZip reads an address point's addr:postcode as the ZIP code of a
// record of state, in the forms OpenStreetMap's US data writes it:
//
//	""                          no ZIP code (ok)
//	11423, 11423-1234           11423
//	NY 11423, New York 11423    11423, when the state is the record's; a
//	                            point of another state is not usable
//	11423;11426                 several values (the wiki's ";"): their ZIP
//	                            code when they agree, else none (ok: the
//	                            number and street still name the building,
//	                            as a point without a postcode does)
//	V6J 3Y4, anything else      not usable: no US postcode (a Canadian
//	                            postal code is another country's address)
func pointZip(postcode, state string) (zip string, ok bool) {
	ambiguous := false
	for v := range strings.SplitSeq(postcode, ";") {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		z, ok := oneZip(v, state)
		if !ok {
			return "", false
		}
		if zip != "" && z != zip {
			ambiguous = true
		}
		zip = z
	}
	if ambiguous {
		return "", true
	}
	return zip, true
}

// oneZip is pointZip of one value, not empty.
func oneZip(v, state string) (string, bool) {
	if z, ok := address.ZipCode(v); ok {
		return z, true
	}
	i := strings.LastIndexAny(v, " ,")
	if i <= 0 {
		return "", false
	}
	z, ok := address.ZipCode(v[i+1:])
	if !ok {
		return "", false
	}
	named, ok := address.StateCode(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(v[:i]), ",")))
	if !ok {
		return "", false
	}
	if own, ok := address.StateCode(state); !ok || own != named {
		return "", false
	}
	return z, true
}

// ValidatePoint checks that p is a WGS84 coordinate.
func ValidatePoint(p providers.Point) error {
	var errs []providers.ParamError
	if !(p.Lat >= -90 && p.Lat <= 90) {
		errs = append(errs, providers.ParamError{Parameter: "lat", Message: "must be a number between -90 and 90"})
	}
	if !(p.Lng >= -180 && p.Lng <= 180) {
		errs = append(errs, providers.ParamError{Parameter: "lng", Message: "must be a number between -180 and 180"})
	}
	if len(errs) > 0 {
		return &providers.Error{Kind: providers.KindInvalid, Code: providers.CodeInvalidParameter,
			Message: "invalid coordinates", Params: errs}
	}
	return nil
}
