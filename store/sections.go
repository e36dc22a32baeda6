package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// Section returns the stored value for (section, key), expired or not, or
// KindNotFound (section_not_found). Times come back in UTC with millisecond
// precision.
func (db *DB) Section(ctx context.Context, section, key string) (*providers.SectionRecord, error) {
	var (
		r                = providers.SectionRecord{Section: section, Key: key}
		fetched, expires string
	)
	err := db.readers.QueryRowContext(ctx, queries.Section, section, key).
		Scan(&r.Data, &r.Source, &r.Vintage, &fetched, &expires, &r.Missing)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, rules.ErrSectionNotFound()
	}
	if err != nil {
		return nil, dbErr(ctx, err)
	}
	if r.FetchedAt, err = parseTime(fetched); err != nil {
		return nil, dbErr(ctx, err)
	}
	if r.ExpiresAt, err = parseTime(expires); err != nil {
		return nil, dbErr(ctx, err)
	}
	return &r, nil
}

// PutSection stores r, replacing any value for its (section, key). It
// returns KindInvalid for an empty section name or a time outside the years
// 1 to 9999 (which the stored text form cannot hold).
func (db *DB) PutSection(ctx context.Context, r providers.SectionRecord) error {
	if err := rules.CheckSection(r); err != nil {
		return err
	}
	data := r.Data
	if data == nil {
		data = []byte{}
	}
	conn, done, err := db.writeConn(ctx)
	if err != nil {
		return err
	}
	defer done()
	_, err = conn.ExecContext(ctx, queries.PutSection, r.Section, r.Key, data, r.Source, r.Vintage, formatTime(r.FetchedAt), formatTime(r.ExpiresAt), r.Missing)
	return dbErr(ctx, err)
}
