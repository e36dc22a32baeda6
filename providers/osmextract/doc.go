// Package osmextract loads an OpenStreetMap extract (an .osm.pbf file, as
// Geofabrik publishes one per US state) into the store, for
// "propertyd data load osm": the places of the amenity categories, the
// buildings and the address points, each with its element's id and
// version. Amenities and walk scores of a point inside a loaded extract are
// then answered from it with no Overpass call.
//
// # The spec
//
// The file format is the OpenStreetMap wiki's "PBF Format" (read with
// github.com/paulmach/osm/osmpbf; an .osm file is read as the wiki's "OSM
// XML", for fixtures). What is kept follows the wiki's tag documentation,
// one table each:
//
//	places     the tags of package providers/amenity (Rules): the same
//	           definition the overpass module queries, so both paths agree
//	buildings  building=* (any value but "no") on a closed way, or on a
//	           multipolygon relation (its closed outer ways), with
//	           building:levels (floors above ground, a number),
//	           building:flats (dwellings, a whole number) and start_date
//	           (as tagged)
//	addresses  addr:housenumber and addr:street (both required), with
//	           addr:unit, addr:city and addr:postcode, on a node or on a
//	           building (placed at the building's centroid)
//
// A node is placed where it is; a way or a relation at the center of its
// bounding box, which is what Overpass's "out center" gives, so a place
// answered from the extract and from Overpass lies at the same point and
// the same distance. A feature whose geometry is broken (a way whose nodes
// the file lacks, a building way that is not closed, a relation with no
// usable member) is skipped and counted, never fatal.
//
// # Memory
//
// Ways name their nodes by id, so their coordinates must be found. The
// loader reads the file three times: the relations (the member ways and
// nodes of the relations it keeps), the ways (the node ids of the ways it
// keeps, which it sorts into one compact array), then everything in file
// order, when each node the array holds gets its coordinates (two int32 of
// 1e-7 degrees, as PBF stores them) and ways and relations are built from
// them. Memory is 16 bytes a node referenced by a kept way (an id and its
// two coordinates), whatever the file's size otherwise: the District of
// Columbia's extract (about 150,000 buildings of some 8 nodes each) needs
// about 20 MB; California's (some 11 million buildings) would need about
// 1.4 GB, which a node store on disk would avoid (not done yet). Nodes
// nobody keeps, and every element's tags, are dropped as they are read.
// Measured (make bench, rows osm and pg-osm) on a generated extract of
// 1,000,000 features (800,000 buildings of four nodes, 100,000 places,
// 100,000 address points): the passes read it at some 285,000 features a
// second into a store that keeps nothing, and the whole load, building
// facts included, took 26 s into SQLite and 35 s into PostgreSQL on a busy
// two-core machine (peaks of 241 and 214 MB resident); the writes set its
// pace.
//
// # Loads
//
// An extract is named after its file ("district-of-columbia-latest" for
// district-of-columbia-latest.osm.pbf) unless Options.Name says otherwise;
// loading a file of the same name replaces the extract in one step
// (providers.OSMStore), and a load of the file already served does
// nothing. Features are written 5,000 a transaction with a checkpoint (the
// elements read), so a killed load resumes where it stopped when run again
// with the same file. The coverage is the header's bounding box, else that
// of the file's nodes; the timestamp is the header's replication
// timestamp, else the newest element's.
//
// # Coverage
//
// A PBF header holds a bounding box, no polygon: a state's box holds much
// of its neighbours, where the extract has no data. The polygon the
// publisher cut the extract with is a file of its own, in the OpenStreetMap
// wiki's "Osmosis/Polygon Filter File Format" (Geofabrik's <region>.poly,
// read by ReadPoly). Loaded with one (Options.Boundary), the extract's
// coverage is that polygon, and its box the polygon's bounding box within
// the header's; the store then answers a circle from the extract only when
// the whole circle lies inside the polygon. A polygon that does not meet
// the header's box is another area's, and stops the load before it
// starts.
package osmextract
