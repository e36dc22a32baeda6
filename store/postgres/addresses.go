package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/addrsql"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// addrDialect is PostgreSQL's statements for address points and ranges:
// a list of generations is one bigint[] argument, which prunes the
// partitions of address_points and address_ranges to the generations
// named (migration 0025). A batch is copied (COPY, binary) into its
// generation's tables, its ids the sequences' defaults, and its commit
// does not wait for the server's log to reach the disk: a load commits a
// batch every few milliseconds, and a commit the server loses in a crash
// loses the batch's checkpoint with its rows, so the load resumes before
// them and writes no row twice.
var addrDialect = &addrsql.Dialect{
	Param:  dialect.Param,
	In:     func(column, param string) string { return column + " = ANY(" + param + "::bigint[])" },
	List:   func(generations []int64) any { return generations },
	Copy:   true,
	Batch:  `SET LOCAL synchronous_commit = off`,
	Tables: addrTables{},
}

var addrStatements = addrsql.Build(addrDialect)

// newAddresses returns the address points and ranges over db, built once
// by Open.
func (db *DB) newAddresses() addrsql.Addresses {
	return addrsql.Addresses{DB: factDB{db}, S: addrStatements, Life: db.newLifecycle()}
}

// addrTables keeps a generation's points and ranges in tables of their
// own (migration 0025's functions): created apart, indexed and attached
// as partitions by the publication, dropped whole.
type addrTables struct{}

func (addrTables) Create(ctx context.Context, c sqlshared.Conn, gen int64) error {
	_, err := c.Exec(ctx, `SELECT address_stage($1)`, gen)
	return err
}

func (addrTables) Publish(ctx context.Context, c sqlshared.Conn, gen int64) error {
	_, err := c.Exec(ctx, `SELECT address_publish($1)`, gen)
	return err
}

// addrGuard bounds the wait of a drop for the lock dropping a partition
// takes on its partitioned table (ACCESS EXCLUSIVE): every read of the
// table queues behind a statement waiting for it. A fifth of a second at
// most, addrTries times, addrPause apart so that the reads queued run in
// between; then the generation is kept for a later drop.
const (
	addrGuard = `SET LOCAL lock_timeout = '200ms'`
	addrTries = 20
	addrPause = 100 * time.Millisecond
)

// Drop drops the generation's tables under addrGuard.
func (addrTables) Drop(ctx context.Context, db sqlshared.DB, gen int64) error {
	for try := 1; ; try++ {
		err := db.Tx(ctx, func(c sqlshared.Conn) error {
			if _, err := c.Exec(ctx, addrGuard); err != nil {
				return err
			}
			_, err := c.Exec(ctx, `SELECT address_drop($1)`, gen)
			return err
		})
		if !lockNotAvailable(err) {
			return err
		}
		if try == addrTries {
			return fmt.Errorf("addresses: generation %d: its tables are busy: %w", gen, providers.ErrKeep)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(addrPause):
		}
	}
}
