package providers

import (
	"context"
)

// Geocoder turns a postal address into a canonical Location.
//
// Geocode returns ErrNoMatch (KindNotFound, code address_not_found) when the
// upstream matched nothing, KindUnreachable (upstream_unreachable) when no
// connection to the upstream could be made, KindUpstream for an upstream
// error or an unparseable answer, KindTimeout when ctx expired, KindCanceled
// when the caller went away. Implementations are safe for concurrent use.
type Geocoder interface {
	Geocode(ctx context.Context, a Address) (Location, error)
}

// MatchGeocoder is implemented by a geocoder that can match an address
// without finding its census geographies (the Census geocoder's locations
// searches): where the county and tract boundaries are loaded, the service
// finds them at the matched point itself, and the upstream is asked only
// for what no file holds, the address's match.
//
// GeocodeMatch answers as Geocode does, with the same matches in the same
// order, but every Location (Others too) has County, FIPSCode and
// CensusTract empty. Errors as for Geocoder. Implementations are safe for
// concurrent use.
type MatchGeocoder interface {
	GeocodeMatch(ctx context.Context, a Address) (Location, error)
}

// ReverseGeocoder finds the census geographies of a coordinate. The returned
// Location has no address. Errors as for Geocoder; a point outside any county
// is KindNotFound with code location_not_found.
type ReverseGeocoder interface {
	Reverse(ctx context.Context, p Point) (Location, error)
}

// FloodProvider reports the flood hazard at a point. A point with no mapped
// polygon is not an error: it returns RiskUndetermined.
type FloodProvider interface {
	Flood(ctx context.Context, p Point) (*Flood, error)
}

// SectionUpgrader is implemented by a module whose section values, as an
// older version of propertyd stored them, are not in the shape it returns
// now. The service keeps values as JSON for their TTL, and serves them stale
// past it, so without an upgrade it would keep serving the old shape long
// after the new binary started. UpgradeSection returns data in the current
// shape; a value that is current, or that it does not know, comes back as
// is. It cannot fail. It is called on every stored value read, so it must
// recognize a current value cheaply. Implementations are safe for
// concurrent use.
type SectionUpgrader interface {
	UpgradeSection(data []byte) []byte
}

// Superseder is implemented by a module whose data comes in releases
// (vintages) and that moves on to a newer release while it runs: the ACS
// modules follow the newest 5-year release the upstream publishes. The
// service keeps a value with the vintage its Provenance reported and treats
// it as expired once the module supersedes that vintage, so it is refreshed
// (served stale meanwhile) instead of being served until its TTL runs out.
//
// Supersedes reports whether the release the module serves now is newer
// than vintage; false when it cannot tell (no release known yet, a vintage
// it does not recognize). It is called on every stored value read, so it
// must be cheap and never make its caller wait on the upstream (it may
// start learning of a new release in the background). Implementations are
// safe for concurrent use.
type Superseder interface {
	Supersedes(vintage string) bool
}

// DemographicsProvider reports tract-level demographics.
type DemographicsProvider interface {
	Demographics(ctx context.Context, t Tract) (*Demographics, error)
}

// AmenitiesProvider lists points of interest within radiusMeters of p.
type AmenitiesProvider interface {
	Amenities(ctx context.Context, p Point, radiusMeters int) (*Amenities, error)
}

// WalkScoreProvider scores the walkability of a place. address may be empty.
type WalkScoreProvider interface {
	WalkScore(ctx context.Context, p Point, address string) (*WalkScore, error)
}

// AmenitiesScorer is implemented by a walk score module that computes its
// score from the amenities around the point alone, calling no upstream of
// its own (osm-walk). The service then reads or fetches the amenities
// within ScoreRadius through their own section and hands them to
// ScoreAmenities, rather than the module asking for them again: a request
// including both sections reads, fetches and decodes the amenities once.
// a may be shared with other callers and must not be changed.
// Implementations are safe for concurrent use.
type AmenitiesScorer interface {
	ScoreRadius() int
	ScoreAmenities(a *Amenities) *WalkScore
}

// HousingProvider reports tract-level housing figures.
type HousingProvider interface {
	Housing(ctx context.Context, t Tract) (*Housing, error)
}

// StateDemographicsProvider is implemented by a demographics module whose
// upstream answers every tract of a state in one call. The service then
// asks it once per state instead of once per tract (see service.Region), so
// an import over thousands of tracts costs a call per state, not per tract.
//
// StateDemographics returns the demographics of every tract of the state
// with two-digit FIPS code state, keyed by the tract's 11-digit GEOID. A
// tract the answer lacks is one the upstream has no figures for (what
// Demographics answers KindNotFound, tract_not_found); a state with no
// tracts at all is an empty map, not an error. Other errors as for
// Demographics. Implementations are safe for concurrent use.
type StateDemographicsProvider interface {
	StateDemographics(ctx context.Context, state string) (map[string]*Demographics, error)
}

// StateHousingProvider is StateDemographicsProvider for the housing
// figures: StateHousing returns those of every tract of a state, keyed by
// GEOID, as Housing would return them one by one.
type StateHousingProvider interface {
	StateHousing(ctx context.Context, state string) (map[string]*Housing, error)
}

// FairMarketRentProvider reports HUD fair market rents for a county, given
// its five-digit FIPS code.
type FairMarketRentProvider interface {
	FairMarketRents(ctx context.Context, countyFIPS string) (*FairMarketRents, error)
}
