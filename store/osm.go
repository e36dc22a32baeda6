package store

import (
	"github.com/propertyd/propertyd/store/internal/osmsql"
)

// osmDialect is SQLite's spatial statements for OpenStreetMap extracts,
// through the places' R*Tree.
var osmDialect = &osmsql.Dialect{
	Param: factDialect.Param,
	// The places and address points of a load go in their R*Trees when it
	// is published, each tree in one statement (migration 0010 says why).
	Index: []string{
		`INSERT OR REPLACE INTO osm_places_rtree (id, min_lat, max_lat, min_lng, max_lng)
			SELECT id, latitude, latitude, longitude, longitude FROM osm_places WHERE generation = ?1`,
		`INSERT OR REPLACE INTO osm_addresses_rtree (id, min_lat, max_lat, min_lng, max_lng)
			SELECT id, latitude, latitude, longitude, longitude FROM osm_addresses WHERE generation = ?1`,
	},
	PlacesIn: `SELECT ` + osmsql.PlaceColumns + ` FROM osm_places_rtree t
		JOIN osm_places p ON p.id = t.id JOIN osm_extracts x ON x.generation = p.generation
		WHERE x.name = ?1 AND t.min_lat >= ?2 AND t.max_lat <= ?3 AND t.min_lng >= ?4 AND t.max_lng <= ?5`,
	AddressesIn: `SELECT ` + osmsql.AddressColumns + ` FROM osm_addresses_rtree t
		JOIN osm_addresses a ON a.id = t.id JOIN osm_extracts x ON x.generation = a.generation
		WHERE x.name = ?1 AND t.min_lat >= ?2 AND t.max_lat <= ?3 AND t.min_lng >= ?4 AND t.max_lng <= ?5`,
}

var osmStatements = osmsql.Build(osmDialect)

// newExtracts returns the extract logic over db, built once by Open.
func (db *DB) newExtracts() osmsql.Extracts { return osmsql.Extracts{DB: factDB{db}, S: osmStatements} }
