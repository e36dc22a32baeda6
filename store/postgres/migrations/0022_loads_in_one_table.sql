-- 0022: the loads in progress of the assessor datasets and of the
-- OpenStreetMap extracts join those of every other dataset in
-- dataset_loads: SQLite's 0022 says why.
INSERT INTO dataset_loads (kind, name, generation, fingerprint, done, failed, failures_size, started_at)
    SELECT 'parcels', dataset, generation, fingerprint, done, failed, failures_size, started_at FROM fact_loads;
INSERT INTO dataset_loads (kind, name, generation, fingerprint, done, failed, failures_size, started_at)
    SELECT 'osm', name, generation, fingerprint, done, 0, 0, started_at FROM osm_loads;
DROP TABLE fact_loads;
DROP TABLE osm_loads;
