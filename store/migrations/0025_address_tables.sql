-- 0025: each generation's address points and ranges are tables of their
-- own (store/internal/addrsql, store/addresses.go): address_points_g<N>
-- and address_ranges_g<N>, 0024's columns, rowid tables that the load of
-- generation N creates and appends to, unindexed, a batch a transaction.
-- Its publication builds their indexes (street, state, unit) and (name,
-- state, span, lo, hi), each one sorted pass over keys alone, lists N in
-- address_generations, and writes the views address_points and
-- address_ranges again with an arm for N, in the transaction that serves
-- it. A generation is dropped by taking it out of the views and dropping
-- its tables, which frees their pages without reading each row.
--
-- 0024 staged a load's rows in one table and moved them, sorted by the
-- index, into one indexed table of every generation at its publication:
-- each row written twice, a sort of whole rows spilling to disk, and 3.4
-- s of a load of a million points (5.8 s) holding the writer. An index
-- needs no generation once the table is the generation's; each arm of the
-- views names its generation as a constant, which a lookup tests once
-- before seeking the arm's index. The indexes are led by the street (the
-- name), not the state: a lookup names both, and a sort tells most keys
-- apart by the street alone (SQLite compares a key's first column before
-- the rest, PostgreSQL a prefix of it), which the state, the same on most
-- rows, does not: SQLite indexed a million points in 1.0-1.35 s against
-- 1.2-1.7 s, PostgreSQL in 1.6-2.5 s against 2.8-6.0 s.
--
-- The rows 0024 published stay where they are, renamed
-- address_points_0024 and address_ranges_0024 (their indexes with them),
-- an arm of the views while they hold any; their generations are dropped
-- a few thousand ids a transaction. The rows it staged for loads not yet
-- published are dropped with its staged tables, and those loads with
-- them: a load in progress across the upgrade starts again from its
-- first row.
DROP TABLE address_points_staged;
DROP TABLE address_ranges_staged;
DELETE FROM dataset_loads WHERE kind = 'addresses';

ALTER TABLE address_points RENAME TO address_points_0024;
ALTER TABLE address_ranges RENAME TO address_ranges_0024;

-- The generations whose tables are published: the arms of the views.
CREATE TABLE address_generations (generation INTEGER PRIMARY KEY);

CREATE VIEW address_points (id, generation, state, street, unit, city, zip, lat, lng, key) AS
    SELECT id, generation, state, street, unit, city, zip, lat, lng, key FROM address_points_0024;
CREATE VIEW address_ranges (id, generation, state, name, span, lo, hi, descending, parity, side, zip, key, line) AS
    SELECT id, generation, state, name, span, lo, hi, descending, parity, side, zip, key, line FROM address_ranges_0024;
