package core

import (
	"context"
	"encoding/json"
	"hash/maphash"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"golang.org/x/sync/singleflight"
)

// Defaults of Config, stated once: the service's configuration applies
// them too.
const (
	DefaultMissTTL       = time.Hour
	DefaultReverseRadius = 50.0 // metres
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
	cfg    Config
	reads  providers.Reads // the store's reads, through its tiers
	flight singleflight.Group
	ended  flightsEnded
	bg     refresher
}

// New returns a Service; it applies Config defaults.
func New(cfg Config) *Service {
	if cfg.MissTTL == 0 {
		cfg.MissTTL = DefaultMissTTL
	}
	if cfg.ReverseRadius <= 0 {
		cfg.ReverseRadius = DefaultReverseRadius
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
	s.ended.init()
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
}

// Get returns the record with id: KindNotFound (property_not_found).
func (s *Service) Get(ctx context.Context, id int64) (*providers.Property, error) {
	p, tier, err := s.reads.Property.Get(ctx, id)
	if err == nil {
		served(ctx, providers.ReadRecord, tier)
	}
	return p, err
}

// Search returns a page of records and the total; KindInvalid for bad paging.
func (s *Service) Search(ctx context.Context, f providers.SearchFilter) ([]providers.Property, int, error) {
	return s.cfg.Store.Search(ctx, f)
}

// Lookup resolves a client-typed address to its record, creating it on
// first sight through the geocoder. The normalized address is the identity:
// a spelling seen before, or another spelling of an address seen before,
// costs no upstream call, and concurrent first lookups of one address make
// one geocoder call. The geocoder itself is sent the building as the client
// wrote it (address.Normalized.Building), since normalizing drops what it
// matches on, such as the apostrophe TIGER keeps in "O'BRIEN".
//
// Errors: KindInvalid (bad fields), KindUnprocessable (not_a_property for PO
// boxes), KindNotFound (address_not_found), and the geocoder's upstream kinds.
func (s *Service) Lookup(ctx context.Context, a providers.Address) (*providers.Property, Source, error) {
	n, err := address.Normalize(a)
	if err != nil {
		return nil, Source{}, err
	}
	return s.lookupNormalized(ctx, n)
}

func (s *Service) lookupNormalized(ctx context.Context, n address.Normalized) (*providers.Property, Source, error) {
	key := n.Key()
	seen := s.ended.before(key)
	if p, tier, err := s.reads.ByKey.Get(ctx, key); err == nil {
		served(ctx, providers.ReadRecord, tier)
		return p, Source{Geocoder: p.Source}, nil
	} else if providers.KindOf(err) != providers.KindNotFound {
		return nil, Source{}, err
	}
	sent := n.Building()
	// ran is set when this lookup's own function ran the call, not one it
	// joined: only that lookup created the record (the flight's goroutine
	// writes it before the result is sent, which this one then receives).
	ran := false
	geocode := func(ctx context.Context, recheck bool) (any, error) { ran = true; return s.geocode(ctx, n, recheck) }
	v, err := s.shared(ctx, "geo:"+key, key, seen, geocode)
	if missed, ok := otherMiss(v, err, sent); ok {
		// The flight this lookup joined asked with another spelling of the
		// address, which the geocoder could not match; ours may match (it
		// has the apostrophe the other left out). The lookups that joined
		// that flight share the next one, keyed by the spelling that
		// missed, which the first of them leads with its own: one more
		// call for all of them, not one each.
		v, err = s.shared(ctx, "geo:"+key+missKey(missed), key, seen, geocode)
		if _, ok := otherMiss(v, err, sent); ok {
			// Its spelling missed too, and it was not ours: ours is asked
			// in a flight keyed by our own spelling, which only this
			// lookup or a miss of that very spelling starts.
			v, err = s.shared(ctx, "geo:"+key+missKey(sent), key, seen, geocode)
		}
	}
	if err != nil {
		return nil, Source{}, err
	}
	r := v.(geocoded)
	tier := providers.TierUpstream
	if !r.called {
		tier = providers.TierDatabase
	}
	served(ctx, providers.ReadRecord, tier)
	return r.p, Source{Geocoder: r.p.Source, Created: r.created && ran}, nil
}

// otherMiss reports the spelling a shared geocoding sent, when it was not
// sent (the lookup's own) and the geocoder could not match it.
func otherMiss(v any, err error, sent providers.Address) (providers.Address, bool) {
	g, ok := v.(geocoded)
	if !ok || g.sent == sent || providers.CodeOf(err) != providers.ErrNoMatch.Code {
		return providers.Address{}, false
	}
	return g.sent, true
}

// geocoded is what one geocoding of an address gives the lookups sharing it:
// the record (nil on error), whether it was created, and the building sent
// to the geocoder, so a lookup that joined with another spelling knows.
type geocoded struct {
	p       *providers.Property
	created bool
	called  bool // the geocoder was asked (not a record or miss stored meanwhile)
	sent    providers.Address
}

// geocode sends n's building as written to the geocoder and saves the
// record of its match, unless the spelling sent is a remembered miss. A
// no-match is remembered for the building sent. With recheck (see shared)
// the record is read again first, since a flight that ended after the
// caller's read may have saved it.
func (s *Service) geocode(ctx context.Context, n address.Normalized, recheck bool) (geocoded, error) {
	key, sent := n.Key(), n.Building()
	if recheck {
		if p, _, err := providers.Reload(ctx, s.reads.ByKey, key); err == nil {
			return geocoded{p: p, sent: sent}, nil
		}
	}
	if s.missed(ctx, sent) {
		return geocoded{sent: sent}, providers.ErrNoMatch
	}
	loc, err := s.cfg.Geocoder.Geocode(ctx, sent)
	if err != nil {
		if providers.CodeOf(err) == providers.ErrNoMatch.Code {
			s.rememberMiss(ctx, sent)
		}
		return geocoded{sent: sent, called: true}, err
	}
	p, created, err := s.cfg.Store.Save(ctx, NewRecord(loc, n, s.cfg.GeocoderName, s.cfg.Now()))
	if err != nil {
		return geocoded{sent: sent, called: true}, err
	}
	return geocoded{p: p, created: created, called: true, sent: sent}, nil
}

// missKey tells apart, in memory, the buildings a, exactly as sent to the
// geocoder: its answer depends on the spelling sent, not only on the
// address's identity, so a spelling that missed ("42 OBrien Ct") does not
// keep another that matches ("42 O'Brien Ct") from being asked. Fields are
// separated by a control character, which no field can hold
// (address.Normalize rejects them).
func missKey(a providers.Address) string {
	return "miss:\x00" + a.Street + "\x00" + a.City + "\x00" + a.State + "\x00" + a.Zip
}

// missSection is the store's section under which geocoder misses are kept,
// as Missing records keyed by the spelling sent (missStoreKey), expiring
// after MissTTL. It is no section of a response.
const missSection = "geocoder_miss"

// missStoreKey is missKey as the store keeps it: text both engines take
// (PostgreSQL refuses a NUL in text), one JSON array of the four fields.
func missStoreKey(a providers.Address) string {
	b, _ := json.Marshal([4]string{a.Street, a.City, a.State, a.Zip})
	return string(b)
}

// missed reports whether the geocoder was asked for the building a, as
// spelt, within MissTTL and matched nothing. A store that fails to answer
// is taken as no: the geocoder is asked. It is read once per flight (see
// geocode), as another instance may have remembered it meanwhile.
func (s *Service) missed(ctx context.Context, a providers.Address) bool {
	if s.cfg.MissTTL < 0 {
		return false
	}
	id := providers.SectionID{Section: missSection, Key: missStoreKey(a)}
	var r *providers.SectionRecord
	var err error
	if s.cfg.Leases != nil {
		// Another instance may have remembered it behind this one's
		// memory. Alone, memory serves: this runs for every lookup of an
		// unmatched spelling.
		r, _, err = providers.Reload(ctx, s.reads.Section, id)
	} else {
		r, _, err = s.reads.Section.Get(ctx, id)
	}
	return err == nil && r.Missing && s.cfg.Now().Before(r.ExpiresAt)
}

// rememberMiss keeps, for MissTTL, that the geocoder matched nothing for
// the building a as spelt. Failing to remember costs only a later call, so
// a store error is logged, not returned.
func (s *Service) rememberMiss(ctx context.Context, a providers.Address) {
	if s.cfg.MissTTL < 0 {
		return
	}
	now := s.cfg.Now().UTC().Truncate(time.Millisecond)
	data, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{providers.ErrNoMatch.Code, providers.ErrNoMatch.Message})
	err := s.cfg.Store.PutSection(ctx, providers.SectionRecord{Section: missSection, Key: missStoreKey(a), Data: data,
		Source: s.cfg.GeocoderName, FetchedAt: now, ExpiresAt: now.Add(s.cfg.MissTTL), Missing: true})
	if err != nil {
		s.cfg.Logger.Warn("could not remember a geocoder miss", "error", err.Error())
	}
}

