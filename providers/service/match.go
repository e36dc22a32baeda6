package service

import (
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// MatchMode is what a lookup accepts of the geocoder's answer (match=).
// The zero value is MatchAuto.
type MatchMode string

// The match modes.
const (
	// MatchAuto accepts one address, exact or not, and refuses several
	// different ones (ambiguous_address, with the candidates).
	MatchAuto MatchMode = ""
	// MatchBest accepts the geocoder's first candidate when it matched
	// several different addresses; the record is then non_exact and the
	// others are listed in its match's candidates.
	MatchBest MatchMode = "best"
	// MatchStrict accepts an exact match only: a match that changed a part
	// of the address is inexact_match, naming the parts.
	MatchStrict MatchMode = "strict"
)

// ParseMatchMode reads match=: "", "best" or "strict" (any case).
func ParseMatchMode(s string) (MatchMode, bool) {
	switch m := MatchMode(strings.ToLower(strings.TrimSpace(s))); m {
	case MatchAuto, MatchBest, MatchStrict:
		return m, true
	}
	return "", false
}

// Resolve decides what a geocoder's answer loc (its first match, the others
// in loc.Others) is for the client's normalized address n under mode, and
// says how it matched. Lookup, batch and import all decide through it, so
// an address ends alike whichever way it came.
//
// Matches that are one address (equal once normalized: one address on two
// TIGER edges) are one candidate. Several different candidates are
// ambiguous_address (KindConflict, the candidates in Error.Candidates),
// unless exactly one of them is exact for n (the client's own ZIP or city
// told them apart), which is then taken, or mode is MatchBest, which takes
// the first as non_exact with the others as its candidates. With
// MatchStrict a match that is not exact is inexact_match (KindConflict),
// naming the parts it changed in Error.Params. The Location returned has
// no Others.
func Resolve(n address.Normalized, loc providers.Location, mode MatchMode) (providers.Location, providers.Match, error) {
	all := append([]providers.Location{loc}, loc.Others...)
	var distinct []providers.Location
	for _, c := range all {
		c.Others = nil
		seen := false
		for _, d := range distinct {
			if address.SameAddress(c, d) {
				seen = true
				break
			}
		}
		if !seen {
			distinct = append(distinct, c)
		}
	}
	chosen, others := distinct[0], []providers.Location(nil)
	if len(distinct) > 1 {
		exact := -1
		for i, c := range distinct {
			if m, ok := address.Matched(c); ok && address.Differences(n, m) == nil {
				if exact >= 0 {
					exact = -2 // two exact: the client's fields tell nothing apart
					break
				}
				exact = i
			}
		}
		switch {
		case exact >= 0:
			chosen = distinct[exact]
		case mode == MatchBest:
			others = distinct[1:]
		default:
			return providers.Location{}, providers.Match{}, Ambiguous(distinct)
		}
	}
	m := matchOf(n, chosen)
	m.Precision, m.Dataset = chosen.Precision, chosen.Dataset
	if len(others) > 0 {
		m.Type = providers.MatchNonExact
		for _, o := range others {
			m.Candidates = append(m.Candidates, providers.CandidateOf(o))
		}
	}
	if mode == MatchStrict && m.Type != providers.MatchExact {
		return providers.Location{}, providers.Match{}, Inexact(m)
	}
	return chosen, m, nil
}

// matchOf is how loc matches n: exact or non_exact, by address.Differences.
func matchOf(n address.Normalized, loc providers.Location) providers.Match {
	mn, ok := address.Matched(loc)
	if !ok {
		// A match that is no address Normalize takes differs in its street.
		return providers.Match{Type: providers.MatchNonExact, MatchedAddress: loc.MatchedAddress,
			Differences: []string{providers.PartStreetName}}
	}
	m := providers.Match{Type: providers.MatchExact, MatchedAddress: loc.MatchedAddress,
		Differences: address.Differences(n, mn)}
	if len(m.Differences) > 0 {
		m.Type = providers.MatchNonExact
	}
	return m
}

// NewRecord is the record to save for a geocoder match of the normalized
// client address n, which matched as m (see Resolve): the match's fields
// with the client's unit, made by source at now, remembering m. It is
// identified by the canonical (matched) address and unit, and reached from
// then on by the key of the geocoder's own spelling and, unless m was
// taken among several different addresses (match=best: m has
// candidates), by the client's lookup key. A spelling that matched
// several addresses is no name of the one a client chose: callers who did
// not ask for best must still hear that it is ambiguous, so its key stays
// unstored and each lookup of it is decided again (see Resolve). Lookup
// and bulk imports both build records with it, so each finds the records
// the other made.
func NewRecord(loc providers.Location, m providers.Match, n address.Normalized, source string, now time.Time) providers.NewProperty {
	key := n.Key()
	var keys []string
	if len(m.Candidates) == 0 {
		keys = append(keys, key)
	}
	if ck := canonicalKey(loc, n.Unit); ck != "" && (ck != key || len(keys) == 0) {
		keys = append(keys, ck)
	}
	now = now.UTC()
	return providers.NewProperty{
		Property: providers.Property{
			StreetAddress: loc.Street, Unit: n.Unit, City: loc.City, State: loc.State, ZipCode: loc.Zip,
			County: loc.County, FIPSCode: loc.FIPSCode, CensusTract: loc.CensusTract,
			Latitude: loc.Point.Lat, Longitude: loc.Point.Lng,
			Match: m.Text(), Source: source, CreatedAt: now, UpdatedAt: now,
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

// databaseMatch is how the stored record p answers n, whose key resolved
// to it without the geocoder (a database match): n compared with the
// record's address, and the address the record was first matched to.
// Under match=strict a record that differs from the address asked is
// inexact_match, with the match.
func databaseMatch(n address.Normalized, p *providers.Property, mode MatchMode) (providers.Match, error) {
	first := providers.FirstMatch(p.Match)
	m := providers.Match{Type: providers.MatchDatabase, MatchedAddress: first.MatchedAddress,
		Precision: first.Precision, Dataset: first.Dataset}
	if m.MatchedAddress == "" {
		m.MatchedAddress = recordAddress(p)
	}
	if rn, ok := address.Matched(providers.Location{Street: p.StreetAddress, City: p.City,
		State: p.State, Zip: p.ZipCode}); ok {
		m.Differences = address.Differences(n, rn)
	}
	if mode == MatchStrict && len(m.Differences) > 0 {
		return m, Inexact(m)
	}
	return m, nil
}

// recordAddress writes a record's building address in the geocoder's
// one-line form ("1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502").
func recordAddress(p *providers.Property) string {
	if p.StreetAddress == "" {
		return ""
	}
	return p.StreetAddress + ", " + p.City + ", " + p.State + ", " + p.ZipCode
}

// Ambiguous is the ambiguous_address error of the different addresses
// cands, in the geocoder's order.
func Ambiguous(cands []providers.Location) *providers.Error {
	e := &providers.Error{Kind: providers.KindConflict, Code: providers.CodeAmbiguousAddress,
		Message: "the address matched " + CountOf(len(cands), "address", "different addresses") +
			"; add the ZIP code or the city, or pass match=best to take the first"}
	for _, c := range cands {
		e.Candidates = append(e.Candidates, providers.CandidateOf(c))
	}
	return e
}

// Inexact is the inexact_match error of a match=strict lookup whose match
// m changed the parts m.Differences names.
func Inexact(m providers.Match) *providers.Error {
	e := &providers.Error{Kind: providers.KindConflict, Code: providers.CodeInexactMatch,
		Message: "the geocoder matched " + m.MatchedAddress + ", which changed the " +
			strings.Join(m.Differences, ", ") + " of the address (match=strict)"}
	for _, d := range m.Differences {
		e.Params = append(e.Params, providers.ParamError{Parameter: d,
			Message: "changed by the match " + m.MatchedAddress})
	}
	return e
}
