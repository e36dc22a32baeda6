// Package sqlshared holds the SQL the two store engines (package store on
// SQLite, package store/postgres on PostgreSQL) have in common, written
// once: the statements whose text the dialects agree on, the search
// clauses built from a filter, the error mapping, and the reads that go
// the same way on both engines (the nearest record, a search near a
// point), run through Querier, each engine's adapter of its driver. What the
// dialects say differently (placeholders, the spatial query, the key
// writes that PostgreSQL does in one statement over an array, the case of
// the searched columns, the index hint, which errors mean the server is
// gone) is one table, Dialect, that each engine fills once. Build turns it
// into the engine's Queries when the package is initialized, so a read
// builds no SQL text: the hot reads (a record by id, by key, a section)
// send a string that was ready before the first request.
//
// Keeping the statements in one place is what keeps the engines from
// drifting apart: a column added to a query, an upsert's condition or a
// bound changed once is changed for both, and storetest holds both to the
// behaviour. The package imports no database driver, so each engine stays
// the only importer of its own, and each engine still runs its other
// statements through its own driver (database/sql or pgx) and scans its
// own types (a record: its scanProperty, which the shared reads are given).
//
// Everything here is safe for concurrent use once built.
package sqlshared
