// Package polysql is the polygon layers both database engines share
// (providers.PolygonStore): writing a layer's polygons under a generation,
// finding those that hold a point, and dropping a generation. The engines
// differ in their spatial index (SQLite's R*Tree, PostgreSQL's GiST over a
// box), how they number rows and whether they copy; the SQL of the rest
// and the exact test of a point (shape.go) live here once.
//
// An index gives the polygons whose bounding box holds the point; each is
// then tested exactly, in Go: its WKB, or, for a shape of many points, the
// one band of its edges the point's latitude falls in (shape.go's bands).
package polysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/factsql"
	"github.com/propertyd/propertyd/store/internal/loadsql"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// Dialect is what the engines say differently about polygon layers, in
// numbered placeholders.
type Dialect struct {
	// Param is the engine's placeholder of the n-th argument.
	Param func(n int) string
	// At is the FROM and WHERE of the polygons, as p, of a layer (the
	// first argument) and generation (the second) whose bounding box holds
	// a point: its latitude (third) and longitude (fourth), through the
	// engine's spatial index.
	At string
	// NewIDs selects n new ids of layer_polygons (n the one argument),
	// one a row, in a write transaction: ids no other writer takes.
	NewIDs string
	// Copy, when set, writes a batch's rows by copy (factsql.Copier)
	// rather than one INSERT a row.
	Copy bool
}

// The columns a batch writes, in the order of their put statements'
// arguments.
var (
	polygonColumns = []string{"id", "layer", "generation", "key", "min_lat", "max_lat", "min_lng", "max_lng",
		"vertices", "banded", "attrs", "shape"}
	bandColumns = []string{"polygon_id", "south", "edges"}
)

// dropBatch is how many polygons one transaction of a drop deletes: a
// reader or a writer waits for milliseconds, not for the whole layer.
const dropBatch = 5000

// Statements are the statements of one engine, bound once.
type Statements struct {
	at, newIDs, putPolygon, putBand, ids, dropBands, dropPolygons string
	copies                                                        bool
}

// Build binds d's statements.
func Build(d *Dialect) *Statements {
	b := func(s string) string { return sqlshared.Bind(s, d.Param) }
	insert := func(table string, cols []string) string {
		return b(`INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES (?` + strings.Repeat(", ?", len(cols)-1) + `)`)
	}
	p := d.Param
	return &Statements{
		// A shape read by band reads the band of the point's latitude,
		// the last that starts at or south of it; none south of the
		// shape.
		at: `SELECT p.id, p.key, p.attrs, p.min_lat, p.max_lat, p.min_lng, p.max_lng, p.banded,
			CASE WHEN p.banded = 0 THEN p.shape ELSE (SELECT b.edges FROM layer_polygon_bands b
				WHERE b.polygon_id = p.id AND b.south <= ` + p(3) + ` ORDER BY b.south DESC LIMIT 1) END
			` + d.At,
		newIDs:     d.NewIDs,
		putPolygon: insert("layer_polygons", polygonColumns),
		putBand:    insert("layer_polygon_bands", bandColumns),
		ids:        b(`SELECT MIN(id), MAX(id) FROM layer_polygons WHERE layer = ? AND generation = ?`),
		// Each statement of a drop seeks its range of ids of the
		// generation in layer_polygons_generation (migration 0020).
		dropBands: b(`DELETE FROM layer_polygon_bands WHERE polygon_id IN (SELECT id FROM layer_polygons
			WHERE layer = ? AND generation = ? AND id BETWEEN ? AND ? AND banded = 1)`),
		dropPolygons: b(`DELETE FROM layer_polygons WHERE layer = ? AND generation = ? AND id BETWEEN ? AND ?`),
		copies:       d.Copy,
	}
}

// Layers is the polygon layers of one engine: providers.PolygonStore,
// which each engine embeds, so the methods are written once.
type Layers struct {
	DB factsql.DB
	S  *Statements
	// Life writes a load's checkpoint in the transaction of its batch
	// (StagePolygons).
	Life loadsql.Lifecycle
}

