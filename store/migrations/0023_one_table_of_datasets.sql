-- 0023: every dataset loaded from files is listed in datasets (0021), the
-- assessor datasets (kind 'parcels') and the OpenStreetMap extracts (kind
-- 'osm') too: each publication writes its row in the transaction that
-- serves it, so data status reads one table and DatasetsVersion is the
-- one signal a fleet watches. Each kind keeps its own table of what it
-- serves besides (fact_sets: precedence, matches; osm_extracts: the
-- boundary) and its own numbering of generations: the assessor datasets
-- number theirs per dataset, so a retired generation is named by its
-- dataset as well (dataset_retired's key gains the name), and the kinds
-- retire their former generations there for the one dropper
-- (providers/dataload.DropRetired). The operator's import is no dataset
-- of files and stays in fact_sets alone.
CREATE TABLE dataset_retired_0023 (
    kind       TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    generation INTEGER NOT NULL,
    PRIMARY KEY (kind, name, generation)
);
INSERT INTO dataset_retired_0023 (kind, name, generation) SELECT kind, '', generation FROM dataset_retired;
DROP TABLE dataset_retired;
ALTER TABLE dataset_retired_0023 RENAME TO dataset_retired;

INSERT INTO datasets (kind, name, generation, fingerprint, row_count, failed, vintage, meta, loaded_at)
    SELECT 'parcels', dataset, generation, fingerprint, row_count, failed, as_of,
        json_object('source', COALESCE(NULLIF(source, ''), dataset), 'precedence', priority, 'matched', matched), loaded_at
    FROM fact_sets WHERE dataset <> 'import';

INSERT INTO datasets (kind, name, generation, fingerprint, row_count, failed, vintage,
        min_lat, max_lat, min_lng, max_lng, meta, loaded_at)
    SELECT 'osm', name, generation, fingerprint, places + buildings + addresses, skipped, substr(timestamp, 1, 10),
        min_lat, max_lat, min_lng, max_lng,
        json_object('places', places, 'buildings', buildings, 'addresses', addresses,
            'polygon', json(CASE WHEN boundary IS NULL THEN 'false' ELSE 'true' END)), loaded_at
    FROM osm_extracts;

-- The extract generations a load left undropped (cut short between its
-- publication and its drop) are retired, to be dropped by the next load.
INSERT INTO dataset_retired (kind, name, generation)
    SELECT 'osm', '', g.generation FROM osm_generations g
    WHERE NOT EXISTS (SELECT 1 FROM osm_extracts x WHERE x.generation = g.generation)
    AND NOT EXISTS (SELECT 1 FROM dataset_loads l WHERE l.kind = 'osm' AND l.generation = g.generation)
    AND (EXISTS (SELECT 1 FROM osm_places p WHERE p.generation = g.generation)
        OR EXISTS (SELECT 1 FROM osm_buildings b WHERE b.generation = g.generation)
        OR EXISTS (SELECT 1 FROM osm_addresses a WHERE a.generation = g.generation));
