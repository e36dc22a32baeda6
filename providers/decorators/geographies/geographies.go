// Package geographies puts the TIGER/Line boundaries loaded in the database
// (propertyd data load boundaries) in front of the geocoder and reverse
// geocoder modules: a record's county, FIPS code and census tract at a
// point that a loaded county and a loaded tract of it hold are read from
// them, by point in polygon, with no call upstream; elsewhere the module
// answers as before. It wraps the modules from outside, as the breaker
// does, and knows neither the upstream nor the database: the polygons come
// through the store's providers.PolygonStore, the datasets served through
// dataload.Served, and the fields are read by package tiger's Locate, the
// definition the census module reads the geocoder's layers with, so both
// paths answer alike.
//
// # What is answered locally
//
// A point is answered from the files only when a county polygon and a
// polygon of a tract in that county (its GEOID starts with the county's)
// both hold it: load a state's tract file (tl_YYYY_SS_tract) and the
// national county file (tl_YYYY_us_county). A point in a loaded county but
// in no loaded tract, in a tract whose county is not loaded, or where a
// tract and a county of different vintages disagree (Connecticut's
// planning regions), is the module's to answer: the files cannot tell
// there whether the point has no tract or its tracts are not loaded.
//
// # Reverse lookups
//
// Reverse answers a point inside from the files alone (State from the
// county's STATEFP, County, FIPSCode, CensusTract) and calls the module
// for any other point.
//
// # Address lookups
//
// An address is matched by the module in any case: no file holds the
// address ranges. When the module can match an address without its
// geographies (providers.MatchGeocoder, the census module's locations
// searches) and tracts and counties are loaded for the address's state
// (the state given, or read from a one-line address), Geocode asks for the
// match alone and finds the geographies of the match, and of each of its
// Others, in the files. A match outside the loaded boundaries (the state's
// tracts are loaded, yet the matched point lies beyond them) has its
// geographies from the module's Reverse at its point: one more call,
// which the check of the state makes rare. Any other address is geocoded
// by the module as before, geographies included, in one call.
//
// The store's errors are errors (KindUnavailable database_unavailable...):
// a database that does not answer is no reason to spend the upstream's
// goodwill, and the lookup fails as any lookup does without its database.
package geographies

import (
	"context"
	"encoding/json"
	"math"
	"slices"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/tiger"
)

// Polygons is what Boundaries reads the loaded boundaries through: the
// store's providers.DatasetStore listing and providers.PolygonStore.
type Polygons interface {
	dataload.Lister
	PolygonsAt(ctx context.Context, layer string, generation int64, p providers.Point) ([]providers.LayerPolygon, error)
}

// Boundaries reads the location fields of a point from the boundaries
// datasets served. Build it with NewBoundaries; it is safe for concurrent
// use, and one serves both the geocoder and the reverse geocoder, which
// then share one listing of the datasets.
type Boundaries struct {
	store  Polygons
	served *dataload.Served
}

// NewBoundaries returns the boundaries served by store.
func NewBoundaries(store Polygons) *Boundaries {
	return &Boundaries{store: store, served: &dataload.Served{Store: store, Kind: providers.KindBoundaries}}
}

// At returns the location fields at p, Point p, State (the USPS code of
// the county's STATEFP), County, FIPSCode and CensusTract, and true when a
// loaded county and a loaded tract of it hold p; false (and no error) when
// none does, or only one of them. Errors are the store's; a read that a
// publication kept overtaking is KindUnavailable database_unavailable.
func (b *Boundaries) At(ctx context.Context, p providers.Point) (providers.Location, bool, error) {
	var (
		counties []tiger.County
		tracts   []tiger.Tract
	)
	read := func(ds []providers.Dataset) error {
		counties, tracts = counties[:0], tracts[:0]
		for _, d := range ds {
			m := metaOf(d)
			if m.Counties > 0 {
				polys, err := b.store.PolygonsAt(ctx, tiger.LayerCounty, d.Generation, p)
				if err != nil {
					return err
				}
				for _, poly := range polys {
					if c, ok := countyOf(poly); ok {
						counties = append(counties, c)
					}
				}
			}
			if m.Tracts > 0 {
				polys, err := b.store.PolygonsAt(ctx, tiger.LayerTract, d.Generation, p)
				if err != nil {
					return err
				}
				for _, poly := range polys {
					if t, ok := tractOf(poly); ok {
						tracts = append(tracts, t)
					}
				}
			}
		}
		return nil
	}
	ok, err := b.served.Read(ctx, p, read)
	if err != nil || !ok {
		return providers.Location{}, false, err
	}
	for i := range counties {
		county, _ := tiger.Locate(&counties[i], nil)
		if county.FIPSCode == "" {
			continue
		}
		for j := range tracts {
			// A tract of this county: its GEOID starts with the county's.
			if tract, _ := tiger.Locate(nil, &tracts[j]); tract.FIPSCode != county.FIPSCode || tract.CensusTract == "" {
				continue
			}
			place, _ := tiger.Locate(&counties[i], &tracts[j])
			state, _ := address.StateOfFIPS(place.FIPSCode[:2])
			return providers.Location{Point: p, State: state, County: place.County, FIPSCode: place.FIPSCode,
				CensusTract: place.CensusTract}, true, nil
		}
	}
	return providers.Location{}, false, nil
}

