package sqlshared

import (
	"context"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// NearestRecord returns the record closest to p within radiusMeters
// (great-circle distance, as providers.Point.DistanceMeters measures it;
// the lower id wins a tie), the same on both engines. It checks the
// arguments (KindInvalid), then runs the Nearest query on c once for each
// rectangle of the bounding box, which is split at the antimeridian and
// spans all longitudes near a pole, and offers every row, read by scan
// (the engine's), to the closest so far, whose exact distance decides. It
// returns the first error of the query or of scan as it is, and
// KindNotFound (property_not_found) when no record is within the radius.
func (q *Queries) NearestRecord(ctx context.Context, c Querier, p providers.Point, radiusMeters float64,
	scan func(Row) (*providers.Property, error)) (*providers.Property, error) {
	if err := rules.CheckCoordinates(p.Lat, p.Lng); err != nil {
		return nil, err
	}
	if err := rules.CheckRadius(radiusMeters); err != nil {
		return nil, err
	}
	b := rules.BoundingBox(p, radiusMeters)
	best := rules.Closest{From: p, Radius: radiusMeters}
	for _, lr := range b.Lngs {
		err := EachRow(ctx, c, q.Nearest, []any{b.South, b.North, lr.West, lr.East}, func(r Row) error {
			rec, err := scan(r)
			if err == nil {
				best.Offer(rec)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return best.Result()
}

// Rows is a result set: database/sql's and pgx's, behind each engine's
// adapter (factsql.Rows is this type).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Querier runs a query: an engine's reader or transaction, through its
// adapter of the driver (each engine's factDB and factTx), so that the
// steps that read rows the same way on both engines are written once.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
}

// EachRow runs sql with args on c and hands every row to fn, in order. It
// returns fn's first error, else the query's.
func EachRow(ctx context.Context, c Querier, sql string, args []any, fn func(Row) error) error {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
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

// ListRecordsIn reads in c (a read transaction, so that the two reads see
// one snapshot) up to limit records with ids above afterID, in id order,
// each with its canonical address and its keys (sorted): what an engine's
// ListRecords returns, scan being its scanProperty.
func (q *Queries) ListRecordsIn(ctx context.Context, c Querier, afterID int64, limit int,
	scan func(Row) (*providers.Property, error)) ([]providers.NewProperty, error) {
	var out []providers.NewProperty
	byID := map[int64]int{}
	err := EachRow(ctx, c, q.ListRecords, []any{afterID, limit}, func(r Row) error {
		var canonical string
		p, err := scan(Then{Row: r, Dest: &canonical})
		if err != nil {
			return err
		}
		byID[p.ID] = len(out)
		out = append(out, providers.NewProperty{Property: *p, Canonical: canonical})
		return nil
	})
	if err != nil || len(out) == 0 {
		return out, err
	}
	err = EachRow(ctx, c, q.ListKeys, []any{out[0].Property.ID, out[len(out)-1].Property.ID}, func(r Row) error {
		var (
			k  string
			id int64
		)
		if err := r.Scan(&k, &id); err != nil {
			return err
		}
		if i, ok := byID[id]; ok {
			out[i].Keys = append(out[i].Keys, k)
		}
		return nil
	})
	return out, err
}
