-- 0010: as SQLite's 0010_osm_index_at_publish.sql: nothing searches the
-- buildings by their box (their facts are found through fact_rows'
-- index), so the GiST index over it goes and a load no longer maintains
-- it. The places' and address points' GiST indexes stay as they are.
DROP INDEX osm_buildings_shape;