// NewRecord is the record to save for a geocoder match of the normalized
// client address n: the match's fields with the client's unit, made by
// source at now. It is identified by the canonical (matched) address and
// unit, and reached from then on by the client's lookup key and the key of
// the geocoder's own spelling. Lookup and bulk imports both build records
// with it, so each finds the records the other made.
func NewRecord(loc providers.Location, n address.Normalized, source string, now time.Time) providers.NewProperty {
	key := n.Key()
	keys := []string{key}
	if ck := canonicalKey(loc, n.Unit); ck != "" && ck != key {
		keys = append(keys, ck)
	}
	now = now.UTC()
	return providers.NewProperty{
		Property: providers.Property{
			StreetAddress: loc.Street, Unit: n.Unit, City: loc.City, State: loc.State, ZipCode: loc.Zip,
			County: loc.County, FIPSCode: loc.FIPSCode, CensusTract: loc.CensusTract,
			Latitude: loc.Point.Lat, Longitude: loc.Point.Lng,
			Source: source, CreatedAt: now, UpdatedAt: now,
		},
		Canonical: address.Canonical(loc.MatchedAddress),
		Keys:      keys,
	}
}

// canonicalKey is the lookup key of the geocoder's own spelling, so a client
// that later types the canonical address finds the record without a call.
func canonicalKey(loc providers.Location, unit string) string {
	n, err := address.Normalize(providers.Address{Street: loc.Street, City: loc.City, State: loc.State, Zip: loc.Zip})
	if err != nil {
		return ""
	}
	n.Unit = unit
	return n.Key()
}

