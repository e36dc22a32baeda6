// Package all registers every provider module that ships with propertyd.
// A binary imports it once for its side effects (Caddy's
// modules/standard/imports.go); a test or a custom build may instead import
// only the modules it wants.
package all

import (
	// Each import registers its module(s) in providers.Default.
	_ "github.com/propertyd/propertyd/providers/modules/census"
	_ "github.com/propertyd/propertyd/providers/modules/censusacs"
	_ "github.com/propertyd/propertyd/providers/modules/femanfhl"
	_ "github.com/propertyd/propertyd/providers/modules/hudfmr"
	_ "github.com/propertyd/propertyd/providers/modules/osmwalk"
	_ "github.com/propertyd/propertyd/providers/modules/overpass"
	_ "github.com/propertyd/propertyd/providers/modules/walkscore"

	// Each import registers its kind(s) of dataset loaded from files in
	// the catalogue of package dataload.
	_ "github.com/propertyd/propertyd/providers/addrfile"
	_ "github.com/propertyd/propertyd/providers/assessor"
	_ "github.com/propertyd/propertyd/providers/floodmap"
	_ "github.com/propertyd/propertyd/providers/osmextract"
	_ "github.com/propertyd/propertyd/providers/tiger"
)
