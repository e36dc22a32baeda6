-- 0004: property facts (bathrooms, areas, year built, stories, units, beside
-- property_type and bedrooms) and the assessor datasets they come from.
--
-- The record's facts are kept on its row, merged from every source by
-- precedence (providers.MergeFacts), so reads and searches see plain
-- columns; facts holds their provenance as the JSON the record shows.
-- facts_key is the address identity rows join by (providers.FactsKey):
-- normalized street | ZIP | unit, '' for a record without a canonical
-- address (reverse geocoding), which joins by its coordinates only.
ALTER TABLE properties ADD COLUMN bathrooms        REAL    CHECK (bathrooms IS NULL OR bathrooms >= 0);
ALTER TABLE properties ADD COLUMN living_area_sqft INTEGER CHECK (living_area_sqft IS NULL OR living_area_sqft > 0);
ALTER TABLE properties ADD COLUMN lot_sqft         INTEGER CHECK (lot_sqft IS NULL OR lot_sqft > 0);
ALTER TABLE properties ADD COLUMN year_built       INTEGER;
ALTER TABLE properties ADD COLUMN stories          REAL    CHECK (stories IS NULL OR stories > 0);
ALTER TABLE properties ADD COLUMN units            INTEGER CHECK (units IS NULL OR units >= 0);
ALTER TABLE properties ADD COLUMN facts            TEXT;
ALTER TABLE properties ADD COLUMN facts_key        TEXT;

-- facts_key is filled in by the engine after this migration (it normalizes
-- the canonical street as providers.FactsKey does): NULL means not yet, ''
-- means the record has no address identity.

CREATE INDEX properties_facts_key ON properties (facts_key);

-- One row per dataset served: generation is the load whose rows are served,
-- priority its place in the precedence (0 is the operator's import; the
-- configured datasets follow in their order), as_of the date its data is as
-- of. row_count, matched and failed describe that load; fingerprint names its
-- files (a re-run of the same files is a no-op).
CREATE TABLE fact_sets (
    dataset     TEXT    PRIMARY KEY,
    source      TEXT    NOT NULL DEFAULT '',
    priority    INTEGER NOT NULL,
    generation  INTEGER NOT NULL,
    as_of       TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL DEFAULT '',
    row_count   INTEGER NOT NULL DEFAULT 0,
    matched     INTEGER NOT NULL DEFAULT 0,
    failed      INTEGER NOT NULL DEFAULT 0,
    loaded_at   TEXT    NOT NULL
);

-- A load in progress, at most one a dataset: its rows are written under a
-- generation no record reads until the load publishes it. done counts the
-- input rows committed (the checkpoint a resumed load skips), failed the
-- rows written to the failures file so far, failures_size its length then
-- (a resumed load cuts the file back to it, so no failure is written twice).
CREATE TABLE fact_loads (
    dataset     TEXT    PRIMARY KEY,
    generation  INTEGER NOT NULL,
    fingerprint TEXT    NOT NULL,
    done        INTEGER NOT NULL DEFAULT 0,
    failed      INTEGER NOT NULL DEFAULT 0,
    failures_size INTEGER NOT NULL DEFAULT 0,
    started_at  TEXT    NOT NULL
);

-- The rows of the datasets, each with its own facts, its address identity
-- or its coordinates, and (for the operator's import) the record it is
-- about. row_key is unique within a load: a dataset's key column, where
-- a later row of the same key replaces an earlier one of no higher rank
-- (Cook County publishes one row a PIN a year; the newest year wins).
-- join_key joins a row to the dataset's second file (Cook County's
-- parcel addresses, by PIN), which fills fact_keys.
CREATE TABLE fact_rows (
    id               INTEGER PRIMARY KEY,
    dataset          TEXT    NOT NULL,
    generation       INTEGER NOT NULL,
    row_key          TEXT    NOT NULL,
    rank             INTEGER NOT NULL DEFAULT 0,
    join_key         TEXT,
    facts_key        TEXT,
    latitude         REAL,
    longitude        REAL,
    shape            BLOB,
    min_lat          REAL,
    max_lat          REAL,
    min_lng          REAL,
    max_lng          REAL,
    property_id      INTEGER,
    as_of            TEXT,
    property_type    TEXT,
    bedrooms         INTEGER,
    bathrooms        REAL,
    living_area_sqft INTEGER,
    lot_sqft         INTEGER,
    year_built       INTEGER,
    stories          REAL,
    units            INTEGER,
    UNIQUE (dataset, generation, row_key)
);

