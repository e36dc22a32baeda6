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
func (db *DB) PutSection(ctx context.Context, r providers.SectionRecord) error {
	if err := rules.CheckSection(r); err != nil {
		return err
	}
	data := r.Data
	if data == nil {
		data = []byte{}
	}
	_, err := db.pool.Exec(ctx, queries.PutSection, r.Section, r.Key, data, r.Source, r.Vintage, rules.Stamp(r.FetchedAt), rules.Stamp(r.ExpiresAt), r.Missing)
	return dbErr(ctx, err)
}
