// Package postgres persists propertyd's property records and cached
// enrichment sections in PostgreSQL, so that several instances of
// propertyd can share one database. It implements providers.Store with the
// same behaviour as package store (SQLite), which the conformance table in
// store/storetest holds both to, and it is the only package that imports
// the PostgreSQL driver (pgx); callers see only providers types and
// *providers.Error values.
//
// # Schema
//
// The migrations (migrations/NNNN_name.sql, embedded) carry the same
// numbers and meaning as SQLite's, so `propertyd migrate` reports the same
// schema version on both engines. Open applies the missing ones, each in
// its own transaction under an advisory lock, so instances starting
// together against a new database migrate it once; a database written by a
// newer binary is refused (ErrSchemaTooNew). Tables go into the first
// schema of the connection's search_path (public unless the URL sets
// search_path), which lets tests give each case a schema of its own.
//
//   - properties: UNIQUE(canonical, unit) is the identity of a geocoded
//     record and the last word when instances race to create the same
//     address: Save inserts with ON CONFLICT DO NOTHING and reads the
//     existing row back, so every racer gets the one id. city and state have
//     upper-cased generated copies that the search indexes hold.
//   - property_keys: normalized client spellings, each resolving to a record.
//   - a GiST index over point(longitude, latitude) serves Nearest as the
//     R*Tree does on SQLite: a bounding box narrows the candidates, the
//     exact great-circle distance decides.
//   - sections: enrichment values as bytes by (section, key).
//
// Times are timestamptz; every time is truncated to the millisecond before
// it is written and read back in UTC, so records, sections and the ETags
// made from them are identical to what the SQLite engine returns.
//
// # Durability
//
// Records and everything else commit as the server is configured
// (synchronous_commit on by default: the write-ahead log is on disk before
// a commit returns). Section values are a cache and commit without
// waiting for the disk (PutSection), the trade package store makes with
// SQLite's synchronous=NORMAL: a crash of the server or its machine may
// lose the last values written, which are fetched again, and corrupts
// nothing.
//
// # Errors
//
// A database that cannot be reached (refused or broken connection, server
// shutting down, too many connections) is KindUnavailable with code
// database_unavailable, which the gateway answers with 503; the caller's
// cancellation and deadline are KindCanceled and KindTimeout; anything else
// is KindInternal with the generic message "database error". No SQL text
// ever reaches a client.
//
// DB is safe for concurrent use.
package postgres
