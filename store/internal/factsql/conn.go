// Package factsql is the facts logic both database engines share: loading
// assessor datasets by generation, publishing a load, and merging the
// facts of every source into a record's columns (providers.MergeFacts).
// The engines differ only in how they talk to their driver (Conn) and in
// the spatial statements of their Dialect, so the rules live here once.
package factsql

import (
	"context"

	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// Rows is a result set: *sql.Rows and pgx.Rows behind an adapter. It is
// sqlshared's, so that a Conn is a sqlshared.Querier.
type Rows = sqlshared.Rows

// Conn, DB and QueryRow are sqlshared's, so that the packages of the
// other kinds of data (the lifecycle's loadsql among them) speak to an
// engine alike.
type (
	Conn = sqlshared.Conn
	DB   = sqlshared.DB
)

// QueryRow is sqlshared.QueryRow.
func QueryRow(ctx context.Context, c Conn, sql string, args []any, dest ...any) (found bool, err error) {
	return sqlshared.QueryRow(ctx, c, sql, args, dest...)
}

// Copier is a Conn that bulk-copies rows into a table (PostgreSQL's COPY).
type Copier interface {
	CopyRows(ctx context.Context, table string, columns []string, rows [][]any) error
	// CopyNew copies rows straight into table when none of them takes a
	// unique key already taken (in the table or among themselves): the
	// case of a load's every batch but one resumed in the middle of a
	// key. It returns false, with the transaction as it was before the
	// call, when one does, and the caller writes the rows the way that
	// merges them (a staging table and INSERT ... ON CONFLICT, which costs
	// the server a speculative insert a row).
	CopyNew(ctx context.Context, table string, columns []string, rows [][]any) (bool, error)
}

// CopyStaged writes rows (columns each) into table on cp: straight in when
// none of them takes a key already taken (CopyNew), else copied into the
// staging table st, numbered (its seq column), and written from it by put.
func CopyStaged(ctx context.Context, cp Copier, c Conn, table string, columns []string, st Stage, put string, rows [][]any) error {
	if done, err := cp.CopyNew(ctx, table, columns, rows); err != nil || done {
		return err
	}
	if _, err := c.Exec(ctx, st.Create); err != nil {
		return err
	}
	seqd := make([][]any, len(rows))
	for i, r := range rows {
		seqd[i] = append([]any{i}, r...)
	}
	if err := cp.CopyRows(ctx, st.Table, append([]string{"seq"}, columns...), seqd); err != nil {
		return err
	}
	_, err := c.Exec(ctx, put)
	return err
}
