package hudfmr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// dataDoc is the body of GET data/<entityid>.
type dataDoc struct {
	Data *areaDoc `json:"data"`
}

// areaDoc is the "data" object. Only the fields propertyd uses are decoded;
// counties_msa and smallarea_status are ignored (basicdata's shape says
// whether Small Area FMRs apply).
type areaDoc struct {
	CountyName  text            `json:"county_name"`
	TownName    text            `json:"town_name"`
	MetroStatus text            `json:"metro_status"`
	MetroName   text            `json:"metro_name"`
	AreaName    text            `json:"area_name"`
	Year        text            `json:"year"`
	BasicData   json.RawMessage `json:"basicdata"`
}

// rentsDoc is one basicdata object or row.
type rentsDoc struct {
	ZIPCode      text  `json:"zip_code"`
	Efficiency   money `json:"Efficiency"`
	OneBedroom   money `json:"One-Bedroom"`
	TwoBedroom   money `json:"Two-Bedroom"`
	ThreeBedroom money `json:"Three-Bedroom"`
	FourBedroom  money `json:"Four-Bedroom"`
	Year         text  `json:"year"`
}

// byBedrooms returns the rents present in r keyed "0".."4".
func (r rentsDoc) byBedrooms() map[string]int {
	out := make(map[string]int, 5)
	for i, m := range []money{r.Efficiency, r.OneBedroom, r.TwoBedroom, r.ThreeBedroom, r.FourBedroom} {
		if m.Set {
			out[strconv.Itoa(i)] = m.Dollars
		}
	}
	return out
}

// msaLevel is the zip_code of the metro-wide row of a Small Area FMR answer.
const msaLevel = "msa level"

// pickRents returns the rents of basicdata: the object itself, or the
// "MSA level" row of an array of ZIP rows.
func pickRents(raw json.RawMessage) (rentsDoc, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return rentsDoc{}, fmt.Errorf("no basicdata")
	case raw[0] == '[':
		var rows []rentsDoc
		if err := json.Unmarshal(raw, &rows); err != nil {
			return rentsDoc{}, fmt.Errorf("basicdata rows: %w", err)
		}
		for _, r := range rows {
			if strings.EqualFold(strings.TrimSpace(r.ZIPCode.S), msaLevel) {
				return r, nil
			}
		}
		return rentsDoc{}, fmt.Errorf("basicdata has %d ZIP rows but no %q row", len(rows), "MSA level")
	}
	var r rentsDoc
	if err := json.Unmarshal(raw, &r); err != nil {
		return rentsDoc{}, fmt.Errorf("basicdata: %w", err)
	}
	return r, nil
}

// text is a JSON value meant as a string that may come as a string, a
// number, a boolean or null (empty).
type text struct{ S string }

// UnmarshalJSON accepts a string, a number, a boolean or null.
func (t *text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		t.S = ""
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &t.S)
	case len(b) > 0 && (b[0] == '{' || b[0] == '['):
		return fmt.Errorf("hudfmr: %s is not a text value", snippet(b))
	default:
		t.S = string(b)
	}
	return nil
}

// money is a rent in whole dollars that may come as an integer, a float, a
// numeric string such as "758.0", or null. Set is false for null, an empty
// string or an absent field.
type money struct {
	Set     bool
	Dollars int
}

// UnmarshalJSON accepts null, a number or a numeric string (with an
// optional "$" and thousands separators), rounding to whole dollars.
func (m *money) UnmarshalJSON(b []byte) error {
	f, set, err := upstream.LooseNumber(b, "$,")
	if !set && err == nil {
		*m = money{}
		return nil
	}
	if err != nil || math.IsNaN(f) || f < 0 || f > 1e7 {
		return fmt.Errorf("hudfmr: %s is not a rent", snippet(b))
	}
	*m = money{Set: true, Dollars: int(math.Round(f))}
	return nil
}
