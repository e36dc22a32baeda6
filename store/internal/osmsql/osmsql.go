// Package osmsql is the OpenStreetMap extract logic both database engines
// share: loading an extract's features under a generation, publishing it
// in one step in place of the extract's former generation, and reading the
// places around a point from the extract that covers them (its bounding
// box, then its bounding polygon when it was loaded with one: coverage.go).
// The engines differ only in how they talk to their driver (factsql.Conn,
// factsql.DB) and in the spatial statements of their Dialect, so the rules
// live here once.
package osmsql

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/factsql"
	"github.com/propertyd/propertyd/store/internal/loadsql"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// Dialect is what the engines say differently: the statements that go
// through their spatial indexes, in numbered placeholders.
type Dialect struct {
	// Param is the engine's placeholder of the n-th argument.
	Param func(n int) string
	// Arrays says the engine takes a list as one argument, an array
	// (PostgreSQL): a value is one of it by "= ANY($n)", and a
	// statement's text then does not vary with its lists, so one prepared
	// statement serves every circle (PostgreSQL planned each new text,
	// 0.6 ms). Otherwise a list is one placeholder a value, "(?6, ?7)",
	// and a value is one of it by "IN (?6, ?7)".
	Arrays bool
	// PlacesIn selects PlaceColumns of the places of the extract served
	// under a name (the first placeholder, numbered as Param numbers
	// them) in the latitude bands that bands selects (the condition on
	// the band expression: "IN (...)" of its list, or "= ANY($n)") and
	// inside the rectangle south (2nd), north (3rd), west (4th), east
	// (5th), from osm_places as p and ending with its WHERE conditions:
	// the places' filters (see OSMPlacesNear) are appended to them, on p's
	// columns of the index.
	PlacesIn func(bands string) string
	// PlacesOfKind is PlacesIn of the places whose col ("category" or
	// "type") is one of the list kinds (its placeholders in parentheses,
	// or its one placeholder where the engine takes Arrays), sought a kind
	// at a time in
	// the bands of the index the kind leads (migration 0014): a list of
	// rare kinds, read through the area index, goes over every place of
	// the circle.
	PlacesOfKind func(col, bands, kinds string) string
	// AddressesIn selects AddressColumns of the address points of the
	// extract served under a name, as PlacesIn.
	AddressesIn func(bands string) string
	// Copy, when set, is the engine's bulk way into the feature tables:
	// each kind's rows of a batch are copied (factsql.Copier) into their
	// table, rather than one INSERT a row.
	Copy bool
	// Partitions, when set, keeps each generation's features in tables
	// of their own (PostgreSQL, migration 0018), indexed once all are
	// written and dropped whole.
	Partitions *Partitions
}

// Partitions is how an engine keeps each generation's features in tables
// of their own: the statements the load runs at its steps, in the
// engine's placeholders.
type Partitions struct {
	// Create makes the (unindexed) tables of a new load's generation (the
	// one argument), in the transaction that starts the load. A batch is
	// written into the parent tables, which route each row to its
	// generation's (copying into the partition by name instead was level:
	// 5.77, 6.07, 6.25 s against 5.55, 6.50, 6.08 s a million features).
	Create string
	// Index builds the indexes of the places and address points of a
	// generation (the one argument) whose features are all written, as
	// the load settles; IndexBuildings the buildings', before their facts
	// are made. Each builds only what is missing: a load cut short and
	// resumed runs them again.
	Index, IndexBuildings string
	// Settle is what readies a generation's indexed features for readers,
	// statement by statement: PostgreSQL otherwise plans the reads of a
	// freshly loaded extract for the table it last saw (at a million
	// features, reading the generation's index took 3.2 of a query's 8.5
	// ms), and an index-only scan without the visibility map reads every
	// row it finds.
	Settle func(gen int64) []string
	// Drop drops a former generation's features of one kind ("places",
	// "buildings" or "addresses", the first argument; the generation the
	// second).
	Drop string
	// DropBands deletes a former generation's (the one argument) entries
	// of osm_building_bands in one statement, where the engine's readers
	// never wait for a delete (PostgreSQL's MVCC): 0.45 s for 800,000
	// entries, where 5,000 a statement took 2.1 s.
	DropBands string
	// Guard runs first in each transaction that creates or drops a
	// generation's tables, and bounds how long it waits for the lock
	// PostgreSQL takes on the parent tables for either (ACCESS
	// EXCLUSIVE): every read of the parents queues behind a statement
	// waiting for that lock, for as long as the longest read already
	// running holds it (a backup's, say). Busy says an error is Guard's
	// bound passing; the transaction is then tried again (guardTries).
	Guard string
	Busy  func(error) bool
}

// guardTries and guardPause bound a guarded transaction (Partitions.Guard):
// it is tried up to guardTries times, guardPause apart, so that the reads
// queued behind each try run in between. A load that cannot start then
// fails; a former generation that cannot be dropped is left to the next
// load's drop.
const (
	guardTries = 20
	guardPause = 100 * time.Millisecond
)

// kind is how one feature table is written: one put statement a row, or,
// where the engine copies (Dialect.Copy), by copy; and how a former
// generation's rows go: its partition by name (Partitions), else drop.
type kind struct {
	name, table, put string
	cols             []string
	drop             idDrop
}

// The columns of the feature tables a batch writes, in the order of their
// put statements' arguments.
var (
	placeColumns    = []string{"generation", "osm_type", "osm_id", "version", "category", "type", "name", "name_key", "latitude", "longitude"}
	buildingColumns = []string{"generation", "osm_type", "osm_id", "version", "building", "levels", "flats", "start_date",
		"shape", "min_lat", "max_lat", "min_lng", "max_lng", "latitude", "longitude",
		"property_type", "stories", "units", "year_built"}
	addressColumns = []string{"generation", "osm_type", "osm_id", "version", "housenumber", "street", "unit", "city", "postcode",
		"latitude", "longitude"}
)

// rowPut writes one row into table (columns cols). A load writes each of
// its features once (the loader reads a file that holds each element
// once, and resumes after the checkpoint of its last batch committed), so
// the tables keep no key of an element to merge a second by (migration
// 0017): on PostgreSQL that key's index cost a load of a million features
// a second of the server's time.
func rowPut(table string, cols []string) string {
	return `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES (?` +
		strings.Repeat(", ?", len(cols)-1) + `)`
}