CREATE INDEX fact_rows_key      ON fact_rows (facts_key);
CREATE INDEX fact_rows_property ON fact_rows (property_id);
CREATE INDEX fact_rows_join     ON fact_rows (dataset, generation, join_key);

-- The second file of a two-file dataset: its key and the address identity
-- and coordinates it gives the rows that share the key.
CREATE TABLE fact_keys (
    dataset    TEXT    NOT NULL,
    generation INTEGER NOT NULL,
    join_key   TEXT    NOT NULL,
    facts_key  TEXT,
    latitude   REAL,
    longitude  REAL,
    PRIMARY KEY (dataset, generation, join_key)
) WITHOUT ROWID;

-- Spatial index of the rows' coordinates, as properties_rtree: a row's
-- point, or the bounding box of its parcel polygon (shape, as WKB, with
-- its box in min_lat..max_lng and its centre as its point).
CREATE VIRTUAL TABLE fact_rows_rtree USING rtree (id, min_lat, max_lat, min_lng, max_lng);

CREATE TRIGGER fact_rows_rtree_insert AFTER INSERT ON fact_rows
WHEN new.latitude IS NOT NULL AND new.longitude IS NOT NULL BEGIN
    INSERT INTO fact_rows_rtree (id, min_lat, max_lat, min_lng, max_lng)
    VALUES (new.id, COALESCE(new.min_lat, new.latitude), COALESCE(new.max_lat, new.latitude),
            COALESCE(new.min_lng, new.longitude), COALESCE(new.max_lng, new.longitude));
END;

CREATE TRIGGER fact_rows_rtree_update AFTER UPDATE OF latitude, longitude ON fact_rows BEGIN
    DELETE FROM fact_rows_rtree WHERE id = old.id;
    INSERT INTO fact_rows_rtree (id, min_lat, max_lat, min_lng, max_lng)
    SELECT new.id, COALESCE(new.min_lat, new.latitude), COALESCE(new.max_lat, new.latitude),
           COALESCE(new.min_lng, new.longitude), COALESCE(new.max_lng, new.longitude)
    WHERE new.latitude IS NOT NULL AND new.longitude IS NOT NULL;
END;

CREATE TRIGGER fact_rows_rtree_delete AFTER DELETE ON fact_rows BEGIN
    DELETE FROM fact_rows_rtree WHERE id = old.id;
END;

-- What import wrote before facts had sources becomes the import's own rows.
INSERT INTO fact_sets (dataset, source, priority, generation, as_of, loaded_at)
SELECT 'import', 'import', 0, 1, substr(MAX(updated_at), 1, 10), MAX(updated_at)
FROM properties WHERE property_type IS NOT NULL OR bedrooms IS NOT NULL
HAVING COUNT(*) > 0;

INSERT INTO fact_rows (dataset, generation, row_key, property_id, as_of, property_type, bedrooms)
SELECT 'import', 1, 'record:' || id, id, substr(updated_at, 1, 10), property_type, bedrooms
FROM properties WHERE property_type IS NOT NULL OR bedrooms IS NOT NULL;

UPDATE properties SET facts = '{"source":"import","as_of":"' || substr(updated_at, 1, 10) || '"}'
WHERE property_type IS NOT NULL OR bedrooms IS NOT NULL;
