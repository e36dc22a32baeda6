package overpass

import (
	"context"
	"strconv"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// Amenities lists the amenities within radiusMeters of p with one Overpass
// query. It returns KindInvalid (invalid_parameter "radius") for a radius
// outside [MinRadius, MaxRadius] or "point" for coordinates that are not
// WGS84; KindUpstream for an upstream error, error page, incomplete answer
// (upstream_incomplete) or rate limit (upstream_rate_limited);
// KindUnavailable (upstream_misconfigured) when the base URL is no
// interpreter; KindTimeout when ctx expired and KindCanceled when the caller
// went away.
func (c *Client) Amenities(ctx context.Context, p providers.Point, radiusMeters int) (*providers.Amenities, error) {
	if radiusMeters < MinRadius || radiusMeters > MaxRadius {
		return nil, providers.Invalid("radius",
			"must be from "+strconv.Itoa(MinRadius)+" to "+strconv.Itoa(MaxRadius)+" meters")
	}
	if !(p.Lat >= -90 && p.Lat <= 90) || !(p.Lng >= -180 && p.Lng <= 180) {
		return nil, providers.Invalid("point", "latitude must be from -90 to 90 and longitude from -180 to 180")
	}
	elements, err := c.interpret(ctx, query(p, radiusMeters, c.Options.TimeoutSeconds))
	if err != nil {
		// Error pages quote the query back, and the query holds the point.
		return nil, upstream.Scrub(err, upstream.Coordinates(p)...)
	}
	return collect(p, radiusMeters, elements, c.MaxResults), nil
}

// collect builds the answer from the elements around p: each element the
// amenity rules accept becomes a place (ways and relations at their
// center; an element without coordinates is skipped), and amenity.Collect
// does the rest, as it does for the local extract.
func collect(p providers.Point, radius int, elements []element, maxResults int) *providers.Amenities {
	places := make([]providers.OSMPlace, 0, len(elements))
	for _, e := range elements {
		cat, typ, ok := amenity.Classify(e.Tags)
		if !ok {
			continue
		}
		at, ok := e.point()
		if !ok {
			continue
		}
		places = append(places, providers.OSMPlace{
			OSMRef:   providers.OSMRef{Type: e.Type, ID: e.ID},
			Category: cat, Type: typ,
			Name:    amenity.DisplayName(e.Tags["name"], e.Tags["brand"], typ),
			NameKey: amenity.NameKey(e.Tags["name"]),
			Point:   at,
		})
	}
	return amenity.Collect(p, radius, places, maxResults, Source)
}