// PlaceColumns are a place's columns as places reads them, from
// osm_places p joined with osm_extracts x, all in the places' covering
// index.
const PlaceColumns = `x.generation, p.osm_type, p.osm_id, p.version, p.category, p.type, p.name, p.name_key, p.latitude, p.longitude`

// AddressColumns are an address point's columns as OSMAddressNearest
// reads them, from osm_addresses a joined with osm_extracts x.
const AddressColumns = `x.generation, a.osm_type, a.osm_id, a.version, a.housenumber, a.street, a.unit, a.city, a.postcode,
	a.latitude, a.longitude`

// dropBatch is how many features one statement of a drop deletes: a
// reader or a lookup's write waits for milliseconds, not for the whole
// extract.
const dropBatch = 5000

// idDrop deletes a generation's features of a table keyed by id, on an
// engine that keeps them in one table (without Partitions: SQLite): its
// range of ids, then dropBatch ids a statement through the key, each range
// read once. Deleting "the first dropBatch rows of the generation" again
// and again read, on PostgreSQL, the index entries of every row deleted
// before (they stay until a vacuum): the 800,000 buildings of a million
// features took 19 s to drop, against 11 s to load. The generation is
// written +generation so that no engine seeks it through the index it
// leads, which holds every feature of the generation: SQLite chose that
// index, not the range of ids, for a table it had no statistics of.
type idDrop struct{ ids, drop string }

func dropOf(table string, b func(string) string) idDrop {
	return idDrop{ids: b(`SELECT MIN(id), MAX(id) FROM ` + table + ` WHERE generation = ?`),
		drop: b(`DELETE FROM ` + table + ` WHERE id BETWEEN ? AND ? AND +generation = ?`)}
}

// kindOf is the kind of feature name, kept in osm_<name> with columns
// cols, its statements bound by b.
func kindOf(name string, cols []string, b func(string) string) kind {
	table := "osm_" + name
	return kind{name: name, table: table, cols: cols, put: b(rowPut(table, cols)), drop: dropOf(table, b)}
}

// Statements are the statements of one engine, bound once.
type Statements struct {
	// L keeps the loads in progress, in the table of every kind's.
	L *loadsql.Statements

	served, servedGeneration, newGeneration, addGeneration, publish string
	dropFacts, buildingFacts, boundaryOf                            string
	nameBuildings, dropBuildingBands                                string
	countPlaces, countBuildings, countAddresses, extracts, covering string
	generationUse                                                   string
	placesIn, addressesIn                                           func(bands string) string
	placesOfKind                                                    func(col, bands, kinds string) string
	param                                                           func(n int) string
	arrays, copies                                                  bool
	partitions                                                      *Partitions
	places, buildings, addresses                                    kind
}

// LoadKind is the kind an extract's loads are kept under in the one table
// of loads in progress (dataset_loads, migration 0022, package loadsql),
// with their checkpoint, and in the datasets served and the generations
// retired (migration 0023).
const LoadKind = providers.KindOSM

const extractColumns = `name, generation, min_lat, max_lat, min_lng, max_lng, timestamp, fingerprint,
	places, buildings, addresses, skipped, loaded_at, boundary`

// Build binds d's statements.
func Build(d *Dialect) *Statements {
	b := func(s string) string { return sqlshared.Bind(s, d.Param) }
	st := &Statements{
		L:                loadsql.Build(d.Param),
		served:           b(`SELECT ` + extractColumns + ` FROM osm_extracts WHERE name = ?`),
		servedGeneration: b(`SELECT generation FROM osm_extracts WHERE name = ?`),
		newGeneration:    `SELECT COALESCE(MAX(generation), 0) + 1 FROM osm_generations`,
		addGeneration:    b(`INSERT INTO osm_generations (generation) VALUES (?)`),
		places:           kindOf("places", placeColumns, b),
		buildings:        kindOf("buildings", buildingColumns, b),
		addresses:        kindOf("addresses", addressColumns, b),
		publish: b(`INSERT INTO osm_extracts (` + extractColumns + `)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET generation = excluded.generation, min_lat = excluded.min_lat,
				max_lat = excluded.max_lat, min_lng = excluded.min_lng, max_lng = excluded.max_lng,
				timestamp = excluded.timestamp, fingerprint = excluded.fingerprint, places = excluded.places,
				buildings = excluded.buildings, addresses = excluded.addresses, skipped = excluded.skipped,
				loaded_at = excluded.loaded_at, boundary = excluded.boundary`),
		// PutOSMFacts's: the facts load's rows, made from the buildings.
		dropFacts:     b(`DELETE FROM fact_rows WHERE dataset = ? AND generation = ?`),
		buildingFacts: b(buildingFacts),
		nameBuildings: b(`INSERT INTO fact_buildings (dataset, generation, osm_generation) VALUES (?, ?, ?)
			ON CONFLICT (dataset, generation) DO UPDATE SET osm_generation = excluded.osm_generation`),
		countPlaces:    b(`SELECT COUNT(*) FROM osm_places WHERE generation = ?`),
		countBuildings: b(`SELECT COUNT(*) FROM osm_buildings WHERE generation = ?`),
		countAddresses: b(`SELECT COUNT(*) FROM osm_addresses WHERE generation = ?`),
		extracts:       `SELECT ` + extractColumns + ` FROM osm_extracts ORDER BY name`,
		// The extracts whose box holds a rectangle (south, north, west,
		// east), newest first: the newest whose boundary holds what is
		// asked wins where several do.
		// Whether each has a boundary, not the boundary: that is read
		// once a generation (Extracts.boundary).
		covering: b(`SELECT ` + strings.Replace(extractColumns, "boundary", "boundary IS NOT NULL", 1) + ` FROM osm_extracts
			WHERE min_lat <= ? AND max_lat >= ? AND min_lng <= ? AND max_lng >= ?
			ORDER BY timestamp DESC, name`),
		boundaryOf: b(`SELECT boundary FROM osm_extracts WHERE name = ? AND generation = ?`),
		// By the whole key: each statement seeks its entries.
		dropBuildingBands: b(`DELETE FROM osm_building_bands WHERE (generation, size, band, min_lng, id) IN (
			SELECT generation, size, band, min_lng, id FROM osm_building_bands WHERE generation = ? LIMIT ` + itoa(dropBatch) + `)`),
		// Whether an extract serves a generation or a load writes it
		// (then it is no former one), and whether a facts load still
		// reads its buildings (fact_buildings), which then stay. A facts
		// load lets go of a generation when it is dropped itself, replaced
		// by the next load's.
		generationUse: b(`SELECT (SELECT COUNT(*) FROM osm_extracts x WHERE x.generation = ?)
				+ (SELECT COUNT(*) FROM dataset_loads l WHERE l.kind = '` + LoadKind + `' AND l.generation = ?),
			(SELECT COUNT(*) FROM fact_buildings f WHERE f.osm_generation = ?)`),
		placesIn:     d.PlacesIn,
		placesOfKind: d.PlacesOfKind,
		addressesIn:  d.AddressesIn,
		param:        d.Param,
		arrays:       d.Arrays,
		partitions:   d.Partitions,
		copies:       d.Copy,
	}
	return st
}

