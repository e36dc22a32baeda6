package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"time"

	"github.com/propertyd/propertyd/store/internal/factsql"
)

// factDialect is SQLite's spatial statements for facts, through the
// rows' R*Tree and the properties'.
var factDialect = &factsql.Dialect{
	Param: func(n int) string { return "?" + strconv.Itoa(n) },
	// The R*Tree drives both (CROSS JOIN keeps SQLite from reading every
	// row without a facts_key through fact_rows_key's NULLs instead, as it
	// would without statistics).
	RowsNear: `SELECT ` + factsql.RowColumns + ` FROM fact_rows_rtree t
		CROSS JOIN fact_rows r ON r.id = t.id JOIN fact_sets s ON s.dataset = r.dataset AND s.generation = r.generation
		WHERE t.min_lat >= ?1 AND t.max_lat <= ?2 AND t.min_lng >= ?3 AND t.max_lng <= ?4
			AND r.facts_key IS NULL AND r.shape IS NULL`,
	ParcelsAt: `SELECT r.shape, ` + factsql.RowColumns + ` FROM fact_rows_rtree t
		CROSS JOIN fact_rows r ON r.id = t.id JOIN fact_sets s ON s.dataset = r.dataset AND s.generation = r.generation
		WHERE t.min_lat <= ?1 AND t.max_lat >= ?1 AND t.min_lng <= ?2 AND t.max_lng >= ?2
			AND r.facts_key IS NULL AND r.shape IS NOT NULL AND ` + factsql.Large("r") + `
		UNION ALL ` + factsql.ParcelBandsAt("?1", "?2", sqliteBand) + `
		UNION ALL ` + factsql.BuildingBandsAt("?1", "?2", sqliteBand),
	// A load's rows go in the R*Tree (points, large parcels) and in
	// fact_parcel_bands (small parcels), and its buildings in
	// osm_building_bands, when it is published, in one statement each,
	// not row by row as they are written (migrations 0010, 0012, 0016).
	IndexRows: []string{
		`INSERT OR REPLACE INTO fact_rows_rtree (id, min_lat, max_lat, min_lng, max_lng)
		SELECT id, COALESCE(min_lat, latitude), COALESCE(max_lat, latitude),
			COALESCE(min_lng, longitude), COALESCE(max_lng, longitude)
		FROM fact_rows r WHERE dataset = ?1 AND generation = ?2 AND latitude IS NOT NULL AND longitude IS NOT NULL
			AND (shape IS NULL OR ` + factsql.Large("r") + `)`,
		factsql.ParcelBandsFill("?1", "?2", sqliteBand, true),
		factsql.BuildingBandsFill("?1", "?2", sqliteBand, 0, 1),
	},
	// A row's rectangle: its parcel's box, else its point widened by
	// dlat, dlng.
	RecordsNearRows: `SELECT t.id FROM fact_rows r JOIN properties_rtree t
			ON t.min_lat BETWEEN COALESCE(r.min_lat, r.latitude - ?3) AND COALESCE(r.max_lat, r.latitude + ?3)
			AND t.min_lng BETWEEN COALESCE(r.min_lng, r.longitude - ?4) AND COALESCE(r.max_lng, r.longitude + ?4)
		WHERE r.dataset = ?1 AND r.generation = ?2 AND r.facts_key IS NULL AND r.latitude IS NOT NULL
		UNION ALL
		SELECT t.id FROM (SELECT b.min_lat, b.max_lat, b.min_lng, b.max_lng FROM ` + factsql.BuildingsOf("?1", "?2") + `) b
			CROSS JOIN properties_rtree t
		WHERE t.min_lat BETWEEN b.min_lat AND b.max_lat AND t.min_lng BETWEEN b.min_lng AND b.max_lng`,
	// From the records' side: the small parcels through the bands, the
	// points and large parcels through the R*Tree (an entry within dlat,
	// dlng of the record: a point row so near, or a parcel's box, which
	// must then hold the record).
	RowsAtRecords: factsql.RecordParcelBands("?1", "?2", sqliteBand) + `
		UNION ALL
		SELECT p.id, r.id FROM properties p CROSS JOIN fact_rows_rtree t CROSS JOIN fact_rows r
		WHERE t.min_lat <= p.latitude + ?3 AND t.max_lat >= p.latitude - ?3
			AND t.min_lng <= p.longitude + ?4 AND t.max_lng >= p.longitude - ?4
			AND r.id = t.id AND r.dataset = ?1 AND r.generation = ?2 AND r.facts_key IS NULL
			AND r.latitude IS NOT NULL
			AND (r.shape IS NULL OR (r.min_lat <= p.latitude AND r.max_lat >= p.latitude
				AND r.min_lng <= p.longitude AND r.max_lng >= p.longitude AND ` + factsql.Large("r") + `))
		UNION ALL ` + factsql.RecordBuildingBands("?1", "?2", sqliteBand),
	// The indexes of properties that hold a fact (0004 to 0006: the
	// search indexes), rebuilt by a publish that merges many records; a
	// reader in WAL mode keeps the former ones until the commit.
	RebuiltIndexes: `SELECT m.name, m.sql FROM sqlite_master m
		WHERE m.type = 'index' AND m.tbl_name = 'properties' AND m.sql IS NOT NULL
			AND EXISTS (SELECT 1 FROM pragma_index_info(m.name) i WHERE i.name IN (` + factsql.FactColumnList + `))
		ORDER BY m.name`,
	// Dropping an index deletes its sqlite_stat1 row; ANALYZE of the
	// schema table makes sqlite_stat1 where it is missing, at no cost.
	SaveStats: []string{
		`ANALYZE sqlite_master`,
		`DROP TABLE IF EXISTS temp.rebuilt_stats`,
		`CREATE TEMP TABLE rebuilt_stats AS SELECT tbl, idx, stat FROM sqlite_stat1 WHERE tbl = 'properties'`,
	},
	RestoreStats: []string{
		`INSERT INTO sqlite_stat1 (tbl, idx, stat) SELECT tbl, idx, stat FROM temp.rebuilt_stats s
			WHERE NOT EXISTS (SELECT 1 FROM sqlite_stat1 x WHERE x.tbl = s.tbl AND x.idx IS s.idx)`,
		`DROP TABLE temp.rebuilt_stats`,
	},
	PointRowsMatched: `SELECT (SELECT COUNT(*) FROM fact_rows r
		WHERE r.dataset = ?1 AND r.generation = ?2 AND r.facts_key IS NULL AND r.latitude IS NOT NULL
			AND EXISTS (SELECT 1 FROM properties_rtree t
				WHERE t.min_lat BETWEEN COALESCE(r.min_lat, r.latitude - ?3) AND COALESCE(r.max_lat, r.latitude + ?3)
				AND t.min_lng BETWEEN COALESCE(r.min_lng, r.longitude - ?4) AND COALESCE(r.max_lng, r.longitude + ?4)))
		+ (SELECT COUNT(*) FROM ` + factsql.BuildingsOf("?1", "?2") + `
			AND EXISTS (SELECT 1 FROM properties_rtree t
				WHERE t.min_lat BETWEEN b.min_lat AND b.max_lat AND t.min_lng BETWEEN b.min_lng AND b.max_lng))`,
}

