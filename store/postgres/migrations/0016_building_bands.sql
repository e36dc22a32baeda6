-- 0016: the buildings of an OpenStreetMap extract give their facts from
-- osm_buildings itself, not from a copy of each in fact_rows: SQLite's
-- 0016 says why and how. Here the copy cost more than there: 800,000
-- buildings' fact rows took 11 s of server time (two statements side by
-- side, 5.5 s of the load's wall time), and their entries in
-- fact_parcel_bands 2.7 s.
CREATE TABLE fact_buildings (
    dataset        text   NOT NULL,
    generation     bigint NOT NULL,
    osm_generation bigint NOT NULL,
    PRIMARY KEY (dataset, generation)
);
CREATE INDEX fact_buildings_osm ON fact_buildings (osm_generation);

CREATE TABLE osm_building_bands (
    generation bigint           NOT NULL,
    size       integer          NOT NULL,
    band       integer          NOT NULL,
    min_lng    double precision NOT NULL,
    id         bigint           NOT NULL,
    min_lat    double precision NOT NULL,
    max_lat    double precision NOT NULL,
    max_lng    double precision NOT NULL,
    PRIMARY KEY (generation, size, band, min_lng, id)
);
