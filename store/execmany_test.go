package store

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/propertyd/propertyd/store/internal/factsql"
)

// Rows written through the driver in a transaction (execManyRaw) are the
// transaction's: gone when it rolls back, there when it commits; and every
// argument reaches SQLite as database/sql would have bound it.
func TestExecManyWritesInItsTransaction(t *testing.T) {
	db := openInternal(t)
	ctx := context.Background()
	f := factDB{db}
	if _, err := f.Exec(ctx, `CREATE TABLE t (a, b, c, d, e, f, g, h)`); err != nil {
		t.Fatal(err)
	}
	type label string
	n := 7
	at := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	row := []any{int(3), int64(-4), 2.5, "x", []byte{0, 1}, label("named"), &n, nil}
	insert := `INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	killed := errors.New("killed")
	err := f.Tx(ctx, func(c factsql.Conn) error {
		if err := c.ExecMany(ctx, insert, [][]any{row, row}); err != nil {
			return err
		}
		return killed
	})
	if !errors.Is(err, killed) {
		t.Fatalf("Tx = %v, want the function's error", err)
	}
	var count int
	if err := db.writer.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&count); err != nil || count != 0 {
		t.Fatalf("%d rows after a rolled back transaction, %v; want none", count, err)
	}
	if err := f.Tx(ctx, func(c factsql.Conn) error {
		return c.ExecMany(ctx, insert, [][]any{row, {true, at, nil, nil, nil, nil, nil, nil}})
	}); err != nil {
		t.Fatal(err)
	}
	var (
		a, b       int64
		c          float64
		d, named   string
		e          []byte
		g          int64
		h          any
		types      string
		flag       int64
		stamp      string
		afterTypes string
	)
	if err := db.writer.QueryRow(`SELECT a, b, c, d, e, f, g, h, typeof(a) || typeof(b) || typeof(c) || typeof(d) || typeof(e) || typeof(f) || typeof(g) || typeof(h)
		FROM t WHERE b = -4`).Scan(&a, &b, &c, &d, &e, &named, &g, &h, &types); err != nil {
		t.Fatal(err)
	}
	if a != 3 || b != -4 || c != 2.5 || d != "x" || string(e) != "\x00\x01" || named != "named" || g != 7 || h != nil ||
		types != "integerintegerrealtextblobtextintegernull" {
		t.Errorf("row = %v %v %v %q %v %q %v %v (%s)", a, b, c, d, e, named, g, h, types)
	}
	if err := db.writer.QueryRow(`SELECT a, b, typeof(a) || typeof(b) FROM t WHERE b <> -4`).Scan(&flag, &stamp, &afterTypes); err != nil {
		t.Fatal(err)
	}
	if flag != 1 || afterTypes != "integertext" || stamp[:10] != "2026-11-27" {
		t.Errorf("bool and time = %v %q (%s), want 1 and the time as text", flag, stamp, afterTypes)
	}
	err = f.Tx(ctx, func(c factsql.Conn) error {
		return c.ExecMany(ctx, insert, [][]any{{struct{}{}, nil, nil, nil, nil, nil, nil, nil}})
	})
	if err == nil {
		t.Error("a struct bound as an argument was taken")
	}
}

// The writer may sort with a helper thread a core beyond the first (up to
// writerSortThreads): SQLite's sorter splits a large sort among them.
func TestTheWriterSortsWithAHelperThreadACore(t *testing.T) {
	db := openInternal(t)
	var n int
	if err := db.writer.QueryRow(`PRAGMA threads`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if want := max(min(runtime.GOMAXPROCS(0)-1, writerSortThreads), 0); n != want {
		t.Errorf("PRAGMA threads = %d on the writer, want %d", n, want)
	}
}

// lateCancel is a context whose caller ends it while rows are written: its
// first look finds it live, every later one canceled.
type lateCancel struct {
	context.Context
	looks int
}

func (c *lateCancel) Err() error {
	c.looks++
	if c.looks > 1 {
		return context.Canceled
	}
	return nil
}

// Rows run under a context that cannot end, the caller's looked at every
// cancelEvery rows, on both ways ExecMany writes (the driver's statement
// in factDB.Tx, database/sql's in a record's transaction): a caller that
// goes stops the rows at the next look.
func TestExecManyStopsAtTheNextLookAfterItsCallerGoes(t *testing.T) {
	db := openInternal(t)
	ctx := context.Background()
	f := factDB{db}
	if _, err := f.Exec(ctx, `CREATE TABLE t (a)`); err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, cancelEvery*2+100)
	for i := range rows {
		rows[i] = []any{i}
	}
	count := func(c factsql.Conn) int {
		r, err := c.Query(ctx, `SELECT COUNT(*) FROM t`)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var n int
		for r.Next() {
			if err := r.Scan(&n); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	for _, way := range []string{"driver", "database/sql"} {
		var written int
		run := func(c factsql.Conn) error {
			err := c.ExecMany(&lateCancel{Context: ctx}, `INSERT INTO t VALUES (?)`, rows)
			written = count(c)
			return err
		}
		var err error
		if way == "driver" {
			err = f.Tx(ctx, run)
		} else {
			tx, terr := db.writer.BeginTx(ctx, nil)
			if terr != nil {
				t.Fatal(terr)
			}
			err = run(factTx{tx: tx})
			tx.Rollback()
		}
		if !errors.Is(err, context.Canceled) || written != cancelEvery {
			t.Errorf("%s: ExecMany = %v after %d rows; want canceled at the look after the first %d", way, err, written, cancelEvery)
		}
	}
}
