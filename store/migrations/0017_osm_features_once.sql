-- 0017: an extract's features keep no unique key of their element.
--
-- UNIQUE (generation, osm_type, osm_id) let a put merge a second row of
-- an element into the first (ON CONFLICT). A load writes each feature
-- once: the loader refuses a file that holds an element twice or out of
-- the order of ids (as osmium's own commands do), and a resumed load
-- starts after the checkpoint of its last batch committed. SQLite cannot
-- drop a table's UNIQUE constraint, so each table is made again without
-- it, its rows (their ids too: osm_building_bands and fact rows name
-- buildings by id) and indexes as they were. Places and addresses are
-- found by generation through their band indexes (0010, 0014), led by it;
-- the buildings get an index of their own (their count, their drop and
-- their facts read a generation). PostgreSQL's 0017 does the same, where
-- the key's index cost a load a second of the server's CPU a million
-- features.
CREATE TABLE osm_places_0017 (
    id         INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,
    osm_type   TEXT    NOT NULL,
    osm_id     INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    category   TEXT    NOT NULL,
    type       TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    name_key   TEXT    NOT NULL,
    latitude   REAL    NOT NULL,
    longitude  REAL    NOT NULL
);
INSERT INTO osm_places_0017 (id, generation, osm_type, osm_id, version, category, type, name, name_key, latitude, longitude)
    SELECT id, generation, osm_type, osm_id, version, category, type, name, name_key, latitude, longitude FROM osm_places;
DROP TABLE osm_places;
ALTER TABLE osm_places_0017 RENAME TO osm_places;
CREATE INDEX osm_places_area_band ON osm_places
    (generation, CAST(latitude * 200 AS INTEGER), longitude, latitude, category, type, name, name_key, osm_type, osm_id, version);
CREATE INDEX osm_places_category_band ON osm_places
    (generation, category, CAST(latitude * 200 AS INTEGER), longitude, latitude, type, name, name_key, osm_type, osm_id, version);
CREATE INDEX osm_places_type_band ON osm_places
    (generation, type, CAST(latitude * 200 AS INTEGER), longitude, latitude, category, name, name_key, osm_type, osm_id, version);

CREATE TABLE osm_buildings_0017 (
    id            INTEGER PRIMARY KEY,
    generation    INTEGER NOT NULL,
    osm_type      TEXT    NOT NULL,
    osm_id        INTEGER NOT NULL,
    version       INTEGER NOT NULL,
    building      TEXT    NOT NULL,
    levels        REAL,
    flats         INTEGER,
    start_date    TEXT,
    shape         BLOB    NOT NULL,
    min_lat       REAL    NOT NULL,
    max_lat       REAL    NOT NULL,
    min_lng       REAL    NOT NULL,
    max_lng       REAL    NOT NULL,
    latitude      REAL    NOT NULL,
    longitude     REAL    NOT NULL,
    property_type TEXT,
    stories       REAL,
    units         INTEGER,
    year_built    INTEGER
);
INSERT INTO osm_buildings_0017 (id, generation, osm_type, osm_id, version, building, levels, flats, start_date, shape,
        min_lat, max_lat, min_lng, max_lng, latitude, longitude, property_type, stories, units, year_built)
    SELECT id, generation, osm_type, osm_id, version, building, levels, flats, start_date, shape,
        min_lat, max_lat, min_lng, max_lng, latitude, longitude, property_type, stories, units, year_built FROM osm_buildings;
DROP TABLE osm_buildings;
ALTER TABLE osm_buildings_0017 RENAME TO osm_buildings;
CREATE INDEX osm_buildings_generation ON osm_buildings (generation);

CREATE TABLE osm_addresses_0017 (
    id          INTEGER PRIMARY KEY,
    generation  INTEGER NOT NULL,
    osm_type    TEXT    NOT NULL,
    osm_id      INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    housenumber TEXT    NOT NULL,
    street      TEXT    NOT NULL,
    unit        TEXT    NOT NULL DEFAULT '',
    city        TEXT    NOT NULL DEFAULT '',
    postcode    TEXT    NOT NULL DEFAULT '',
    latitude    REAL    NOT NULL,
    longitude   REAL    NOT NULL
);
INSERT INTO osm_addresses_0017 (id, generation, osm_type, osm_id, version, housenumber, street, unit, city, postcode, latitude, longitude)
    SELECT id, generation, osm_type, osm_id, version, housenumber, street, unit, city, postcode, latitude, longitude FROM osm_addresses;
DROP TABLE osm_addresses;
ALTER TABLE osm_addresses_0017 RENAME TO osm_addresses;
CREATE INDEX osm_addresses_area_band ON osm_addresses
    (generation, CAST(latitude * 200 AS INTEGER), longitude, latitude, housenumber, street, unit, city, postcode,
     osm_type, osm_id, version);
