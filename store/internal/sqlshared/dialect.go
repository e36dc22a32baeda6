package sqlshared

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// Dialect is what one engine's SQL says differently from the other's: the
// one table of differences, filled once by each engine as a package
// variable. Statements given here are in the engine's own placeholders.
// The zero value is not usable; every field without "nil means" must be
// set.
type Dialect struct {
	// Param is the placeholder of the n-th argument of a statement,
	// counting from 1: "?" on SQLite, "$n" on PostgreSQL.
	Param func(n int) string

	// Nearest selects PropertyColumns of the records that may lie in one
	// latitude/longitude rectangle, through the engine's spatial index,
	// with the arguments south, north, west, east in that order.
	Nearest string
	// SaveKeys points keys at a record, moving one that pointed elsewhere,
	// as Save does. SQLite's takes one key and the record's id and runs once
	// a key; PostgreSQL's takes the sorted keys as one array and the id.
	SaveKeys string
	// CopyKeys adds keys that do not resolve yet onto a copied record, only
	// if the record at its id is the copied one: arguments key(s), id,
	// canonical (NULL for none), unit, created_at. SQLite's takes one key;
	// PostgreSQL's an array of them.
	CopyKeys string
	// CreateMigrations creates the schema_migrations table if missing, in
	// the engine's types.
	CreateMigrations string

	// SearchFrom returns the FROM target of a search's inner SELECT and of
	// its count for f: SQLite names the covering index it must use (its
	// planner, without statistics, picks worse ones); nil means the plain
	// table, for a planner that chooses well.
	SearchFrom func(f providers.SearchFilter) string
	// ScanHint follows the table (and its alias) in a search that walks
	// the table in id order (SearchStatements.ByID, Sample): SQLite's
	// " NOT INDEXED", lest its planner sort a filter's index instead;
	// empty for a planner that walks the primary key when told to order
	// by it with a limit.
	ScanHint string
	// CityColumn and StateColumn are the columns a search compares the
	// upper-cased city and state with: SQLite's own columns (stored upper
	// case, compared NOCASE), PostgreSQL's upper-cased generated copies,
	// which its search indexes hold.
	CityColumn, StateColumn string
	// CountyColumn is what a search compares the county, its ASCII
	// letters upper-cased, with: SQLite's column compared NOCASE, or
	// PostgreSQL's generated copy upper-cased in the "C" collation.
	CountyColumn string
	// InBox returns the condition that a search's record (its table
	// unqualified) lies in the rectangle south..north, west..east, edges
	// included, through the engine's spatial index; arg adds a value to
	// the statement's arguments and returns its placeholder.
	InBox func(arg func(v float64) string, south, north, west, east float64) string

	// Unreachable reports whether a driver error says the database server
	// could not be reached or went away; nil means it never is (a file).
	Unreachable func(err error) bool
	// RetryAfter is what a client is told to wait when Unreachable holds.
	RetryAfter time.Duration
}

// Err turns a database error into a *providers.Error, alike on both
// engines: a *providers.Error as it is, the caller's cancellation or
// deadline through providers.As (drivers report them as an interrupted
// statement or a broken connection, so ctx decides), an unreachable server
// as KindUnavailable (database_unavailable) with d.RetryAfter, anything
// else as KindInternal with a generic message. The driver's error is kept
// as the cause for logs only, so no SQL text reaches a client. nil stays
// nil.
func (d *Dialect) Err(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var pe *providers.Error
	if errors.As(err, &pe) {
		return pe
	}
	if d.Unreachable != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		// A deadline of the call's own, not the caller's: the server did
		// not answer within the engine's bound (a hung server, a black
		// hole), which is the database failing as surely as a refusal.
		e := providers.Wrap(err, providers.KindUnavailable, providers.CodeDatabaseUnavailable, "the database is unavailable")
		e.RetryAfter = d.RetryAfter
		return e
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		err = fmt.Errorf("%w (database: %v)", cerr, err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return providers.As(err)
	}
	if d.Unreachable != nil && d.Unreachable(err) {
		e := providers.Wrap(err, providers.KindUnavailable, providers.CodeDatabaseUnavailable, "the database is unavailable")
		e.RetryAfter = d.RetryAfter
		return e
	}
	return providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "database error")
}
