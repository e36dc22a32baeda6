-- 0020: layers of polygons loaded from files, each under a generation,
-- and the polygons of a layer that hold a point: SQLite's 0020 says what
-- the tables keep and how shapes of many points are read by band.
--
-- The boxes are in a GiST index over box(point(min_lng, min_lat),
-- point(max_lng, max_lat)), as fact_rows_shape (0012) holds large
-- parcels: plain GiST of a built-in type, no extension. It holds every
-- layer and generation; the layer and generation are tested on the rows
-- it finds (a point lies in a few polygons of each layer). No other index
-- holds the layer or the generation: with one, PostgreSQL read a freshly
-- loaded layer's whole generation through it for each point (1.7 ms at
-- 10,000 polygons, a planner with no statistics of them yet). A drop
-- finds its range of ids in one pass over the table, then deletes a range
-- a transaction through the key.
--
-- Ids come from a sequence, taken by the writer before it copies a batch
-- (its bands name their polygon's id). A shape is kept uncompressed
-- (STORAGE EXTERNAL): WKB's doubles hardly compress, and a load of 20
-- million points would spend its time trying.
CREATE SEQUENCE layer_polygon_ids CACHE 1000;

CREATE TABLE layer_polygons (
    id         bigint           PRIMARY KEY,
    layer      text             NOT NULL,
    generation bigint           NOT NULL,
    key        text             NOT NULL,
    min_lat    double precision NOT NULL,
    max_lat    double precision NOT NULL,
    min_lng    double precision NOT NULL,
    max_lng    double precision NOT NULL,
    vertices   integer          NOT NULL,
    banded     integer          NOT NULL,
    attrs      text             NOT NULL,
    shape      bytea            NOT NULL
);
ALTER TABLE layer_polygons ALTER COLUMN shape SET STORAGE EXTERNAL;
CREATE INDEX layer_polygons_box ON layer_polygons USING gist (box(point(min_lng, min_lat), point(max_lng, max_lat)));

CREATE TABLE layer_polygon_bands (
    polygon_id bigint           NOT NULL,
    south      double precision NOT NULL,
    edges      bytea            NOT NULL,
    PRIMARY KEY (polygon_id, south)
);
ALTER TABLE layer_polygon_bands ALTER COLUMN edges SET STORAGE EXTERNAL;
