// Package store persists propertyd's property records and cached enrichment
// sections in one SQLite file. It implements providers.Store and is, with
// its GeoPackage reader store/gpkg, the only package that imports the SQLite
// driver (the statements it says as the
// PostgreSQL engine does are written once, in store/internal/sqlshared); it
// knows nothing about HTTP. Callers see only providers types and *providers.Error values, so the
// gateway maps store failures to statuses through the same table as every
// other error, no SQL text ever reaches a client, and a second backend (for
// example PostgreSQL, for several instances sharing one database) can be
// written against the same interface without touching its users.
//
// # Schema
//
// The schema lives in numbered migrations (migrations/NNNN_name.sql) embedded
// in the binary. Open applies the ones a database lacks, in order, each in its
// own transaction, and records them in schema_migrations; reopening is a
// no-op, and a database written by a newer binary is refused (ErrSchemaTooNew)
// rather than misread.
//
//   - properties: one row per property. UNIQUE(canonical, unit) is the
//     identity of a geocoded record and the last word when two requests race
//     to create the same address. canonical is NULL for records created by
//     reverse geocoding, so those never collide. Ids are AUTOINCREMENT and
//     never reused, because clients hold them. The search indexes (0001,
//     0002, widened and joined by 0005) each lead with a filter (zip,
//     FIPS code and tract, county, state and city, city, property type,
//     year built, living area, bedrooms, bathrooms) and hold the filters
//     that may accompany it, and SQLite adds the id to every entry, so a
//     search finds its page of ids and its total from one index
//     without touching the table, then reads only the rows of the page
//     (searchIndex picks the index). The total is counted up to 10,001
//     matches (providers.MaxSearchTotal), so a count costs at most that
//     many index entries after those it skips; a search with more
//     matches walks the table in id order for its page instead of
//     sorting them (sqlshared.UseByID). At a million rows a search takes
//     a few milliseconds, but one in an area tens, since its rows are
//     all read. A state with a bathrooms or living-area bound has an
//     index of its own (0006): the state's index holds those facts after
//     the bedrooms, which they grow with, so its count read the state's
//     records with fewer bedrooms first.
//   - property_keys: normalized client spellings of an address, each
//     resolving to one record, so a repeated lookup needs no geocoding.
//   - properties_rtree: an R*Tree over the coordinates, kept in step with
//     properties by triggers (in the same transaction as the row), used by
//     Nearest and by a search in an area to find candidates before the
//     row's exact coordinates decide.
//   - sections: enrichment section values as JSON by (section, key), with
//     fetch and expiry times; expired rows are kept and returned, to be
//     served as stale when an upstream fails.
//
// Times are stored as UTC text with millisecond precision.
//
// # One writer, many readers
//
// SQLite allows one writer at a time. DB holds two connection pools on the
// same file: a writer pool of exactly one connection, whose transactions
// start with BEGIN IMMEDIATE so they take the write lock up front and never
// fail half-way on a lock upgrade, and a pool of query-only reader
// connections. In WAL mode readers never block the writer nor each other,
// and a write committed on the writer is visible to the next read. Writes
// from this process queue on the single writer connection instead of
// contending for the lock; writes from another process on the same file
// wait up to the busy timeout.
//
// # Durability
//
// The database runs in WAL mode with synchronous=NORMAL. A committed
// transaction is in the write-ahead log, in the operating system's page
// cache, before the method returns, so a record returned to a caller
// survives the process being killed (kill -9, a panic, an OOM kill): the
// next Open replays the log. Only an operating-system crash or power loss
// may lose the last transactions committed before it, never corrupt the
// file. Section values are a cache and records can be geocoded again, so this
// trade (no fsync per commit) is the right one for propertyd; a deployment
// that cannot accept it can set Options.Synchronous to "FULL".
//
// DB is safe for concurrent use.
package store
