package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propertyd/propertyd/store/internal/factsql"
)

// factDialect is PostgreSQL's spatial statements for facts, through the
// GiST indexes over point(longitude, latitude) of the rows and the
// properties.
var factDialect = &factsql.Dialect{
	Param:        dialect.Param,
	Analyze:      "ANALYZE fact_rows, properties, fact_buildings, osm_building_bands",
	MergeWorkers: 2,
	UpdateMany: `UPDATE properties p SET property_type = v.property_type, bedrooms = v.bedrooms,
			bathrooms = v.bathrooms, living_area_sqft = v.living_area_sqft, lot_sqft = v.lot_sqft,
			year_built = v.year_built, stories = v.stories, units = v.units, facts = v.facts, updated_at = $11
		FROM unnest($1::bigint[], $2::text[], $3::int[], $4::float8[], $5::int[], $6::bigint[], $7::int[],
			$8::float8[], $9::int[], $10::text[])
			AS v(id, property_type, bedrooms, bathrooms, living_area_sqft, lot_sqft, year_built, stories, units, facts)
		WHERE p.id = v.id`,
	// A load's rows are copied (COPY, binary) straight into fact_rows when
	// none of their keys is taken (factsql.Copier.CopyNew), else into a
	// temporary table of the session and written from it by one INSERT: a
	// batch of 5,000 rows one INSERT each cost 5,000 statements on the
	// server.
	Stage: &factsql.Stage{
		Create: `CREATE TEMP TABLE IF NOT EXISTS fact_rows_stage (
			seq int, dataset text, generation bigint, row_key text, rank bigint, join_key text, facts_key text,
			latitude float8, longitude float8, shape bytea, min_lat float8, max_lat float8, min_lng float8,
			max_lng float8, property_type text, bedrooms int, bathrooms float8, living_area_sqft int,
			lot_sqft bigint, year_built int, stories float8, units int) ON COMMIT DELETE ROWS`,
		Table: "fact_rows_stage",
	},
	RowsNear: `SELECT ` + factsql.RowColumns + ` FROM ` + factsql.ServedRows + `
		WHERE point(r.longitude, r.latitude) <@ box(point($3, $1), point($4, $2))
			AND r.latitude IS NOT NULL AND r.longitude IS NOT NULL AND r.facts_key IS NULL AND r.shape IS NULL`,
	// A parcel's box holds the point as a box of no size: GiST's box_ops
	// has @> of two boxes, not of a box and a point, which would read the
	// whole index.
	ParcelsAt: `SELECT r.shape, ` + factsql.RowColumns + ` FROM ` + factsql.ServedRows + `
		WHERE box(point(r.min_lng, r.min_lat), point(r.max_lng, r.max_lat)) @> box(point($2, $1), point($2, $1))
			AND r.shape IS NOT NULL AND ` + factsql.Large("r") + ` AND r.facts_key IS NULL
		UNION ALL ` + factsql.ParcelBandsAt("$1", "$2", pgBand) + `
		UNION ALL ` + factsql.BuildingBandsAt("$1", "$2", pgBand),
	// A load's small parcels go in fact_parcel_bands, and its buildings in
	// osm_building_bands, when it is published, sorted (migrations 0012,
	// 0016): the buildings in two halves, the three statements side by
	// side, since one backend's insert of 800,000 entries kept one core
	// busy for 2.5 s while the other idled. The GiST indexes are kept row
	// by row.
	IndexRows: []string{factsql.ParcelBandsFill("$1", "$2", pgBand, false),
		factsql.BuildingBandsFill("$1", "$2", pgBand, 0, 2), factsql.BuildingBandsFill("$1", "$2", pgBand, 1, 2)},
	IndexRowsApart: true,
	// A row's rectangle: its parcel's box, else its point widened by
	// dlat, dlng.
	RecordsNearRows: `SELECT p.id FROM fact_rows r JOIN properties p
			ON point(p.longitude, p.latitude) <@ box(
				point(COALESCE(r.min_lng, r.longitude - $4), COALESCE(r.min_lat, r.latitude - $3)),
				point(COALESCE(r.max_lng, r.longitude + $4), COALESCE(r.max_lat, r.latitude + $3)))
		WHERE r.dataset = $1 AND r.generation = $2 AND r.facts_key IS NULL
			AND r.latitude IS NOT NULL AND r.longitude IS NOT NULL
		UNION ALL
		SELECT p.id FROM (SELECT b.min_lat, b.max_lat, b.min_lng, b.max_lng FROM ` + factsql.BuildingsOf("$1", "$2") + `) b
			JOIN properties p ON point(p.longitude, p.latitude) <@ box(point(b.min_lng, b.min_lat), point(b.max_lng, b.max_lat))`,
	// From the records' side: small parcels through the bands, points
	// and large parcels through their GiST indexes.
	RowsAtRecords: factsql.RecordParcelBands("$1", "$2", pgBand) + `
		UNION ALL
		SELECT p.id, r.id FROM properties p JOIN fact_rows r
			ON point(r.longitude, r.latitude) <@ box(point(p.longitude - $4, p.latitude - $3),
				point(p.longitude + $4, p.latitude + $3))
		WHERE r.dataset = $1 AND r.generation = $2 AND r.facts_key IS NULL
			AND r.latitude IS NOT NULL AND r.longitude IS NOT NULL AND r.shape IS NULL
		UNION ALL
		SELECT p.id, r.id FROM properties p JOIN fact_rows r
			ON box(point(r.min_lng, r.min_lat), point(r.max_lng, r.max_lat))
				@> box(point(p.longitude, p.latitude), point(p.longitude, p.latitude))
		WHERE r.dataset = $1 AND r.generation = $2 AND r.facts_key IS NULL
			AND r.shape IS NOT NULL AND ` + factsql.Large("r") + `
		UNION ALL ` + factsql.RecordBuildingBands("$1", "$2", pgBand),
	PointRowsMatched: `SELECT (SELECT COUNT(*) FROM fact_rows r
		WHERE r.dataset = $1 AND r.generation = $2 AND r.facts_key IS NULL
			AND r.latitude IS NOT NULL AND r.longitude IS NOT NULL
			AND EXISTS (SELECT 1 FROM properties p WHERE point(p.longitude, p.latitude) <@ box(
				point(COALESCE(r.min_lng, r.longitude - $4), COALESCE(r.min_lat, r.latitude - $3)),
				point(COALESCE(r.max_lng, r.longitude + $4), COALESCE(r.max_lat, r.latitude + $3)))))
		+ (SELECT COUNT(*) FROM ` + factsql.BuildingsOf("$1", "$2") + `
			AND EXISTS (SELECT 1 FROM properties p
				WHERE point(p.longitude, p.latitude) <@ box(point(b.min_lng, b.min_lat), point(b.max_lng, b.max_lat))))`,
}

