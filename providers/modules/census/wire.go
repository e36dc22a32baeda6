package census

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/tiger"
)

// The wire types decode only what a Location needs; every other field of the
// answer (OID, POP100, AREALAND, ...) is ignored, so their type drift between
// vintages cannot break decoding.

type result struct {
	AddressMatches []addressMatch `json:"addressMatches"`
	Geographies    geographies    `json:"geographies"` // coordinates searches only
}

type addressMatch struct {
	MatchedAddress    string            `json:"matchedAddress"`
	Coordinates       *coordinates      `json:"coordinates"`
	AddressComponents addressComponents `json:"addressComponents"`
	Geographies       geographies       `json:"geographies"`
}

type coordinates struct {
	X *number `json:"x"` // longitude
	Y *number `json:"y"` // latitude
}

type addressComponents struct {
	City  text `json:"city"`
	State text `json:"state"`
	Zip   text `json:"zip"`
}

// geographies maps a layer name to its raw array; entries are decoded one by
// one so that an error object or an odd entry only loses itself.
type geographies map[string]json.RawMessage

// geography is the part of a layer entry used here. An error entry has only
// Status.
type geography struct {
	GEOID    text `json:"GEOID"`
	STATE    text `json:"STATE"`
	COUNTY   text `json:"COUNTY"`
	TRACT    text `json:"TRACT"`
	NAME     text `json:"NAME"`
	BASENAME text `json:"BASENAME"`
	STUSAB   text `json:"STUSAB"` // USPS state code, on the States layer
	Status   text `json:"status"`
}

func (g geography) valid() bool {
	return g.Status == "" && (g.GEOID != "" || g.NAME != "")
}

// text is a string field that also accepts a number, a boolean or null, so
// a field that changes type between vintages still decodes.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*t = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = text(strings.TrimSpace(s))
	case len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9') || b[0] == 't' || b[0] == 'f'):
		*t = text(b)
	default:
		return errors.New("census: expected a string, got " + string(b))
	}
	return nil
}

// number is a float field that also accepts a numeric string.
type number float64

func (n *number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return errors.New("census: expected a number, got " + string(b))
	}
	*n = number(f)
	return nil
}

// Layer kinds looked up in a geographies block.
const (
	statesLayer   = "states"
	countiesLayer = "counties"
	tractsLayer   = "census tracts"
)

// layerKeys returns the keys of g naming the wanted layer, best first: the
// exact name (case-insensitive), then other names containing it, such as a
// year-prefixed "2020 Census Tracts", in sorted order. Tribal layers
// ("Tribal Census Tracts") are a different geography and never match.
func (g geographies) layerKeys(want string) []string {
	var exact, other []string
	for k := range g {
		norm := strings.ToLower(strings.Join(strings.Fields(k), " "))
		switch {
		case norm == want:
			exact = append(exact, k)
		case strings.Contains(norm, want) && !strings.Contains(norm, "tribal"):
			other = append(other, k)
		}
	}
	sort.Strings(exact)
	sort.Strings(other)
	return append(exact, other...)
}

// first returns the first real geography of the wanted layer, skipping
// error objects and entries that do not decode.
func (g geographies) first(want string) (geography, bool) {
	for _, k := range g.layerKeys(want) {
		var entries []json.RawMessage
		if json.Unmarshal(g[k], &entries) != nil {
			continue
		}
		for _, raw := range entries {
			var geo geography
			if json.Unmarshal(raw, &geo) != nil || !geo.valid() {
				continue
			}
			return geo, true
		}
	}
	return geography{}, false
}

// fillGeographies sets County, FIPSCode and CensusTract of loc from g
// through tiger.Locate, the definition loaded TIGER/Line boundaries share,
// and State from the States layer when loc has none (a reverse lookup), and
// reports whether a county was found.
func fillGeographies(loc *providers.Location, g geographies) bool {
	if st, ok := g.first(statesLayer); ok && loc.State == "" && len(st.STUSAB) == 2 {
		loc.State = strings.ToUpper(string(st.STUSAB))
	}
	var county *tiger.County
	if c, ok := g.first(countiesLayer); ok {
		county = c.county()
	}
	var tract *tiger.Tract
	if t, ok := g.first(tractsLayer); ok {
		tract = t.tract()
	}
	place, found := tiger.Locate(county, tract)
	loc.County, loc.FIPSCode, loc.CensusTract = place.County, place.FIPSCode, place.CensusTract
	return found
}

// county and tract read an entry of the Counties or Census Tracts layer in
// TIGER/Line's names: the layers are TIGERweb's, whose STATE, COUNTY and
// TRACT are STATEFP, COUNTYFP and TRACTCE, whose BASENAME is TIGER/Line's
// NAME and whose NAME is its NAMELSAD ("Fairfax County").
func (g geography) county() *tiger.County {
	return &tiger.County{StateFP: string(g.STATE), CountyFP: string(g.COUNTY), GEOID: string(g.GEOID),
		Name: string(g.BASENAME), NameLSAD: string(g.NAME)}
}

func (g geography) tract() *tiger.Tract {
	return &tiger.Tract{StateFP: string(g.STATE), CountyFP: string(g.COUNTY), TractCE: string(g.TRACT),
		GEOID: string(g.GEOID), Name: string(g.BASENAME), NameLSAD: string(g.NAME)}
}