// Extracts is the extract logic of one engine: providers.OSMStore, which
// each engine embeds, so the methods are written once.
type Extracts struct {
	DB factsql.DB
	S  *Statements
	// Bounds keeps the boundaries of the store's extracts, decoded.
	Bounds *Boundaries
}

var _ providers.OSMStore = Extracts{}

// BeginOSM starts a load of the extract name, or resumes its unfinished
// load of the same fingerprint (see providers.OSMStore).
func (e Extracts) BeginOSM(ctx context.Context, name, fingerprint string) (providers.OSMLoad, *providers.OSMExtract, error) {
	served, err := e.extract(ctx, e.S.served, name)
	if err != nil {
		return providers.OSMLoad{}, nil, err
	}
	pending, found, err := e.S.L.Pending(ctx, e.DB, LoadKind, name)
	if err != nil {
		return providers.OSMLoad{}, nil, e.DB.Err(ctx, err)
	}
	servedFP := ""
	if served != nil {
		servedFP = served.Fingerprint
	}
	step, abandon := loadsql.Decide(pending, found, fingerprint, servedFP, served != nil)
	if abandon {
		// The load ends and its generation is retired in one step, for
		// the loader to drop (DropOSM).
		err := e.DB.Tx(ctx, func(c factsql.Conn) error {
			if _, err := e.S.L.End(ctx, c, LoadKind, name, pending.Generation); err != nil {
				return err
			}
			return e.S.L.Retire(ctx, c, LoadKind, name, pending.Generation)
		})
		if err != nil {
			return providers.OSMLoad{}, nil, e.DB.Err(ctx, err)
		}
		if err := e.dropRetired(ctx); err != nil {
			return providers.OSMLoad{}, nil, err
		}
	}
	switch step {
	case loadsql.Resume:
		return providers.OSMLoad{Name: name, Generation: pending.Generation, Fingerprint: fingerprint, Done: pending.Done, Resumed: true}, served, nil
	case loadsql.Nothing:
		return providers.OSMLoad{}, served, nil
	}
	load := providers.OSMLoad{Name: name, Fingerprint: fingerprint}
	err = e.guarded(ctx, func(c factsql.Conn) error {
		if _, err := factsql.QueryRow(ctx, c, e.S.newGeneration, nil, &load.Generation); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, e.S.addGeneration, load.Generation); err != nil {
			return err
		}
		if err := e.S.L.Begin(ctx, c, LoadKind, name, load.Generation, fingerprint); err != nil {
			return err
		}
		if p := e.S.partitions; p != nil {
			_, err := c.Exec(ctx, p.Create, load.Generation)
			return err
		}
		return nil
	})
	if err != nil {
		return providers.OSMLoad{}, nil, e.DB.Err(ctx, err)
	}
	return load, served, nil
}

// PutOSM writes a batch of the load and its checkpoint in one transaction.
func (e Extracts) PutOSM(ctx context.Context, load *providers.OSMLoad, b providers.OSMBatch, done int64) error {
	g := load.Generation
	err := e.DB.Tx(ctx, func(c factsql.Conn) error {
		rows := getRows()
		defer rows.release()
		if len(b.Places) > 0 {
			args := rows.lists(len(b.Places), 10)
			for i, j := range rows.inBands(len(b.Places), func(i int) providers.Point { return b.Places[i].Point }) {
				p := &b.Places[j]
				args[i] = append(args[i], g, p.OSMRef.Type, p.ID, p.Version, p.Category, p.Type, p.Name, p.NameKey, p.Point.Lat, p.Point.Lng)
			}
			if err := e.S.put(ctx, c, e.S.places, args); err != nil {
				return err
			}
		}
		if len(b.Buildings) > 0 {
			args := rows.lists(len(b.Buildings), 19)
			for i, x := range b.Buildings {
				f := x.Footprint
				k := x.Facts
				args[i] = append(args[i], g, x.OSMRef.Type, x.ID, x.Version, x.Building, nullable(x.Levels), nullable(x.Flats),
					factsql.NullIfEmpty(x.StartDate), f.WKB, f.South, f.North, f.West, f.East, x.Point.Lat, x.Point.Lng,
					nullable(k.PropertyType), nullable(k.Stories), nullable(k.Units), nullable(k.YearBuilt))
			}
			if err := e.S.put(ctx, c, e.S.buildings, args); err != nil {
				return err
			}
		}
		if len(b.Addresses) > 0 {
			args := rows.lists(len(b.Addresses), 11)
			for i, j := range rows.inBands(len(b.Addresses), func(i int) providers.Point { return b.Addresses[i].Point }) {
				a := &b.Addresses[j]
				args[i] = append(args[i], g, a.OSMRef.Type, a.ID, a.Version, a.HouseNumber, a.Street, a.Unit, a.City, a.Postcode,
					a.Point.Lat, a.Point.Lng)
			}
			if err := e.S.put(ctx, c, e.S.addresses, args); err != nil {
				return err
			}
		}
		if b.Turn != nil {
			if err := b.Turn(ctx); err != nil {
				return err
			}
		}
		return e.S.L.Checkpoint(ctx, c, LoadKind, load.Name, g, providers.Checkpoint{Done: done})
	})
	if err != nil {
		return e.DB.Err(ctx, err)
	}
	load.Done = done
	return nil
}