// Holds reports whether tracts and counties of the state whose FIPS code
// is fips are loaded: only then is an address there matched alone.
// Counties loaded before their states were kept (no CountyStates) are
// taken to hold every state.
func (b *Boundaries) Holds(ctx context.Context, fips string) (bool, error) {
	ds, err := b.served.List(ctx)
	if err != nil {
		return false, err
	}
	var tracts, counties bool
	for _, d := range ds {
		m := metaOf(d)
		tracts = tracts || slices.Contains(m.States, fips)
		counties = counties || m.Counties > 0 && (len(m.CountyStates) == 0 || slices.Contains(m.CountyStates, fips))
	}
	return tracts && counties, nil
}

// metaOf reads a boundaries dataset's meta. A meta it cannot read (none
// is written so) is taken to hold both layers, so that At asks the store
// rather than missing what is loaded; it names no state, so Holds does not
// count on it.
func metaOf(d providers.Dataset) tiger.BoundariesMeta {
	var m tiger.BoundariesMeta
	if json.Unmarshal(d.Meta, &m) != nil {
		return tiger.BoundariesMeta{Tracts: 1, Counties: 1}
	}
	return m
}

// countyOf and tractOf read a polygon's attributes as a boundaries load
// kept them (tiger.AttrsOf), through tiger's CountyOf and TractOf, the
// readers of a file's features; a polygon whose attributes do not read
// is passed over.
func countyOf(poly providers.LayerPolygon) (tiger.County, bool) {
	attrs, err := tiger.AttrsOf(poly.Attrs)
	if err != nil {
		return tiger.County{}, false
	}
	c, err := tiger.CountyOf(attrs)
	return c, err == nil
}

func tractOf(poly providers.LayerPolygon) (tiger.Tract, bool) {
	attrs, err := tiger.AttrsOf(poly.Attrs)
	if err != nil {
		return tiger.Tract{}, false
	}
	t, err := tiger.TractOf(attrs)
	return t, err == nil
}

// validPoint reports whether p is a coordinate the store can look up; any
// other is the module's to refuse, in its own words.
func validPoint(p providers.Point) bool {
	return !math.IsNaN(p.Lat) && !math.IsNaN(p.Lng) && p.Lat >= -90 && p.Lat <= 90 && p.Lng >= -180 && p.Lng <= 180
}

// Reverse is a reverse geocoder answering from Local where a loaded county
// and tract hold the point and from Next elsewhere, Next's calls run
// under Around (its breaker: a local answer never counts for or against
// the upstream). Build it with NewReverse; it is safe for concurrent use
// when Local and Next are, and its fields must not change once it is in
// use.
type Reverse struct {
	Local  *Boundaries
	Next   providers.ReverseGeocoder
	Around providers.Around
}

var _ providers.ReverseGeocoder = (*Reverse)(nil)

// NewReverse returns the boundaries of local in front of next, next's
// calls run under around.
func NewReverse(local *Boundaries, next providers.ReverseGeocoder, around providers.Around) *Reverse {
	return &Reverse{Local: local, Next: next, Around: around}
}

// Reverse returns the location fields at p: from the loaded boundaries
// when a county and a tract of it hold p, with no call, else Next's.
// Errors are Next's, and the store's.
func (r *Reverse) Reverse(ctx context.Context, p providers.Point) (providers.Location, error) {
	if r.Local != nil && validPoint(p) {
		loc, ok, err := r.Local.At(ctx, p)
		if err != nil || ok {
			return loc, err
		}
	}
	return run(ctx, r.Around, r.Next.Reverse, p)
}

