-- 0022: the loads in progress of the assessor datasets (kind 'parcels')
-- and of the OpenStreetMap extracts (kind 'osm') join those of every other
-- dataset in dataset_loads (0021): one table of loads and their
-- checkpoints, resumed and abandoned alike (store/internal/loadsql). Each
-- kind keeps its own table of what it serves (fact_sets, osm_extracts) and
-- its own numbering of generations. A load left unfinished before the
-- upgrade resumes from its checkpoint after it.
INSERT INTO dataset_loads (kind, name, generation, fingerprint, done, failed, failures_size, started_at)
    SELECT 'parcels', dataset, generation, fingerprint, done, failed, failures_size, started_at FROM fact_loads;
INSERT INTO dataset_loads (kind, name, generation, fingerprint, done, failed, failures_size, started_at)
    SELECT 'osm', name, generation, fingerprint, done, 0, 0, started_at FROM osm_loads;
DROP TABLE fact_loads;
DROP TABLE osm_loads;
