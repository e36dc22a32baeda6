package hudfmr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// FairMarketRents returns HUD's fair market rents for the county with the
// five-digit FIPS code countyFIPS, for the configured year or HUD's latest.
//
// Errors: KindInvalid (invalid_parameter) when countyFIPS is not five
// digits, without calling the upstream; KindNotFound (fmr_not_found) when
// HUD has no data for the county and year; KindUnavailable
// (upstream_misconfigured) for a rejected token; KindUpstream with code
// upstream_rate_limited, upstream_rejected_input or upstream_error for other
// failures and unreadable answers; KindTimeout and KindCanceled from ctx.
func (c *Client) FairMarketRents(ctx context.Context, countyFIPS string) (*providers.FairMarketRents, error) {
	countyFIPS = strings.TrimSpace(countyFIPS)
	if !digits(countyFIPS, 5) {
		return nil, providers.Invalid("county_fips", "must be the five-digit state and county FIPS code")
	}
	entity := EntityID(countyFIPS)
	path := "data/" + entity
	if c.year != "" {
		path += "?" + url.Values{"year": {c.year}}.Encode()
	}
	body, err := c.get(ctx, path, entity)
	if err != nil {
		return nil, upstream.Scrub(err, c.Token)
	}
	fmr, err := c.decode(body, entity)
	// An answer may echo the request's headers, the token among them.
	return fmr, upstream.Scrub(err, c.Token)
}

// EntityID returns HUD's entity id of a county: its five-digit FIPS code
// followed by 99999 (no county subdivision).
func EntityID(countyFIPS string) string { return countyFIPS + "99999" }

// decode reads a data/<entityid> body.
func (c *Client) decode(body []byte, entity string) (*providers.FairMarketRents, error) {
	var doc dataDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, garbage(entity, body, err)
	}
	if doc.Data == nil {
		return nil, garbage(entity, body, errors.New("no data object"))
	}
	d := doc.Data
	rents, err := pickRents(d.BasicData)
	if err != nil {
		return nil, garbage(entity, body, err)
	}
	out := &providers.FairMarketRents{
		Year:       firstNonEmpty(d.Year.S, rents.Year.S, c.year),
		AreaName:   areaName(d),
		ByBedrooms: rents.byBedrooms(),
		Source:     Name,
	}
	if len(out.ByBedrooms) == 0 {
		return nil, garbage(entity, body, errors.New("no rent in basicdata"))
	}
	return out, nil
}

// areaName names the FMR area: area_name, else the metro of a metro county,
// else "town, county", else the county.
func areaName(d *areaDoc) string {
	area := strings.TrimSpace(d.AreaName.S)
	metro := strings.TrimSpace(d.MetroName.S)
	town := strings.TrimSpace(d.TownName.S)
	county := strings.TrimSpace(d.CountyName.S)
	switch {
	case area != "":
		return area
	case metro != "" && strings.TrimSpace(d.MetroStatus.S) == "1":
		return metro
	case town != "" && county != "":
		return town + ", " + county
	}
	return firstNonEmpty(county, town, metro)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// garbage returns a KindUpstream error for a 200 answer that cannot be read.
func garbage(entity string, body []byte, err error) error {
	return providers.Wrap(fmt.Errorf("hudfmr: %s: %w: %s", entity, err, snippet(body)),
		providers.KindUpstream, providers.CodeUpstreamError, "the HUD FMR API sent an unreadable answer")
}
