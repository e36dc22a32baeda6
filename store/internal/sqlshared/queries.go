package sqlshared

import "strings"

// PropertyColumns is the column list every property query selects, in the
// order both engines' scanProperty read them.
const PropertyColumns = `p.id, p.street_address, p.unit, p.city, p.state, p.zip_code, p.county,
	p.fips_code, p.census_tract, p.latitude, p.longitude, p.property_type, p.bedrooms,
	p.bathrooms, p.living_area_sqft, p.lot_sqft, p.year_built, p.stories, p.units, COALESCE(p.facts, ''),
	COALESCE(p.first_match, ''), p.source, p.created_at, p.updated_at`

// sectionColumns is the column list of a section value after its section
// and key, in the order both engines scan them.
const sectionColumns = `data, source, vintage, fetched_at, expires_at, missing`

// putSection writes a section value over any stored one for its (section,
// key); CopySection adds a condition to it.
const putSection = `INSERT INTO sections (section, key, ` + sectionColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (section, key) DO UPDATE SET data = excluded.data, source = excluded.source,
		vintage = excluded.vintage, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at,
		missing = excluded.missing`

// Queries are one engine's statements, ready to send: the shared text with
// the engine's placeholders, and the engine's own text where the dialects
// differ. Build makes them once; the zero value is not usable. Each
// field's comment lists the arguments in order.
type Queries struct {
	d *Dialect
	// params holds the placeholders a search uses (params[n] for the n-th
	// argument), so building its SQL makes no placeholder text.
	params [maxSearchArgs + 1]string

	// PropertyByID selects PropertyColumns of the record with an id.
	PropertyByID string
	// PropertyByKey selects PropertyColumns of the record a key resolves to.
	PropertyByKey string
	// InsertProperty creates a record unless its (canonical, unit) exists,
	// returning its id: street_address, unit, city, state, zip_code,
	// county, fips_code, census_tract, latitude, longitude, property_type,
	// bedrooms, canonical, source, created_at, updated_at, facts_key,
	// match.
	InsertProperty string
	// PropertyIDAt selects the id of the record at canonical, unit.
	PropertyIDAt string

	// Section selects data, source, vintage, fetched_at, expires_at and
	// missing of section, key.
	Section string
	// PutSection writes section, key and the columns Section selects over
	// any stored value.
	PutSection string
	// CopySection is PutSection that keeps a stored value fetched as late
	// or later.
	CopySection string

	// Counts selects how many records and section values there are.
	Counts string
	// ListRecords selects PropertyColumns and the canonical address ('' for
	// none) of up to limit records after an id, in id order: id, limit.
	ListRecords string
	// ListKeys selects key and property_id of the keys of the records whose
	// ids are between first and last, in key order.
	ListKeys string
	// CopyProperty inserts a record as it is, id, canonical, times and
	// facts included, doing nothing on any conflict: id, then
	// InsertProperty's arguments, then bathrooms, living_area_sqft,
	// lot_sqft, year_built, stories, units, facts and match.
	CopyProperty string
	// ListSections selects section, key and Section's columns of up to
	// limit values after (section, key), in that order.
	ListSections string

	// SchemaVersion selects the highest applied migration, 0 for none.
	SchemaVersion string
	// MigrationApplied counts the applied migrations with a version.
	MigrationApplied string
	// RecordMigration records a migration as applied: version, name.
	RecordMigration string

	// Nearest, SaveKeys, CopyKeys and CreateMigrations are the Dialect's.
	Nearest, SaveKeys, CopyKeys, CreateMigrations string
}

// Build returns d's statements. Engines call it once, for a package
// variable, so no statement is built per query; d must not change after.
func Build(d *Dialect) *Queries {
	bind := func(sql string) string { return bind(sql, d.Param) }
	q := &Queries{
		d: d,

		PropertyByID: bind("SELECT " + PropertyColumns + " FROM properties p WHERE p.id = ?"),
		PropertyByKey: bind("SELECT " + PropertyColumns + ` FROM property_keys k
			JOIN properties p ON p.id = k.property_id WHERE k.key = ?`),
		InsertProperty: bind(`INSERT INTO properties (street_address, unit, city, state, zip_code,
				county, fips_code, census_tract, latitude, longitude, property_type, bedrooms, canonical,
				source, created_at, updated_at, facts_key, first_match)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (canonical, unit) DO NOTHING
			RETURNING id`),
		PropertyIDAt: bind("SELECT id FROM properties WHERE canonical = ? AND unit = ?"),

		Section:     bind("SELECT " + sectionColumns + " FROM sections WHERE section = ? AND key = ?"),
		PutSection:  bind(putSection),
		CopySection: bind(putSection + "\n\tWHERE sections.fetched_at < excluded.fetched_at"),

		Counts: "SELECT (SELECT COUNT(*) FROM properties), (SELECT COUNT(*) FROM sections)",
		ListRecords: bind("SELECT " + PropertyColumns + `, COALESCE(p.canonical, '')
			FROM properties p WHERE p.id > ? ORDER BY p.id LIMIT ?`),
		ListKeys: bind(`SELECT key, property_id FROM property_keys
			WHERE property_id BETWEEN ? AND ? ORDER BY key`),
		CopyProperty: bind(`INSERT INTO properties (id, street_address, unit, city, state, zip_code,
				county, fips_code, census_tract, latitude, longitude, property_type, bedrooms, canonical,
				source, created_at, updated_at, facts_key, bathrooms, living_area_sqft, lot_sqft, year_built,
				stories, units, facts, first_match)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`),
		ListSections: bind("SELECT section, key, " + sectionColumns + `
			FROM sections WHERE (section, key) > (?, ?) ORDER BY section, key LIMIT ?`),

		SchemaVersion:    "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
		MigrationApplied: bind("SELECT COUNT(*) FROM schema_migrations WHERE version = ?"),
		RecordMigration:  bind("INSERT INTO schema_migrations (version, name) VALUES (?, ?)"),

		Nearest:          d.Nearest,
		SaveKeys:         d.SaveKeys,
		CopyKeys:         d.CopyKeys,
		CreateMigrations: d.CreateMigrations,
	}
	for n := 1; n <= maxSearchArgs; n++ {
		q.params[n] = d.Param(n)
	}
	return q
}

// bind replaces the n-th '?' of sql with param(n). The shared statements
// hold no '?' but placeholders (no string literal or operator uses one).
func bind(sql string, param func(n int) string) string { return Bind(sql, param) }

// Bind replaces the n-th '?' of sql with param(n): a statement written once
// in '?' placeholders, in an engine's own.
func Bind(sql string, param func(n int) string) string {
	var b strings.Builder
	n := 0
	for {
		i := strings.IndexByte(sql, '?')
		if i < 0 {
			b.WriteString(sql)
			return b.String()
		}
		n++
		b.WriteString(sql[:i])
		b.WriteString(param(n))
		sql = sql[i+1:]
	}
}
