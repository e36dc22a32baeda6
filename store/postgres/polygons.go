package postgres

import (
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/loadsql"
	"github.com/propertyd/propertyd/store/internal/polysql"
)

// polyDialect is PostgreSQL's statements for polygon layers: a point's
// candidates are the boxes of the GiST index (migration 0020) that hold it
// as a box of no size (box_ops has @> of two boxes, not of a box and a
// point, as factDialect's ParcelsAt says). A batch takes its ids from the
// sequence, then is copied (COPY, binary): a polygon a statement cost the
// server a statement a polygon.
var polyDialect = &polysql.Dialect{
	Param: dialect.Param,
	At: `FROM layer_polygons p
		WHERE box(point(p.min_lng, p.min_lat), point(p.max_lng, p.max_lat)) @> box(point($4, $3), point($4, $3))
			AND p.layer = $1 AND p.generation = $2`,
	NewIDs: `SELECT nextval('layer_polygon_ids') FROM generate_series(1, $1::integer)`,
	Copy:   true,
}

var polyStatements = polysql.Build(polyDialect)

// newLayers returns the polygon layers over db, built once by Open.
func (db *DB) newLayers() polysql.Layers {
	return polysql.Layers{DB: factDB{db}, S: polyStatements, Life: db.newLifecycle()}
}

var lifeStatements = loadsql.Build(polyDialect.Param)

// newLifecycle returns the loading lifecycle over db, built once by Open.
func (db *DB) newLifecycle() loadsql.Lifecycle {
	return loadsql.Lifecycle{DB: factDB{db}, S: lifeStatements,
		Publish: map[string]loadsql.Publisher{providers.KindAddresses: addrStatements.Publish}}
}
