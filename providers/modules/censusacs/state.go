package censusacs

import (
	"context"
	"fmt"
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// maxStateBody bounds how much of a state-wide answer is read. California,
// the largest, has about 9,100 tracts; at some 300 bytes a row its answer
// is under 3 MB.
const maxStateBody = 32 << 20

var (
	_ providers.StateDemographicsProvider = (*Client)(nil)
	_ providers.StateHousingProvider      = (*Client)(nil)
)

// StateURL returns the URL asking base for NAME and vars of every tract of
// the state with FIPS code state in the ACS 5-year release of year, as the
// upstream documents a tract query within a state alone:
// for=tract:*&in=state:<st>, the wildcard literal. The key parameter is
// added only when key is not empty.
func StateURL(base, year string, vars []string, state, key string) string {
	return queryURL(base, year, vars, "tract:*", "state:"+state, key)
}

// Covers reports whether the ACS 5-year publishes tract figures for the
// state with FIPS code state: the 50 states and DC (codes up to 56) and
// Puerto Rico (72). The island areas (American Samoa, Guam, the Northern
// Mariana Islands, the Virgin Islands) are not in the ACS.
func Covers(state string) bool {
	return checkState(state) == nil && (state <= "56" || state == "72")
}

// StateDemographics returns the demographics of every tract of the state
// with FIPS code state, keyed by GEOID, from one request (or as many as
// MaxVariables requires). A state the ACS does not cover (see Covers: the
// island areas) is an empty map, without a call. It returns KindInvalid
// for a state that is not two digits, and otherwise the errors of
// Demographics (never tract_not_found). An answer any row of which cannot
// be read fails whole, as upstream_bad_response, and so does an answer
// without rows (HTTP 204, an empty body, a header alone): every state the
// ACS covers has tracts, so such an answer is a failure to retry, never
// the state's figures.
func (c *Client) StateDemographics(ctx context.Context, state string) (map[string]*providers.Demographics, error) {
	rows, year, err := c.fetchState(ctx, state, DemographicsVariables)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*providers.Demographics, len(rows))
	for id, row := range rows {
		d, err := DemographicsFrom(providers.Tract{State: id[:2], County: id[2:5], Tract: id[5:]}, row, year)
		if err != nil {
			return nil, err
		}
		out[id] = d
	}
	return out, nil
}

// StateHousing is StateDemographics for the housing figures, as Housing
// returns them one tract at a time.
func (c *Client) StateHousing(ctx context.Context, state string) (map[string]*providers.Housing, error) {
	rows, year, err := c.fetchState(ctx, state, HousingVariables)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*providers.Housing, len(rows))
	for id, row := range rows {
		h, err := HousingFrom(row, year)
		if err != nil {
			return nil, err
		}
		out[id] = h
	}
	return out, nil
}

// fetchState asks for vars of every tract of state, in as many requests as
// MaxVariables requires, and returns each tract's row, with the columns of
// all answers, by GEOID, and the year of the release they are from.
func (c *Client) fetchState(ctx context.Context, state string, vars []string) (map[string]Row, string, error) {
	if err := checkState(state); err != nil {
		return nil, "", err
	}
	if !Covers(state) {
		return map[string]Row{}, "", nil
	}
	year := c.year(ctx)
	merged := map[string]Row{}
	for _, chunk := range chunks(vars) {
		rows, err := c.get(ctx, StateURL(c.base, year, chunk, state, c.key), maxStateBody)
		if providers.CodeOf(err) == providers.CodeTractNotFound || (err == nil && len(rows) == 0) {
			// 204, an empty body or a header alone: every state the
			// ACS covers has tracts, so the answer is wrong, not the
			// news that there are none (which would be remembered as
			// such for a year).
			return nil, "", badResponse(fmt.Errorf("the answer for state %s holds no tract", state))
		}
		if err != nil {
			return nil, "", err
		}
		for _, r := range rows {
			id, err := rowGEOID(r, state)
			if err != nil {
				return nil, "", err
			}
			m := merged[id]
			if m == nil {
				m = Row{}
				merged[id] = m
			}
			for k, v := range r {
				m[k] = v
			}
		}
	}
	return merged, year, nil
}

// rowGEOID is the GEOID of a row of a state-wide answer, from its geography
// columns; a row without them, or of another state, makes the answer
// unreadable.
func rowGEOID(r Row, state string) (string, error) {
	t := providers.Tract{State: r.Raw(ColState), County: r.Raw(ColCounty), Tract: r.Raw(ColTract)}
	if checkTract(t) != nil || t.State != state {
		return "", badResponse(fmt.Errorf("a row of the answer for state %s names tract %q %q %q", state, t.State, t.County, t.Tract))
	}
	return t.GEOID(), nil
}

// checkState rejects a state that is not a two-digit FIPS code, so nothing
// odd reaches the upstream's query string.
func checkState(state string) error {
	if len(state) != 2 || strings.Trim(state, "0123456789") != "" {
		return providers.Invalid("state", fmt.Sprintf("state code %q is not 2 digits", state))
	}
	return nil
}
