-- 0015: fact_rows_key holds only the rows that have an address key.
--
-- It kept the NULLs of every other row so that one query could find, at
-- once, whether any dataset has rows found by coordinates (no key, a
-- latitude): an OpenStreetMap extract's 800,000 buildings put 800,000
-- NULL entries in it, a fifth to a third of the time of writing their
-- fact rows. Every other query through it compares facts_key with = or IN,
-- which a NULL never satisfies. Whether a served dataset has rows found by
-- coordinates is now said by fact_sets.point_rows (1 or 0), set when the
-- dataset is published (factsql.Facts.Publish). PostgreSQL's 0015 does the
-- same.
ALTER TABLE fact_sets ADD COLUMN point_rows INTEGER NOT NULL DEFAULT 0;
UPDATE fact_sets SET point_rows = (SELECT COUNT(*) FROM (SELECT 1 FROM fact_rows r
    WHERE r.dataset = fact_sets.dataset AND r.generation = fact_sets.generation
        AND r.facts_key IS NULL AND r.latitude IS NOT NULL LIMIT 1) one);
DROP INDEX fact_rows_key;
CREATE INDEX fact_rows_key ON fact_rows (facts_key) WHERE facts_key IS NOT NULL;
