-- 0018: an extract's features are kept in a partition of each generation.
--
-- osm_places, osm_buildings and osm_addresses become partitioned by
-- generation (LIST), with no index of their own: each generation's
-- features are the rows of three plain tables, osm_places_g<N>,
-- osm_buildings_g<N> and osm_addresses_g<N>, which a load creates when it
-- starts (osm_partition), copies its batches into, and indexes once its
-- rows are all in (osm_index_partition), as one sorted build of each index
-- rather than a million insertions into it: the places' three covering
-- indexes kept row by row cost a load of a million features some 0.6 s of
-- the server's time, the buildings' index of generation another 0.7 s.
-- A former generation is dropped whole (osm_drop_partition), not 5,000
-- rows a statement. Readers name a generation (the served one) and the
-- executor reads its partition alone. A partition's indexes are not led
-- by the generation, which is the same on every row, but hold it: the
-- readers join it to the served extract's, a condition an index-only scan
-- checks in the index.
--
-- PostgreSQL 15 keeps no identity column on a partitioned table: the ids
-- come from a sequence of each table, 1,000 at a time a backend (0017).
-- The features already loaded move into partitions of their generation,
-- indexed, with their ids. SQLite keeps its tables (its 0018 is empty).

ALTER TABLE osm_places    RENAME TO osm_places_0017;
ALTER TABLE osm_buildings RENAME TO osm_buildings_0017;
ALTER TABLE osm_addresses RENAME TO osm_addresses_0017;

CREATE SEQUENCE osm_places_ids CACHE 1000;
CREATE SEQUENCE osm_buildings_ids CACHE 1000;
CREATE SEQUENCE osm_addresses_ids CACHE 1000;

CREATE TABLE osm_places (
    id         BIGINT NOT NULL DEFAULT nextval('osm_places_ids'),
    generation BIGINT NOT NULL,
    osm_type   TEXT NOT NULL,
    osm_id     BIGINT NOT NULL,
    version    INTEGER NOT NULL,
    category   TEXT NOT NULL,
    type       TEXT NOT NULL,
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL,
    latitude   DOUBLE PRECISION NOT NULL,
    longitude  DOUBLE PRECISION NOT NULL
) PARTITION BY LIST (generation);

CREATE TABLE osm_buildings (
    id            BIGINT NOT NULL DEFAULT nextval('osm_buildings_ids'),
    generation    BIGINT NOT NULL,
    osm_type      TEXT NOT NULL,
    osm_id        BIGINT NOT NULL,
    version       INTEGER NOT NULL,
    building      TEXT NOT NULL,
    levels        DOUBLE PRECISION,
    flats         INTEGER,
    start_date    TEXT,
    shape         BYTEA NOT NULL,
    min_lat       DOUBLE PRECISION NOT NULL,
    max_lat       DOUBLE PRECISION NOT NULL,
    min_lng       DOUBLE PRECISION NOT NULL,
    max_lng       DOUBLE PRECISION NOT NULL,
    latitude      DOUBLE PRECISION NOT NULL,
    longitude     DOUBLE PRECISION NOT NULL,
    property_type TEXT,
    stories       DOUBLE PRECISION,
    units         INTEGER,
    year_built    INTEGER
) PARTITION BY LIST (generation);

CREATE TABLE osm_addresses (
    id          BIGINT NOT NULL DEFAULT nextval('osm_addresses_ids'),
    generation  BIGINT NOT NULL,
    osm_type    TEXT NOT NULL,
    osm_id      BIGINT NOT NULL,
    version     INTEGER NOT NULL,
    housenumber TEXT NOT NULL,
    street      TEXT NOT NULL,
    unit        TEXT NOT NULL DEFAULT '',
    city        TEXT NOT NULL DEFAULT '',
    postcode    TEXT NOT NULL DEFAULT '',
    latitude    DOUBLE PRECISION NOT NULL,
    longitude   DOUBLE PRECISION NOT NULL
) PARTITION BY LIST (generation);