var _ providers.PolygonStore = Layers{}

// PutPolygons checks every polygon, then writes them all in one
// transaction, their bands with them (see providers.PolygonStore).
func (l Layers) PutPolygons(ctx context.Context, layer string, generation int64, polys []providers.LayerPolygon) error {
	return l.put(ctx, layer, generation, polys, nil)
}

// StagePolygons writes polys as PutPolygons does, under load's generation,
// and load's checkpoint cp in the same transaction (see
// providers.PolygonStore).
func (l Layers) StagePolygons(ctx context.Context, load *providers.DatasetLoad, cp providers.Checkpoint, layer string, polys []providers.LayerPolygon) error {
	return l.put(ctx, layer, load.Generation, polys, func(c factsql.Conn) error {
		return l.Life.Checkpoint(ctx, c, load, cp)
	})
}

// put checks every polygon, then writes them and their bands in one
// transaction, and then, in it, calls also when it is set.
func (l Layers) put(ctx context.Context, layer string, generation int64, polys []providers.LayerPolygon, also func(factsql.Conn) error) error {
	if len(polys) == 0 && also == nil {
		return checkLayer(layer, generation)
	}
	// A checkpoint alone (a batch of refused features) names no layer.
	if len(polys) > 0 || layer != "" {
		if err := checkLayer(layer, generation); err != nil {
			return err
		}
	}
	type checked struct {
		s     shape
		attrs string
		bands []band
	}
	cs := make([]checked, len(polys))
	nbands := 0
	for i, p := range polys {
		if p.Key == "" {
			return providers.Invalid("polygons", fmt.Sprintf("polygon %d has no key", i))
		}
		attrs := "{}"
		if len(p.Attrs) > 0 {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(p.Attrs, &m); err != nil || m == nil {
				return providers.Invalid("polygons", fmt.Sprintf("the attributes of polygon %s are no JSON object", p.Key))
			}
			attrs = string(p.Attrs)
		}
		s, err := readShape(p.Shape)
		if err != nil {
			return providers.Invalid("polygons", fmt.Sprintf("the shape of polygon %s: %v", p.Key, err))
		}
		c := checked{s: s, attrs: attrs}
		if s.vertices > bandVertices {
			c.bands = bands(s)
			nbands += len(c.bands)
		}
		cs[i] = c
	}
	err := l.DB.Tx(ctx, func(c factsql.Conn) error {
		if also != nil {
			if err := also(c); err != nil {
				return err
			}
		}
		if len(cs) == 0 {
			return nil
		}
		ids, err := l.newIDs(ctx, c, len(cs))
		if err != nil {
			return err
		}
		rows := make([][]any, len(cs))
		bandRows := make([][]any, 0, nbands)
		for i, x := range cs {
			banded := 0
			if x.bands != nil {
				banded = 1
				for _, b := range x.bands {
					bandRows = append(bandRows, []any{ids[i], b.south, b.chains})
				}
			}
			rows[i] = []any{ids[i], layer, generation, polys[i].Key, x.s.box.South, x.s.box.North, x.s.box.West, x.s.box.East,
				x.s.vertices, banded, x.attrs, x.s.wkb}
		}
		if err := l.S.put(ctx, c, "layer_polygons", polygonColumns, l.S.putPolygon, rows); err != nil {
			return err
		}
		if len(bandRows) == 0 {
			return nil
		}
		return l.S.put(ctx, c, "layer_polygon_bands", bandColumns, l.S.putBand, bandRows)
	})
	if errors.Is(err, loadsql.ErrSuperseded) {
		return err
	}
	return l.DB.Err(ctx, err)
}

