// Package rules holds what the store engines (package store on SQLite,
// package store/postgres on PostgreSQL) must do alike and that needs no
// database: the checks on arguments and the errors they return, the
// bounding box Nearest searches, the precision of stored times and the
// loading of numbered migrations. Keeping them in one place is what makes a
// response, its ETag and its error the same whichever engine answered.
//
// It imports no database driver, so each engine stays the only importer of
// its own. Everything here is safe for concurrent use.
package rules
