package sqlshared

import (
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// Nearest returns the record closest to p within radiusMeters
// (great-circle distance, as providers.Point.DistanceMeters measures it;
// the lower id wins a tie), the same on both engines. It checks the
// arguments (KindInvalid), then calls search once for each rectangle of
// the bounding box, which is split at the antimeridian and spans all
// longitudes near a pole; search runs the Nearest query with those bounds
// and offers every row to best, whose exact distance decides. It returns
// search's first error as it is, and KindNotFound (property_not_found)
// when no record is within the radius.
func Nearest(p providers.Point, radiusMeters float64,
	search func(south, north, west, east float64, best *rules.Closest) error) (*providers.Property, error) {
	if err := rules.CheckCoordinates(p.Lat, p.Lng); err != nil {
		return nil, err
	}
	if err := rules.CheckRadius(radiusMeters); err != nil {
		return nil, err
	}
	b := rules.BoundingBox(p, radiusMeters)
	best := rules.Closest{From: p, Radius: radiusMeters}
	for _, lr := range b.Lngs {
		if err := search(b.South, b.North, lr.West, lr.East, &best); err != nil {
			return nil, err
		}
	}
	return best.Result()
}

// Row is a row a scan reads: *sql.Row, *sql.Rows, pgx.Row and pgx.Rows.
type Row interface{ Scan(dest ...any) error }

// Then reads a row's columns into the destinations a scan asks for and its
// one last column into Dest: ListRecords reads a property with the
// engine's scanProperty, then the canonical address.
type Then struct {
	Row  Row
	Dest any
}

// Scan scans the row into dest and then t.Dest.
func (t Then) Scan(dest ...any) error { return t.Row.Scan(append(dest, t.Dest)...) }