// Geocoder is a geocoder whose matches inside the loaded boundaries get
// their geographies from Local (see the package comment): Next is asked
// for the match alone when it can be (providers.MatchGeocoder), and for
// the geographies of a match outside the boundaries through its Reverse
// when it has one; its calls run under Around. Build it with NewGeocoder;
// it is safe for concurrent use when Local and Next are, and its fields
// must not change once it is in use.
type Geocoder struct {
	Local  *Boundaries
	Next   providers.Geocoder
	Around providers.Around
}

var _ providers.Geocoder = (*Geocoder)(nil)

// NewGeocoder returns the boundaries of local in front of next, next's
// calls run under around.
func NewGeocoder(local *Boundaries, next providers.Geocoder, around providers.Around) *Geocoder {
	return &Geocoder{Local: local, Next: next, Around: around}
}

// Geocode matches a and gives the match and each of its Others their
// county, FIPS code and census tract: from the loaded boundaries for
// points they hold when tracts and counties are loaded for a's state
// (Next asked for the match alone), from Next's own answer otherwise.
// Errors are Next's (ErrNoMatch, upstream kinds...), and the store's.
func (g *Geocoder) Geocode(ctx context.Context, a providers.Address) (providers.Location, error) {
	m, canMatch := g.Next.(providers.MatchGeocoder)
	rev, canReverse := g.Next.(providers.ReverseGeocoder)
	if g.Local == nil || !canMatch || !canReverse {
		return run(ctx, g.Around, g.Next.Geocode, a)
	}
	fips, ok := stateOf(a)
	if !ok {
		return run(ctx, g.Around, g.Next.Geocode, a)
	}
	held, err := g.Local.Holds(ctx, fips)
	if err != nil {
		return providers.Location{}, err
	}
	if !held {
		return run(ctx, g.Around, g.Next.Geocode, a)
	}
	loc, err := run(ctx, g.Around, m.GeocodeMatch, a)
	if err != nil {
		return providers.Location{}, err
	}
	if err := g.locate(ctx, rev, &loc); err != nil {
		return providers.Location{}, err
	}
	for i := range loc.Others {
		if err := g.locate(ctx, rev, &loc.Others[i]); err != nil {
			return providers.Location{}, err
		}
	}
	return loc, nil
}

// locate fills in the county, FIPS code and census tract of a match: from
// the boundaries when they hold its point, else from rev at its point
// (none when rev is nil, or finds no county there, as the geocoder's
// answer would have none). The match keeps its own State, as the
// geocoder's does.
func (g *Geocoder) locate(ctx context.Context, rev providers.ReverseGeocoder, loc *providers.Location) error {
	var (
		at  providers.Location
		ok  bool
		err error
	)
	if g.Local != nil {
		if at, ok, err = g.Local.At(ctx, loc.Point); err != nil {
			return err
		}
	}
	if !ok {
		if rev == nil {
			return nil
		}
		at, err = run(ctx, g.Around, rev.Reverse, loc.Point)
		switch {
		case providers.CodeOf(err) == providers.CodeLocationNotFound:
			return nil
		case err != nil:
			return err
		}
	}
	loc.County, loc.FIPSCode, loc.CensusTract = at.County, at.FIPSCode, at.CensusTract
	return nil
}

// Locate gives a match made elsewhere (the local geocoder's, from loaded
// address files) its county, FIPS code and census tract: from the loaded
// boundaries when they hold its point; else, when remote is set, from
// Next's Reverse at its point; else it leaves them empty (a deployment
// that makes no remote call and has no boundaries loaded there).
func (g *Geocoder) Locate(ctx context.Context, loc *providers.Location, remote bool) error {
	var rev providers.ReverseGeocoder
	if r, ok := g.Next.(providers.ReverseGeocoder); ok && remote {
		rev = r
	}
	return g.locate(ctx, rev, loc)
}

// stateOf returns the FIPS code of a's state: the one given in fields, or
// the one a one-line address names (as the service reads it).
func stateOf(a providers.Address) (string, bool) {
	code := a.State
	if a.Line != "" {
		n, err := address.NormalizeLine(a.Line)
		if err != nil {
			return "", false
		}
		code = n.State
	} else if c, ok := address.StateCode(code); ok {
		code = c
	}
	return address.StateFIPS(code)
}

// run calls f with k under around (f alone when around is nil).
func run[K, V any](ctx context.Context, around providers.Around, f func(context.Context, K) (V, error), k K) (V, error) {
	return providers.WrapCall(around, f)(ctx, k)
}
