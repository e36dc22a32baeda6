// Package extract puts the OpenStreetMap extracts loaded in the database
// (propertyd data load osm) in front of the amenities module: a circle that
// lies inside a loaded extract is answered from it, with no call upstream;
// any other goes to the module (Overpass) as before. It wraps the module
// from outside, as the breaker does, and knows neither the upstream nor the
// database: the extract's places come through providers.OSMStore and the
// answer is built by package amenity, the definition the overpass module
// builds its own answers with, so both paths answer alike.
package extract

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
	"github.com/propertyd/propertyd/providers/dataload"
)

// Source is the source of an answer read from a loaded extract, in the
// section value and in meta.sections; its vintage is the extract's date.
const Source = "osm-extract"

// Places is what Amenities reads the extracts through: the store's
// providers.OSMStore.
type Places interface {
	OSMPlacesNear(ctx context.Context, c providers.Circle, f providers.PlaceFilter) (*providers.OSMExtract, []providers.OSMPlace, error)
	OSMExtracts(ctx context.Context) ([]providers.OSMExtract, error)
}

// ListEvery is how often Supersedes looks again at which extracts are
// served, in the background: a load through the command line (or another
// instance) shows within it.
const ListEvery = 10 * time.Second

// Amenities is an amenities source answering from Local where an extract
// covers the circle and from Next elsewhere, Next's calls run under Around
// (its breaker: a local answer never counts for or against the upstream).
// MaxResults caps each category as the module's own option does (0: no
// cap); with a cap, only what the cap may list is read of the extract
// (amenity.CollectNearest), for the answer all its places give. Build it
// with New; it is safe for concurrent use when Local and
// Next are, and its fields must not change once it is in use.
type Amenities struct {
	Local      Places
	Next       providers.AmenitiesProvider
	Around     providers.Around
	MaxResults int
	// Now is the clock of Supersedes; nil means time.Now.
	Now func() time.Time

	// dates are the dates of the extracts served (Supersedes).
	once  sync.Once
	dates dataload.Vintages
}

var (
	_ providers.AmenitiesProvider = (*Amenities)(nil)
	_ providers.Superseder        = (*Amenities)(nil)
)

// ResultCapper is implemented by an amenities module that keeps only the
// nearest N items of each category (overpass's max_results option).
type ResultCapper interface {
	ResultCap() int
}

// New returns the extracts of local in front of next, next's calls run
// under around, capped as next caps its own answers when it says how.
func New(local Places, next providers.AmenitiesProvider, around providers.Around) *Amenities {
	a := &Amenities{Local: local, Next: next, Around: around}
	if c, ok := next.(ResultCapper); ok {
		a.MaxResults = c.ResultCap()
	}
	return a
}

// Amenities answers the amenities within radiusMeters of p: from the
// extract that holds the whole circle when one does, else from Next.
// Errors are Next's, and the store's when it fails (KindUnavailable
// database_unavailable...): a database that does not answer is no reason
// to spend Overpass's goodwill.
func (a *Amenities) Amenities(ctx context.Context, p providers.Point, radiusMeters int) (*providers.Amenities, error) {
	if a.Local != nil && radiusMeters > 0 {
		out, err := a.local(ctx, p, radiusMeters)
		switch {
		case err == nil:
			return out, nil
		case providers.KindOf(err) != providers.KindNotFound && providers.KindOf(err) != providers.KindInvalid:
			return nil, err
		}
	}
	var out *providers.Amenities
	call := func(ctx context.Context) error {
		var err error
		out, err = a.Next.Amenities(ctx, p, radiusMeters)
		return err
	}
	if a.Around == nil {
		return out, call(ctx)
	}
	err := a.Around(ctx, call)
	return out, err
}

// local answers from the extract that holds the whole circle, reading of
// it only what the cap may list (amenity.CollectNearest): a few reads of
// one extract, all again when a load of it was published between them.
// It returns KindNotFound when no extract holds the circle.
func (a *Amenities) local(ctx context.Context, p providers.Point, radius int) (*providers.Amenities, error) {
	c := providers.Circle{Center: p, RadiusMeters: float64(radius)}
	for range 3 {
		var first *providers.OSMExtract
		changed := false
		out, err := amenity.CollectNearest(p, radius, a.MaxResults, Source, func(f providers.PlaceFilter) ([]providers.OSMPlace, error) {
			x, places, err := a.Local.OSMPlacesNear(ctx, c, f)
			switch {
			case err != nil && first != nil && providers.KindOf(err) == providers.KindNotFound:
				changed = true // the extract was dropped since the first read
				return nil, errChanged
			case err != nil:
				return nil, err
			case first == nil:
				first = x
			case x.Name != first.Name || x.Generation != first.Generation:
				changed = true
				return nil, errChanged
			}
			return places, nil
		})
		if changed {
			continue
		}
		if err != nil {
			return nil, err
		}
		out.Vintage = first.Date()
		return out, nil
	}
	return nil, providers.Errorf(providers.KindUnavailable, providers.CodeDatabaseUnavailable,
		"the OpenStreetMap extract kept changing while it was read")
}

// errChanged stops a reading of an extract that another load replaced.
var errChanged = errors.New("the extract changed while it was read")

// Supersedes reports whether an answer read from an extract of the date
// vintage was read from an extract no longer served: the extract it came
// from was replaced by a newer load, so the stored answer is refreshed
// (from the new extract) rather than served until its TTL. Answers from
// Overpass carry no vintage and are never superseded. It reads the dates
// listed at most ListEvery ago, listing them again in the background, and
// reports false until the first listing ends.
func (a *Amenities) Supersedes(vintage string) bool {
	if a.Local == nil {
		return false
	}
	a.once.Do(func() {
		a.dates = dataload.Vintages{Every: ListEvery, Now: a.now, List: func(ctx context.Context) ([]string, error) {
			xs, err := a.Local.OSMExtracts(ctx)
			dates := make([]string, len(xs))
			for i, x := range xs {
				dates[i] = x.Date()
			}
			return dates, err
		}}
	})
	return a.dates.Gone(vintage)
}

// now is Now, else time.Now.
func (a *Amenities) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}
