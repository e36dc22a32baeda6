package providers

import (
	"context"
	"time"
)

// KindAddresses is the kind of dataset of address points and TIGER/Line
// address ranges (propertyd data load addresses), which a lookup is matched
// against before the remote geocoder is asked.
const KindAddresses = "addresses"

// The layers of an addresses dataset.
const (
	LayerAddressPoints = "address-point"
	LayerAddressRanges = "address-range"
)

// The precisions of a match (Match.Precision): how exactly the record's
// point locates the address, in the words the hosted geocoders use
// (Geocodio's accuracy_type, Smarty's precision).
const (
	// PrecisionRooftop is an address point loaded from a file: the
	// publisher's point of that very address (a building, a parcel's
	// centroid or an entrance).
	PrecisionRooftop = "rooftop"
	// PrecisionRangeInterpolation is a point interpolated along a street
	// edge's range of house numbers (TIGER/Line ADDRFEAT), on the side and
	// parity that hold the number: how the Census geocoder places it.
	PrecisionRangeInterpolation = "range_interpolation"
	// PrecisionCensus is the remote Census geocoder's match (itself an
	// interpolation along the same public ranges).
	PrecisionCensus = "census"
)

// AddressPoint is one address point of a loaded dataset: a building's
// address and its point. The fields are normalized as lookups normalize an
// address (package providers/address), so a point and a lookup of the same
// address compare equal field by field.
type AddressPoint struct {
	// Street is the building address with its number, in USPS standard
	// form: "123 N MAIN ST", "117-11 SUTPHIN BLVD", "12 1/2 ELM ST"
	// (address.Normalized.Street).
	Street string
	Unit   string // "APT 4B"; empty for the building
	City   string // normalized city; empty when the file gives none
	State  string // two-letter USPS code, never empty
	Zip    string // five digits; empty when the file gives none
	Point  Point
	// Key is the row's identity in its file (an OpenAddresses hash, a NAD
	// UUID), or its line number; for the failures file and diagnostics.
	Key string
	// Generation is the dataset generation the point was read from, set
	// by the store's reads (StageAddresses ignores it).
	Generation int64
}

// AddressRange is the house numbers one side of one street edge carries
// (a TIGER/Line ADDRFEAT feature's left or right side), with the edge's
// line: a number in the range is placed along the line in proportion.
type AddressRange struct {
	// Name is the street's name without a number, normalized as a lookup's
	// street is after its number: "N MAIN ST", "STATE HWY 360". An edge
	// with several names is several ranges.
	Name  string
	State string // two-letter USPS code
	Zip   string // five digits; empty when the file gives none
	// From and To are the numbers at the line's first and last point, as
	// the file writes them (either direction: 102 to 100 is fine); both
	// are house numbers as address.HouseNumber reads them.
	From, To int64
	// Parity is 'O' (odd numbers only), 'E' (even), or 'B' (both).
	Parity byte
	// Side is 'L' or 'R': the side of the line, walking from its first
	// point, the numbers are on.
	Side byte
	// Line is the edge, longitude and latitude, from its first point.
	Line []Point
	// Key is the edge's identity in its file (TLID) and side.
	Key string
	// Generation is the dataset generation the range was read from, set
	// by the store's reads (StageAddresses ignores it).
	Generation int64
}

// AddressStore keeps the address points and ranges of loaded datasets and
// finds those a lookup names. Both database engines implement it; its
// methods are safe for concurrent use.
type AddressStore interface {
	// StageAddresses writes points and ranges under load's generation with
	// its checkpoint cp, in one transaction (see DatasetStore); with none
	// it writes the checkpoint alone. It fails, writing nothing, when load
	// is no longer its dataset's pending load, and returns KindInvalid for
	// a point or range missing a street, state or valid coordinates.
	StageAddresses(ctx context.Context, load *DatasetLoad, cp Checkpoint, points []AddressPoint, ranges []AddressRange) error
	// AddressPointsAt returns the points of the generations whose State,
	// Street and Unit are those given (exact, normalized), any city and
	// ZIP: the caller decides which agree.
	AddressPointsAt(ctx context.Context, generations []int64, state, street, unit string) ([]AddressPoint, error)
	// AddressRangesOn returns the ranges of the generations on the named
	// street (State and Name exact) whose numbers hold number (between
	// From and To, either way round), any parity and ZIP: the caller
	// decides which agree.
	AddressRangesOn(ctx context.Context, generations []int64, state, name string, number int64) ([]AddressRange, error)
	// DropAddresses deletes a generation's points and ranges, a few
	// thousand a transaction.
	DropAddresses(ctx context.Context, generation int64) error
}

// GeocodeCount is what one serving instance's geocoder answered since it
// started: Local from loaded address points and ranges, Remote by the
// geocoder module (or, under geocoding: local, not found).
type GeocodeCount struct {
	Instance          string
	StartedAt, SeenAt time.Time
	Local, Remote     int64
}

// GeocodeCounter keeps each serving instance's GeocodeCount, which it
// reports every facts.refresh, so that propertyd data status can say what
// share of the fleet's lookups were answered locally since start. Both
// database engines implement it.
type GeocodeCounter interface {
	PutGeocodeCount(ctx context.Context, c GeocodeCount) error
	// GeocodeCounts lists the instances that reported at or after since.
	GeocodeCounts(ctx context.Context, since time.Time) ([]GeocodeCount, error)
}
