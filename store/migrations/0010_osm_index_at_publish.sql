-- 0010: OpenStreetMap extracts and assessor datasets load faster. Nothing searches the buildings
-- by their box (their facts are found through fact_rows_rtree), so their
-- R*Tree goes. The places and address points are put in their R*Trees when
-- a load is published, all of a generation in one statement
-- (osmsql.Dialect.Index), not row by row as they are written: a tree
-- filled in one transaction is written once, where one filled 5,000 rows
-- a transaction rewrote the same pages at every commit (at a million
-- features, the R*Trees took four fifths of a load). The rows of a load
-- are not read before it is published, so they need no index before. The
-- delete and update triggers stay: dropping a former generation, or a
-- resumed load writing a row again, keeps the trees right.
DROP TRIGGER osm_buildings_rtree_insert;
DROP TRIGGER osm_buildings_rtree_update;
DROP TRIGGER osm_buildings_rtree_delete;
DROP TABLE osm_buildings_rtree;
DROP TRIGGER osm_places_rtree_insert;
DROP TRIGGER osm_addresses_rtree_insert;
-- A facts load's rows likewise go in fact_rows_rtree when it is published
-- (factsql.Dialect.IndexRows): nothing reads the rows of a generation not
-- served. Imported facts have no coordinates and never had an entry.
DROP TRIGGER fact_rows_rtree_insert;
