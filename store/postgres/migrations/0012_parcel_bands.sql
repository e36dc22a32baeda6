-- 0012: the parcels (and building footprints) of facts loads are found by
-- a sorted table of latitude bands rather than the GiST index, and fact
-- rows index only the rows an index is read for (SQLite's 0012 does the
-- same).
--
-- Loading an OpenStreetMap extract of a million features spent most of
-- its time on the server putting each of 800,000 footprints in two GiST
-- indexes (its box, and its point, which no query reads for a parcel) and
-- two B-trees of keys footprints do not have.
--
-- fact_parcel_bands holds a parcel row whose box is at most 0.005 degrees
-- on each side (every building, nearly every parcel) under the latitude
-- band of its south edge (trunc(min_lat * 200)::integer, as
-- properties_area_band), then its west edge: a point's parcels are those
-- of two bands, sought by west edge within 0.005 degrees of it. It is
-- filled when a load is published, its rows sorted by key
-- (factsql.Dialect.IndexRows); a larger parcel stays in fact_rows_shape.
-- The size is factsql.SmallParcel, written the same way in the queries.
CREATE TABLE fact_parcel_bands (
    band    integer          NOT NULL,
    min_lng double precision NOT NULL,
    id      bigint           NOT NULL,
    min_lat double precision NOT NULL,
    max_lat double precision NOT NULL,
    max_lng double precision NOT NULL,
    PRIMARY KEY (band, min_lng, id)
);

-- A row's entry goes with it, and with a change of its box (a row is
-- changed only by its own load, before the publish that indexes it).
CREATE FUNCTION fact_parcel_bands_drop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM fact_parcel_bands
    WHERE band = trunc(OLD.min_lat * 200)::integer AND min_lng = OLD.min_lng AND id = OLD.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER fact_parcel_bands_delete AFTER DELETE ON fact_rows
    FOR EACH ROW WHEN (OLD.shape IS NOT NULL) EXECUTE FUNCTION fact_parcel_bands_drop();
CREATE TRIGGER fact_parcel_bands_update AFTER UPDATE OF shape, min_lat, max_lat, min_lng, max_lng ON fact_rows
    FOR EACH ROW WHEN (OLD.shape IS NOT NULL) EXECUTE FUNCTION fact_parcel_bands_drop();

INSERT INTO fact_parcel_bands (band, min_lng, id, min_lat, max_lat, max_lng)
SELECT trunc(min_lat * 200)::integer, min_lng, id, min_lat, max_lat, max_lng FROM fact_rows
WHERE shape IS NOT NULL AND max_lat - min_lat <= 0.005 AND max_lng - min_lng <= 0.005
ORDER BY 1, 2, 3;

-- The GiST indexes keep the rows the queries read them for: points that
-- are no parcel (RowsNear), parcels too large for the bands (ParcelsAt).
DROP INDEX fact_rows_location;
DROP INDEX fact_rows_shape;
CREATE INDEX fact_rows_location ON fact_rows USING gist (point(longitude, latitude))
    WHERE latitude IS NOT NULL AND longitude IS NOT NULL AND shape IS NULL;
CREATE INDEX fact_rows_shape ON fact_rows USING gist (box(point(min_lng, min_lat), point(max_lng, max_lat)))
    WHERE shape IS NOT NULL AND (max_lat - min_lat > 0.005 OR max_lng - min_lng > 0.005);

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
