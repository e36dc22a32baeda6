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
//	           multipolygon relation (its closed outer ways, each less
//	           the closed inner ways it holds: a courtyard is a hole,
//	           outside the building), with
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
// usable member) is skipped and counted once (Skipped), never fatal. A
// skipped building takes its address with it: the address of a building
// is placed on its footprint, and it has none, so a broken building way
// leaves no address point (a place it is tagged with stays, as Overpass
// gives it).
//
// # Memory
//
// Ways name their nodes by id, so their coordinates must be found. The
// loader reads the file twice: the relations (the member ways of the
// relations it keeps), then everything in file order. Every node's
// coordinates go to a temporary file as they are read (nodeFile: a sparse,
// dense array of 8 bytes a node id, as osmium's dense_file_array, unlinked
// at once), and ways and relations, which come after the nodes, read them
// back through a 16 MiB cache of pages. Resident memory is that cache, the
// batches being written and the store's own, whatever the extract's size;
// the disk holds 8 bytes a node of the file (about 1.6 GB for California's
// 200 million nodes). Measured with the generated extract of cmd/bench
// (800,000 four-node buildings, 100,000 places and 100,000 address points a
// million features), loaded into SQLite by the command: peak resident
// memory 202 to 229 MB at 1,000,000 features and 235 MB at 5,000,000,
// with the command's Go heap limit (memory_limit_mb's default, 200 MB; on
// PostgreSQL the command gives the heap 232 MB: 220 to 245 MB and 255 MB
// resident). Nodes
// that give no feature (the vertices of ways, most of a file) never leave
// the PBF decoder: their coordinates are kept as it decodes them. Every
// element's tags are dropped as they are read.
//
// # Loads
//
// An extract is named after its file ("district-of-columbia-latest" for
// district-of-columbia-latest.osm.pbf) unless Options.Name says otherwise;
// loading a file of the same name replaces the extract in one step
// (providers.OSMStore), and a load of the file already served does
// nothing. Features are written 20,000 a transaction with a checkpoint (the
// elements read), so a killed load resumes where it stopped when run again
// with the same file. Each feature is written once: the file must hold
// each element once, each kind in order of id (ErrFormat otherwise, as
// osmium's own commands read a file), and a resumed load starts after
// the checkpoint of its last batch committed, so the stores keep no key
// of an element to merge a second by. A building is written once, with the facts it gives
// (BuildingFacts); when the file is read, the store makes the buildings
// the rows of their facts dataset where they stand
// (providers.OSMFactStore), which a killed load does again. The coverage
// is the header's bounding box, else that of the file's nodes; the
// timestamp is the header's replication timestamp, else the newest
// element's.
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
