-- 0023: the assessor datasets and the OpenStreetMap extracts are listed in
-- datasets too, and a retired generation is named by its dataset:
-- SQLite's 0023 says why.
ALTER TABLE dataset_retired ADD COLUMN name text NOT NULL DEFAULT '';
ALTER TABLE dataset_retired DROP CONSTRAINT dataset_retired_pkey;
ALTER TABLE dataset_retired ADD PRIMARY KEY (kind, name, generation);
ALTER TABLE dataset_retired ALTER COLUMN name DROP DEFAULT;

INSERT INTO datasets (kind, name, generation, fingerprint, row_count, failed, vintage, meta, loaded_at)
    SELECT 'parcels', dataset, generation, fingerprint, row_count, failed, as_of,
        json_build_object('source', COALESCE(NULLIF(source, ''), dataset), 'precedence', priority, 'matched', matched)::text,
        loaded_at
    FROM fact_sets WHERE dataset <> 'import';

INSERT INTO datasets (kind, name, generation, fingerprint, row_count, failed, vintage,
        min_lat, max_lat, min_lng, max_lng, meta, loaded_at)
    SELECT 'osm', name, generation, fingerprint, places + buildings + addresses, skipped, substr(timestamp, 1, 10),
        min_lat, max_lat, min_lng, max_lng,
        json_build_object('places', places, 'buildings', buildings, 'addresses', addresses,
            'polygon', boundary IS NOT NULL)::text, loaded_at
    FROM osm_extracts;

-- The extract generations a load left undropped: their partitions.
INSERT INTO dataset_retired (kind, name, generation)
    SELECT 'osm', '', g.generation FROM osm_generations g
    WHERE NOT EXISTS (SELECT 1 FROM osm_extracts x WHERE x.generation = g.generation)
    AND NOT EXISTS (SELECT 1 FROM dataset_loads l WHERE l.kind = 'osm' AND l.generation = g.generation)
    AND (to_regclass('osm_places_g' || g.generation) IS NOT NULL
        OR to_regclass('osm_buildings_g' || g.generation) IS NOT NULL
        OR to_regclass('osm_addresses_g' || g.generation) IS NOT NULL);
