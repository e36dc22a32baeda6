-- 0024: address points and TIGER/Line address ranges loaded from files,
-- each under a generation: SQLite's 0024 says what the tables keep and
-- how a number's ranges are sought by span.
--
-- The columns compared exactly (state, street, unit, name) sort by bytes
-- (COLLATE "C"): a lookup only ever asks equality, which is the same
-- under every deterministic collation, and a load of a million points
-- inserts a million entries into address_points_street in no order,
-- each comparison a memcmp rather than the locale's.
--
-- A load's rows are copied (COPY, binary) into the staged tables, which
-- have no index but the key, and moved into the indexed ones, sorted by
-- their index, by the load's publication. Ids come from a sequence a
-- table, the default of a row copied in or moved. As in 0020 no index
-- holds the generation: a drop finds its range of ids in one pass over
-- the table, then deletes a range a transaction through the key. A line
-- is kept uncompressed (STORAGE EXTERNAL), should an edge of many points
-- reach TOAST: WKB's doubles hardly compress.
CREATE SEQUENCE address_point_ids CACHE 1000;
CREATE SEQUENCE address_range_ids CACHE 1000;
CREATE SEQUENCE address_point_staged_ids CACHE 1000;
CREATE SEQUENCE address_range_staged_ids CACHE 1000;

CREATE TABLE address_points (
    id         bigint           PRIMARY KEY DEFAULT nextval('address_point_ids'),
    generation bigint           NOT NULL,
    state      text COLLATE "C" NOT NULL,
    street     text COLLATE "C" NOT NULL,
    unit       text COLLATE "C" NOT NULL,
    city       text             NOT NULL,
    zip        text             NOT NULL,
    lat        double precision NOT NULL,
    lng        double precision NOT NULL,
    key        text             NOT NULL
);
CREATE INDEX address_points_street ON address_points (state, street, unit, generation);

CREATE TABLE address_ranges (
    id         bigint           PRIMARY KEY DEFAULT nextval('address_range_ids'),
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
);
ALTER TABLE address_ranges ALTER COLUMN line SET STORAGE EXTERNAL;
CREATE INDEX address_ranges_street ON address_ranges (state, name, span, lo, hi, generation);

CREATE TABLE address_points_staged (
    id         bigint           PRIMARY KEY DEFAULT nextval('address_point_staged_ids'),
    generation bigint           NOT NULL,
    state      text COLLATE "C" NOT NULL,
    street     text COLLATE "C" NOT NULL,
    unit       text COLLATE "C" NOT NULL,
    city       text             NOT NULL,
    zip        text             NOT NULL,
    lat        double precision NOT NULL,
    lng        double precision NOT NULL,
    key        text             NOT NULL
);

CREATE TABLE address_ranges_staged (
    id         bigint           PRIMARY KEY DEFAULT nextval('address_range_staged_ids'),
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
);
ALTER TABLE address_ranges_staged ALTER COLUMN line SET STORAGE EXTERNAL;
