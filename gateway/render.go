package gateway

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/property"
)

// propertyView is the JSON shape of a property record. Unknown values are
// null, never "" (a reverse-geocoded record has no street address).
type propertyView struct {
	ID            int64     `json:"id"`
	StreetAddress *string   `json:"street_address"`
	Unit          *string   `json:"unit"`
	City          *string   `json:"city"`
	State         *string   `json:"state"`
	ZipCode       *string   `json:"zip_code"`
	County        *string   `json:"county"`
	FIPSCode      *string   `json:"fips_code"`
	CensusTract   *string   `json:"census_tract"`
	Latitude      float64   `json:"latitude"`
	Longitude     float64   `json:"longitude"`
	PropertyType  *string   `json:"property_type"`
	Bedrooms      *int      `json:"bedrooms"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func viewOf(p *providers.Property) propertyView {
	return propertyView{
		ID: p.ID, StreetAddress: nullable(p.StreetAddress), Unit: nullable(p.Unit), City: nullable(p.City),
		State: nullable(p.State), ZipCode: nullable(p.ZipCode), County: nullable(p.County),
		FIPSCode: nullable(p.FIPSCode), CensusTract: nullable(p.CensusTract),
		Latitude: p.Latitude, Longitude: p.Longitude, PropertyType: p.PropertyType, Bedrooms: p.Bedrooms,
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
	}
}

// field is one extra member appended to a JSON object.
type field struct {
	name  string
	value any
}

// objectWith marshals v (a JSON object) and appends the extra members, in
// order; a json.RawMessage value is written as is.
func objectWith(v any, extra ...field) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var buf bytes.Buffer
	buf.Grow(len(b) + 64*len(extra))
	buf.Write(b[:len(b)-1])
	for _, f := range extra {
		buf.WriteByte(',')
		name, _ := json.Marshal(f.name)
		buf.Write(name)
		buf.WriteByte(':')
		switch x := f.value.(type) {
		case json.RawMessage:
			if x == nil {
				buf.WriteString("null")
			} else {
				buf.Write(x)
			}
		default:
			vb, err := json.Marshal(x)
			if err != nil {
				return nil, err
			}
			buf.Write(vb)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// sectionFields renders included sections as members of the record. The
// include form of flood names its zone and risk zone_code and
// flood_risk_level, to read unambiguously beside the property's own fields.
func sectionFields(names []string, secs map[string]property.SectionResult) []field {
	out := make([]field, 0, len(names))
	for _, name := range names {
		data := secs[name].Data
		if name == providers.SectionFlood && data != nil {
			data = renameKeys(data, map[string]string{"zone": "zone_code", "risk_level": "flood_risk_level"})
		}
		out = append(out, field{name, data})
	}
	return out
}

// renameKeys renames top-level members of a JSON object.
func renameKeys(obj json.RawMessage, names map[string]string) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return obj
	}
	for from, to := range names {
		if v, ok := m[from]; ok {
			delete(m, from)
			m[to] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return obj
	}
	return b
}

func sectionMetas(names []string, secs map[string]property.SectionResult) map[string]providers.SectionMeta {
	if len(names) == 0 {
		return nil
	}
	out := make(map[string]providers.SectionMeta, len(names))
	for _, name := range names {
		out[name] = secs[name].Meta
	}
	return out
}

// recordMeta is the meta of a single-record response.
type recordMeta struct {
	Source   string                           `json:"source"`
	Created  *bool                            `json:"created,omitempty"`
	Sections map[string]providers.SectionMeta `json:"sections,omitempty"`
}

// envelope writes {"data": data, "meta": meta}.
func envelope(data []byte, meta any) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(data) + 128)
	buf.WriteString(`{"data":`)
	buf.Write(data)
	if meta != nil {
		mb, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		buf.WriteString(`,"meta":`)
		buf.Write(mb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
