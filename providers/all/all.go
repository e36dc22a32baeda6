// Package all registers every provider module that ships with propertyd.
// A binary imports it once for its side effects (Caddy's
// modules/standard/imports.go); a test or a custom build may instead import
// only the modules it wants.
package all

import (
	// Each import registers its module(s) in providers.Default.
	_ "github.com/propertyd/propertyd/providers/census"
	_ "github.com/propertyd/propertyd/providers/censusacs"
	_ "github.com/propertyd/propertyd/providers/femanfhl"
	_ "github.com/propertyd/propertyd/providers/hudfmr"
	_ "github.com/propertyd/propertyd/providers/osmwalk"
	_ "github.com/propertyd/propertyd/providers/overpass"
	_ "github.com/propertyd/propertyd/providers/walkscore"
)
