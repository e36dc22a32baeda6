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

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
)

// Source is the source of an answer read from a loaded extract, in the
// section value and in meta.sections; its vintage is the extract's date.
const Source = "osm-extract"

// Places is what Amenities reads an extract through: the store's
// providers.OSMStore.OSMPlacesNear.
type Places interface {
	OSMPlacesNear(ctx context.Context, c providers.Circle) (*providers.OSMExtract, []providers.OSMPlace, error)
}

// Amenities is an amenities source answering from Local where an extract
// covers the circle and from Next elsewhere, Next's calls run under Around
// (its breaker: a local answer never counts for or against the upstream).
// MaxResults caps each category as the module's own option does (0: no
// cap). It is safe for concurrent use when Local and Next are.
type Amenities struct {
	Local      Places
	Next       providers.AmenitiesProvider
	Around     providers.Around
	MaxResults int
}

var _ providers.AmenitiesProvider = Amenities{}

// ResultCapper is implemented by an amenities module that keeps only the
// nearest N items of each category (overpass's max_results option).
type ResultCapper interface {
	ResultCap() int
}

// New returns the extracts of local in front of next, next's calls run
// under around, capped as next caps its own answers when it says how.
func New(local Places, next providers.AmenitiesProvider, around providers.Around) Amenities {
	a := Amenities{Local: local, Next: next, Around: around}
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
func (a Amenities) Amenities(ctx context.Context, p providers.Point, radiusMeters int) (*providers.Amenities, error) {
	if a.Local != nil && radiusMeters > 0 {
		x, places, err := a.Local.OSMPlacesNear(ctx, providers.Circle{Center: p, RadiusMeters: float64(radiusMeters)})
		switch {
		case err == nil:
			out := amenity.Collect(p, radiusMeters, places, a.MaxResults, Source)
			out.Vintage = x.Date()
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
