// Package localmatch puts the address points and TIGER/Line address ranges
// loaded in the database (propertyd data load addresses) in front of the
// geocoder: an address they hold is matched from them, with no call
// upstream, and any other goes to the geocoder as before, or, where the
// operator said `geocoding: local`, is not found. It knows neither the
// upstream nor the database: the points and ranges come through the
// store's providers.AddressStore, the datasets served through
// dataload.Served, and the geographies of a local match from the loaded
// boundaries (package geographies' Locate).
//
// # How an address is matched
//
// The address is normalized as a lookup normalizes it (package
// providers/address), and the datasets served for its state are read:
//
//  1. Address points: those of the same street and number and unit
//     (a unit's own point, else the building's), whose ZIP code is the
//     lookup's (or, when the point has none, whose city is), or whose city
//     is when the lookup gives a city and no ZIP. They are rooftop matches.
//  2. Else ranges: those on the street's name that hold the number on
//     their side's parity, in the lookup's ZIP code when it gives one. The
//     point is interpolated along the edge (addrfile.Interpolate). Ranges name no
//     city: the match has the lookup's city, and its matched address none
//     (so that two spellings of the city name one record).
//
// Several different addresses are returned as one Location and its Others,
// which the service refuses as ambiguous_address (or takes the first with
// match=best), as it does the Census geocoder's. A lookup without a ZIP
// code whose ranges lie in several ZIP codes is not decided locally: the
// geocoder is asked, which knows the cities; under `geocoding: local` it
// is ambiguous.
//
// The store's errors are errors: a database that does not answer is no
// reason to ask the upstream instead.
package localmatch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/addrfile"
	"github.com/propertyd/propertyd/providers/dataload"
)

// Store is what Geocoder reads: the datasets served and their address
// points and ranges.
type Store interface {
	dataload.Lister
	AddressPointsAt(ctx context.Context, generations []int64, state, street, unit string) ([]providers.AddressPoint, error)
	AddressRangesOn(ctx context.Context, generations []int64, state, name string, number int64) ([]providers.AddressRange, error)
}

// Locator gives a local match its county, FIPS code and census tract
// (geographies.Geocoder's Locate); remote says whether it may ask the
// reverse geocoder where no boundaries are loaded.
type Locator interface {
	Locate(ctx context.Context, loc *providers.Location, remote bool) error
}

// Counts are the address lookups a Geocoder answered since it was built:
// Local from the loaded files, Remote by the geocoder behind it (or, under
// geocoding: local, not found).
type Counts struct {
	Local, Remote int64
}

// Geocoder matches addresses from the loaded files first (see the package
// comment). Build it with New; it is safe for concurrent use.
type Geocoder struct {
	store  Store
	served *dataload.Served
	next   providers.Geocoder
	only   bool
	// states are the states of each generation served, read from its
	// meta once: a generation is one publication, whose meta never
	// changes, so a lookup parses no JSON.
	states sync.Map // int64 -> []string (nil: every state)

	local, remote atomic.Int64
}

var _ providers.Geocoder = (*Geocoder)(nil)

// New returns the loaded addresses of store in front of next. With only
// set (geocoding: local), an address the files do not hold is not found
// and next is never asked; next may then be nil. A next that is a Locator
// gives local matches their geographies.
func New(store Store, next providers.Geocoder, only bool) *Geocoder {
	return &Geocoder{store: store, served: &dataload.Served{Store: store, Kind: providers.KindAddresses},
		next: next, only: only}
}

// Counts returns how many address lookups were answered locally and how
// many were not, since New.
func (g *Geocoder) Counts() Counts {
	return Counts{Local: g.local.Load(), Remote: g.remote.Load()}
}

// Geocode matches a from the loaded files, else asks the geocoder behind
// (see the package comment). Errors are the store's, the geocoder's, and
// ErrNoMatch (address_not_found) under geocoding: local.
func (g *Geocoder) Geocode(ctx context.Context, a providers.Address) (providers.Location, error) {
	loc, found, err := g.Match(ctx, a)
	if err != nil {
		return providers.Location{}, err
	}
	if found {
		g.local.Add(1)
		return loc, nil
	}
	g.remote.Add(1)
	if g.only || g.next == nil {
		return providers.Location{}, providers.ErrNoMatch
	}
	return g.next.Geocode(ctx, a)
}

