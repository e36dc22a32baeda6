-- 0013: a building of an OpenStreetMap extract is written once. The
-- property facts it gives (osmextract.BuildingFacts) are kept on its row,
-- and the rows of the extract's facts dataset are made from the buildings
-- by one statement when the features are all written
-- (osmsql.Extracts.PutOSMFacts), where each building used to be written a
-- second time, as a fact row, from the loader: 800,000 more rows through
-- the driver for a million features. PostgreSQL's 0013 does the same.
ALTER TABLE osm_buildings ADD COLUMN property_type TEXT;
ALTER TABLE osm_buildings ADD COLUMN stories       REAL;
ALTER TABLE osm_buildings ADD COLUMN units         INTEGER;
ALTER TABLE osm_buildings ADD COLUMN year_built    INTEGER;

-- A load left unfinished by an earlier version wrote buildings without
-- their facts: it resumes from its first element, and writing a building
-- again sets them.
UPDATE osm_loads SET done = 0;
