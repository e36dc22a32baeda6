-- 0025: each generation's address points and ranges are tables of their
-- own, as an extract's features are since 0018 (SQLite's 0025 says why):
-- address_points and address_ranges become partitioned by generation
-- (LIST), with no index of their own, and a generation's rows are the
-- plain tables address_points_g<N> and address_ranges_g<N>.
--
-- A load creates its generation's tables (address_stage) outside the
-- partitioned tables, unindexed, each with a CHECK of its generation, and
-- copies its batches into them: no reader sees them, and creating them
-- takes no lock a reader waits for. Its publication (address_publish), in
-- the transaction that serves it, builds their indexes, one sorted pass
-- each, and attaches them as partitions: ATTACH PARTITION takes SHARE
-- UPDATE EXCLUSIVE on the partitioned table, which no read waits for, and
-- the CHECK spares it a scan of the rows. 0024 moved the rows, sorted,
-- from a staged table into one indexed table of every generation: each
-- row written twice, and its sort of a million rows spilled to disk (8.2
-- s of a load of 11.3 s). A generation is dropped with its tables
-- (address_drop): dropping a partition takes ACCESS EXCLUSIVE on the
-- partitioned table, which the store bounds (lock_timeout) and tries
-- again, as 0018's drops.
--
-- Ids still come from the sequences of 0024, 1,000 at a time a backend.
-- The rows 0024 published move into tables of their generation, indexed
-- and attached, with their ids. The rows it staged for loads not yet
-- published are dropped with its staged tables, and those loads with
-- them: a load in progress across the upgrade starts again from its
-- first row, as on SQLite.
DROP TABLE address_points_staged;
DROP TABLE address_ranges_staged;
DROP SEQUENCE address_point_staged_ids;
DROP SEQUENCE address_range_staged_ids;
DELETE FROM dataset_loads WHERE kind = 'addresses';

ALTER TABLE address_points RENAME TO address_points_0024;
ALTER TABLE address_ranges RENAME TO address_ranges_0024;
ALTER INDEX address_points_street RENAME TO address_points_street_0024;
ALTER INDEX address_ranges_street RENAME TO address_ranges_street_0024;

CREATE TABLE address_points (
    id         bigint           NOT NULL DEFAULT nextval('address_point_ids'),
    generation bigint           NOT NULL,
    state      text COLLATE "C" NOT NULL,
    street     text COLLATE "C" NOT NULL,
    unit       text COLLATE "C" NOT NULL,
    city       text             NOT NULL,
    zip        text             NOT NULL,
    lat        double precision NOT NULL,
    lng        double precision NOT NULL,
    key        text             NOT NULL
) PARTITION BY LIST (generation);

CREATE TABLE address_ranges (
    id         bigint           NOT NULL DEFAULT nextval('address_range_ids'),
    generation bigint           NOT NULL,
    state      text COLLATE "C" NOT NULL,
    name       text COLLATE "C" NOT NULL,
    span       smallint         NOT NULL,
    lo         bigint           NOT NULL,
    hi         bigint           NOT NULL,
    descending smallint         NOT NULL,
    parity     text             NOT NULL,
    side       text             NOT NULL,
    zip        text             NOT NULL,
    key        text             NOT NULL,
    line       bytea            NOT NULL
) PARTITION BY LIST (generation);
ALTER TABLE address_ranges ALTER COLUMN line SET STORAGE EXTERNAL;

-- address_stage creates the tables of generation g, unindexed and
-- unattached, g the default of their generation column (a batch copies
-- the other columns alone), unless they are there (a resumed load).
CREATE FUNCTION address_stage(g BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    k TEXT;
    t TEXT;
BEGIN
    FOREACH k IN ARRAY ARRAY['points', 'ranges'] LOOP
        t := 'address_' || k || '_g' || g;
        IF to_regclass(t) IS NULL THEN
            EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING STORAGE, CHECK (generation = %s))',
                t, 'address_' || k, g);
            EXECUTE format('ALTER TABLE %I ALTER COLUMN generation SET DEFAULT %s', t, g);
        END IF;
    END LOOP;
END $$;

-- address_publish builds the indexes of generation g's tables (creating
-- them if its load wrote none) and attaches them, each step unless it is
-- done: a point is sought by street, state and unit, a number's ranges by
-- name, state and span, then a run of starts (0024), the generation, the
-- same on every row, left to the partitions. The street (the name) leads,
-- as on SQLite: the sort's abbreviated keys, a prefix of the first
-- column, tell most streets apart and hardly any state (a million points
-- in 1.6-2.5 s against 2.8-6.0 s). The sort of each index is given the
-- memory to stay off disk.
CREATE FUNCTION address_publish(g BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    p TEXT := 'address_points_g' || g;
    r TEXT := 'address_ranges_g' || g;
BEGIN
    PERFORM address_stage(g);
    PERFORM set_config('maintenance_work_mem', '256MB', true);
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (street, state, unit)', p || '_street', p);
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (name, state, span, lo, hi)', r || '_street', r);
    IF NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = p::regclass) THEN
        EXECUTE format('ALTER TABLE address_points ATTACH PARTITION %I FOR VALUES IN (%s)', p, g);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = r::regclass) THEN
        EXECUTE format('ALTER TABLE address_ranges ATTACH PARTITION %I FOR VALUES IN (%s)', r, g);
    END IF;
END $$;

-- address_drop drops the tables of generation g, if any.
CREATE FUNCTION address_drop(g BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('DROP TABLE IF EXISTS %I, %I', 'address_points_g' || g, 'address_ranges_g' || g);
END $$;

-- The rows published before move into tables of their generation.
DO $$
DECLARE
    g BIGINT;
BEGIN
    FOR g IN SELECT DISTINCT generation FROM address_points_0024
        UNION SELECT DISTINCT generation FROM address_ranges_0024
    LOOP
        PERFORM address_stage(g);
        EXECUTE format('INSERT INTO %I SELECT * FROM address_points_0024 WHERE generation = %s', 'address_points_g' || g, g);
        EXECUTE format('INSERT INTO %I SELECT * FROM address_ranges_0024 WHERE generation = %s', 'address_ranges_g' || g, g);
        PERFORM address_publish(g);
    END LOOP;
END $$;

DROP TABLE address_points_0024;
DROP TABLE address_ranges_0024;