// Match matches a from the loaded files alone, the match's geographies
// included; found is false when they hold no match of it (or, but under
// geocoding: local, cannot decide between the ZIP codes of its ranges).
func (g *Geocoder) Match(ctx context.Context, a providers.Address) (loc providers.Location, found bool, err error) {
	n, err := address.NormalizeAny(a)
	if err != nil || n.State == "" {
		return providers.Location{}, false, nil // the geocoder's to refuse, in its words
	}
	var cands []providers.Location
	_, err = g.served.ReadWhere(ctx, g.holds(n.State), func(ds []providers.Dataset) error {
		var err error
		cands, err = g.candidates(ctx, ds, n)
		return err
	})
	if err != nil || len(cands) == 0 {
		return providers.Location{}, false, err
	}
	if cands[0].Precision == providers.PrecisionRangeInterpolation && n.Zip == "" && !g.only && !oneZip(cands) {
		return providers.Location{}, false, nil
	}
	if l, ok := g.next.(Locator); ok {
		for i := range cands {
			if err := l.Locate(ctx, &cands[i], !g.only); err != nil {
				return providers.Location{}, false, err
			}
		}
	}
	loc = cands[0]
	loc.Others = cands[1:]
	if len(loc.Others) == 0 {
		loc.Others = nil
	}
	return loc, true, nil
}

// holds keeps the addresses datasets of state (a dataset whose meta names
// no state is kept: the store is asked rather than missing what is
// loaded).
func (g *Geocoder) holds(state string) func(providers.Dataset) bool {
	return func(d providers.Dataset) bool {
		states := g.statesOf(d)
		return states == nil || slices.Contains(states, state)
	}
}

// statesOf is the states d's meta names (nil for none it can read), parsed
// the first time its generation is seen.
func (g *Geocoder) statesOf(d providers.Dataset) []string {
	if v, ok := g.states.Load(d.Generation); ok {
		return v.([]string)
	}
	var m addrfile.Meta
	if json.Unmarshal(d.Meta, &m) != nil || len(m.States) == 0 {
		m.States = nil
	}
	g.states.Store(d.Generation, m.States)
	return m.States
}

// candidates are the matches of n in the datasets ds: address points,
// else ranges (see the package comment), by dataset then key.
func (g *Geocoder) candidates(ctx context.Context, ds []providers.Dataset, n address.Normalized) ([]providers.Location, error) {
	gens := make([]int64, len(ds))
	names := make(map[int64]string, len(ds))
	for i, d := range ds {
		gens[i], names[d.Generation] = d.Generation, d.Kind+"/"+d.Name
	}
	pts, err := g.store.AddressPointsAt(ctx, gens, n.State, n.Street, n.Unit)
	if err != nil {
		return nil, err
	}
	pts = slices.DeleteFunc(pts, func(p providers.AddressPoint) bool { return !pointAgrees(p, n) })
	if len(pts) == 0 && n.Unit != "" {
		// The building's point, for a unit the file has no point of.
		if pts, err = g.store.AddressPointsAt(ctx, gens, n.State, n.Street, ""); err != nil {
			return nil, err
		}
		pts = slices.DeleteFunc(pts, func(p providers.AddressPoint) bool { return !pointAgrees(p, n) })
	}
	if len(pts) > 0 {
		slices.SortStableFunc(pts, func(a, b providers.AddressPoint) int {
			return strings.Compare(names[a.Generation]+"\x00"+a.Key, names[b.Generation]+"\x00"+b.Key)
		})
		out := make([]providers.Location, len(pts))
		for i, p := range pts {
			out[i] = providers.Location{
				MatchedAddress: matched(p.Street, p.City, p.State, p.Zip),
				Street:         p.Street, City: p.City, State: p.State, Zip: p.Zip, Point: p.Point,
				Precision: providers.PrecisionRooftop, Dataset: names[p.Generation],
			}
		}
		return out, nil
	}
	number, name := address.SplitNumber(n.Street)
	hn, ok := address.HouseNumber(number)
	if !ok || name == "" {
		return nil, nil
	}
	rs, err := g.store.AddressRangesOn(ctx, gens, n.State, name, hn)
	if err != nil {
		return nil, err
	}
	rs = slices.DeleteFunc(rs, func(r providers.AddressRange) bool {
		return !addrfile.Holds(r, hn) || n.Zip != "" && r.Zip != n.Zip
	})
	slices.SortStableFunc(rs, func(a, b providers.AddressRange) int {
		return strings.Compare(names[a.Generation]+"\x00"+a.Key, names[b.Generation]+"\x00"+b.Key)
	})
	var out []providers.Location
	for _, r := range rs {
		p, ok := addrfile.Interpolate(r, hn)
		if !ok {
			continue
		}
		out = append(out, providers.Location{
			MatchedAddress: matched(n.Street, "", r.State, r.Zip),
			Street:         n.Street, City: n.City, State: r.State, Zip: r.Zip, Point: p,
			Precision: providers.PrecisionRangeInterpolation, Dataset: names[r.Generation],
		})
	}
	return out, nil
}

