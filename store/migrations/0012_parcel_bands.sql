-- 0012: the parcels (and building footprints) of facts loads are found by
-- a sorted table of latitude bands rather than the R*Tree, and fact rows
-- index only the rows that have the key an index is read by.
--
-- Loading an OpenStreetMap extract of a million features spent 5 of its
-- 19 s putting 800,000 footprint boxes in fact_rows_rtree (an R*Tree
-- insert walks and splits the tree at a random place each time), and
-- more keeping three indexes of keys the footprints do not have.
--
-- fact_parcel_bands holds a parcel row whose box is at most 0.005 degrees
-- on each side (about 550 m by 430 m here: every building and nearly
-- every parcel) under the latitude band of its south edge
-- (CAST(min_lat * 200 AS INTEGER), as properties_area_band), then its
-- west edge. A point's parcels are then those of two bands, sought by
-- west edge within 0.005 degrees of it. The table is filled when a load
-- is published, its rows sorted by key (factsql.Dialect.IndexRows), so
-- each page is written once; a larger parcel keeps its R*Tree entry. The
-- size is factsql.SmallParcel, written the same way in the queries.
CREATE TABLE fact_parcel_bands (
    band    INTEGER NOT NULL,
    min_lng REAL    NOT NULL,
    id      INTEGER NOT NULL,
    min_lat REAL    NOT NULL,
    max_lat REAL    NOT NULL,
    max_lng REAL    NOT NULL,
    PRIMARY KEY (band, min_lng, id)
) WITHOUT ROWID;

-- A row's entry goes with it, and with a change of its box (a row is
-- changed only by its own load, before the publish that indexes it).
CREATE TRIGGER fact_parcel_bands_delete AFTER DELETE ON fact_rows
WHEN old.shape IS NOT NULL BEGIN
    DELETE FROM fact_parcel_bands
    WHERE band = CAST(old.min_lat * 200 AS INTEGER) AND min_lng = old.min_lng AND id = old.id;
END;

CREATE TRIGGER fact_parcel_bands_update AFTER UPDATE OF shape, min_lat, max_lat, min_lng, max_lng ON fact_rows
WHEN old.shape IS NOT NULL BEGIN
    DELETE FROM fact_parcel_bands
    WHERE band = CAST(old.min_lat * 200 AS INTEGER) AND min_lng = old.min_lng AND id = old.id;
END;

-- The parcels already loaded move from the R*Tree to the bands.
INSERT INTO fact_parcel_bands (band, min_lng, id, min_lat, max_lat, max_lng)
SELECT CAST(min_lat * 200 AS INTEGER), min_lng, id, min_lat, max_lat, max_lng FROM fact_rows
WHERE shape IS NOT NULL AND max_lat - min_lat <= 0.005 AND max_lng - min_lng <= 0.005
ORDER BY 1, 2, 3;

DELETE FROM fact_rows_rtree WHERE id IN (SELECT id FROM fact_rows
    WHERE shape IS NOT NULL AND max_lat - min_lat <= 0.005 AND max_lng - min_lng <= 0.005);

-- property_id and join_key are NULL on most rows (only the operator's
-- import names records, only two-file datasets join): their indexes keep
-- only the rows that have one. Every query through them compares the
-- column with = or IN, which a NULL never satisfies. fact_rows_key keeps
-- its NULLs: anyPointRows finds a row that joins by coordinates through
-- them.
DROP INDEX fact_rows_property;
DROP INDEX fact_rows_join;
CREATE INDEX fact_rows_property ON fact_rows (property_id) WHERE property_id IS NOT NULL;
CREATE INDEX fact_rows_join     ON fact_rows (dataset, generation, join_key) WHERE join_key IS NOT NULL;
