-- 0001: properties with their lookup keys and spatial index, and the cache of
-- enrichment sections.

-- One row per property. canonical is the geocoder's canonical address without
-- the unit; it is NULL for records made by reverse geocoding, and NULLs never
-- collide in a UNIQUE constraint, so such records stay separate rows.
-- AUTOINCREMENT: ids are public (GET /properties/{id}) and must never be reused.
-- city and state compare case-insensitively so the (state, city) index serves
-- the upper-cased search filter whatever the stored spelling.
-- Times are UTC text with milliseconds, e.g. 2024-05-01T12:00:00.000Z.
CREATE TABLE properties (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    street_address TEXT    NOT NULL DEFAULT '',
    unit           TEXT    NOT NULL DEFAULT '',
    city           TEXT    NOT NULL DEFAULT '' COLLATE NOCASE,
    state          TEXT    NOT NULL DEFAULT '' COLLATE NOCASE,
    zip_code       TEXT    NOT NULL DEFAULT '',
    county         TEXT    NOT NULL DEFAULT '',
    fips_code      TEXT    NOT NULL DEFAULT '',
    census_tract   TEXT    NOT NULL DEFAULT '',
    latitude       REAL    NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude      REAL    NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    property_type  TEXT,
    bedrooms       INTEGER CHECK (bedrooms IS NULL OR bedrooms >= 0),
    canonical      TEXT,
    source         TEXT    NOT NULL DEFAULT '',
    created_at     TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL,
    UNIQUE (canonical, unit)
);

-- Search indexes. Search first selects the ids of a page from an index
-- alone, then reads those rows (see search.go). So each index holds, after
-- the columns a search filters with equality, the other filter columns, and
-- every filter combination is answered without reading the table: zip with
-- bedrooms or type, state with city, bedrooms or type, type with bedrooms,
-- and the COUNT(*) of the total likewise. SQLite appends the id to every
-- index entry, so the ids to sort are in the index too.
CREATE INDEX properties_zip        ON properties (zip_code, bedrooms, property_type);
CREATE INDEX properties_state_city ON properties (state, city, bedrooms, property_type);
CREATE INDEX properties_type       ON properties (property_type, bedrooms);
CREATE INDEX properties_bedrooms   ON properties (bedrooms);

-- Normalized client spellings of an address, each resolving to one record.
CREATE TABLE property_keys (
    key         TEXT    PRIMARY KEY,
    property_id INTEGER NOT NULL REFERENCES properties (id) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE INDEX property_keys_property ON property_keys (property_id);

-- Spatial index of the properties' coordinates, kept in step by triggers so
-- every write path (Save, bulk seeding, future updates) maintains it in the
-- same transaction as the row itself. R*Tree stores 32-bit floats rounded
-- outwards, so a box always contains its exact point.
CREATE VIRTUAL TABLE properties_rtree USING rtree (id, min_lat, max_lat, min_lng, max_lng);

CREATE TRIGGER properties_rtree_insert AFTER INSERT ON properties BEGIN
    INSERT INTO properties_rtree (id, min_lat, max_lat, min_lng, max_lng)
    VALUES (new.id, new.latitude, new.latitude, new.longitude, new.longitude);
END;

CREATE TRIGGER properties_rtree_update AFTER UPDATE OF latitude, longitude ON properties BEGIN
    UPDATE properties_rtree
    SET min_lat = new.latitude, max_lat = new.latitude,
        min_lng = new.longitude, max_lng = new.longitude
    WHERE id = new.id;
END;

CREATE TRIGGER properties_rtree_delete AFTER DELETE ON properties BEGIN
    DELETE FROM properties_rtree WHERE id = old.id;
END;

-- Cached enrichment sections, fresh or expired (an expired value is served as
-- stale when its upstream fails).
CREATE TABLE sections (
    section    TEXT NOT NULL,
    key        TEXT NOT NULL,
    data       BLOB NOT NULL,
    source     TEXT NOT NULL DEFAULT '',
    vintage    TEXT NOT NULL DEFAULT '',
    fetched_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (section, key)
) WITHOUT ROWID;