// pgBand is the latitude band of expr, as the band indexes write it
// (properties_area_band, osm_places_area_band, osm_addresses_area_band,
// fact_parcel_bands): every query through them writes it with this, so
// the planner sees the index's own expression.
func pgBand(expr string) string { return "trunc(" + expr + " * 200)::integer" }

var factStatements = factsql.Build(factDialect)

// newFacts returns the facts logic over db, built once by Open.
func (db *DB) newFacts() *factsql.Facts { return &factsql.Facts{DB: factDB{db}, S: factStatements} }

// factDB is factsql.DB on the pool.
type factDB struct{ db *DB }

func (f factDB) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := f.db.pool.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (f factDB) Query(ctx context.Context, q string, args ...any) (factsql.Rows, error) {
	rows, err := f.db.pool.Query(ctx, q, args...)
	return pgRows{rows}, err
}

func (f factDB) ExecMany(ctx context.Context, q string, args [][]any) error {
	return f.Tx(ctx, func(c factsql.Conn) error { return c.ExecMany(ctx, q, args) })
}

func (f factDB) Tx(ctx context.Context, fn func(factsql.Conn) error) error {
	return pgx.BeginFunc(ctx, f.db.pool, func(tx pgx.Tx) error { return fn(factTx{tx}) })
}

func (f factDB) Err(ctx context.Context, err error) error { return dbErr(ctx, err) }
func (f factDB) Now() any                                 { return f.db.stamp() }

// factTx is factsql.Conn on a transaction.
type factTx struct{ tx pgx.Tx }

func (t factTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (t factTx) Query(ctx context.Context, q string, args ...any) (factsql.Rows, error) {
	rows, err := t.tx.Query(ctx, q, args...)
	return pgRows{rows}, err
}

// ExecMany sends every statement in one pipelined batch: one round trip.
func (t factTx) ExecMany(ctx context.Context, q string, args [][]any) error {
	var b pgx.Batch
	for _, a := range args {
		b.Queue(q, a...)
	}
	return t.tx.SendBatch(ctx, &b).Close()
}

// CopyRows copies rows into table with COPY (factsql.Copier).
func (t factTx) CopyRows(ctx context.Context, table string, columns []string, rows [][]any) error {
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows))
	return err
}

// CopyNew copies rows into table under a savepoint, rolled back when a
// unique key is taken (factsql.Copier).
func (t factTx) CopyNew(ctx context.Context, table string, columns []string, rows [][]any) (bool, error) {
	sp, err := t.tx.Begin(ctx)
	if err != nil {
		return false, err
	}
	if _, err := sp.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows)); err != nil {
		if rerr := sp.Rollback(ctx); rerr != nil {
			return false, rerr
		}
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == uniqueViolation {
			return false, nil
		}
		return false, err
	}
	return true, sp.Commit(ctx)
}

// uniqueViolation is PostgreSQL's SQLSTATE of a unique key taken.
const uniqueViolation = "23505"

// pgRows is factsql.Rows on pgx.Rows.
type pgRows struct{ pgx.Rows }
