-- 0007: SQLite's twin adds properties_area_band, a covering index its area
-- searches seek band by band instead of reading each candidate's row.
-- PostgreSQL answers an area through the GiST index over
-- point(longitude, latitude) (0001) and needs no change; this migration
-- keeps the two engines' schema versions in step.
SELECT 1;
