package providers

import "context"

// BatchGeocoder is the optional bulk form of Geocoder, for imports of many
// addresses: one upstream call geocodes thousands of addresses where
// Geocode would make one call each. A geocoder module implements it when
// its upstream has a batch endpoint; callers find out with a type assertion
// on the module and fall back to nothing (the import needs it).
//
// GeocodeAll returns one BatchMatch per address, in the order of addrs, and
// makes as few upstream calls as the upstream's batch size limit allows (no
// addresses, no call). The outcome of one address (no match, several
// matches) is in its BatchMatch; the error is for the call as a whole:
// KindUnreachable when no connection to the upstream could be made,
// KindUpstream when the upstream fails or its answer cannot be read,
// KindTimeout and KindCanceled as for Geocoder, KindInvalid for input the
// upstream would refuse. On error no results are returned.
// Implementations are safe for concurrent use.
type BatchGeocoder interface {
	GeocodeAll(ctx context.Context, addrs []Address) ([]BatchMatch, error)
}

// BatchMatch is the outcome for one address of a batch: a Location when Err
// is nil. A batch answer may carry less than Geocode's: the Census batch
// answer, for one, has no county name, so Location.County may be empty
// (FIPSCode still identifies the county).
type BatchMatch struct {
	Location Location
	// Err is nil for a match and ErrNoMatch when nothing matched. When the
	// upstream matched several candidates, Location is the first and its
	// Others the rest, as Geocoder gives them: the caller decides (see
	// service.Resolve), so that a batch and a lookup of one address end
	// alike.
	Err error
}