// sqliteBand is the latitude band of expr, as the band indexes write it
// (properties_area_band, osm_places_area_band, osm_addresses_area_band,
// fact_parcel_bands): every query through them writes it with this, so
// the planner sees the index's own expression.
func sqliteBand(expr string) string { return "CAST(" + expr + " * 200 AS INTEGER)" }

var factStatements = factsql.Build(factDialect)

// newFacts returns the facts logic over db, built once by Open.
func (db *DB) newFacts() *factsql.Facts { return &factsql.Facts{DB: factDB{db}, S: factStatements} }

// factDB is factsql.DB on the writer (writes, transactions) and the
// readers (queries outside a transaction).
type factDB struct{ db *DB }

func (f factDB) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	return execN(f.db.writer.ExecContext(ctx, q, args...))
}

func (f factDB) Query(ctx context.Context, q string, args ...any) (factsql.Rows, error) {
	rows, err := f.db.readers.QueryContext(ctx, q, args...)
	return sqlRows{rows}, err
}

func (f factDB) ExecMany(ctx context.Context, q string, args [][]any) error {
	return f.Tx(ctx, func(c factsql.Conn) error { return c.ExecMany(ctx, q, args) })
}

func (f factDB) Tx(ctx context.Context, fn func(factsql.Conn) error) error {
	conn, err := f.db.writer.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(factTx{tx: tx, conn: conn}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (f factDB) Err(ctx context.Context, err error) error { return dbErr(ctx, err) }
func (f factDB) Now() any                                 { return formatTime(f.db.stamp()) }

// factTx is factsql.Conn on a transaction; conn, when set, is the
// connection the transaction runs on (factDB.Tx), whose driver ExecMany
// talks to directly.
type factTx struct {
	tx   *sql.Tx
	conn *sql.Conn
}

func (t factTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	return execN(t.tx.ExecContext(ctx, q, args...))
}

func (t factTx) Query(ctx context.Context, q string, args ...any) (factsql.Rows, error) {
	rows, err := t.tx.QueryContext(ctx, q, args...)
	return sqlRows{rows}, err
}

func (t factTx) ExecMany(ctx context.Context, q string, args [][]any) error {
	if t.conn != nil {
		return execManyRaw(ctx, t.conn, q, args)
	}
	stmt, err := t.tx.PrepareContext(ctx, q)
	if err != nil {
		return err
	}
	defer stmt.Close()
	return eachRow(ctx, args, func(run context.Context, a []any) error {
		_, err := stmt.ExecContext(run, a...)
		return err
	})
}

// eachRow runs exec for each argument list. go-sqlite3 starts a goroutine
// for each statement run under a context that can end, to interrupt it:
// one a row, which cost a million-feature load 4 s. The rows run under a
// context that cannot end (run), and the caller's is checked every
// cancelEvery rows.
func eachRow(ctx context.Context, args [][]any, exec func(run context.Context, a []any) error) error {
	run := context.WithoutCancel(ctx)
	for i, a := range args {
		if i%cancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := exec(run, a); err != nil {
			return err
		}
	}
	return nil
}

// cancelEvery is how many rows ExecMany writes between two looks at its
// caller's context: a few milliseconds of writing.
const cancelEvery = 500

func execN(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// sqlRows is factsql.Rows on *sql.Rows.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

// execManyRaw runs q once for each argument list on the transaction open
// on conn, through the driver's statement itself: database/sql's checks
// and conversions of each row's arguments, its locks and its retry were a
// fifth of the time of writing an extract's million features (800,000
// rows of 19 values: 3.5 s through database/sql, 2.8 s through the
// driver). database/sql lets the driver's connection be used while a
// transaction on it is open (Conn.Raw takes the connection's lock, which
// no statement of the transaction holds between statements); the rows run
// in that transaction, since SQLite's transaction is the connection's.
// The arguments are converted as database/sql converts them for this
// driver (driverValue).
func execManyRaw(ctx context.Context, conn *sql.Conn, q string, args [][]any) error {
	return conn.Raw(func(dc any) error {
		c, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("store: the SQLite driver's connection (%T) prepares no statement with a context", dc)
		}
		stmt, err := c.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		defer stmt.Close()
		exec, ok := stmt.(driver.StmtExecContext)
		if !ok {
			return fmt.Errorf("store: the SQLite driver's statement (%T) runs with no context", stmt)
		}
		var named []driver.NamedValue
		return eachRow(ctx, args, func(run context.Context, a []any) error {
			named = named[:0]
			for j, v := range a {
				v, err := driverValue(v)
				if err != nil {
					return fmt.Errorf("store: argument %d: %w", j+1, err)
				}
				named = append(named, driver.NamedValue{Ordinal: j + 1, Value: v})
			}
			_, err := exec.ExecContext(run, named)
			return err
		})
	})
}

// driverValue is v as database/sql hands it to go-sqlite3, which checks no
// value itself: the driver's own types as they are (the common case, with
// no reflection), int as int64, anything else through the default
// converter (pointers, named types, driver.Valuer).
func driverValue(v any) (driver.Value, error) {
	switch v := v.(type) {
	case nil, string, int64, float64, []byte, bool, time.Time:
		return v, nil
	case int:
		return int64(v), nil
	}
	return driver.DefaultParameterConverter.ConvertValue(v)
}