// pointAgrees reports whether an address point of n's street, number and
// unit is n's: in its ZIP code when n gives one (or, the point having
// none, in its city), in its city when n gives a city alone.
func pointAgrees(p providers.AddressPoint, n address.Normalized) bool {
	switch {
	case n.Zip != "" && p.Zip != "":
		return p.Zip == n.Zip
	case n.City != "" && p.City != "":
		return p.City == n.City
	}
	return true
}

// oneZip reports whether every candidate lies in one ZIP code.
func oneZip(cands []providers.Location) bool {
	for _, c := range cands[1:] {
		if c.Zip != cands[0].Zip {
			return false
		}
	}
	return true
}

// matched writes a local match's address in the geocoder's one-line form,
// "123 N MAIN ST, SPRINGFIELD, IL, 62701", with an empty city where the
// file names none ("123 N MAIN ST, , IL, 62701"): the record's identity is
// its normalized form (address.Canonical), the same for every lookup of
// the address whatever city it spells.
func matched(street, city, state, zip string) string {
	return street + ", " + city + ", " + state + ", " + zip
}

// Batch returns the bulk form of g for imports: each address the loaded
// files hold is matched from them, and the others go to next in one
// GeocodeAll (none under geocoding: local, where they are ErrNoMatch), so
// an import inside a loaded county makes no remote call. next may be nil
// under geocoding: local.
func (g *Geocoder) Batch(next providers.BatchGeocoder) providers.BatchGeocoder {
	return batch{g: g, next: next}
}

type batch struct {
	g    *Geocoder
	next providers.BatchGeocoder
}

// GeocodeAll answers as providers.BatchGeocoder says, local matches first.
func (b batch) GeocodeAll(ctx context.Context, addrs []providers.Address) ([]providers.BatchMatch, error) {
	out := make([]providers.BatchMatch, len(addrs))
	var rest []providers.Address
	var at []int
	for i, a := range addrs {
		loc, found, err := b.g.Match(ctx, a)
		if err != nil {
			return nil, err
		}
		if found {
			b.g.local.Add(1)
			out[i] = providers.BatchMatch{Location: loc}
			continue
		}
		b.g.remote.Add(1)
		if b.g.only || b.next == nil {
			out[i] = providers.BatchMatch{Err: providers.ErrNoMatch}
			continue
		}
		rest, at = append(rest, a), append(at, i)
	}
	if len(rest) == 0 {
		return out, nil
	}
	ms, err := b.next.GeocodeAll(ctx, rest)
	if err != nil {
		return nil, err
	}
	if len(ms) != len(rest) {
		return nil, fmt.Errorf("localmatch: the batch geocoder answered %d of %d addresses", len(ms), len(rest))
	}
	for j, m := range ms {
		out[at[j]] = m
	}
	return out, nil
}