// Reverse returns the nearest existing record within the configured radius
// of p, or reverse geocodes p and creates a record holding its coordinates
// and census geographies. Errors: KindInvalid for out-of-range coordinates,
// KindNotFound (location_not_found) outside any county, and upstream kinds.
func (s *Service) Reverse(ctx context.Context, p providers.Point) (*providers.Property, Source, error) {
	if err := ValidatePoint(p); err != nil {
		return nil, Source{}, err
	}
	pk := p.Key()
	seen := s.ended.before(pk)
	if rec, err := s.cfg.Store.Nearest(ctx, p, s.cfg.ReverseRadius); err == nil {
		served(ctx, providers.ReadRecord, providers.TierDatabase)
		return rec, Source{Geocoder: rec.Source}, nil
	} else if providers.KindOf(err) != providers.KindNotFound {
		return nil, Source{}, err
	}
	if s.cfg.Reverse == nil {
		return nil, Source{}, providers.Errorf(providers.KindUnavailable, providers.CodeUpstreamUnavailable, "no reverse geocoder is configured")
	}
	type result struct {
		rec     *providers.Property
		created bool
		tier    string // where rec came from
	}
	ran := false // as in Lookup: only the caller whose call ran created the record
	v, err := s.shared(ctx, "rev:"+pk, pk, seen, func(ctx context.Context, recheck bool) (any, error) {
		ran = true
		// A flight that ended since the read may have created a record
		// nearby.
		if recheck {
			if rec, err := s.cfg.Store.Nearest(ctx, p, s.cfg.ReverseRadius); err == nil {
				return result{rec, false, providers.TierDatabase}, nil
			}
		}
		loc, err := s.cfg.Reverse.Reverse(ctx, p)
		if err != nil {
			return nil, err
		}
		now := s.cfg.Now().UTC()
		rec, created, err := s.cfg.Store.Save(ctx, providers.NewProperty{Property: providers.Property{
			State: loc.State, County: loc.County, FIPSCode: loc.FIPSCode, CensusTract: loc.CensusTract,
			Latitude: p.Lat, Longitude: p.Lng, Source: s.cfg.ReverseName, CreatedAt: now, UpdatedAt: now,
		}})
		if err != nil {
			return nil, err
		}
		return result{rec, created, providers.TierUpstream}, nil
	})
	if err != nil {
		return nil, Source{}, err
	}
	r := v.(result)
	served(ctx, providers.ReadRecord, r.tier)
	return r.rec, Source{Geocoder: r.rec.Source, Created: r.created && ran}, nil
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

// served counts a value of kind served from tier in the request's
// Observation; a store that reports no tier is the database itself.
func served(ctx context.Context, kind, tier string) {
	if tier == "" {
		tier = providers.TierDatabase
	}
	providers.ObservationFrom(ctx).Served(kind, tier)
}

// shared runs fn once for all concurrent callers with the same key. The
// call runs detached from any one caller's cancellation (its own deadline
// comes from the breaker's timeout), so a client that goes away does not
// fail the others; each caller still stops waiting when its own ctx ends.
// See flightFunc for the lease and the recheck; stripe and seen are the
// caller's (flightsEnded.before), noted before its read missed.
func (s *Service) shared(ctx context.Context, key, stripe string, seen uint64, fn func(ctx context.Context, recheck bool) (any, error)) (any, error) {
	ch := s.flight.DoChan(key, s.flightFunc(context.WithoutCancel(ctx), key, stripe, seen, fn))
	select {
	case r := <-ch:
		return r.Val, r.Err
	case <-ctx.Done():
		return nil, providers.As(ctx.Err())
	}
}

// flightFunc is the function one flight of key runs: fn, under key's lease
// when the service has Leases, so that one instance of the fleet calls at
// a time. fn is told to recheck, reading the store again before calling
// anyone, when a write it cannot see in the caller's read may have
// happened: always in a fleet (another instance may have written while
// this one waited for the lease, or just before), and in one instance
// only when a flight of the caller's stripe ended since the caller's read
// (a flight that finished between the read and this one). So a cold key
// on one instance costs one read, and a fleet two. The stripe's count is
// moved once the flight has written.
func (s *Service) flightFunc(ctx context.Context, key, stripe string, seen uint64, fn func(ctx context.Context, recheck bool) (any, error)) func() (any, error) {
	return func() (any, error) {
		recheck := s.cfg.Leases != nil || s.ended.moved(stripe, seen)
		if s.cfg.Leases != nil {
			release, err := s.cfg.Leases.Lease(ctx, key)
			if err != nil {
				return nil, providers.As(err)
			}
			defer release()
		}
		defer s.ended.end(stripe)
		return fn(ctx, recheck)
	}
}

// flightsEnded counts the flights that ended, per stripe of natural keys
// (a lookup key, a point, a section's key): a caller notes its stripe's
// count before its read (before), and the flight it starts reads again
// only when the count moved since (moved), since only then can a flight
// that wrote what the read missed have ended in between. Keys share a
// stripe by hash; a shared stripe costs a needless read, never a missed
// write.
type flightsEnded struct {
	seed maphash.Seed
	n    [64]atomic.Uint64
}

func (f *flightsEnded) init() { f.seed = maphash.MakeSeed() }

func (f *flightsEnded) stripe(key string) *atomic.Uint64 {
	return &f.n[maphash.String(f.seed, key)%uint64(len(f.n))]
}

// before returns key's stripe count, to note before reading key.
func (f *flightsEnded) before(key string) uint64 { return f.stripe(key).Load() }

// moved reports whether a flight of key's stripe ended since before
// returned seen.
func (f *flightsEnded) moved(key string, seen uint64) bool { return f.stripe(key).Load() != seen }

// end counts a flight of key's stripe that ended, after its writes.
func (f *flightsEnded) end(key string) { f.stripe(key).Add(1) }
