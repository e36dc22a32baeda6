-- 0008: OpenStreetMap extracts loaded with "propertyd data load osm": the
-- places of the amenity categories, the buildings and the address points
-- of each extract, under generations published atomically as the facts'.
--
-- One row per extract served: generation is the load whose features are
-- read; its coverage is the file header's bounding box (else its nodes');
-- timestamp is when the data was taken from OpenStreetMap (RFC 3339).
CREATE TABLE osm_extracts (
    name        TEXT    PRIMARY KEY,
    generation  INTEGER NOT NULL UNIQUE,
    min_lat     REAL    NOT NULL,
    max_lat     REAL    NOT NULL,
    min_lng     REAL    NOT NULL,
    max_lng     REAL    NOT NULL,
    timestamp   TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    places      INTEGER NOT NULL DEFAULT 0,
    buildings   INTEGER NOT NULL DEFAULT 0,
    addresses   INTEGER NOT NULL DEFAULT 0,
    skipped     INTEGER NOT NULL DEFAULT 0,
    loaded_at   TEXT    NOT NULL
);

-- A load in progress, at most one an extract: its features are written
-- under a generation nothing reads until the load publishes it. done
-- counts the input elements committed (the checkpoint a resumed load skips).
CREATE TABLE osm_loads (
    name        TEXT    PRIMARY KEY,
    generation  INTEGER NOT NULL,
    fingerprint TEXT    NOT NULL,
    done        INTEGER NOT NULL DEFAULT 0,
    started_at  TEXT    NOT NULL
);

-- Generations are numbered across extracts, so a feature's generation
-- alone says which extract and which load it belongs to.
CREATE TABLE osm_generations (
    generation INTEGER PRIMARY KEY
);

-- Each feature carries its element (osm_type 'node', 'way' or 'relation',
-- osm_id, version): a feature written twice by a resumed load is kept once.
CREATE TABLE osm_places (
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
    longitude  REAL    NOT NULL,
    UNIQUE (generation, osm_type, osm_id)
);

-- shape is the footprint as WKB (WGS84 longitude/latitude), its box in
-- min_lat..max_lng and its centroid in latitude, longitude.
CREATE TABLE osm_buildings (
    id         INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,
    osm_type   TEXT    NOT NULL,
    osm_id     INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    building   TEXT    NOT NULL,
    levels     REAL,
    flats      INTEGER,
    start_date TEXT,
    shape      BLOB    NOT NULL,
    min_lat    REAL    NOT NULL,
    max_lat    REAL    NOT NULL,
    min_lng    REAL    NOT NULL,
    max_lng    REAL    NOT NULL,
    latitude   REAL    NOT NULL,
    longitude  REAL    NOT NULL,
    UNIQUE (generation, osm_type, osm_id)
);

CREATE TABLE osm_addresses (
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
    longitude   REAL    NOT NULL,
    UNIQUE (generation, osm_type, osm_id)
);

-- Spatial indexes, as properties_rtree and fact_rows_rtree: a place's or an
-- address's point, a building's footprint box. Written by the triggers, so
-- a row and its index entry commit together.
CREATE VIRTUAL TABLE osm_places_rtree    USING rtree (id, min_lat, max_lat, min_lng, max_lng);
CREATE VIRTUAL TABLE osm_buildings_rtree USING rtree (id, min_lat, max_lat, min_lng, max_lng);
CREATE VIRTUAL TABLE osm_addresses_rtree USING rtree (id, min_lat, max_lat, min_lng, max_lng);

CREATE TRIGGER osm_places_rtree_insert AFTER INSERT ON osm_places BEGIN
    INSERT INTO osm_places_rtree VALUES (new.id, new.latitude, new.latitude, new.longitude, new.longitude);
END;
CREATE TRIGGER osm_places_rtree_update AFTER UPDATE OF latitude, longitude ON osm_places BEGIN
    UPDATE osm_places_rtree SET min_lat = new.latitude, max_lat = new.latitude,
        min_lng = new.longitude, max_lng = new.longitude WHERE id = new.id;
END;
CREATE TRIGGER osm_places_rtree_delete AFTER DELETE ON osm_places BEGIN
    DELETE FROM osm_places_rtree WHERE id = old.id;
END;

CREATE TRIGGER osm_buildings_rtree_insert AFTER INSERT ON osm_buildings BEGIN
    INSERT INTO osm_buildings_rtree VALUES (new.id, new.min_lat, new.max_lat, new.min_lng, new.max_lng);
END;
CREATE TRIGGER osm_buildings_rtree_update AFTER UPDATE OF min_lat, max_lat, min_lng, max_lng ON osm_buildings BEGIN
    UPDATE osm_buildings_rtree SET min_lat = new.min_lat, max_lat = new.max_lat,
        min_lng = new.min_lng, max_lng = new.max_lng WHERE id = new.id;
END;
CREATE TRIGGER osm_buildings_rtree_delete AFTER DELETE ON osm_buildings BEGIN
    DELETE FROM osm_buildings_rtree WHERE id = old.id;
END;

CREATE TRIGGER osm_addresses_rtree_insert AFTER INSERT ON osm_addresses BEGIN
    INSERT INTO osm_addresses_rtree VALUES (new.id, new.latitude, new.latitude, new.longitude, new.longitude);
END;
CREATE TRIGGER osm_addresses_rtree_update AFTER UPDATE OF latitude, longitude ON osm_addresses BEGIN
    UPDATE osm_addresses_rtree SET min_lat = new.latitude, max_lat = new.latitude,
        min_lng = new.longitude, max_lng = new.longitude WHERE id = new.id;
END;
CREATE TRIGGER osm_addresses_rtree_delete AFTER DELETE ON osm_addresses BEGIN
    DELETE FROM osm_addresses_rtree WHERE id = old.id;
END;
