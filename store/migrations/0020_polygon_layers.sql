-- 0020: layers of polygons loaded from files (TIGER/Line tracts and
-- counties, NFHL flood hazard areas and FIRM panels), each under a
-- generation, and the polygons of a layer that hold a point
-- (store/internal/polysql, providers.PolygonStore).
--
-- layer_polygons keeps each polygon's key (GEOID, FLD_AR_ID), the
-- attributes the loader keeps as a JSON object, its shape as WKB
-- (longitude, latitude, holes included), its bounding box and its number
-- of points. The R*Tree below holds the boxes, as properties_rtree holds
-- the records' points: a point's candidates are the boxes that hold it,
-- each then tested exactly in Go. The R*Tree keeps 32-bit floats rounded
-- outwards, so it may give a polygon whose box only nearly holds the
-- point, never miss one. Its triggers write and delete an entry with its
-- row. The columns a read selects come first, the shape last, which a
-- read by band never loads.
--
-- A shape of more than 1,024 points (banded = 1) is read by band:
-- layer_polygon_bands keeps its edges again, split at latitudes into
-- bands, one starting every 512 edges (each edge in every band its
-- latitudes reach into), as chains of points; a point is tested against the band its
-- latitude falls in, the last whose south is at or below it. A zone X of
-- a county's flood layer, with its special flood hazard areas as holes,
-- can be a 10 MB shape.
--
-- A generation is dropped a few thousand ids a transaction, each range
-- sought in layer_polygons_generation (which holds the rowid after its
-- columns, so a generation's ids are in order there); a point's read
-- never goes through it (the R*Tree is read first). PostgreSQL's 0020
-- keeps the same tables, the boxes in a GiST index, and no index of the
-- generation (its 0020 says why).
CREATE TABLE layer_polygons (
    id         INTEGER PRIMARY KEY,
    layer      TEXT    NOT NULL,
    generation INTEGER NOT NULL,
    key        TEXT    NOT NULL,
    min_lat    REAL    NOT NULL,
    max_lat    REAL    NOT NULL,
    min_lng    REAL    NOT NULL,
    max_lng    REAL    NOT NULL,
    vertices   INTEGER NOT NULL,
    banded     INTEGER NOT NULL,
    attrs      TEXT    NOT NULL,
    shape      BLOB    NOT NULL
);
CREATE INDEX layer_polygons_generation ON layer_polygons (layer, generation);

CREATE VIRTUAL TABLE layer_polygons_rtree USING rtree (id, min_lat, max_lat, min_lng, max_lng);

CREATE TRIGGER layer_polygons_rtree_insert AFTER INSERT ON layer_polygons BEGIN
    INSERT INTO layer_polygons_rtree VALUES (new.id, new.min_lat, new.max_lat, new.min_lng, new.max_lng);
END;
CREATE TRIGGER layer_polygons_rtree_delete AFTER DELETE ON layer_polygons BEGIN
    DELETE FROM layer_polygons_rtree WHERE id = old.id;
END;

CREATE TABLE layer_polygon_bands (
    polygon_id INTEGER NOT NULL,
    south      REAL    NOT NULL,
    edges      BLOB    NOT NULL,
    PRIMARY KEY (polygon_id, south)
) WITHOUT ROWID;
