package store

import (
	"github.com/propertyd/propertyd/store/internal/osmsql"
)

// osmDialect is SQLite's statements for OpenStreetMap extracts: the places
// and address points of a circle are the latitude bands of their covering
// indexes (migration 0010) it crosses, each sought by longitude; the places
// of some categories or types, those bands of each in the index the kind
// leads (0014), named with INDEXED BY. The band expression is the
// indexes', written the same way.
var osmDialect = &osmsql.Dialect{
	Param:    factDialect.Param,
	PlacesIn: func(bands string) string { return placesThrough("osm_places_area_band", bands) },
	// SQLite seeks each of the kinds in each band when told the index.
	PlacesOfKind: func(col, bands, kinds string) string {
		return placesThrough("osm_places_"+col+"_band", bands) + " AND p." + col + " IN " + kinds
	},
	AddressesIn: func(bands string) string {
		return `SELECT ` + osmsql.AddressColumns + ` FROM osm_extracts x
			JOIN osm_addresses a INDEXED BY osm_addresses_area_band ON a.generation = x.generation
			WHERE x.name = ?1 AND ` + sqliteBand("a.latitude") + ` ` + bands + `
				AND a.longitude BETWEEN ?4 AND ?5 AND a.latitude BETWEEN ?2 AND ?3`
	},
}

// placesThrough is PlacesIn through index.
func placesThrough(index, bands string) string {
	return `SELECT ` + osmsql.PlaceColumns + ` FROM osm_extracts x
		JOIN osm_places p INDEXED BY ` + index + ` ON p.generation = x.generation
		WHERE x.name = ?1 AND ` + sqliteBand("p.latitude") + ` ` + bands + `
			AND p.longitude BETWEEN ?4 AND ?5 AND p.latitude BETWEEN ?2 AND ?3`
}

var osmStatements = osmsql.Build(osmDialect)

// newExtracts returns the extract logic over db, built once by Open.
func (db *DB) newExtracts() osmsql.Extracts {
	return osmsql.Extracts{DB: factDB{db}, S: osmStatements, Bounds: &osmsql.Boundaries{}}
}
