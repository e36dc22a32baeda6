package femanfhl

import (
	"bytes"
	"encoding/json"

	"github.com/propertyd/propertyd/providers"
)

var _ providers.SectionUpgrader = (*Client)(nil)

// UpgradeSection is Upgrade: the service calls it on every flood value it
// reads back from its store. Safe for concurrent use.
func (c *Client) UpgradeSection(data []byte) []byte { return Upgrade(data) }

// currentMarker is a member only the current shape of a stored flood value
// has. In compact JSON a quoted name followed by ':' can only be a member
// name (a quote inside a string value is escaped), so finding it is exact.
var currentMarker = []byte(`"description":`)

// Upgrade returns a flood value stored as JSON by an older propertyd in the
// current shape of providers.Flood: the panel it named firm_panel and
// firm_panel_effective_date becomes panel_number and panel_effective_date,
// and the description, which it did not have, is derived from the zone and
// subtype. A current value (one with a description) is returned as is, after
// a scan for that one member; so is anything that is not a JSON object,
// which no version stored. Values are kept for their TTL (30 days by
// default) and served stale past it, so without this an upgrade would keep
// serving the old names to clients reading the new ones. Pure and safe for
// concurrent use.
func Upgrade(data []byte) []byte {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' || bytes.Contains(t, currentMarker) {
		return data
	}
	var old struct {
		providers.Flood
		FIRMPanel              *string `json:"firm_panel"`
		FIRMPanelEffectiveDate *string `json:"firm_panel_effective_date"`
	}
	if err := json.Unmarshal(data, &old); err != nil {
		return data
	}
	f := old.Flood
	if f.PanelNumber == nil {
		f.PanelNumber = old.FIRMPanel
	}
	if f.PanelEffectiveDate == nil {
		f.PanelEffectiveDate = old.FIRMPanelEffectiveDate
	}
	f.Description = Description(deref(f.Zone), deref(f.ZoneSubtype))
	out, err := json.Marshal(f)
	if err != nil {
		return data
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