ALTER SEQUENCE osm_places_ids    OWNED BY osm_places.id;
ALTER SEQUENCE osm_buildings_ids OWNED BY osm_buildings.id;
ALTER SEQUENCE osm_addresses_ids OWNED BY osm_addresses.id;

-- osm_partition creates the partition of generation g of the features of
-- kind ('places', 'buildings' or 'addresses'), unindexed, unless it is
-- there (a resumed load).
CREATE FUNCTION osm_partition(kind TEXT, g BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF %I FOR VALUES IN (%s)',
        'osm_' || kind || '_g' || g, 'osm_' || kind, g);
END $$;

-- osm_index_partition builds the indexes of the partition of generation g
-- of kind that are not there yet. Places and address points are read by
-- latitude band, then longitude (the band expression is the readers',
-- store/postgres/osm.go), places of a kind through an index the kind
-- leads (as 0010 and 0014 had them, less the generation); each index
-- covers what its readers select, for index-only scans. A building is
-- read by its id, from its entry in osm_building_bands.
CREATE FUNCTION osm_index_partition(kind TEXT, g BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    t TEXT := 'osm_' || kind || '_g' || g;
BEGIN
    IF kind = 'places' THEN
        EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I ((trunc(latitude * 200)::integer), longitude)
            INCLUDE (generation, latitude, category, type, name, name_key, osm_type, osm_id, version)', t || '_area_band', t);
        EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (category, (trunc(latitude * 200)::integer), longitude)
            INCLUDE (generation, latitude, type, name, name_key, osm_type, osm_id, version)', t || '_category_band', t);
        EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (type, (trunc(latitude * 200)::integer), longitude)
            INCLUDE (generation, latitude, category, name, name_key, osm_type, osm_id, version)', t || '_type_band', t);
    ELSIF kind = 'addresses' THEN
        EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I ((trunc(latitude * 200)::integer), longitude)
            INCLUDE (generation, latitude, housenumber, street, unit, city, postcode, osm_type, osm_id, version)', t || '_area_band', t);
    ELSIF kind = 'buildings' THEN
        EXECUTE format('CREATE UNIQUE INDEX IF NOT EXISTS %I ON %I (id)', t || '_id', t);
    ELSE
        RAISE EXCEPTION 'osm_index_partition: no kind of feature %', kind;
    END IF;
END $$;

-- osm_drop_partition drops the partition of generation g of kind, if any.
CREATE FUNCTION osm_drop_partition(kind TEXT, g BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('DROP TABLE IF EXISTS %I', 'osm_' || kind || '_g' || g);
END $$;

-- The features loaded before move into partitions of their generation.
DO $$
DECLARE
    g BIGINT;
    k TEXT;
BEGIN
    FOR g IN SELECT generation FROM osm_generations
        UNION SELECT DISTINCT generation FROM osm_places_0017
        UNION SELECT DISTINCT generation FROM osm_buildings_0017
        UNION SELECT DISTINCT generation FROM osm_addresses_0017
    LOOP
        FOREACH k IN ARRAY ARRAY['places', 'buildings', 'addresses'] LOOP
            PERFORM osm_partition(k, g);
            EXECUTE format('INSERT INTO %I SELECT * FROM %I WHERE generation = %s', 'osm_' || k || '_g' || g, 'osm_' || k || '_0017', g);
            PERFORM osm_index_partition(k, g);
        END LOOP;
    END LOOP;
END $$;

SELECT setval('osm_places_ids', COALESCE((SELECT MAX(id) FROM osm_places_0017), 0) + 1, false);
SELECT setval('osm_buildings_ids', COALESCE((SELECT MAX(id) FROM osm_buildings_0017), 0) + 1, false);
SELECT setval('osm_addresses_ids', COALESCE((SELECT MAX(id) FROM osm_addresses_0017), 0) + 1, false);

DROP TABLE osm_places_0017;
DROP TABLE osm_buildings_0017;
DROP TABLE osm_addresses_0017;
