-- 0026: what each serving instance's geocoder answered since it started,
-- from loaded address points and ranges (local_count) or not (remote_count),
-- reported every facts.refresh (providers.GeocodeCounter), so that
-- propertyd data status can say what share of the lookups of every
-- instance sharing the database were answered locally. A row is an
-- instance (its host, process and start); the rows of instances that
-- stopped reporting a week ago are pruned by the next report.
CREATE TABLE geocode_counts (
	instance TEXT PRIMARY KEY,
	started_at TEXT NOT NULL,
	local_count BIGINT NOT NULL,
	remote_count BIGINT NOT NULL,
	seen_at TEXT NOT NULL
);
CREATE INDEX geocode_counts_seen ON geocode_counts (seen_at);
