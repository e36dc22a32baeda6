-- 0021: the one loading lifecycle of datasets loaded from files
-- (store/internal/loadsql, providers.DatasetStore): boundaries and flood
-- maps now, each a kind of its own tables (layer_polygons, 0020).
--
-- datasets is one row a dataset served: the generation readers read, what
-- it holds and where (its coverage box), the publisher's vintage, and how
-- its load went (the failures file it wrote, the time the last run took).
-- dataset_loads is a load in progress, at most one a dataset, with its
-- checkpoint: done input features committed, failed of them in the
-- failures file, which was failures_size bytes long then. A generation
-- replaced or abandoned waits in dataset_retired until the loader has
-- dropped its features. Generations are numbered across kinds by
-- dataset_generations' one row, so a generation alone names one load.
CREATE TABLE dataset_generations (
    n INTEGER NOT NULL
);
INSERT INTO dataset_generations (n) VALUES (0);

CREATE TABLE datasets (
    kind        TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    generation  INTEGER NOT NULL,
    fingerprint TEXT    NOT NULL,
    row_count   INTEGER NOT NULL DEFAULT 0,
    failed      INTEGER NOT NULL DEFAULT 0,
    vintage     TEXT    NOT NULL DEFAULT '',
    min_lat     REAL    NOT NULL DEFAULT 0,
    max_lat     REAL    NOT NULL DEFAULT 0,
    min_lng     REAL    NOT NULL DEFAULT 0,
    max_lng     REAL    NOT NULL DEFAULT 0,
    meta        TEXT    NOT NULL DEFAULT '{}',
    failures    TEXT    NOT NULL DEFAULT '',
    took_ms     INTEGER NOT NULL DEFAULT 0,
    loaded_at   TEXT    NOT NULL,
    PRIMARY KEY (kind, name)
);

CREATE TABLE dataset_loads (
    kind          TEXT    NOT NULL,
    name          TEXT    NOT NULL,
    generation    INTEGER NOT NULL,
    fingerprint   TEXT    NOT NULL,
    done          INTEGER NOT NULL DEFAULT 0,
    failed        INTEGER NOT NULL DEFAULT 0,
    failures_size INTEGER NOT NULL DEFAULT 0,
    started_at    TEXT    NOT NULL,
    PRIMARY KEY (kind, name)
);

CREATE TABLE dataset_retired (
    kind       TEXT    NOT NULL,
    generation INTEGER NOT NULL,
    PRIMARY KEY (kind, generation)
);
