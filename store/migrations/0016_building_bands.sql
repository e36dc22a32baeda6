-- 0016: the buildings of an OpenStreetMap extract give their facts from
-- osm_buildings itself, not from a copy of each in fact_rows.
--
-- Loading a generated extract of a million features spent 4.3 of its
-- 11 s after the features were written: copying 800,000 buildings into
-- fact_rows (2.4 s with the commit), then putting each copy in
-- fact_parcel_bands (1.9 s). A facts load whose rows are an extract's
-- buildings now names the extract's generation in fact_buildings
-- (osmsql.Extracts.PutOSMFacts); at its publish, its buildings that give
-- facts and are small enough (factsql.SmallParcel) go in
-- osm_building_bands, as fact_parcel_bands holds a parcel, under the
-- generation first so that a generation's entries go together, then their
-- size: 0 for a box at most 0.0005 degrees a side under bands as tall
-- (CAST(min_lat * 10 * 200 AS INTEGER)), 1 for the others under
-- fact_parcel_bands' (factsql.buildingSizes), so that a point's seek reads
-- some ten entries rather than a thousand where buildings stand close.
-- The few larger ones are still copied into fact_rows, through its spatial
-- index. Every read of a dataset's parcels reads both
-- (factsql.BuildingBandsAt).
-- An extract's generation named here is kept (osmsql's oldGenerations)
-- until its facts load is dropped. PostgreSQL's 0016 does the same.
--
-- Facts datasets published before this keep their rows in fact_rows and
-- are read as before until their extract is loaded again.
CREATE TABLE fact_buildings (
    dataset        TEXT    NOT NULL,
    generation     INTEGER NOT NULL,
    osm_generation INTEGER NOT NULL,
    PRIMARY KEY (dataset, generation)
);
CREATE INDEX fact_buildings_osm ON fact_buildings (osm_generation);

CREATE TABLE osm_building_bands (
    generation INTEGER NOT NULL,
    size       INTEGER NOT NULL,
    band       INTEGER NOT NULL,
    min_lng    REAL    NOT NULL,
    id         INTEGER NOT NULL,
    min_lat    REAL    NOT NULL,
    max_lat    REAL    NOT NULL,
    max_lng    REAL    NOT NULL,
    PRIMARY KEY (generation, size, band, min_lng, id)
) WITHOUT ROWID;
