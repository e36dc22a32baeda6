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

-- Each backend takes its ids 1,000 at a time rather than one: a load's two
-- writers each drew every row's id from the sequence, whose page they
-- shared and whose every 32nd draw wrote WAL. An id is only a row's name
-- (a former extract is dropped a range at a time with its generation as
-- the filter), so the gaps and the order of two writers' blocks tell
-- nothing. A million features, alternating: 9.06, 8.92, 8.83, 9.11, 9.19 s
-- against 9.26, 9.19, 9.63, 9.06, 9.37 s.
ALTER TABLE osm_places    ALTER COLUMN id SET CACHE 1000;
ALTER TABLE osm_buildings ALTER COLUMN id SET CACHE 1000;
ALTER TABLE osm_addresses ALTER COLUMN id SET CACHE 1000;
