-- 0009: how a record was first matched, as SQLite's 0009_match.sql (whose
-- comment says why): the JSON text of its providers.Match, NULL for the
-- records stored before.
ALTER TABLE properties ADD COLUMN first_match text;
