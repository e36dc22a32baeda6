package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// Section returns the stored value for (section, key), expired or not, or
// KindNotFound (section_not_found). Times come back in UTC with millisecond
// precision.
func (db *DB) Section(ctx context.Context, section, key string) (*providers.SectionRecord, error) {
	r := providers.SectionRecord{Section: section, Key: key}
	err := db.pool.QueryRow(ctx, queries.Section, section, key).
		Scan(&r.Data, &r.Source, &r.Vintage, &r.FetchedAt, &r.ExpiresAt, &r.Missing)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, rules.ErrSectionNotFound()
	}
	if err != nil {
		return nil, dbErr(ctx, err)
	}
	r.FetchedAt, r.ExpiresAt = utc(r.FetchedAt), utc(r.ExpiresAt)
	return &r, nil
}

// PutSection stores r, replacing any value for its (section, key). Times
// are truncated to the millisecond, as SQLite stores them. It returns
// KindInvalid for an empty section name or a time outside the years 1 to
// 9999 (which the SQLite engine cannot store, so neither does this one).
//
// Section values are a cache: the write commits without waiting for the
// write-ahead log to reach the disk (synchronous_commit off, for this
// transaction alone), the trade SQLite's synchronous=NORMAL makes (see
// package store's doc on durability). A crash of the server or its machine
// may lose the last values written, which are fetched again, and corrupts
// nothing; a value returned is visible to every reader at once. Waiting
// for the disk took 0.6 to 1.2 ms of each write here, twice in a request
// that fetches amenities and the walk score computed from them. The four
// statements go in one round trip.
func (db *DB) PutSection(ctx context.Context, r providers.SectionRecord) error {
	if err := rules.CheckSection(r); err != nil {
		return err
	}
	data := r.Data
	if data == nil {
		data = []byte{}
	}
	var b pgx.Batch
	b.Queue("BEGIN")
	b.Queue("SET LOCAL synchronous_commit TO OFF")
	b.Queue(queries.PutSection, r.Section, r.Key, data, r.Source, r.Vintage, rules.Stamp(r.FetchedAt), rules.Stamp(r.ExpiresAt), r.Missing)
	b.Queue("COMMIT")
	// A statement that fails leaves the transaction open and aborted: the
	// pool closes such a connection rather than reuse it.
	return dbErr(ctx, db.pool.SendBatch(ctx, &b).Close())
}
