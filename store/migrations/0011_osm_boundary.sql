-- 0011: an OpenStreetMap extract's bounding polygon, read from the .poly
-- file its publisher cut it with ("propertyd data load osm -poly", or the
-- <region>.poly found beside the extract). boundary is the polygon as WKB
-- (a MultiPolygon of longitude, latitude, holes included) and
-- min_lat..max_lng its bounding box within the file header's: the box
-- finds the extracts that may hold a circle, and the polygon, tested in
-- propertyd (store/internal/osmsql), says whether the whole circle lies
-- inside. NULL for an extract loaded without one, which covers its box,
-- as every extract loaded before did.
ALTER TABLE osm_extracts ADD COLUMN boundary BLOB;
