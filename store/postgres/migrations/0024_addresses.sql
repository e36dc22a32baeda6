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
-- Ids come from a sequence, the default of a row copied in (COPY,
-- binary). As in 0020 no index holds the generation: a drop finds its
-- range of ids in one pass over the table, then deletes a range a
-- transaction through the key. The line is kept uncompressed (STORAGE
-- EXTERNAL; it is small and rarely reaches TOAST anyway).
CREATE SEQUENCE address_point_ids CACHE 1000;
CREATE SEQUENCE address_range_ids CACHE 1000;

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
