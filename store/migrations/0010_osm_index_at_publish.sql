-- 0010: OpenStreetMap extracts and assessor datasets load faster, and the
-- places around a point are read from one covering index.
--
-- Loading a generated extract of a million features took 108 s, four
-- fifths of it in R*Trees: each 5,000-row transaction inserted into them
-- at random places and rewrote the same tree pages at every commit.
--
-- Buildings: nothing searches them by their box (their facts are found
-- through fact_rows_rtree), so their R*Tree goes.
DROP TRIGGER osm_buildings_rtree_insert;
DROP TRIGGER osm_buildings_rtree_update;
DROP TRIGGER osm_buildings_rtree_delete;
DROP TABLE osm_buildings_rtree;

-- Places and address points are read, as records are (0007), from
-- covering indexes that hold a row's generation, its latitude band
-- (CAST(latitude * 200 AS INTEGER): 0.005 degrees, about 550 m), its
-- longitude, and what an answer needs: a circle seeks each band it
-- crosses by longitude and reads nothing else (through the R*Tree and a
-- row a place, a circle of 2 km around 3,300 places took 13 ms). The
-- expression must be written the same way in the queries (store/osm.go).
-- Their R*Trees go.
DROP TRIGGER osm_places_rtree_insert;
DROP TRIGGER osm_places_rtree_update;
DROP TRIGGER osm_places_rtree_delete;
DROP TABLE osm_places_rtree;
DROP TRIGGER osm_addresses_rtree_insert;
DROP TRIGGER osm_addresses_rtree_update;
DROP TRIGGER osm_addresses_rtree_delete;
DROP TABLE osm_addresses_rtree;
CREATE INDEX osm_places_area_band ON osm_places
    (generation, CAST(latitude * 200 AS INTEGER), longitude, latitude, category, type, name, name_key, osm_type, osm_id, version);
CREATE INDEX osm_addresses_area_band ON osm_addresses
    (generation, CAST(latitude * 200 AS INTEGER), longitude, latitude, housenumber, street, unit, city, postcode,
     osm_type, osm_id, version);

-- A facts load's rows go in fact_rows_rtree when it is published, all of
-- a generation in one statement (factsql.Dialect.IndexRows), not row by
-- row as they are written: a tree filled in one statement is written
-- once. Nothing reads the rows of a generation not served; a publish
-- interrupted after the statement runs it again (INSERT OR REPLACE).
-- Imported facts have no coordinates and never had an entry. The update
-- and delete triggers stay.
DROP TRIGGER fact_rows_rtree_insert;
