-- 0007: an area search (a circle or a box) reads its candidates from one
-- covering index instead of the R*Tree and then each candidate's row.
--
-- The R*Tree gives the ids in a rectangle at once, but the exact
-- coordinates and the other filters are in the rows, which lie all over
-- the table: a circle of 1 km at a million records read 10,000 of them
-- one page at a time (30 to 59 ms). This index holds a row's latitude
-- band (CAST(latitude * 200 AS INTEGER): 0.005 degrees, about 550 m), then
-- its longitude, latitude, state and ZIP code; Store.Search seeks each
-- band the area crosses by longitude and reads the ids, coordinates and
-- those two filters from the index alone. The expression must be written
-- the same way in the queries (store/dialect.go, InBox) for SQLite to use
-- it. It holds no fact, so merging facts never touches it.
CREATE INDEX properties_area_band ON properties
    (CAST(latitude * 200 AS INTEGER), longitude, latitude, state, zip_code);