// argRows holds the argument lists of a batch's rows: one array of values
// laid out list after list, used again by the next batch while the
// collector leaves it in rowsPool. A list of its own for each row was a
// tenth of what a load allocated.
type argRows struct {
	values []any
	rows   [][]any
	order  []int
}

// inBands is the order in which to write n features, at(i) being the
// i-th's point: as the places' and addresses' indexes hold them, by latitude
// band (the dialect's band expression truncates latitude x 200 in both
// engines), then longitude. A batch written in that order moves forward
// through each index (through each category's part of the category index
// too), where one in the file's order lands at random: as the indexes
// outgrew the writer's page cache, each batch of 20,000 places took
// longer than the one before (270 ms for the first, 740 ms for the fifth,
// in SQLite; 2.5 s for 100,000 places in the file's order, 1.3 s in
// bands).
func (r *argRows) inBands(n int, at func(i int) providers.Point) []int {
	r.order = r.order[:0]
	for i := range n {
		r.order = append(r.order, i)
	}
	slices.SortFunc(r.order, func(i, j int) int {
		a, b := at(i), at(j)
		if c := cmp.Compare(math.Trunc(a.Lat*200), math.Trunc(b.Lat*200)); c != 0 {
			return c
		}
		return cmp.Compare(a.Lng, b.Lng)
	})
	return r.order
}

var rowsPool = sync.Pool{New: func() any { return new(argRows) }}

func getRows() *argRows { return rowsPool.Get().(*argRows) }

// lists is n empty argument lists of room for cols values each, to append
// to; the lists of an earlier call are overwritten.
func (r *argRows) lists(n, cols int) [][]any {
	if cap(r.values) < n*cols {
		r.values = make([]any, n*cols)
	}
	if cap(r.rows) < n {
		r.rows = make([][]any, n)
	}
	r.rows = r.rows[:n]
	for i := range r.rows {
		r.rows[i] = r.values[i*cols : i*cols : (i+1)*cols]
	}
	return r.rows
}

// release puts r back for the next batch, holding no value.
func (r *argRows) release() {
	clear(r.values[:cap(r.values)])
	clear(r.rows[:cap(r.rows)])
	rowsPool.Put(r)
}

// buildingFacts copies the large buildings of a generation (the 3rd
// argument) that give facts into the rows of a facts load (dataset,
// generation: the first two), as factsql.Facts.Put writes a row (rank 0,
// no keys): the columns a building's facts can fill, the others NULL; a
// row's key is its building's element's, as OSMRef.Key writes it. The
// small ones, nearly all, are rows where they stand (factsql's
// BuildingBandsAt, migration 0016).
var buildingFacts = `INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude,
		shape, min_lat, max_lat, min_lng, max_lng, property_type, stories, units, year_built)
	SELECT CAST(? AS TEXT), CAST(? AS BIGINT), osm_type || '/' || osm_id, latitude, longitude,
		shape, min_lat, max_lat, min_lng, max_lng, property_type, stories, units, year_built
	FROM osm_buildings o
	WHERE generation = ? AND ` + factsql.Large("o") + ` AND ` + factsql.BuildingGivesFacts("o")

// PutOSMFacts makes the buildings of the load the rows of the facts load
// (see providers.OSMFactStore) once they are all written, in one
// transaction with its checkpoint: it names the load's generation in
// fact_buildings, which its publish and every read of its parcels follow
// to the buildings, and copies the few too large for osm_building_bands
// into fact_rows, in place of whatever the facts load held (a run cut
// short). Copying every building, as it did before, cost a load of a
// million features 2.4 s on SQLite and 5.5 s on PostgreSQL.
func (e Extracts) PutOSMFacts(ctx context.Context, load providers.OSMLoad, facts *providers.FactLoad, done int64) error {
	err := e.DB.Tx(ctx, func(c factsql.Conn) error {
		if p := e.S.partitions; p != nil {
			if _, err := c.Exec(ctx, p.IndexBuildings, load.Generation); err != nil {
				return err
			}
		}
		if _, err := c.Exec(ctx, e.S.dropFacts, facts.Dataset, facts.Generation); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, e.S.nameBuildings, facts.Dataset, facts.Generation, load.Generation); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, e.S.buildingFacts, facts.Dataset, facts.Generation, load.Generation); err != nil {
			return err
		}
		return e.S.L.Checkpoint(ctx, c, factsql.LoadKind, facts.Dataset, facts.Generation,
			providers.Checkpoint{Done: done, Failed: facts.Failed, FailuresSize: facts.FailuresSize})
	})
	if err != nil {
		return e.DB.Err(ctx, err)
	}
	facts.Done = done
	return nil
}

// put writes rows of kind k: by copy where the engine copies, else one
// put statement a row.
func (s *Statements) put(ctx context.Context, c factsql.Conn, k kind, rows [][]any) error {
	if cp, ok := c.(factsql.Copier); ok && s.copies {
		return cp.CopyRows(ctx, k.table, k.cols, rows)
	}
	return c.ExecMany(ctx, k.put, rows)
}

// SettleOSM indexes the load's places and address points and refreshes
// the engine's statistics of them where it keeps them by hand (the
// engine's Partitions), then counts the features.
func (e Extracts) SettleOSM(ctx context.Context, load *providers.OSMLoad) error {
	if p := e.S.partitions; p != nil {
		if _, err := e.DB.Exec(ctx, p.Index, load.Generation); err != nil {
			return e.DB.Err(ctx, err)
		}
		for _, q := range p.Settle(load.Generation) {
			if _, err := e.DB.Exec(ctx, q); err != nil {
				return e.DB.Err(ctx, err)
			}
		}
	}
	var n providers.OSMCounts
	for _, q := range []struct {
		sql string
		n   *int64
	}{{e.S.countPlaces, &n.Places}, {e.S.countBuildings, &n.Buildings}, {e.S.countAddresses, &n.Addresses}} {
		if _, err := factsql.QueryRow(ctx, e.DB, q.sql, []any{load.Generation}, q.n); err != nil {
			return e.DB.Err(ctx, err)
		}
	}
	load.Counts = &n
	return nil
}

