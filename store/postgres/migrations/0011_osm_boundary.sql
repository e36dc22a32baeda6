-- 0011: an OpenStreetMap extract's bounding polygon, as SQLite's
-- 0011_osm_boundary.sql (whose comment says why): WKB, tested in
-- propertyd after the box has found the candidates; NULL for an extract
-- that covers its box.
ALTER TABLE osm_extracts ADD COLUMN boundary bytea;
