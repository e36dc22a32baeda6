-- 0018: nothing on SQLite. PostgreSQL's 0018 keeps each generation of an
-- extract's features in partitions of its own, indexed once loaded and
-- dropped whole. SQLite has no partitions: its loads write one table of
-- each kind, indexed as 0010, 0014 and 0017 left it. The number is taken
-- so that both engines name a schema alike.
SELECT 1;