// PublishOSM serves the load in place of the extract's former generation
// in one transaction, with its row of the datasets served, retiring the
// former generation for the loader to drop (DropOSM). If it is
// interrupted before the swap the load stays pending and BeginOSM of the
// same file resumes it.
func (e Extracts) PublishOSM(ctx context.Context, load providers.OSMLoad, x providers.OSMExtract) (providers.OSMExtract, error) {
	x.Name, x.Generation, x.Fingerprint = load.Name, load.Generation, load.Fingerprint
	if load.Counts == nil {
		if err := e.SettleOSM(ctx, &load); err != nil {
			return x, err
		}
	}
	x.Places, x.Buildings, x.Addresses = load.Counts.Places, load.Counts.Buildings, load.Counts.Addresses
	x.LoadedAt = rules.Stamp(time.Now())
	c := x.Coverage
	var boundary any // NULL: the box is the coverage
	if len(x.Boundary) > 0 {
		boundary = x.Boundary
	}
	d, err := loadsql.Served(extractDataset(x))
	if err != nil {
		return x, err
	}
	x.LoadedAt = d.LoadedAt
	err = e.DB.Tx(ctx, func(tx factsql.Conn) error {
		var former int64
		found, err := factsql.QueryRow(ctx, tx, e.S.servedGeneration, []any{x.Name}, &former)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, e.S.publish, x.Name, x.Generation, c.South, c.North, c.West, c.East,
			stamp(x.Timestamp), x.Fingerprint, x.Places, x.Buildings, x.Addresses, x.Skipped, stamp(x.LoadedAt),
			boundary); err != nil {
			return err
		}
		if found && former != x.Generation {
			if err := e.S.L.Retire(ctx, tx, LoadKind, x.Name, former); err != nil {
				return err
			}
		}
		if err := e.S.L.Serve(ctx, tx, d); err != nil {
			return err
		}
		_, err = e.S.L.End(ctx, tx, LoadKind, x.Name, x.Generation)
		return err
	})
	if err != nil {
		return x, e.DB.Err(ctx, err)
	}
	return x, e.dropRetired(ctx)
}

// dropRetired drops the retired generations of every extract (DropOSM)
// that nothing reads any more, leaving those still read, or busy, for the
// next drop.
func (e Extracts) dropRetired(ctx context.Context) error {
	return e.S.L.DropRetired(ctx, e.DB, LoadKind, e.DropOSM)
}

// ExtractMeta is what an extract's row of the datasets served keeps
// besides the lifecycle's columns: its features of each kind, and whether
// its coverage is a polygon (else its box).
type ExtractMeta struct {
	Places    int64 `json:"places"`
	Buildings int64 `json:"buildings"`
	Addresses int64 `json:"addresses"`
	Polygon   bool  `json:"polygon"`
}

// extractDataset is x's row of the datasets served: its features as rows,
// those skipped as failed (it writes no failures file), its data date as
// vintage.
func extractDataset(x providers.OSMExtract) providers.Dataset {
	meta, _ := json.Marshal(ExtractMeta{Places: x.Places, Buildings: x.Buildings, Addresses: x.Addresses, Polygon: len(x.Boundary) > 0})
	return providers.Dataset{Kind: LoadKind, Name: x.Name, Generation: x.Generation, Fingerprint: x.Fingerprint,
		Rows: x.Places + x.Buildings + x.Addresses, Failed: x.Skipped, Vintage: x.Date(), Coverage: x.Coverage,
		Meta: meta, Took: x.Took}
}

// DropOSM deletes the features of a retired generation, its partitions
// whole where the engine keeps them so, else dropBatch rows a statement:
// all but its buildings while a facts load reads them (fact_buildings),
// which then stay, and the generation with them (providers.ErrKeep), for a
// later drop. A generation an extract serves or a load writes is refused
// the same way. name is the extract's, for the messages: an extract's
// generations are numbered across extracts.
func (e Extracts) DropOSM(ctx context.Context, name string, gen int64) error {
	var used, factsRead int64
	if _, err := factsql.QueryRow(ctx, e.DB, e.S.generationUse, []any{gen, gen, gen}, &used, &factsRead); err != nil {
		return e.DB.Err(ctx, err)
	}
	if used > 0 {
		return fmt.Errorf("extract %s: generation %d is served or loading: %w", name, gen, providers.ErrKeep)
	}
	kinds := []kind{e.S.places, e.S.addresses}
	if factsRead == 0 {
		if err := e.dropBands(ctx, gen); err != nil {
			return err
		}
		kinds = append(kinds, e.S.buildings)
	}
	var kept error
	for _, k := range kinds {
		err := e.dropFeatures(ctx, k, gen)
		if errors.Is(err, providers.ErrKeep) {
			kept = err
			continue
		}
		if err != nil {
			return fmt.Errorf("extract %s: generation %d: %w", name, gen, err)
		}
	}
	if kept != nil {
		return fmt.Errorf("extract %s: generation %d: %w", name, gen, kept)
	}
	if factsRead > 0 {
		return fmt.Errorf("extract %s: generation %d: its buildings give a facts dataset its rows: %w", name, gen, providers.ErrKeep)
	}
	return nil
}

// dropFeatures drops generation gen's features of kind k: its partition
// where the engine keeps them so, under the guard (providers.ErrKeep, for
// a later drop, while its lock stays busy), else dropBatch rows a
// statement.
func (e Extracts) dropFeatures(ctx context.Context, k kind, gen int64) error {
	p := e.S.partitions
	if p == nil {
		return e.dropIDs(ctx, k.drop, gen)
	}
	err := e.guarded(ctx, func(c factsql.Conn) error {
		_, err := c.Exec(ctx, p.Drop, k.name, gen)
		return err
	})
	if p.Busy(err) {
		return fmt.Errorf("its %s are busy: %w", k.name, providers.ErrKeep)
	}
	return e.DB.Err(ctx, err)
}

