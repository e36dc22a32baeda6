package providers

import "encoding/json"

// The types of a Match: how the record an answer carries was found for
// its request.
const (
	// MatchExact is a geocoder match that changed no part of the address
	// the client gave (address.Differences found none).
	MatchExact = "exact"
	// MatchNonExact is a geocoder match that changed some part of it
	// (Match.Differences names them), or the first of several different
	// addresses taken with match=best.
	MatchNonExact = "non_exact"
	// MatchNearestRecord is a reverse lookup answered with a stored record
	// within the reverse radius of the point (Match.DistanceM away).
	MatchNearestRecord = "nearest_record"
	// MatchReverseGeocode is a record the reverse geocoder made for a point.
	MatchReverseGeocode = "reverse_geocode"
	// MatchDatabase is an address whose spelling was known: its key
	// resolved to a stored record without asking the geocoder. Its
	// differences compare this spelling with the record.
	MatchDatabase = "database"
	// MatchAddressPoint is a record a reverse lookup made inside a loaded
	// OpenStreetMap extract, its street, city and ZIP code taken from the
	// nearest address point that gives an address (Match.DistanceM away;
	// MatchedAddress is the address point's as OpenStreetMap writes it).
	MatchAddressPoint = "address_point"
)

// The parts of an address a match may change, as Match.Differences names
// them, in the order they are listed.
const (
	PartHouseNumber = "house_number"
	PartDirectional = "directional"
	PartStreetName  = "street_name"
	PartStreetType  = "street_type"
	PartCity        = "city"
	PartState       = "state"
	PartZip         = "zip"
)

// Match says how the record of an answer was matched to its request. The
// zero value is no match information. It is a plain value, safe to copy;
// its slices are not modified once built.
type Match struct {
	Type string `json:"type"`
	// MatchedAddress is the geocoder's address as it wrote it ("1600
	// Pennsylvania Ave NW, WASHINGTON, DC, 20502"); for a database match,
	// the one the record was first matched to. Empty for reverse lookups.
	MatchedAddress string `json:"matched_address,omitempty"`
	// Differences are the parts of the client's address the match changed
	// (PartHouseNumber, ...), in that order; empty for an exact match and
	// for a match by coordinates (a reverse lookup, a nearest record, an
	// address point), which compares no address. It encodes as [] when
	// empty, never null.
	Differences []string `json:"differences"`
	// DistanceM is how far (metres) the record of a nearest_record match,
	// or the address point of an address_point match,
	// is from the point asked.
	DistanceM *float64 `json:"distance_m,omitempty"`
	// Candidates are the other different addresses of a match taken with
	// match=best, in the geocoder's order.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Precision is how exactly the record's point locates the address
	// (PrecisionRooftop, PrecisionRangeInterpolation, PrecisionCensus), for
	// a match made by a geocoder; Dataset names the loaded dataset of a
	// local match ("addresses/NAME"). Both are empty for other types.
	Precision string `json:"precision,omitempty"`
	Dataset   string `json:"dataset,omitempty"`
}

// Candidate is one of several different addresses a geocoder matched for
// one request.
type Candidate struct {
	MatchedAddress string  `json:"matched_address"`
	Latitude       float64 `json:"latitude"`
	Longitude      float64 `json:"longitude"`
	ZipCode        string  `json:"zip_code"`
	// County is the county's name; empty when the answer carried none.
	County   string `json:"county"`
	FIPSCode string `json:"fips_code"`
}

// MarshalJSON writes m with its differences as [] when there are none.
func (m Match) MarshalJSON() ([]byte, error) {
	type plain Match
	if m.Differences == nil {
		m.Differences = []string{}
	}
	return json.Marshal(plain(m))
}

// CandidateOf is the candidate a geocoder's Location stands for.
func CandidateOf(loc Location) Candidate {
	return Candidate{MatchedAddress: loc.MatchedAddress, Latitude: loc.Point.Lat, Longitude: loc.Point.Lng,
		ZipCode: loc.Zip, County: loc.County, FIPSCode: loc.FIPSCode}
}

// Text is m as the JSON text a record keeps (Property.Match); "" for the
// zero Match.
func (m Match) Text() string {
	if m.Type == "" {
		return ""
	}
	b, _ := json.Marshal(m) // a Match always encodes
	return string(b)
}

// FirstMatch is what a lookup answered from the database tells of the
// stored match text (Match.Text) of its record: the address, precision and
// dataset it was first matched to (no other member is read, as this runs
// at each request); the zero Match when text is none.
func FirstMatch(text string) Match {
	var m struct {
		Type           string `json:"type"`
		MatchedAddress string `json:"matched_address"`
		Precision      string `json:"precision"`
		Dataset        string `json:"dataset"`
	}
	if text == "" || json.Unmarshal([]byte(text), &m) != nil || m.Type == "" {
		return Match{}
	}
	return Match{Type: m.Type, MatchedAddress: m.MatchedAddress, Precision: m.Precision, Dataset: m.Dataset}
}
