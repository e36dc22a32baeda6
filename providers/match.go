package providers

// MatchAddressPoint is the type of a Match that found its record's address
// at an address point of a loaded OpenStreetMap extract: a reverse lookup
// that created a record took the street, city and ZIP of the nearest
// address point within the service's address point radius.
const MatchAddressPoint = "address_point"

// Match says how the record of an answer was matched to its request,
// rendered as meta.match. The zero value is no match information. It is a
// plain value, safe to copy.
type Match struct {
	Type string `json:"type"`
	// DistanceM is how far (metres, whole) the point of the match is from
	// the point asked; nil when the type has no distance.
	DistanceM *float64 `json:"distance_m,omitempty"`
}
