package censusacs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// SentinelThreshold is the largest value read as "no value": the Bureau
// writes estimates it could not compute or will not show as large negative
// codes (-666666666, -999999999, -888888888, -555555555, -333333333,
// -222222222), and no real ACS figure comes near it.
const SentinelThreshold = -100000000

// Geography columns the upstream appends to every header of a tract query.
const (
	ColState  = "state"
	ColCounty = "county"
	ColTract  = "tract"
)

// Row is one geography of an answer: its raw values by header name. A JSON
// null (annotation columns without annotation) is a nil. Rows are read-only
// once decoded and safe for concurrent reads.
type Row map[string]*string

// Int returns the named value as an integer, rounding a decimal string, or
// nil when the value is null, empty or a sentinel. It fails with KindUpstream
// (code upstream_bad_response) when the column is absent or not a number.
func (r Row) Int(name string) (*int64, error) {
	f, err := r.Float(name)
	if f == nil || err != nil {
		return nil, err
	}
	n := int64(math.Round(*f))
	return &n, nil
}

// Float returns the named value as a number, or nil when the value is null,
// empty or a sentinel. Errors as for Int.
func (r Row) Float(name string) (*float64, error) {
	v, ok := r[name]
	if !ok {
		return nil, badResponse(fmt.Errorf("answer has no column %q", name))
	}
	if v == nil {
		return nil, nil
	}
	s := strings.TrimSpace(*v)
	if s == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, badResponse(fmt.Errorf("column %q holds %q, not a number", name, s))
	}
	if IsSentinel(f) {
		return nil, nil
	}
	return &f, nil
}

// Raw returns the named value as the upstream wrote it, "" when it is null
// or absent.
func (r Row) Raw(name string) string {
	if v := r[name]; v != nil {
		return *v
	}
	return ""
}

// IsSentinel reports whether v is one of the Bureau's "no value" codes
// rather than a figure.
func IsSentinel(v float64) bool { return v <= SentinelThreshold }

// Decode parses an ACS answer body: a JSON array of arrays whose first row
// is the header. It returns one Row per later row, keyed by the header
// names; a header without rows gives no Rows and no error. Values may be
// JSON strings, numbers (kept as their text) or null. Anything else, rows
// longer or shorter than the header, or an empty header fail with
// KindUpstream, code upstream_bad_response.
func Decode(body []byte) ([]Row, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var table [][]any
	if err := dec.Decode(&table); err != nil {
		return nil, badResponse(fmt.Errorf("decoding the answer: %w", err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badResponse(fmt.Errorf("trailing data after the answer"))
	}
	if len(table) == 0 || len(table[0]) == 0 {
		return nil, badResponse(fmt.Errorf("answer has no header row"))
	}
	header := make([]string, len(table[0]))
	for i, h := range table[0] {
		s, ok := h.(string)
		if !ok || s == "" {
			return nil, badResponse(fmt.Errorf("header column %d is %v, not a name", i, h))
		}
		header[i] = s
	}
	rows := make([]Row, 0, len(table)-1)
	for n, raw := range table[1:] {
		if len(raw) != len(header) {
			return nil, badResponse(fmt.Errorf("row %d has %d values for %d columns", n+1, len(raw), len(header)))
		}
		row := make(Row, len(header))
		for i, v := range raw {
			switch v := v.(type) {
			case nil:
				row[header[i]] = nil
			case string:
				row[header[i]] = &v
			case json.Number:
				s := v.String()
				row[header[i]] = &s
			default:
				return nil, badResponse(fmt.Errorf("row %d column %q holds %v", n+1, header[i], v))
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// Select returns the row of rows that describes t, matched on its state,
// county and tract columns. A single row without geography columns is taken
// as is. No match is KindNotFound, code tract_not_found.
func Select(rows []Row, t providers.Tract) (Row, error) {
	for _, r := range rows {
		_, hasGeo := r[ColTract]
		if !hasGeo && len(rows) == 1 {
			return r, nil
		}
		if r.Raw(ColState) == t.State && r.Raw(ColCounty) == t.County && r.Raw(ColTract) == t.Tract {
			return r, nil
		}
	}
	return nil, tractNotFound(t)
}

func tractNotFound(t providers.Tract) *providers.Error {
	return providers.NotFound(providers.CodeTractNotFound,
		"the Census ACS has no figures for census tract "+t.GEOID())
}

func badResponse(cause error) *providers.Error {
	return providers.Wrap(cause, providers.KindUpstream, providers.CodeUpstreamBadResponse,
		"the census ACS API sent an answer that could not be read")
}
