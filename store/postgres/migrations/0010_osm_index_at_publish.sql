-- 0010: as SQLite's 0010_osm_index_at_publish.sql (whose comments say
-- why). Nothing searches the buildings by their box, so its GiST index
-- goes. Places and address points are read from covering B-tree indexes
-- of their generation, latitude band (trunc(latitude * 200)::integer,
-- 0.005 degrees) and longitude, by an index-only scan of the bands a
-- circle crosses; their GiST indexes go. The expression must be written
-- the same way in the queries (store/postgres/osm.go).
DROP INDEX osm_buildings_shape;
DROP INDEX osm_places_location;
DROP INDEX osm_addresses_location;
CREATE INDEX osm_places_area_band ON osm_places
    (generation, (trunc(latitude * 200)::integer), longitude)
    INCLUDE (latitude, category, type, name, name_key, osm_type, osm_id, version);
CREATE INDEX osm_addresses_area_band ON osm_addresses
    (generation, (trunc(latitude * 200)::integer), longitude)
    INCLUDE (latitude, housenumber, street, unit, city, postcode, osm_type, osm_id, version);