// guarded runs fn in a transaction, under the partitions' guard where the
// engine keeps them (see Partitions.Guard): again, guardPause later, while
// the guard's bound passes, up to guardTries times; the last error is
// returned as it is.
func (e Extracts) guarded(ctx context.Context, fn func(c factsql.Conn) error) error {
	p := e.S.partitions
	for try := 1; ; try++ {
		err := e.DB.Tx(ctx, func(c factsql.Conn) error {
			if p != nil {
				if _, err := c.Exec(ctx, p.Guard); err != nil {
					return err
				}
			}
			return fn(c)
		})
		if p == nil || !p.Busy(err) || try == guardTries {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(guardPause):
		}
	}
}

// dropBands deletes the building entries of generation gen: in one
// statement where the engine has one (Partitions.DropBands), else
// dropBatch a statement, each seeking its entries by the whole key.
func (e Extracts) dropBands(ctx context.Context, gen int64) error {
	if p := e.S.partitions; p != nil && p.DropBands != "" {
		_, err := e.DB.Exec(ctx, p.DropBands, gen)
		return e.DB.Err(ctx, err)
	}
	for {
		n, err := e.DB.Exec(ctx, e.S.dropBuildingBands, gen)
		if err != nil {
			return e.DB.Err(ctx, err)
		}
		if n < dropBatch {
			return nil
		}
	}
}

// dropIDs deletes the features of generation gen that d drops.
func (e Extracts) dropIDs(ctx context.Context, d idDrop, gen int64) error {
	var lo, hi sql.NullInt64
	if _, err := factsql.QueryRow(ctx, e.DB, d.ids, []any{gen}, &lo, &hi); err != nil {
		return e.DB.Err(ctx, err)
	}
	if !lo.Valid {
		return nil // none left
	}
	for from := lo.Int64; from <= hi.Int64; from += dropBatch {
		if _, err := e.DB.Exec(ctx, d.drop, from, min(from+dropBatch-1, hi.Int64), gen); err != nil {
			return e.DB.Err(ctx, err)
		}
	}
	return nil
}

// OSMExtracts lists the extracts served, by name.
func (e Extracts) OSMExtracts(ctx context.Context) ([]providers.OSMExtract, error) {
	rows, err := e.DB.Query(ctx, e.S.extracts)
	if err != nil {
		return nil, e.DB.Err(ctx, err)
	}
	defer rows.Close()
	var out []providers.OSMExtract
	for rows.Next() {
		x, err := scanExtract(rows)
		if err != nil {
			return nil, e.DB.Err(ctx, err)
		}
		out = append(out, x)
	}
	return out, e.DB.Err(ctx, rows.Err())
}

// OSMPlacesNear returns the served extract whose coverage holds all of c
// (circleInside its boundary, when it has one) and its places within c
// that f selects. The places are read with the extract they belong to, so
// a publish between the two reads is seen whole: the extract is read again
// when the places came from a newer generation. With f.Within the places
// are sought in the box of that smaller circle only.
func (e Extracts) OSMPlacesNear(ctx context.Context, c providers.Circle, f providers.PlaceFilter) (*providers.OSMExtract, []providers.OSMPlace, error) {
	if err := rules.CheckCoordinates(c.Center.Lat, c.Center.Lng); err != nil {
		return nil, nil, err
	}
	if err := rules.CheckRadius(c.RadiusMeters); err != nil {
		return nil, nil, err
	}
	box := rules.BoundingBox(c.Center, c.RadiusMeters)
	if len(box.Lngs) != 1 {
		return nil, nil, notCovered()
	}
	read := c
	if f.Within != 0 {
		if err := rules.CheckRadius(f.Within); err != nil {
			return nil, nil, err
		}
		read.RadiusMeters = min(f.Within, c.RadiusMeters)
	}
	var places []providers.OSMPlace
	west, east := box.Lngs[0].West, box.Lngs[0].East
	holds := func(mp orb.MultiPolygon) bool { return circleInside(mp, c, box.South, box.North, west, east) }
	x, err := e.covered(ctx, box.South, box.North, west, east, holds, func(name string) (int64, error) {
		var gen int64
		var err error
		places, gen, err = e.places(ctx, name, read, f)
		return gen, err
	})
	if err != nil {
		return nil, nil, err
	}
	return x, places, nil
}

// OSMAddressNearest returns the address point nearest to p within
// radiusMeters of the served extract whose coverage holds p that usable
// takes (any, when nil), read as OSMPlacesNear reads places: with the
// extract they belong to.
func (e Extracts) OSMAddressNearest(ctx context.Context, p providers.Point, radiusMeters float64,
	usable func(providers.OSMAddress) bool) (*providers.OSMExtract, providers.OSMAddress, float64, error) {
	if err := rules.CheckCoordinates(p.Lat, p.Lng); err != nil {
		return nil, providers.OSMAddress{}, 0, err
	}
	if err := rules.CheckRadius(radiusMeters); err != nil {
		return nil, providers.OSMAddress{}, 0, err
	}
	box := rules.BoundingBox(p, radiusMeters)
	if len(box.Lngs) != 1 {
		return nil, providers.OSMAddress{}, 0, notCovered()
	}
	west, east := box.Lngs[0].West, box.Lngs[0].East
	c := providers.Circle{Center: p, RadiusMeters: radiusMeters}
	var (
		best  providers.OSMAddress
		dist  float64
		found bool
	)
	// The extract must hold the point; an address point is looked for in
	// it only, even when the circle reaches past its edge.
	holds := func(mp orb.MultiPolygon) bool { return pointInside(mp, p) }
	x, err := e.covered(ctx, p.Lat, p.Lat, p.Lng, p.Lng, holds, func(name string) (int64, error) {
		var gen int64
		var err error
		best, dist, found, gen, err = e.nearestAddress(ctx, name, box.South, box.North, west, east, c, usable)
		return gen, err
	})
	if err != nil {
		return nil, providers.OSMAddress{}, 0, err
	}
	if !found {
		return nil, providers.OSMAddress{}, 0, providers.NotFound(providers.CodeSectionNotFound,
			"no address point of an OpenStreetMap extract is this close")
	}
	return x, best, dist, nil
}

