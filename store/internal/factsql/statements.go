package factsql

import (
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/loadsql"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// Dialect is what the engines say differently about facts: the statements
// that go through their spatial indexes. Each uses numbered placeholders
// so an argument may appear twice.
type Dialect struct {
	// Param is the engine's placeholder of the n-th argument.
	Param func(n int) string
	// RowsNear selects RowColumns of served rows that join by their point
	// (no facts_key, no parcel shape) inside a rectangle: south, north,
	// west, east.
	RowsNear string
	// ParcelsAt selects the shape, then RowColumns, of served rows without
	// a facts_key whose parcel's bounding box holds a point: lat, lng.
	// Small parcels (SmallParcel) are found through fact_parcel_bands
	// (ParcelBandsAt), larger ones through the engine's spatial index.
	ParcelsAt string
	// RecordsNearRows selects the ids of records within a rectangle of
	// half-height dlat and half-width dlng of a point row of a load, or
	// inside the bounding box of a parcel row's shape: dataset,
	// generation, dlat, dlng.
	RecordsNearRows string
	// UpdateMany, when set, updates many records' facts in one statement:
	// arrays of ids, property types, bedrooms, bathrooms, living areas,
	// lots, years, stories, units and provenances (nil for NULL), then
	// the time. Unset: one UPDATE a record, prepared once.
	UpdateMany string
	// IndexRows put the rows of a load (dataset, generation) in the
	// spatial indexes that are not kept row by row, before it is
	// published: fact_parcel_bands (ParcelBands) and, on SQLite, the
	// R*Tree. Each must be safe to run twice (a publish interrupted after
	// it runs it again).
	IndexRows []string
	// IndexRowsApart runs the IndexRows side by side, each on a
	// connection of its own (PostgreSQL, whose server fills an index on
	// one core a statement; SQLite has one writer).
	IndexRowsApart bool
	// Analyze, when set, refreshes the planner's statistics of the rows
	// before a publish joins them with the records: PostgreSQL otherwise
	// plans those joins for the empty table it last saw and loops over
	// every record for each row.
	Analyze string
	// RebuiltIndexes, when set, lists the name and CREATE statement of
	// every index of properties that holds a fact column. Set, a publish
	// that merges a large share of the records (see Facts.rebuilds)
	// drops them, merges in one transaction and creates them again:
	// building an index from sorted rows costs a fraction of updating its
	// entries record by record, and readers see the former state, indexes
	// included, until the commit. Only an engine whose readers are not
	// blocked by dropping an index in a transaction may set it (SQLite in
	// WAL mode; PostgreSQL's DROP INDEX would lock every reader out).
	RebuiltIndexes string
	// SaveStats and RestoreStats, with RebuiltIndexes, keep the
	// planner's statistics of the rebuilt indexes, which dropping them
	// deletes: run before the drop and after the creates, in the same
	// transaction.
	SaveStats, RestoreStats []string
	// MergeWorkers is how many transactions merge records at once in
	// place (0 or 1: one after another, as a single writer must). Each
	// takes its own batch of records, so they never wait on each other's
	// rows; on PostgreSQL a merge is the server inserting an entry in
	// every index of each updated row, which two backends do side by
	// side.
	MergeWorkers int
	// Stage, when set, puts a load's rows through a staging table the
	// Conn copies into (Copier) rather than one INSERT a row.
	Stage *Stage
	// PointRowsMatched counts the point rows of a load that have a record
	// in such a rectangle: dataset, generation, dlat, dlng.
	PointRowsMatched string
	// RowsAtRecords, when set, selects the pairs (record id, row id) that
	// RecordsNearRows and PointRowsMatched find, read from the records'
	// side: each record looks up the rows of the load around it
	// (dataset, generation, dlat, dlng). A publish reads it when there are
	// fewer records than rows (a state's buildings loaded beside a few
	// thousand records): a look-up a record rather than one a row.
	RowsAtRecords string
}

// RecordParcelBands is the part of RowsAtRecords that finds the small
// parcels of a load (dataset ?1/$1, generation ?2/$2, as p1 and p2 write
// them) holding a record p, through fact_parcel_bands; band(expr) is the
// engine's latitude band. The engine's statement joins from properties p
// and adds the rest (points and large parcels) through its spatial index.
func RecordParcelBands(p1, p2 string, band func(expr string) string) string {
	return eachBand(func(bandOfP string) string {
		return `SELECT p.id, r.id FROM properties p
		CROSS JOIN fact_parcel_bands b CROSS JOIN fact_rows r
		WHERE b.band = ` + bandOfP + `
			AND b.min_lng BETWEEN p.longitude - ` + SmallParcel + ` AND p.longitude
			AND b.min_lat <= p.latitude AND b.max_lat >= p.latitude AND b.max_lng >= p.longitude
			AND r.id = b.id AND r.dataset = ` + p1 + ` AND r.generation = ` + p2 + ` AND r.facts_key IS NULL`
	}, band)
}

// eachBand is the query q of a record p's band, then UNION ALL of the band
// south of it: the bands a record's small parcels lie in. A query from
// the records' side seeks each band by equality, which both engines do
// through the bands' key for every record. (With "b.band IN (its two
// bands)" PostgreSQL read every band's entries within the west edges'
// reach for each record: a publish with 20,000 records beside an
// extract's 800,000 buildings took 85 s.) A pair found twice, where both
// bands are one, is counted once by the publish.
func eachBand(q func(bandOfP string) string, band func(expr string) string) string {
	return q(band("p.latitude")) + `
		UNION ALL
		` + q(band("(p.latitude - "+SmallParcel+")"))
}

// SmallParcel is the largest side, in degrees of latitude and of
// longitude, of a parcel's box that fact_parcel_bands holds (migration
// 0012): one latitude band of properties_area_band, so that a point's
// parcels lie in its band and the one south of it.
const SmallParcel = "0.005"

// Small is the SQL condition of a row r with a shape whose box is small
// enough for fact_parcel_bands, written as migration 0012 writes it.
func Small(r string) string {
	return r + ".max_lat - " + r + ".min_lat <= " + SmallParcel + " AND " + r + ".max_lng - " + r + ".min_lng <= " + SmallParcel
}

// Large is the negation of Small, written as PostgreSQL's fact_rows_shape
// index (migration 0012) writes its condition.
func Large(r string) string {
	return "(" + r + ".max_lat - " + r + ".min_lat > " + SmallParcel + " OR " + r + ".max_lng - " + r + ".min_lng > " + SmallParcel + ")"
}

// ParcelBandsAt selects the shape, then RowColumns, of the served small
// parcels whose box holds a point (the first placeholder its latitude,
// the second its longitude, as band(n) writes an engine's band of the
// n-th placeholder): those of fact_parcel_bands in the point's band and
// the one south of it whose west edge lies within SmallParcel west of the
// point.
func ParcelBandsAt(p1, p2 string, band func(expr string) string) string {
	return `SELECT r.shape, ` + RowColumns + ` FROM fact_parcel_bands b
		JOIN fact_rows r ON r.id = b.id JOIN fact_sets s ON s.dataset = r.dataset AND s.generation = r.generation
		WHERE b.band IN (` + band("("+p1+" - "+SmallParcel+")") + `, ` + band(p1) + `)
			AND b.min_lng BETWEEN ` + p2 + ` - ` + SmallParcel + ` AND ` + p2 + `
			AND b.min_lat <= ` + p1 + ` AND b.max_lat >= ` + p1 + ` AND b.max_lng >= ` + p2 + `
			AND r.facts_key IS NULL`
}

// ParcelBandsFill is IndexRows' statement filling fact_parcel_bands with
// the small parcels of a load (dataset, generation: the first two
// placeholders), sorted by key so each page of the table is written once;
// band(expr) is the engine's band. It must be safe to run twice (a
// publish interrupted after it runs it again). With replace (SQLite's
// INSERT OR REPLACE) a second run rewrites the same entries. Without, the
// statement relies on being whole or not at all: a run after one that
// committed finds one of the load's entries there and inserts nothing.
// That is PostgreSQL's way: ON CONFLICT's handling of each row made its
// fill of 800,000 entries 3.2 s rather than 1.7 s (and the guard costs
// SQLite more than replacing).
func ParcelBandsFill(p1, p2 string, band func(expr string) string, replace bool) string {
	insert, guard := "INSERT OR REPLACE", ""
	if !replace {
		insert = "INSERT"
		guard = `
			AND NOT EXISTS (SELECT 1 FROM (SELECT f.min_lat, f.min_lng, f.id FROM fact_rows f
					WHERE f.dataset = ` + p1 + ` AND f.generation = ` + p2 + ` AND f.shape IS NOT NULL AND ` + Small("f") + `
					LIMIT 1) one
				JOIN fact_parcel_bands b ON b.band = ` + band("one.min_lat") + ` AND b.min_lng = one.min_lng AND b.id = one.id)`
	}
	return insert + ` INTO fact_parcel_bands (band, min_lng, id, min_lat, max_lat, max_lng)
		SELECT ` + band("r.min_lat") + `, r.min_lng, r.id, r.min_lat, r.max_lat, r.max_lng FROM fact_rows r
		WHERE r.dataset = ` + p1 + ` AND r.generation = ` + p2 + ` AND r.shape IS NOT NULL AND ` + Small("r") + guard + `
		ORDER BY 1, 2, 3`
}

// The buildings of an OpenStreetMap extract are the rows of its facts
// dataset where they stand (migration 0016): fact_buildings names, for a
// load of the dataset, the extract's generation, and osm_building_bands
// holds its small buildings that give facts as fact_parcel_bands holds a
// parcel, under the generation first, in two sizes (buildingSizes). (Its
// larger buildings are copied into fact_rows, as any parcel.) Every read
// of a dataset's parcels reads both; a building's id is given negated
// where row ids of both tables meet (RowsAtRecords), so they never
// collide.

// buildingSize is a class of osm_building_bands: the footprints whose box
// is at most side degrees a side, under latitude bands as tall, so that a
// point's buildings of the class are those of its band and the one south
// of it whose west edge lies within side of it. Nearly every building is
// of the first, where a point's seek reads some ten entries; with the
// bands of fact_parcel_bands alone it read some thousand (two bands of
// 0.005 degrees, the west edges within 0.005) where buildings stand close,
// 2 s for 20,000 records at a publish.
type buildingSize struct {
	size, side string
	// scale multiplies the expression of a band (the engine's band is
	// 0.005 degrees tall); "" is the engine's band.
	scale string
}

var buildingSizes = []buildingSize{{"0", "0.0005", "10"}, {"1", SmallParcel, ""}}

// bandOf is the band of expr in z, band being the engine's.
func (z buildingSize) bandOf(band func(expr string) string, expr string) string {
	if z.scale == "" {
		return band(expr)
	}
	return band("(" + expr + ") * " + z.scale)
}

// holds is the condition of a building o's box being of z or a smaller
// size.
func (z buildingSize) holds(o string) string {
	return o + ".max_lat - " + o + ".min_lat <= " + z.side + " AND " + o + ".max_lng - " + o + ".min_lng <= " + z.side
}

// eachSize is q of each size, UNION ALL.
func eachSize(q func(z buildingSize) string) string {
	var parts []string
	for _, z := range buildingSizes {
		parts = append(parts, q(z))
	}
	return strings.Join(parts, "\n\t\tUNION ALL\n\t\t")
}

// BuildingGivesFacts is the SQL condition of a building o of osm_buildings
// that gives facts: one of the columns a building's facts can fill.
func BuildingGivesFacts(o string) string {
	return "(" + o + ".property_type IS NOT NULL OR " + o + ".stories IS NOT NULL OR " + o + ".units IS NOT NULL OR " +
		o + ".year_built IS NOT NULL)"
}

// BuildingsOf is the FROM and WHERE of the building entries b of a load
// (dataset p1, generation p2, in the engine's placeholders): the ones of
// the extract generation fact_buildings fb names for it.
func BuildingsOf(p1, p2 string) string {
	return `fact_buildings fb CROSS JOIN osm_building_bands b
		WHERE fb.dataset = ` + p1 + ` AND fb.generation = ` + p2 + ` AND b.generation = fb.osm_generation`
}

// BuildingBandsAt selects the shape, then RowColumns, of the served
// buildings whose box holds a point (latitude p1, longitude p2), as
// ParcelBandsAt selects parcels, in each size: a building gives its type,
// year, stories and units, and its dataset's as-of date.
func BuildingBandsAt(p1, p2 string, band func(expr string) string) string {
	return eachSize(func(z buildingSize) string {
		return `SELECT o.shape, s.dataset, COALESCE(NULLIF(s.source, ''), s.dataset), s.as_of, s.priority,
			o.latitude, o.longitude, o.property_type, NULL, NULL, NULL, NULL, o.year_built, o.stories, o.units
		FROM fact_sets s CROSS JOIN fact_buildings fb CROSS JOIN osm_building_bands b CROSS JOIN osm_buildings o
		WHERE fb.dataset = s.dataset AND fb.generation = s.generation AND b.generation = fb.osm_generation
			AND b.size = ` + z.size + ` AND b.band IN (` + z.bandOf(band, "("+p1+" - "+z.side+")") + `, ` + z.bandOf(band, p1) + `)
			AND b.min_lng BETWEEN ` + p2 + ` - ` + z.side + ` AND ` + p2 + `
			AND b.min_lat <= ` + p1 + ` AND b.max_lat >= ` + p1 + ` AND b.max_lng >= ` + p2 + `
			AND o.generation = b.generation AND o.id = b.id`
	})
}

// RecordBuildingBands is the part of RowsAtRecords that finds the
// buildings of a load (dataset p1, generation p2) holding a record p, as
// RecordParcelBands finds its small parcels, each size's two bands by
// equality, in the extract generation the load names (one value, so that
// it bounds every seek of the bands' key); the row id is the building's
// negated.
func RecordBuildingBands(p1, p2 string, band func(expr string) string) string {
	return eachSize(func(z buildingSize) string {
		q := func(south string) string {
			return `SELECT p.id, -b.id FROM properties p CROSS JOIN osm_building_bands b
		WHERE b.generation = (SELECT osm_generation FROM fact_buildings WHERE dataset = ` + p1 + ` AND generation = ` + p2 + `)
			AND b.size = ` + z.size + ` AND b.band = ` + z.bandOf(band, "(p.latitude"+south+")") + `
			AND b.min_lng BETWEEN p.longitude - ` + z.side + ` AND p.longitude
			AND b.min_lat <= p.latitude AND b.max_lat >= p.latitude AND b.max_lng >= p.longitude`
		}
		return q("") + "\n\t\tUNION ALL\n\t\t" + q(" - "+z.side)
	})
}

// BuildingBandsFill is IndexRows' statement putting the buildings of a
// load (dataset p1, generation p2) in osm_building_bands: those of the
// extract generation fact_buildings names (a subquery run once, so that
// PostgreSQL reads that generation's partition alone) that give facts and
// are small
// (the larger ones are rows of fact_rows), each under its size, sorted by
// key so each page is written once. With parts above 1 it puts the share
// part of them (by their south edge's band of fact_parcel_bands: each
// statement writes whole bands, apart from the others' in the key), so
// that parts statements side by side put them all (IndexRowsApart). A run
// after one that committed finds its share's entries there and inserts
// nothing: a publish interrupted after it runs it again.
func BuildingBandsFill(p1, p2 string, band func(expr string) string, part, parts int) string {
	share := func(b string) string { return "" }
	if parts > 1 {
		share = func(b string) string {
			return " AND " + band(b+".min_lat") + " % " + strconv.Itoa(parts) + " = " + strconv.Itoa(part)
		}
	}
	fine := buildingSizes[0]
	return `INSERT INTO osm_building_bands (generation, size, band, min_lng, id, min_lat, max_lat, max_lng)
		SELECT o.generation, CASE WHEN ` + fine.holds("o") + ` THEN ` + fine.size + ` ELSE ` + buildingSizes[1].size + ` END,
			CASE WHEN ` + fine.holds("o") + ` THEN ` + fine.bandOf(band, "o.min_lat") + ` ELSE ` + buildingSizes[1].bandOf(band, "o.min_lat") + ` END,
			o.min_lng, o.id, o.min_lat, o.max_lat, o.max_lng
		FROM osm_buildings o
		WHERE o.generation = (SELECT f.osm_generation FROM fact_buildings f WHERE f.dataset = ` + p1 + ` AND f.generation = ` + p2 + `
				AND NOT EXISTS (SELECT 1 FROM osm_building_bands x WHERE x.generation = f.osm_generation` + share("x") + `))
			AND ` + Small("o") + ` AND ` + BuildingGivesFacts("o") + share("o") + `
		ORDER BY 1, 2, 3, 4, 5`
}

// RowColumns are a served row's source and facts, in the order scanSource
// reads them: fact_rows r joined with fact_sets s.
const RowColumns = `r.dataset, COALESCE(NULLIF(s.source, ''), r.dataset), COALESCE(r.as_of, s.as_of), s.priority,
	r.latitude, r.longitude, r.property_type, r.bedrooms, r.bathrooms, r.living_area_sqft,
	r.lot_sqft, r.year_built, r.stories, r.units`

// ServedRows is the FROM clause of a served row: a row of the generation
// its dataset serves.
const ServedRows = `fact_rows r JOIN fact_sets s ON s.dataset = r.dataset AND s.generation = r.generation`

// factColumns are the facts of a record or a row, in FactFields order.
const factColumns = `property_type, bedrooms, bathrooms, living_area_sqft, lot_sqft, year_built, stories, units`

// FactColumnList is the columns of properties a merge writes that an
// index may hold (factColumns and the provenance), as SQL strings for an
// IN list.
var FactColumnList = "'" + strings.Join(strings.Split(factColumns+", facts", ", "), "', '") + "'"

// putColumns are the columns of fact_rows a load writes, in the order of
// a row's arguments (Facts.Put).
const putColumns = `dataset, generation, row_key, rank, join_key, facts_key, latitude, longitude,
	shape, min_lat, max_lat, min_lng, max_lng, ` + factColumns

// putConflict is how a row meets one of the same key in the load: the
// higher rank wins, the later of equal ranks; a row keeps the address and
// point its join key gave it while the key stays the same.
const putConflict = `
	ON CONFLICT (dataset, generation, row_key) DO UPDATE SET rank = excluded.rank, join_key = excluded.join_key,
		facts_key = CASE WHEN excluded.join_key = fact_rows.join_key THEN fact_rows.facts_key ELSE excluded.facts_key END,
		latitude = CASE WHEN excluded.join_key = fact_rows.join_key THEN fact_rows.latitude ELSE excluded.latitude END,
		longitude = CASE WHEN excluded.join_key = fact_rows.join_key THEN fact_rows.longitude ELSE excluded.longitude END,
		shape = excluded.shape, min_lat = excluded.min_lat, max_lat = excluded.max_lat,
		min_lng = excluded.min_lng, max_lng = excluded.max_lng,
		property_type = excluded.property_type, bedrooms = excluded.bedrooms, bathrooms = excluded.bathrooms,
		living_area_sqft = excluded.living_area_sqft, lot_sqft = excluded.lot_sqft,
		year_built = excluded.year_built, stories = excluded.stories, units = excluded.units
	WHERE excluded.rank >= fact_rows.rank`

// Stage is an engine's bulk way into a table (fact_rows, and the features
// of package osmsql): the rows copied into a staging table (Copier), then
// written by one statement (CopyStaged).
type Stage struct {
	// Create makes the session's staging table, if missing: a seq
	// column, then the columns written (putColumns for fact_rows),
	// emptied at each commit.
	Create string
	// Table is its name.
	Table string
}

// stageColumns are a staging table's columns, in a staged row's order:
// seq (the row's place in its batch), then putColumns.
var stageColumns = func() []string {
	cols := []string{"seq"}
	for _, c := range strings.Split(putColumns, ",") {
		cols = append(cols, strings.TrimSpace(c))
	}
	return cols
}()

// StagedPut writes a staged batch into fact_rows: of the rows of one key,
// the one putConflict would keep (highest rank, then the last), as the
// batch's rows one by one would have.
func StagedPut(table string) string {
	return `INSERT INTO fact_rows (` + putColumns + `)
	SELECT DISTINCT ON (row_key) ` + putColumns + ` FROM ` + table + `
	ORDER BY row_key, rank DESC, seq DESC` + putConflict
}

// LoadKind is the kind the assessor datasets are kept under in the one
// table of loads in progress (dataset_loads, migration 0022, package
// loadsql), with their checkpoint, in the datasets served and in the
// generations retired (migration 0023): the same rows, resumed, abandoned,
// published and dropped the same way, as every dataset loaded from files.
const LoadKind = providers.KindParcels

// Statements are the facts statements of one engine, bound once.
type Statements struct {
	d *Dialect
	// L keeps the loads in progress, in the table of every kind's.
	L *loadsql.Statements

	updateRecord                                        string
	servedSet, newGeneration                            string
	dropRows, dropKeys                                  string
	dropBuildings                                       string
	putRow, putKey, joinKeys, keyRecords, unitRecords   string
	keyRowsMatched, publish, sets, version              string
	pendingLoads, coverage                              string
	putImportSet, putImportRow, oldRows, countRows      string
	rowsNear, recordsNearRows, pointRowsMatched, maxRow string
	parcelsAt, stagedPut                                string
	exists, unkeyed, setKey                             string
	recordsHead, rowsByRecordHead, rowsByKeyHead        string
	rowsOrder, anyPointRows, pointRowsOf, countRecords  string
}

// Build binds d's statements.
func Build(d *Dialect) *Statements {
	b := func(s string) string { return sqlshared.Bind(s, d.Param) }
	s := &Statements{
		d: d,
		L: loadsql.Build(d.Param),
		updateRecord: b(`UPDATE properties SET property_type = ?, bedrooms = ?, bathrooms = ?, living_area_sqft = ?,
			lot_sqft = ?, year_built = ?, stories = ?, units = ?, facts = ?, updated_at = ? WHERE id = ?`),

		servedSet: b(`SELECT dataset, source, priority, generation, as_of, fingerprint, row_count, matched, failed, loaded_at
			FROM fact_sets WHERE dataset = ?`),
		newGeneration: b(`SELECT MAX(g) + 1 FROM (
				SELECT COALESCE(MAX(generation), 0) AS g FROM fact_rows WHERE dataset = ?
				UNION ALL SELECT COALESCE(MAX(generation), 0) FROM fact_sets WHERE dataset = ?
				UNION ALL SELECT COALESCE(MAX(generation), 0) FROM dataset_retired WHERE kind = '` + LoadKind + `' AND name = ?) gens`),
		// The box of a load's rows that have a point: its coverage.
		coverage: b(`SELECT MIN(latitude), MAX(latitude), MIN(longitude), MAX(longitude) FROM fact_rows
			WHERE dataset = ? AND generation = ? AND latitude IS NOT NULL`),
		dropRows: b(`DELETE FROM fact_rows WHERE id IN (SELECT id FROM fact_rows WHERE dataset = ? AND generation = ? LIMIT 5000)`),
		dropKeys: b(`DELETE FROM fact_keys WHERE dataset = ? AND generation = ?`),
		putRow: b(`INSERT INTO fact_rows (` + putColumns + `)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)` + putConflict),
		putKey: b(`INSERT INTO fact_keys (dataset, generation, join_key, facts_key, latitude, longitude)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (dataset, generation, join_key) DO UPDATE SET facts_key = excluded.facts_key,
				latitude = excluded.latitude, longitude = excluded.longitude`),
		exists: b(`SELECT id FROM properties WHERE id = ?`),
		// The heads of MergeMany's reads, each followed by a list of
		// placeholders, "(p1, ..., pn)", and rowsOrder where it reads rows.
		recordsHead: `SELECT id, COALESCE(facts_key, ''), unit, latitude, longitude, ` + factColumns + `, COALESCE(facts, '')
			FROM properties WHERE id IN `,
		rowsByRecordHead: `SELECT r.property_id, ` + RowColumns + ` FROM ` + ServedRows + ` WHERE r.property_id IN `,
		rowsByKeyHead:    `SELECT r.facts_key, ` + RowColumns + ` FROM ` + ServedRows + ` WHERE r.facts_key IN `,
		rowsOrder:        ` ORDER BY s.priority, r.dataset, r.rank DESC, r.id`,
		// Whether a served dataset has rows found by coordinates (no
		// address key, a latitude), as its publish found (pointRowsOf):
		// a read of fact_sets, not of the rows (0015).
		anyPointRows: `SELECT COUNT(*) FROM fact_sets WHERE point_rows > 0`,
		// 1 or 0 (fact_sets.point_rows, 0015). A load of buildings has
		// them (a building is found by its footprint, as a parcel).
		pointRowsOf: `SELECT CASE WHEN EXISTS (SELECT 1 FROM fact_rows
				WHERE dataset = ` + d.Param(1) + ` AND generation = ` + d.Param(2) + ` AND facts_key IS NULL AND latitude IS NOT NULL)
			OR EXISTS (SELECT 1 FROM fact_buildings WHERE dataset = ` + d.Param(1) + ` AND generation = ` + d.Param(2) + `)
			THEN 1 ELSE 0 END`,
		unkeyed: `SELECT id, COALESCE(canonical, ''), zip_code, unit FROM properties WHERE facts_key IS NULL LIMIT 5000`,
		setKey:  b(`UPDATE properties SET facts_key = ? WHERE id = ?`),
		maxRow:  b(`SELECT COALESCE(MAX(id), 0) FROM fact_rows`),
		// The rows of a batch (ids above the one before it) take their
		// address and coordinates from the second file.
		joinKeys: b(`UPDATE fact_rows SET facts_key = k.facts_key,
				latitude = COALESCE(fact_rows.latitude, k.latitude), longitude = COALESCE(fact_rows.longitude, k.longitude)
			FROM fact_keys k
			WHERE fact_rows.dataset = ? AND fact_rows.generation = ? AND fact_rows.id > ?
				AND fact_rows.join_key IS NOT NULL
				AND k.dataset = fact_rows.dataset AND k.generation = fact_rows.generation AND k.join_key = fact_rows.join_key`),
		keyRecords: b(`SELECT p.id FROM fact_rows r JOIN properties p ON p.facts_key = r.facts_key
			WHERE r.dataset = ? AND r.generation = ?`),
		// A building's row (its key ends with the empty unit) reaches
		// every unit's record: keys in [key, key || '~') share its prefix,
		// and '~' sorts after every character a normalized unit holds.
		unitRecords: b(`SELECT p.id FROM fact_rows r JOIN properties p
				ON p.facts_key > r.facts_key AND p.facts_key < r.facts_key || '~'
			WHERE r.dataset = ? AND r.generation = ? AND r.facts_key LIKE '%|'`),
		keyRowsMatched: b(`SELECT COUNT(*) FROM fact_rows r WHERE r.dataset = ? AND r.generation = ? AND r.facts_key IS NOT NULL
			AND (EXISTS (SELECT 1 FROM properties p WHERE p.facts_key = r.facts_key)
				OR (r.facts_key LIKE '%|' AND EXISTS (SELECT 1 FROM properties p
					WHERE p.facts_key > r.facts_key AND p.facts_key < r.facts_key || '~')))`),
		// A load's rows: its own, and its buildings' entries.
		countRows: `SELECT (SELECT COUNT(*) FROM fact_rows WHERE dataset = ` + d.Param(1) + ` AND generation = ` + d.Param(2) + `)
			+ (SELECT COUNT(*) FROM ` + BuildingsOf(d.Param(1), d.Param(2)) + `)`,
		countRecords: `SELECT COUNT(*) FROM properties`,
		publish: b(`INSERT INTO fact_sets (dataset, source, priority, generation, as_of, fingerprint, row_count, matched, failed, loaded_at, point_rows)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (dataset) DO UPDATE SET source = excluded.source, priority = excluded.priority,
				generation = excluded.generation, as_of = excluded.as_of, fingerprint = excluded.fingerprint,
				row_count = excluded.row_count, matched = excluded.matched, failed = excluded.failed,
				loaded_at = excluded.loaded_at, point_rows = excluded.point_rows`),
		// The import keeps no counts of its own (each record it gives
		// facts is one row, written one at a time): its rows are counted
		// here, each naming its record, so each is matched.
		sets: `SELECT s.dataset, s.source, s.priority, s.generation, s.as_of, s.fingerprint,
				CASE WHEN s.dataset = 'import' THEN (SELECT COUNT(*) FROM fact_rows r
					WHERE r.dataset = s.dataset AND r.generation = s.generation) ELSE s.row_count END,
				CASE WHEN s.dataset = 'import' THEN (SELECT COUNT(*) FROM fact_rows r
					WHERE r.dataset = s.dataset AND r.generation = s.generation) ELSE s.matched END,
				s.failed, s.loaded_at
			FROM fact_sets s ORDER BY s.priority, s.dataset`,
		version:      `SELECT COUNT(*), COALESCE(MAX(loaded_at), '') FROM fact_sets`,
		pendingLoads: `SELECT name, generation FROM dataset_loads WHERE kind = '` + LoadKind + `' ORDER BY name`,
		putImportSet: b(`INSERT INTO fact_sets (dataset, source, priority, generation, as_of, loaded_at)
			VALUES ('import', 'import', 0, 1, ?, ?)
			ON CONFLICT (dataset) DO UPDATE SET as_of = excluded.as_of, loaded_at = excluded.loaded_at`),
		putImportRow: b(`INSERT INTO fact_rows (dataset, generation, row_key, property_id, as_of, ` + factColumns + `)
			VALUES ('import', 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (dataset, generation, row_key) DO UPDATE SET as_of = excluded.as_of,
				property_type = COALESCE(excluded.property_type, fact_rows.property_type),
				bedrooms = COALESCE(excluded.bedrooms, fact_rows.bedrooms),
				bathrooms = COALESCE(excluded.bathrooms, fact_rows.bathrooms),
				living_area_sqft = COALESCE(excluded.living_area_sqft, fact_rows.living_area_sqft),
				lot_sqft = COALESCE(excluded.lot_sqft, fact_rows.lot_sqft),
				year_built = COALESCE(excluded.year_built, fact_rows.year_built),
				stories = COALESCE(excluded.stories, fact_rows.stories),
				units = COALESCE(excluded.units, fact_rows.units)`),
		oldRows: `SELECT generation FROM fact_rows WHERE dataset = ` + d.Param(1) + ` AND generation <> ` + d.Param(2) + `
			UNION SELECT generation FROM fact_buildings WHERE dataset = ` + d.Param(1) + ` AND generation <> ` + d.Param(2),
		dropBuildings: b(`DELETE FROM fact_buildings WHERE dataset = ? AND generation = ?`),

		rowsNear:         d.RowsNear,
		parcelsAt:        d.ParcelsAt,
		recordsNearRows:  d.RecordsNearRows,
		pointRowsMatched: d.PointRowsMatched,
	}
	if d.Stage != nil {
		s.stagedPut = StagedPut(d.Stage.Table)
	}
	return s
}
