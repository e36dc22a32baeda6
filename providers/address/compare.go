package address

import (
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// streetParts are the parts of a building street in normalized form:
// "123 N MAIN ST W" is house number 123, pre-directional N, name MAIN,
// suffix ST and post-directional W.
type streetParts struct {
	number, pre, name, suffix, post string
}

// splitStreet splits a normalized building street into its parts, by the
// rules writeStreetWords writes them with (a normalized street classifies
// as the spelling it came from did): the house number first, a trailing
// directional, the suffix before it when a name is left, a leading
// directional when a name is left after it.
func splitStreet(street string) streetParts {
	var buf [maxTokens]string
	w := dropHashes(tokenize(street, buf[:0]))
	var p streetParts
	hl := houseLen(w)
	p.number = strings.Join(w[:hl], " ")
	w = w[hl:]
	lo, hi := 0, len(w)
	if hi-lo >= 2 {
		if d, ok := directionals[w[hi-1]]; ok {
			p.post, hi = d, hi-1
		}
	}
	if hi-lo >= 2 {
		if s, ok := suffixes[w[hi-1]]; ok {
			p.suffix, hi = s, hi-1
		}
	}
	if hi-lo >= 2 {
		if d, ok := directionals[w[lo]]; ok {
			p.pre, lo = d, lo+1
		}
	}
	p.name = strings.Join(w[lo:hi], " ")
	return p
}

// Differences is the one rule that says how a geocoder's match relates to
// the address a client gave: it lists the parts of in (the client's
// address, normalized) that match (the geocoder's address, normalized the
// same way) changed, in the order of the providers.Part constants, and
// returns nil when it changed none, an exact match.
//
// The street parts are compared as Normalize writes them, so spellings
// ("Avenue" and "AVE", "North" and "N", "Fifth" and "5TH") are no
// difference:
//
//   - house_number: the house number differs, or one side has none. A
//     match that changed it is never exact, however close.
//   - directional: a pre- or post-directional was added, dropped or
//     changed ("Pennsylvania Ave" matched "PENNSYLVANIA AVE NW").
//   - street_name: the name is spelled otherwise ("Buckelw" matched
//     "BUCKELEW").
//   - street_type: the suffix was added, dropped or changed ("Buckelew"
//     matched "BUCKELEW DR").
//   - city, zip: the client gave one and the match has another. A city or
//     ZIP the client left out and the match fills in is no difference: the
//     client did not say otherwise. Nor is a city the match leaves out (a
//     point interpolated on a TIGER/Line range, which names no city): the
//     match did not say otherwise.
//   - state: the states differ.
//
// The unit is no part of it: geocoders match buildings, and the record
// keeps the client's unit. Differences is safe for concurrent use.
func Differences(in, match Normalized) []string {
	a, b := splitStreet(in.Street), splitStreet(match.Street)
	var out []string
	if a.number != b.number {
		out = append(out, providers.PartHouseNumber)
	}
	if a.pre != b.pre || a.post != b.post {
		out = append(out, providers.PartDirectional)
	}
	if a.name != b.name {
		out = append(out, providers.PartStreetName)
	}
	if a.suffix != b.suffix {
		out = append(out, providers.PartStreetType)
	}
	if in.City != "" && match.City != "" && in.City != match.City {
		out = append(out, providers.PartCity)
	}
	if in.State != match.State {
		out = append(out, providers.PartState)
	}
	if in.Zip != "" && in.Zip != match.Zip {
		out = append(out, providers.PartZip)
	}
	return out
}

// Matched is the normalized form of a geocoder's match, for Differences
// and keys: its street, city, state and ZIP normalized as a client's
// would be (no unit is parsed off a matched street). ok is false when the
// match is no address Normalize takes (a reverse lookup's, which has no
// street).
func Matched(loc providers.Location) (n Normalized, ok bool) {
	n, err := Normalize(providers.Address{Street: loc.Street, City: loc.City, State: loc.State, Zip: loc.Zip})
	if err != nil {
		return Normalized{}, false
	}
	return n, true
}

// SameAddress reports whether two geocoder matches are one address: equal
// once normalized (Canonical of their matched addresses), as one address
// on two TIGER edges is. Two matches that differ in house number, street,
// city or ZIP code are different addresses, and would be two records.
func SameAddress(a, b providers.Location) bool {
	return Canonical(a.MatchedAddress) == Canonical(b.MatchedAddress)
}
