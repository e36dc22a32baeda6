package providers

import (
	"math"
	"strconv"
	"time"
)

// Property is one residential property record as stored and served. Empty
// strings and nil pointers mean "unknown": a record created by reverse
// geocoding may hold only its coordinates, county, FIPS code and tract.
type Property struct {
	ID            int64
	StreetAddress string // building address, UPPER CASE, e.g. "1600 PENNSYLVANIA AVE NW"
	Unit          string // secondary unit, normalized, e.g. "APT 4B"; part of the identity
	City          string // UPPER CASE
	State         string // two-letter USPS code
	ZipCode       string // five digits
	County        string // county name, e.g. "District of Columbia"
	FIPSCode      string // five digits: state FIPS + county FIPS
	CensusTract   string // six-digit tract code within the county, e.g. "006202"
	Latitude      float64
	Longitude     float64
	// The facts (see Facts for their meaning and bounds), nil when unknown:
	// from the operator's import and the loaded assessor datasets, merged
	// by precedence (MergeFacts).
	PropertyType   *string // single_family, multi_family, condo, townhouse, mobile_home, other
	Bedrooms       *int
	Bathrooms      *float64
	LivingAreaSqft *int
	LotSqft        *int
	YearBuilt      *int
	Stories        *float64
	Units          *int
	// FactsOrigin is where the facts come from, as the JSON object the
	// record shows under "facts" (MergeFacts writes it); "" when no fact is
	// known.
	FactsOrigin string
	// Match is how the record was first matched, as the JSON object a
	// Match encodes to (type, matched_address, differences, candidates),
	// kept so that a later answer can say it; "" for a record stored
	// before matches were kept.
	Match     string
	Source    string // module that created the record, e.g. "census"
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Point returns the property's coordinates.
func (p *Property) Point() Point { return Point{Lat: p.Latitude, Lng: p.Longitude} }

// Tract returns the property's census tract, or ok=false when the record has none.
func (p *Property) Tract() (t Tract, ok bool) {
	if len(p.FIPSCode) != 5 || len(p.CensusTract) != 6 {
		return Tract{}, false
	}
	return Tract{State: p.FIPSCode[:2], County: p.FIPSCode[2:], Tract: p.CensusTract}, true
}

// Facts returns the record's facts.
func (p *Property) Facts() Facts {
	return Facts{PropertyType: p.PropertyType, Bedrooms: p.Bedrooms, Bathrooms: p.Bathrooms,
		LivingAreaSqft: p.LivingAreaSqft, LotSqft: p.LotSqft, YearBuilt: p.YearBuilt, Stories: p.Stories, Units: p.Units}
}

// SetFacts replaces the record's facts with f and their provenance with origin.
func (p *Property) SetFacts(f Facts, origin string) {
	p.PropertyType, p.Bedrooms, p.Bathrooms = f.PropertyType, f.Bedrooms, f.Bathrooms
	p.LivingAreaSqft, p.LotSqft, p.YearBuilt, p.Stories, p.Units = f.LivingAreaSqft, f.LotSqft, f.YearBuilt, f.Stories, f.Units
	p.FactsOrigin = origin
}

// PropertyTypes lists the values PropertyType may hold.
var PropertyTypes = []string{"single_family", "multi_family", "condo", "townhouse", "mobile_home", "other"}

// Address is a postal address as a client sends it: in fields (Street
// and State at least), or as one line (Line) and no other field.
type Address struct {
	// Line is the whole address in one line, as a client types it ("350
	// 5th Ave, New York, NY 10118"); when set, the other fields are empty
	// and a geocoder is sent the line as it is.
	Line   string
	Street string
	// Unit is a secondary unit the client gives apart from the street (an
	// import's unit column, lookup's unit=): "Apt 4B", or a bare "4B".
	// Empty when the street carries the unit or there is none; either way
	// the record is the same (see address.Normalize).
	Unit  string
	City  string
	State string
	Zip   string
}

// Point is a WGS84 coordinate.
type Point struct {
	Lat float64
	Lng float64
}

// BBox is a rectangle of latitudes and longitudes, edges included. West is
// below East: a box does not cross the antimeridian.
type BBox struct{ West, South, East, North float64 }

// Key returns the point rounded to five decimals (about 1 m), the natural
// cache key for point-based data such as flood zones and amenities.
func (p Point) Key() string {
	// strconv on a stack buffer: fmt.Sprintf was 5% of a warm lookup with
	// every section (three point keys each). The text is the same.
	var b [48]byte
	k := strconv.AppendFloat(b[:0], p.Lat, 'f', 5, 64)
	k = append(k, ',')
	k = strconv.AppendFloat(k, p.Lng, 'f', 5, 64)
	return string(k)
}

// DistanceMeters returns the great-circle distance between p and q.
func (p Point) DistanceMeters(q Point) float64 {
	const r = 6371008.8 // mean Earth radius in metres
	la1, la2 := p.Lat*math.Pi/180, q.Lat*math.Pi/180
	dla := la2 - la1
	dlo := (q.Lng - p.Lng) * math.Pi / 180
	h := math.Sin(dla/2)*math.Sin(dla/2) + math.Cos(la1)*math.Cos(la2)*math.Sin(dlo/2)*math.Sin(dlo/2)
	return 2 * r * math.Asin(math.Min(1, math.Sqrt(h)))
}

// Tract identifies a census tract: two-digit state, three-digit county and
// six-digit tract codes. Its GEOID (11 digits) is the natural cache key for
// tract-level data such as ACS figures.
type Tract struct {
	State  string
	County string
	Tract  string
}

// GEOID returns the 11-digit tract identifier.
func (t Tract) GEOID() string { return t.State + t.County + t.Tract }

// Location is what a geocoder returns: a matched, canonical address (empty
// for reverse geocoding) with its coordinates and census geographies.
type Location struct {
	MatchedAddress string // canonical one-line address, e.g. "1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502"
	Street         string // building address part of MatchedAddress
	City           string
	State          string
	Zip            string
	Point          Point
	County         string // county name
	FIPSCode       string // five digits
	CensusTract    string // six digits
	// Precision is how exactly Point locates the address: one of
	// PrecisionRooftop, PrecisionRangeInterpolation, PrecisionCensus;
	// empty for a reverse lookup's location, which locates no address.
	Precision string
	// Dataset names the loaded dataset a local match was read from
	// ("addresses/tl_2023_36081_addrfeat"); empty for an upstream's.
	Dataset string
	// Others are the upstream's further matches for the same request, in
	// its order, when it returned several: one address on two TIGER edges,
	// or different addresses. A Location in Others has no Others.
	Others []Location
}
