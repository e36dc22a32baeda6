package sqlshared

import "context"

// Conn runs statements on one connection or transaction. Statements are
// in the engine's placeholders (each package's Statements bind them once).
type Conn interface {
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	// ExecMany runs sql once for each argument list, in order: a prepared
	// statement on SQLite, one pipelined batch on PostgreSQL.
	ExecMany(ctx context.Context, sql string, args [][]any) error
}

// DB is an engine: its reads, and its transactions on the writer.
type DB interface {
	Conn
	// Tx runs fn in one write transaction, committed when fn returns nil.
	Tx(ctx context.Context, fn func(Conn) error) error
	// Err turns a driver error into a *providers.Error (Dialect.Err).
	Err(ctx context.Context, err error) error
	// Now is the time to stamp writes with.
	Now() any
}

// QueryRow runs a query expected to return at most one row and scans it;
// found is false when it returned none. (database/sql's QueryRow is not
// on Conn: pgx and database/sql differ there.)
func QueryRow(ctx context.Context, c Conn, sql string, args []any, dest ...any) (found bool, err error) {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return false, rows.Err()
	}
	if err := rows.Scan(dest...); err != nil {
		return false, err
	}
	return true, rows.Err()
}
