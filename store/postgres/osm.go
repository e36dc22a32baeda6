package postgres

import (
	"github.com/propertyd/propertyd/store/internal/osmsql"
)

// osmDialect is PostgreSQL's spatial statements for OpenStreetMap
// extracts, through the GiST indexes over point(longitude, latitude) of the
// places and the address points.
var osmDialect = &osmsql.Dialect{
	Param:   dialect.Param,
	Analyze: "ANALYZE osm_places, osm_buildings, osm_addresses",
	PlacesIn: `SELECT ` + osmsql.PlaceColumns + ` FROM osm_places p JOIN osm_extracts x ON x.generation = p.generation
		WHERE x.name = $1 AND point(p.longitude, p.latitude) <@ box(point($4, $2), point($5, $3))`,
	AddressesIn: `SELECT ` + osmsql.AddressColumns + ` FROM osm_addresses a JOIN osm_extracts x ON x.generation = a.generation
		WHERE x.name = $1 AND point(a.longitude, a.latitude) <@ box(point($4, $2), point($5, $3))`,
}

var osmStatements = osmsql.Build(osmDialect)

// newExtracts returns the extract logic over db, built once by Open.
func (db *DB) newExtracts() osmsql.Extracts { return osmsql.Extracts{DB: factDB{db}, S: osmStatements} }
