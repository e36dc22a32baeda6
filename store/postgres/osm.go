package postgres

import (
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propertyd/propertyd/store/internal/osmsql"
)

// osmDialect is PostgreSQL's statements for OpenStreetMap extracts: the
// places and address points of a circle are an index-only scan of the
// latitude bands of their covering indexes (migration 0010) it crosses,
// each sought by longitude. The band expression is the indexes', written
// the same way.
var osmDialect = &osmsql.Dialect{
	Param: dialect.Param,
	// Each generation's features are partitions of their own (0018),
	// created unindexed as its load starts and indexed once they are all
	// in: a sorted build of each index, where keeping it row by row cost
	// the server some 1.3 s of a million features' load.
	Partitions: &osmsql.Partitions{
		Create: `SELECT osm_partition(k, $1) FROM unnest(ARRAY['places', 'buildings', 'addresses']) AS k`,
		Index:  `SELECT osm_index_partition(k, $1) FROM unnest(ARRAY['places', 'addresses']) AS k`,
		// Buildings are read by id from their entries in the bands.
		IndexBuildings: `SELECT osm_index_partition('buildings', $1)`,
		// The visibility map an index-only scan needs (otherwise it
		// reads every row it finds), then the statistics: the
		// partitions' and the parents' (the planner's estimate of a
		// read that names its generation through the served extract,
		// which it cannot prune before it runs). Buildings are never
		// searched. VACUUM takes no parameter and runs in no function,
		// so it names the partitions as osm_partition (0018) does.
		Settle: func(gen int64) []string {
			g := strconv.FormatInt(gen, 10)
			return []string{"VACUUM osm_places_g" + g + ", osm_addresses_g" + g, "ANALYZE osm_places, osm_addresses"}
		},
		Drop:      `SELECT osm_drop_partition($1, $2)`,
		DropBands: `DELETE FROM osm_building_bands WHERE generation = $1`,
		// Creating or dropping a partition takes its parent's ACCESS
		// EXCLUSIVE lock, behind every read of the parent running: a
		// statement waiting for it holds up every read after it. A
		// fifth of a second at most, then it tries again.
		Guard: `SET LOCAL lock_timeout = '200ms'`,
		Busy:  lockNotAvailable,
	},
	// A batch's features are copied (COPY, binary) into their tables:
	// a batch of 5,000 buildings one INSERT each cost 5,000 statements on
	// the server. Without a savepoint, a staging table or a unique key to
	// detect a second row of an element (a load writes each once, and
	// 0017 dropped the key): that key's index cost the server a second a
	// million features.
	Copy: true,

	// Lists are arrays: the text of the places' and address points'
	// statements is the same whatever the bands and filters, and each is
	// prepared and planned once a connection rather than once a circle.
	Arrays: true,
	PlacesIn: func(bands string) string {
		return `SELECT ` + osmsql.PlaceColumns + ` FROM osm_extracts x
			JOIN osm_places p ON p.generation = x.generation
			WHERE x.name = $1 AND p.generation = ` + servedGeneration + ` AND ` + pgBand("p.latitude") + ` ` + bands + `
				AND p.longitude BETWEEN $4 AND $5 AND p.latitude BETWEEN $2 AND $3`
	},
	// A kind at a time: each kind of the list (an array, unnested) reads
	// its own bands through the index it leads. The subquery's OFFSET 0
	// keeps the planner from flattening it, which priced a list of rare
	// kinds as one pass over every place of the circle through the area
	// index (15 ms at a million features, against 0.6 ms).
	PlacesOfKind: func(col, bands, kinds string) string {
		return `SELECT ` + osmsql.PlaceColumns + ` FROM osm_extracts x CROSS JOIN unnest(` + kinds + `::text[]) AS k(v)
			CROSS JOIN LATERAL (SELECT osm_type, osm_id, version, category, type, name, name_key, latitude, longitude
				FROM osm_places WHERE generation = ` + servedGeneration + ` AND ` + col + ` = k.v
					AND ` + pgBand("latitude") + ` ` + bands + `
					AND longitude BETWEEN $4 AND $5 AND latitude BETWEEN $2 AND $3 OFFSET 0) p
			WHERE x.name = $1`
	},
	AddressesIn: func(bands string) string {
		return `SELECT ` + osmsql.AddressColumns + ` FROM osm_extracts x
			JOIN osm_addresses a ON a.generation = x.generation
			WHERE x.name = $1 AND a.generation = ` + servedGeneration + ` AND ` + pgBand("a.latitude") + ` ` + bands + `
				AND a.longitude BETWEEN $4 AND $5 AND a.latitude BETWEEN $2 AND $3`
	},
}

// servedGeneration is the generation the extract named $1 serves, as a
// subquery the executor runs first (an InitPlan): a read that names it so
// reads that generation's partition alone (0018), where one that only
// joins the extract's generation to the features' went through every
// partition, a load's unindexed one with a sequential scan.
const servedGeneration = `(SELECT generation FROM osm_extracts WHERE name = $1)`

var osmStatements = osmsql.Build(osmDialect)

// lockNotAvailable says err is PostgreSQL's lock_not_available (55P03): a
// lock_timeout passed.
func lockNotAvailable(err error) bool {
	pe, ok := errors.AsType[*pgconn.PgError](err)
	return ok && pe.Code == "55P03"
}

// newExtracts returns the extract logic over db, built once by Open.
func (db *DB) newExtracts() osmsql.Extracts {
	return osmsql.Extracts{DB: factDB{db}, S: osmStatements, Bounds: &osmsql.Boundaries{}}
}

// OSMWriters is how many batches of an extract's load are written side by
// side (providers.OSMWriters): two, each on a connection and a server
// backend of its own, so that the server writes on both cores (one backend
// copying a load's batches in turn was busy the whole load, the loader
// less than half of it); one where the pool holds a single connection,
// which a batch waiting for the one before it would keep from that one.
func (db *DB) OSMWriters() int {
	return min(2, int(db.pool.Config().MaxConns))
}
