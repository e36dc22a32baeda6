package store

import (
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/store/internal/addrsql"
)

// addrDialect is SQLite's statements for address points and ranges: a
// list of generations is one argument, a JSON array the lookup reads with
// json_each, which SQLite takes as the values of an IN and seeks the
// index once for each (migration 0024). A batch is inserted a row at a
// time on one prepared statement of the writer (ExecMany), which costs
// SQLite no parse a row; the one writer makes the engine Serial.
var addrDialect = &addrsql.Dialect{
	Param: factDialect.Param,
	In:    func(column, param string) string { return column + " IN (SELECT value FROM json_each(" + param + "))" },
	List: func(generations []int64) any {
		var b strings.Builder
		b.WriteByte('[')
		for i, g := range generations {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(g, 10))
		}
		b.WriteByte(']')
		return b.String()
	},
	Serial: true,
}

var addrStatements = addrsql.Build(addrDialect)

// newAddresses returns the address points and ranges over db, built once
// by Open.
func (db *DB) newAddresses() addrsql.Addresses {
	return addrsql.Addresses{DB: factDB{db}, S: addrStatements, Life: db.newLifecycle()}
}
