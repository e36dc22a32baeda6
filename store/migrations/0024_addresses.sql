-- 0024: address points (OpenAddresses, USDOT NAD) and TIGER/Line ADDRFEAT
-- address ranges loaded from files (propertyd data load addresses), each
-- under a generation, and the points and ranges a lookup names
-- (store/internal/addrsql, providers.AddressStore). A lookup is one seek
-- of an index, and a load of a million points writes each row once and
-- one entry of that index, so a row keeps what a lookup returns and no
-- more.
--
-- address_points: a point is sought by its normalized state, street and
-- unit (exact) in the generations served, through
-- address_points_street; its city and ZIP are returned for the caller to
-- compare.
--
-- address_ranges: one side of one street edge, its numbers from lo to hi
-- (From and To in order; descending = 1 when the file writes them the
-- other way, 102 to 100), parity 'O', 'E' or 'B', side 'L' or 'R', and
-- the edge as a WKB linestring (longitude, latitude; 9 bytes and 16 a
-- point: an edge has a handful of points, and the line is only read for
-- the ranges a lookup found). A number's ranges are sought through
-- address_ranges_street by state and name, then by span: the width of the
-- range, 0 for hi - lo < 100 (a block's side: "100 to 198"), 1 below
-- 1,000, 2 below 10,000, 3 below 100,000, 4 wider. A range of span k
-- holding n starts no lower than n - (10^(k+2) - 1), so each span is one
-- short run of the index between that and n. An index of the name led by
-- lo alone would read, for a number in the thousands, every range of the
-- name that starts below it: a state's MAIN ST is many towns' (tens of
-- thousands of block sides). hi and the generation, last, are tested in
-- the index, without reading the row: the run never depends on how an
-- engine takes a list of generations (PostgreSQL's planner takes
-- generation = ANY(...) as a filter on a table it has no statistics of
-- yet, which, with the generation before the span, read every range of
-- the name once for each span). A run holds the ranges near n of every
-- generation written (the one served, a load in progress, one retired
-- and not yet dropped): a few.
--
-- A load stages its rows in address_points_staged and
-- address_ranges_staged, the same columns and no index but the key:
-- appended a batch a transaction, with the load's checkpoint. The
-- publication of the load moves them into the indexed tables, sorted by
-- their index, in its transaction, so that readers find the generation
-- whole from the moment it is served. Inserted a batch a transaction in
-- the file's order (no order of street), a million entries dirtied most
-- pages of the index at each commit, which SQLite writes whole to its
-- log: 5,000 points a batch loaded at 80,000 points/s at 100,000 points,
-- slower as the index grew.
--
-- A generation is dropped a few thousand ids a transaction, staged and
-- published alike: the ids of a generation are found once (MIN and MAX
-- over the table, no index of the generation, which every row would
-- write), then each range of ids is deleted through the key.
-- PostgreSQL's 0024 keeps the same tables.
CREATE TABLE address_points (
    id         INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,
    state      TEXT    NOT NULL,
    street     TEXT    NOT NULL,
    unit       TEXT    NOT NULL,
    city       TEXT    NOT NULL,
    zip        TEXT    NOT NULL,
    lat        REAL    NOT NULL,
    lng        REAL    NOT NULL,
    key        TEXT    NOT NULL
);
CREATE INDEX address_points_street ON address_points (state, street, unit, generation);

CREATE TABLE address_ranges (
    id         INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,
    state      TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    span       INTEGER NOT NULL,
    lo         INTEGER NOT NULL,
    hi         INTEGER NOT NULL,
    descending INTEGER NOT NULL,
    parity     TEXT    NOT NULL,
    side       TEXT    NOT NULL,
    zip        TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    line       BLOB    NOT NULL
);
CREATE INDEX address_ranges_street ON address_ranges (state, name, span, lo, hi, generation);

CREATE TABLE address_points_staged (
    id         INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,
    state      TEXT    NOT NULL,
    street     TEXT    NOT NULL,
    unit       TEXT    NOT NULL,
    city       TEXT    NOT NULL,
    zip        TEXT    NOT NULL,
    lat        REAL    NOT NULL,
    lng        REAL    NOT NULL,
    key        TEXT    NOT NULL
);

CREATE TABLE address_ranges_staged (
    id         INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,
    state      TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    span       INTEGER NOT NULL,
    lo         INTEGER NOT NULL,
    hi         INTEGER NOT NULL,
    descending INTEGER NOT NULL,
    parity     TEXT    NOT NULL,
    side       TEXT    NOT NULL,
    zip        TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    line       BLOB    NOT NULL
);
