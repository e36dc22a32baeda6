package geofile

import (
	"errors"
	"fmt"
	"io"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
)

// Part is one layer of one file (Options.Layer; "" for the file's only
// one), as a Chain reads it.
type Part struct {
	File, Layer string
}

// Chain reads the features of several parts one after the other, each
// opened when the one before it ends: a dataset of several files (tracts
// and counties, a flood map's hazard areas and panels) in one stream.
// It is not safe for concurrent use.
type Chain struct {
	parts []Part
	i     int
	r     *Reader
}

// NewChain returns a Chain over parts, in their order.
func NewChain(parts []Part) *Chain { return &Chain{parts: parts} }

// Next returns the next feature and the index of its part in the parts
// given; io.EOF after the last part's last. Errors are Reader.Next's and
// Open's, a *FeatureError for one feature the reader goes on after.
func (c *Chain) Next() (Feature, int, error) {
	for c.i < len(c.parts) {
		p := c.parts[c.i]
		if c.r == nil {
			r, err := Open(p.File, Options{Layer: p.Layer})
			if err != nil {
				return Feature{}, c.i, err
			}
			c.r = r
		}
		f, err := c.r.Next()
		if err == io.EOF {
			c.r.Close()
			c.r = nil
			c.i++
			continue
		}
		return f, c.i, err
	}
	return Feature{}, c.i, io.EOF
}

// Close closes the part being read.
func (c *Chain) Close() error {
	if c.r == nil {
		return nil
	}
	err := c.r.Close()
	c.r = nil
	return err
}

// ErrNotPolygon is the cause of PolygonWKB's error for a geometry that is
// no polygon or multipolygon (or none).
var ErrNotPolygon = errors.New("not a polygon")

// ErrCoordinates is the cause of PolygonWKB's error for a shape with a
// point that is no longitude and latitude (beyond 180 or 90 degrees, not a
// number) or a ring of fewer than three points.
var ErrCoordinates = errors.New("not a valid shape")

// PolygonWKB returns g as WKB (two dimensions, longitude then latitude)
// with its bounds when it is a polygon or a multipolygon of valid
// coordinates, every ring of three points or more: what the polygon layers
// of the store keep and check again, so that one broken feature is refused
// alone rather than failing the batch it would be written with. Anything
// else is an error saying what it is.
func PolygonWKB(g orb.Geometry) ([]byte, orb.Bound, error) {
	var polys []orb.Polygon
	switch g := g.(type) {
	case orb.Polygon:
		polys = []orb.Polygon{g}
	case orb.MultiPolygon:
		polys = g
	case nil:
		return nil, orb.Bound{}, fmt.Errorf("%w: no geometry", ErrNotPolygon)
	default:
		return nil, orb.Bound{}, fmt.Errorf("%w: a %s", ErrNotPolygon, g.GeoJSONType())
	}
	for _, p := range polys {
		for _, r := range p {
			if len(r) < 3 {
				return nil, orb.Bound{}, fmt.Errorf("%w: a ring of %d points", ErrCoordinates, len(r))
			}
			for _, pt := range r {
				if !(pt.Lon() >= -180 && pt.Lon() <= 180 && pt.Lat() >= -90 && pt.Lat() <= 90) { // NaN fails too
					return nil, orb.Bound{}, fmt.Errorf("%w: the point %v is not a longitude and latitude", ErrCoordinates, pt)
				}
			}
		}
	}
	raw, err := wkb.Marshal(g)
	if err != nil {
		return nil, orb.Bound{}, err
	}
	return raw, g.Bound(), nil
}