// newIDs takes n ids for new polygons, in the transaction c.
func (l Layers) newIDs(ctx context.Context, c factsql.Conn, n int) ([]int64, error) {
	rows, err := c.Query(ctx, l.S.newIDs, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := make([]int64, 0, n)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(ids) != n {
		return nil, fmt.Errorf("polysql: %d new ids for %d polygons", len(ids), n)
	}
	return ids, nil
}

// put writes rows into table: by copy where the engine copies, else put a
// row.
func (s *Statements) put(ctx context.Context, c factsql.Conn, table string, cols []string, put string, rows [][]any) error {
	if cp, ok := c.(factsql.Copier); ok && s.copies {
		return cp.CopyRows(ctx, table, cols, rows)
	}
	return c.ExecMany(ctx, put, rows)
}

// PolygonsAt returns the polygons of layer and generation that hold p,
// by key then as written, without their shapes (see
// providers.PolygonStore).
func (l Layers) PolygonsAt(ctx context.Context, layer string, generation int64, p providers.Point) ([]providers.LayerPolygon, error) {
	if err := rules.CheckCoordinates(p.Lat, p.Lng); err != nil {
		return nil, err
	}
	rows, err := l.DB.Query(ctx, l.S.at, layer, generation, p.Lat, p.Lng)
	if err != nil {
		return nil, l.DB.Err(ctx, err)
	}
	defer rows.Close()
	type found struct {
		id int64
		p  providers.LayerPolygon
	}
	var out []found
	for rows.Next() {
		var (
			f      found
			attrs  string
			banded int64
			raw    []byte
		)
		b := &f.p.Box
		if err := rows.Scan(&f.id, &f.p.Key, &attrs, &b.South, &b.North, &b.West, &b.East, &banded, &raw); err != nil {
			return nil, l.DB.Err(ctx, err)
		}
		if banded == 0 && !holds(raw, p.Lng, p.Lat) || banded != 0 && !chainsHold(raw, p.Lng, p.Lat) {
			continue
		}
		f.p.Attrs = json.RawMessage(attrs)
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, l.DB.Err(ctx, err)
	}
	slices.SortFunc(out, func(a, b found) int {
		if c := strings.Compare(a.p.Key, b.p.Key); c != 0 {
			return c
		}
		return int(a.id - b.id)
	})
	polys := make([]providers.LayerPolygon, len(out))
	for i, f := range out {
		polys[i] = f.p
	}
	return polys, nil
}

// DropPolygons deletes the polygons of layer and generation, and their
// bands, dropBatch ids a transaction.
func (l Layers) DropPolygons(ctx context.Context, layer string, generation int64) error {
	if err := checkLayer(layer, generation); err != nil {
		return err
	}
	var lo, hi sql.NullInt64
	if _, err := factsql.QueryRow(ctx, l.DB, l.S.ids, []any{layer, generation}, &lo, &hi); err != nil {
		return l.DB.Err(ctx, err)
	}
	if !lo.Valid {
		return nil // none
	}
	for from := lo.Int64; from <= hi.Int64; from += dropBatch {
		to := min(from+dropBatch-1, hi.Int64)
		err := l.DB.Tx(ctx, func(c factsql.Conn) error {
			if _, err := c.Exec(ctx, l.S.dropBands, layer, generation, from, to); err != nil {
				return err
			}
			_, err := c.Exec(ctx, l.S.dropPolygons, layer, generation, from, to)
			return err
		})
		if err != nil {
			return l.DB.Err(ctx, err)
		}
	}
	return nil
}

func checkLayer(layer string, generation int64) error {
	if layer == "" {
		return providers.Invalid("layer", "must not be empty")
	}
	if generation < 1 {
		return providers.Invalid("generation", "must be 1 or more")
	}
	return nil
}

// Planned is the statements whose query plans the engines' tests check,
// by name, in the engine's placeholders: a point's read must go through
// the spatial index, and a drop's statements, one per dropBatch
// polygons, through the key.
func (s *Statements) Planned() map[string]string {
	return map[string]string{"polygonsAt": s.at, "dropPolygonBands": s.dropBands, "dropPolygons": s.dropPolygons}
}
