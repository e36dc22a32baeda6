-- 0021: the one loading lifecycle of datasets loaded from files: SQLite's
-- 0021 says what each table keeps.
CREATE TABLE dataset_generations (
    n bigint NOT NULL
);
INSERT INTO dataset_generations (n) VALUES (0);

CREATE TABLE datasets (
    kind        text             NOT NULL,
    name        text             NOT NULL,
    generation  bigint           NOT NULL,
    fingerprint text             NOT NULL,
    row_count   bigint           NOT NULL DEFAULT 0,
    failed      bigint           NOT NULL DEFAULT 0,
    vintage     text             NOT NULL DEFAULT '',
    min_lat     double precision NOT NULL DEFAULT 0,
    max_lat     double precision NOT NULL DEFAULT 0,
    min_lng     double precision NOT NULL DEFAULT 0,
    max_lng     double precision NOT NULL DEFAULT 0,
    meta        text             NOT NULL DEFAULT '{}',
    failures    text             NOT NULL DEFAULT '',
    took_ms     bigint           NOT NULL DEFAULT 0,
    loaded_at   text             NOT NULL,
    PRIMARY KEY (kind, name)
);

CREATE TABLE dataset_loads (
    kind          text   NOT NULL,
    name          text   NOT NULL,
    generation    bigint NOT NULL,
    fingerprint   text   NOT NULL,
    done          bigint NOT NULL DEFAULT 0,
    failed        bigint NOT NULL DEFAULT 0,
    failures_size bigint NOT NULL DEFAULT 0,
    started_at    text   NOT NULL,
    PRIMARY KEY (kind, name)
);

CREATE TABLE dataset_retired (
    kind       text   NOT NULL,
    generation bigint NOT NULL,
    PRIMARY KEY (kind, generation)
);
