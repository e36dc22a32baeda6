package postgres

import "github.com/propertyd/propertyd/store/internal/addrsql"

// addrDialect is PostgreSQL's statements for address points and ranges:
// a list of generations is one bigint[] argument, which the index's
// generation column takes as = ANY (migration 0024). A batch is copied
// (COPY, binary), its ids the sequences' defaults.
var addrDialect = &addrsql.Dialect{
	Param: dialect.Param,
	In:    func(column, param string) string { return column + " = ANY(" + param + "::bigint[])" },
	List:  func(generations []int64) any { return generations },
	Copy:  true,
}

var addrStatements = addrsql.Build(addrDialect)

// newAddresses returns the address points and ranges over db, built once
// by Open.
func (db *DB) newAddresses() addrsql.Addresses {
	return addrsql.Addresses{DB: factDB{db}, S: addrStatements, Life: db.newLifecycle()}
}
