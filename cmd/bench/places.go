package main

import (
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

// syntheticPlaces returns n places the sandbox does not ship, each a
// neighbour of one of base: a new house number on the same street (so the
// geocoder matches it as a new address), a point a few tens of metres away
// (so its flood and amenities keys are new, while the base place's flood
// area and amenities still cover it), and a census tract of its own
// holding the base place's ACS figures (so its demographics and housing
// are new too). They carry no flood areas, OSM elements, Walk Score or
// HUD rents of their own: the sandbox rejects two places claiming the same
// OSM element or county rents.
func syntheticPlaces(base []sandbox.Place, n int) []sandbox.Place {
	out := make([]sandbox.Place, 0, n)
	for i := range n {
		b := base[i%len(base)]
		k := i / len(base) // index among the neighbours of b
		number, rest, _ := strings.Cut(b.Street, " ")
		if _, err := strconv.Atoi(number); err != nil {
			rest = b.Street // no house number: keep the street whole
		}
		out = append(out, sandbox.Place{
			ID:     fmt.Sprintf("%s-bench-%d", b.ID, i),
			Street: fmt.Sprintf("%d %s", 20000+i, rest),
			City:   b.City, State: b.State, Zip: b.Zip,
			// A 50-column grid of 0.0001° (about 10 m) steps north-east of
			// b; never on b itself, within 0.005° for up to 2,500 neighbours.
			Lat:        b.Lat + 0.0001*float64(k%50+1),
			Lng:        b.Lng + 0.0001*float64(k/50),
			CountyName: b.CountyName,
			StateFIPS:  b.StateFIPS, CountyFIPS: b.CountyFIPS,
			Tract: fmt.Sprintf("9%05d", i), Block: b.Block,
			ACS: maps.Clone(b.ACS),
		})
	}
	return out
}

// lookupPath is the lookup URL of place p, spelled as the sandbox knows it,
// with the sections in include (none when empty).
func lookupPath(p sandbox.Place, include string) string {
	q := url.Values{}
	q.Set("street", p.Street)
	q.Set("city", p.City)
	q.Set("state", p.State)
	if p.Zip != "" {
		q.Set("zip", p.Zip)
	}
	if include != "" {
		q.Set("include", include)
	}
	return "/v1/properties/lookup?" + q.Encode()
}

// The ACS-by-state scenario: acsAddresses new addresses, acsPerTract to a
// tract, in two states no other scenario looks anything up in (the other
// places are all in the sample places' states), so its first lookups find
// neither state loaded.
const (
	acsAddresses = 1000
	acsPerTract  = 5
)

// acsStateSeeds are the two states of the scenario: a street, city, ZIP,
// county and point in each.
var acsStateSeeds = []sandbox.Place{
	{Street: "E BROAD ST", City: "COLUMBUS", State: "OH", Zip: "43215", Lat: 39.9630, Lng: -82.9980,
		CountyName: "Franklin County", StateFIPS: "39", CountyFIPS: "049", Block: "1001"},
	{Street: "SW MAIN ST", City: "PORTLAND", State: "OR", Zip: "97204", Lat: 45.5150, Lng: -122.6790,
		CountyName: "Multnomah County", StateFIPS: "41", CountyFIPS: "051", Block: "1001"},
}

// acsStatePlaces returns the addresses of the ACS-by-state scenario:
// acsAddresses of them, acsPerTract to each tract, the tracts alternating
// between the acsStateSeeds states, every tract holding the ACS figures
// of the first sample place.
func acsStatePlaces(base []sandbox.Place) []sandbox.Place {
	out := make([]sandbox.Place, 0, acsAddresses)
	for i := range acsAddresses {
		tract := i / acsPerTract
		b := acsStateSeeds[tract%len(acsStateSeeds)]
		out = append(out, sandbox.Place{
			ID:     fmt.Sprintf("acs-%s-%d", strings.ToLower(b.State), i),
			Street: fmt.Sprintf("%d %s", 100+i, b.Street),
			City:   b.City, State: b.State, Zip: b.Zip,
			Lat: b.Lat + 0.0001*float64(i%50), Lng: b.Lng + 0.0001*float64(i/50),
			CountyName: b.CountyName, StateFIPS: b.StateFIPS, CountyFIPS: b.CountyFIPS,
			Tract: fmt.Sprintf("8%05d", tract), Block: b.Block,
			ACS: maps.Clone(base[0].ACS),
		})
	}
	return out
}
