-- 0017: an extract's features keep no unique key of their element.
--
-- UNIQUE (generation, osm_type, osm_id) let a put merge a second row of
-- an element into the first (ON CONFLICT). A load writes each feature
-- once: the loader refuses a file that holds an element twice or out of
-- the order of ids (as osmium's own commands do), and a resumed load
-- starts after the checkpoint of its last batch committed. The key's
-- index cost the server about a second of CPU a million features, a
-- tenth of a load. Places and addresses are found by generation through
-- their band indexes (0010), led by it; the buildings get an index of
-- their own (their count, their drop and their facts read a generation).
-- SQLite's 0017 does the same.
ALTER TABLE osm_places    DROP CONSTRAINT osm_places_generation_osm_type_osm_id_key;
ALTER TABLE osm_buildings DROP CONSTRAINT osm_buildings_generation_osm_type_osm_id_key;
ALTER TABLE osm_addresses DROP CONSTRAINT osm_addresses_generation_osm_type_osm_id_key;
CREATE INDEX osm_buildings_generation ON osm_buildings (generation);
