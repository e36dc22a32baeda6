-- 0007: an area search (a circle or a box) reads its candidates from one
-- covering index instead of the GiST index on point(longitude, latitude)
-- (0001) and then each candidate's row.
--
-- Through the GiST index a circle of 1 km at a million records read
-- 8,000 rows from all over the table for their exact coordinates and
-- filters (10 to 15 ms p50). This index holds a row's latitude band
-- (trunc(latitude * 200)::integer: 0.005 degrees, about 550 m) and its
-- longitude, and includes the latitude, state, ZIP code and id, so an
-- index-only scan of the bands the area crosses, each sought by
-- longitude, answers it (SQLite's twin has the same shape). The
-- expression must be written the same way in the queries
-- (store/postgres/dialect.go, InBox). It holds no fact; PostgreSQL still
-- adds an entry to it for every record a load merges, as it does to every
-- index of a row an UPDATE rewrites.
CREATE INDEX properties_area_band ON properties
    ((trunc(latitude * 200)::integer), longitude) INCLUDE (latitude, state_upper, zip_code, id);