// covered finds the newest served extract whose box holds the rectangle
// south, north, west, east and whose boundary, when it has one, holds
// what is asked (holds tells), and runs read on it, which returns the
// generation its rows came from (0 for none). A publish between the two
// reads is seen whole: the extract is read again when the rows came from
// a newer generation.
func (e Extracts) covered(ctx context.Context, south, north, west, east float64, holds func(orb.MultiPolygon) bool,
	read func(name string) (int64, error)) (*providers.OSMExtract, error) {
	for range 3 {
		x, err := e.covering(ctx, south, north, west, east, holds)
		if err != nil {
			return nil, err
		}
		if x == nil {
			return nil, notCovered()
		}
		gen, err := read(x.Name)
		if err != nil {
			return nil, err
		}
		if gen == 0 || gen == x.Generation {
			return x, nil
		}
	}
	return nil, providers.Errorf(providers.KindUnavailable, providers.CodeDatabaseUnavailable,
		"the OpenStreetMap extract kept changing while it was read")
}

// covering returns the first extract the covering statement lists whose
// boundary holds what holds tests (an extract without one is held by its
// box, which the statement tested); nil when none does. The extract
// returned carries no Boundary: the boundary is read once a generation.
func (e Extracts) covering(ctx context.Context, south, north, west, east float64, holds func(orb.MultiPolygon) bool) (*providers.OSMExtract, error) {
	type listed struct {
		x       providers.OSMExtract
		bounded bool
	}
	var all []listed
	rows, err := e.DB.Query(ctx, e.S.covering, south, north, west, east)
	if err != nil {
		return nil, e.DB.Err(ctx, err)
	}
	for rows.Next() {
		var l listed
		if err := scanExtractInto(rows, &l.x, &l.bounded); err != nil {
			rows.Close()
			return nil, e.DB.Err(ctx, err)
		}
		all = append(all, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, e.DB.Err(ctx, err)
	}
	for _, l := range all {
		if !l.bounded {
			return &l.x, nil
		}
		mp, err := e.boundary(ctx, l.x)
		if err != nil {
			return nil, err
		}
		if mp != nil && holds(mp) {
			return &l.x, nil
		}
	}
	return nil, nil
}

// boundary returns the boundary of x, decoded (nil for WKB that is no
// polygon, which covers nothing): from Bounds, else read and kept there.
// A generation replaced since x was listed is read as no boundary.
func (e Extracts) boundary(ctx context.Context, x providers.OSMExtract) (orb.MultiPolygon, error) {
	if mp, ok := e.Bounds.get(x.Generation); ok {
		return mp, nil
	}
	var raw []byte
	found, err := factsql.QueryRow(ctx, e.DB, e.S.boundaryOf, []any{x.Name, x.Generation}, &raw)
	if err != nil {
		return nil, e.DB.Err(ctx, err)
	}
	if !found {
		return nil, nil
	}
	mp, _ := readBoundary(raw)
	e.Bounds.put(x.Generation, mp)
	return mp, nil
}

func notCovered() error {
	return providers.NotFound(providers.CodeSectionNotFound, "no OpenStreetMap extract covers this area")
}

// placeRead is one statement of places: the places whose col is one of vs
// (every place when col is "").
type placeRead struct {
	col string
	vs  []string
}

// places reads the places of the extract name within c that f selects
// (f.Within aside: c is the circle to read), from the bands of c's box:
// SQL drops those outside a flat test a little larger than c
// (rules.PlanarTest) and those f does not select, and each place kept is
// checked against c exactly here. A filter is read a list at a time, its
// categories and its types each a kind at a time (Dialect.PlacesOfKind; a
// place that two lists select is kept once); the generation returned is the
// newest a statement read, so that covered reads again when a publish
// came between two.
func (e Extracts) places(ctx context.Context, name string, c providers.Circle, f providers.PlaceFilter) ([]providers.OSMPlace, int64, error) {
	box := rules.BoundingBox(c.Center, c.RadiusMeters)
	if len(box.Lngs) != 1 {
		return nil, 0, notCovered()
	}
	reads := []placeRead{{}}
	if len(f.Categories)+len(f.Types)+len(f.NameKeys) > 0 {
		reads = reads[:0]
		for _, r := range []placeRead{{"category", f.Categories}, {"type", f.Types},
			{"name_key", slices.DeleteFunc(slices.Clone(f.NameKeys), func(k string) bool { return k == "" })}} {
			if len(r.vs) > 0 {
				reads = append(reads, r)
			}
		}
	}
	var (
		out  []providers.OSMPlace
		gen  int64
		seen map[providers.OSMRef]bool
	)
	if len(reads) > 1 {
		seen = map[providers.OSMRef]bool{}
	}
	for _, r := range reads {
		got, g, err := e.placesOf(ctx, name, c, box, r)
		if err != nil {
			return nil, 0, err
		}
		gen = max(gen, g)
		for _, p := range got {
			if seen != nil {
				if seen[p.OSMRef] {
					continue
				}
				seen[p.OSMRef] = true
			}
			out = append(out, p)
		}
	}
	return out, gen, nil
}

// placesOf runs one read of places: those of r within c, from the bands
// of c's box.
func (e Extracts) placesOf(ctx context.Context, name string, c providers.Circle, box rules.Box, r placeRead) ([]providers.OSMPlace, int64, error) {
	q := query{s: e.S, args: []any{name, box.South, box.North, box.Lngs[0].West, box.Lngs[0].East}}
	bands := in(&q, sqlshared.AreaBands(box.South, box.North))
	switch r.col {
	case "":
		q.WriteString(e.S.placesIn(bands))
	case "name_key":
		q.WriteString(e.S.placesIn(bands) + " AND p.name_key " + in(&q, r.vs))
	default:
		q.WriteString(e.S.placesOfKind(r.col, bands, list(&q, r.vs)))
	}
	if pt, ok := rules.PlanarTest(c.Center, c.RadiusMeters, box); ok {
		lat, lng := q.arg(pt.Lat), q.arg(pt.Lng)
		q.WriteString(" AND (p.latitude - " + lat + ") * (p.latitude - " + lat + ") + (p.longitude - " + lng + ") * (p.longitude - " +
			lng + ") * " + q.arg(pt.K) + " <= " + q.arg(pt.Limit))
	}
	rows, err := e.DB.Query(ctx, q.String(), q.args...)
	if err != nil {
		return nil, 0, e.DB.Err(ctx, err)
	}
	defer rows.Close()
	var (
		out []providers.OSMPlace
		gen int64
	)
	for rows.Next() {
		var p providers.OSMPlace
		var g int64
		if err := rows.Scan(&g, &p.OSMRef.Type, &p.ID, &p.Version, &p.Category, &p.Type, &p.Name, &p.NameKey,
			&p.Point.Lat, &p.Point.Lng); err != nil {
			return nil, 0, e.DB.Err(ctx, err)
		}
		if gen != 0 && g != gen {
			// Two generations in one statement cannot happen: a
			// statement reads one snapshot, and the name serves one.
			return nil, 0, providers.Errorf(providers.KindInternal, providers.CodeInternalError, "extract %s read across generations", name)
		}
		gen = g
		if c.Contains(p.Point) {
			out = append(out, p)
		}
	}
	return out, gen, e.DB.Err(ctx, rows.Err())
}

// nearestAddress reads the address points of the extract name inside the
// rectangle and keeps the nearest within c that usable takes (any, when
// nil); ties go to the smaller element, so both engines pick the same.
// usable is asked about the points within c, nearest first, once the rows
// are read, until it takes one.
func (e Extracts) nearestAddress(ctx context.Context, name string, south, north, west, east float64,
	c providers.Circle, usable func(providers.OSMAddress) bool) (best providers.OSMAddress, dist float64, found bool, gen int64, err error) {
	q := query{s: e.S, args: []any{name, south, north, west, east}}
	q.WriteString(e.S.addressesIn(in(&q, sqlshared.AreaBands(south, north))))
	rows, err := e.DB.Query(ctx, q.String(), q.args...)
	if err != nil {
		return best, 0, false, 0, e.DB.Err(ctx, err)
	}
	defer rows.Close()
	type near struct {
		a   providers.OSMAddress
		d   float64
		key string
	}
	var within []near
	for rows.Next() {
		var a providers.OSMAddress
		var g int64
		if err := rows.Scan(&g, &a.OSMRef.Type, &a.ID, &a.Version, &a.HouseNumber, &a.Street, &a.Unit, &a.City,
			&a.Postcode, &a.Point.Lat, &a.Point.Lng); err != nil {
			return best, 0, false, 0, e.DB.Err(ctx, err)
		}
		if gen != 0 && g != gen {
			return best, 0, false, 0, providers.Errorf(providers.KindInternal, providers.CodeInternalError, "extract %s read across generations", name)
		}
		gen = g
		d := c.Center.DistanceMeters(a.Point)
		if d > c.RadiusMeters {
			continue
		}
		within = append(within, near{a, d, a.Key()})
	}
	if err := rows.Err(); err != nil {
		return best, 0, false, 0, e.DB.Err(ctx, err)
	}
	slices.SortFunc(within, func(x, y near) int {
		if o := cmp.Compare(x.d, y.d); o != 0 {
			return o
		}
		return strings.Compare(x.key, y.key)
	})
	for _, n := range within {
		if usable == nil || usable(n.a) {
			return n.a, n.d, true, gen, nil
		}
	}
	return best, 0, false, gen, nil
}

// query is a statement being written and its arguments.
type query struct {
	strings.Builder
	s    *Statements
	args []any
}

// arg adds v to the arguments and returns its placeholder.
func (q *query) arg(v any) string {
	q.args = append(q.args, v)
	return q.s.param(len(q.args))
}

// list returns vs as a list, its arguments added: one placeholder, bound
// to vs, where the engine takes Arrays, else a placeholder a value in
// parentheses.
func list[T any](q *query, vs []T) string {
	if q.s.arrays {
		return q.arg(vs)
	}
	ps := make([]string, len(vs))
	for i, v := range vs {
		ps[i] = q.arg(v)
	}
	return "(" + strings.Join(ps, ", ") + ")"
}

// in returns the condition that a value is one of vs, its arguments
// added: "= ANY($n)" where the engine takes Arrays, else "IN (...)".
func in[T any](q *query, vs []T) string {
	if q.s.arrays {
		return "= ANY(" + list(q, vs) + ")"
	}
	return "IN " + list(q, vs)
}

func (e Extracts) extract(ctx context.Context, q string, args ...any) (*providers.OSMExtract, error) {
	rows, err := e.DB.Query(ctx, q, args...)
	if err != nil {
		return nil, e.DB.Err(ctx, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, e.DB.Err(ctx, rows.Err())
	}
	x, err := scanExtract(rows)
	if err != nil {
		return nil, e.DB.Err(ctx, err)
	}
	return &x, nil
}

func scanExtract(rows factsql.Rows) (providers.OSMExtract, error) {
	var x providers.OSMExtract
	if err := scanExtractInto(rows, &x, &x.Boundary); err != nil {
		return x, err
	}
	if len(x.Boundary) == 0 {
		x.Boundary = nil
	}
	return x, nil
}

// scanExtractInto scans extractColumns into x, the last (the boundary, or
// what a statement selects in its place) into last.
func scanExtractInto(rows factsql.Rows, x *providers.OSMExtract, last any) error {
	var ts, loaded string
	if err := rows.Scan(&x.Name, &x.Generation, &x.Coverage.South, &x.Coverage.North, &x.Coverage.West, &x.Coverage.East,
		&ts, &x.Fingerprint, &x.Places, &x.Buildings, &x.Addresses, &x.Skipped, &loaded, last); err != nil {
		return err
	}
	x.Timestamp, _ = time.Parse(stampLayout, ts)
	x.LoadedAt, _ = time.Parse(stampLayout, loaded)
	return nil
}

const stampLayout = "2006-01-02T15:04:05.000Z"

// stamp formats t as the extract tables store times.
func stamp(t time.Time) string { return t.UTC().Format(stampLayout) }

func nullable[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func itoa(n int) string { return strconv.Itoa(n) }

// Planned is the statements whose query plans the engines' tests check,
// by name, in the engine's placeholders: each runs once per few thousand
// rows of a large table, and a plan that reads the table whole would
// make it quadratic.
func (s *Statements) Planned() map[string]string {
	return map[string]string{"dropBuildingBands": s.dropBuildingBands, "dropBuildings": s.buildings.drop.drop}
}
