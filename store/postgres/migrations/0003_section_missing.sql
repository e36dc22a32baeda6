-- 0003: remember that an upstream has no data at a section's key (the ACS
-- answers an unknown tract with an empty 204), for the section's TTL, so
-- that every request for such a property does not ask again. data then
-- holds the upstream's error as JSON {"code", "message"}. As SQLite's
-- 0003_section_missing.sql.
ALTER TABLE sections ADD COLUMN missing boolean NOT NULL DEFAULT false;
