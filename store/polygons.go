package store

import (
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/loadsql"
	"github.com/propertyd/propertyd/store/internal/polysql"
)

// polyDialect is SQLite's statements for polygon layers: a point's
// candidates are the R*Tree's boxes that hold it (migration 0020), the
// R*Tree read first (CROSS JOIN keeps SQLite from reading the layer's
// generation through its key instead), each polygon by its id. A batch's
// ids follow the highest taken, which the one writer's transaction holds.
var polyDialect = &polysql.Dialect{
	Param: factDialect.Param,
	At: `FROM layer_polygons_rtree r CROSS JOIN layer_polygons p ON p.id = r.id
		WHERE r.min_lat <= ?3 AND r.max_lat >= ?3 AND r.min_lng <= ?4 AND r.max_lng >= ?4
			AND p.layer = ?1 AND p.generation = ?2`,
	NewIDs: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
		SELECT (SELECT COALESCE(MAX(id), 0) FROM layer_polygons) + i FROM n`,
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
