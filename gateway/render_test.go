package gateway

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// propertyView is the documented JSON shape of a record, as encoding/json
// writes it: the reference appendRecord must match byte for byte.
type propertyView struct {
	ID            int64           `json:"id"`
	StreetAddress *string         `json:"street_address"`
	Unit          *string         `json:"unit"`
	City          *string         `json:"city"`
	State         *string         `json:"state"`
	ZipCode       *string         `json:"zip_code"`
	County        *string         `json:"county"`
	FIPSCode      *string         `json:"fips_code"`
	CensusTract   *string         `json:"census_tract"`
	Latitude      float64         `json:"latitude"`
	Longitude     float64         `json:"longitude"`
	PropertyType  *string         `json:"property_type"`
	Bedrooms      *int            `json:"bedrooms"`
	Bathrooms     *float64        `json:"bathrooms"`
	LivingArea    *int            `json:"living_area_sqft"`
	Lot           *int            `json:"lot_sqft"`
	YearBuilt     *int            `json:"year_built"`
	Stories       *float64        `json:"stories"`
	Units         *int            `json:"units"`
	Facts         json.RawMessage `json:"facts"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func viewOf(p *providers.Property) propertyView {
	facts := json.RawMessage("null")
	if p.FactsOrigin != "" {
		facts = json.RawMessage(p.FactsOrigin)
	}
	return propertyView{
		ID: p.ID, StreetAddress: nullable(p.StreetAddress), Unit: nullable(p.Unit), City: nullable(p.City),
		State: nullable(p.State), ZipCode: nullable(p.ZipCode), County: nullable(p.County),
		FIPSCode: nullable(p.FIPSCode), CensusTract: nullable(p.CensusTract),
		Latitude: p.Latitude, Longitude: p.Longitude, PropertyType: p.PropertyType, Bedrooms: p.Bedrooms,
		Bathrooms: p.Bathrooms, LivingArea: p.LivingAreaSqft, Lot: p.LotSqft, YearBuilt: p.YearBuilt,
		Stories: p.Stories, Units: p.Units, Facts: facts,
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
	}
}

func TestAppendRecordMatchesEncodingJSON(t *testing.T) {
	pt, beds, zero, half := "condo", 3, 0, 2.5
	local := time.FixedZone("EST", -5*3600)
	cases := []providers.Property{
		{},
		{ID: 1, StreetAddress: "1600 PENNSYLVANIA AVE NW", City: "WASHINGTON", State: "DC", ZipCode: "20502",
			County: "District of Columbia", FIPSCode: "11001", CensusTract: "006202", Latitude: 38.898754, Longitude: -77.03535,
			PropertyType: &pt, Bedrooms: &beds, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC),
			UpdatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, local)},
		{ID: 1 << 62, StreetAddress: `12 "QUOTED" \\ ST <a>&b`, Unit: "# 4B", City: "SAN JOSÉ\u2028\u2029",
			County: "tab\there\nnew\x01line\x7f", Latitude: 1e-7, Longitude: -179.9999999, Bedrooms: &zero},
		{ID: 5, StreetAddress: "bad \xff utf8 \xe2\x82", Latitude: 90, Longitude: -180, CensusTract: "😀"},
		{ID: 6, Latitude: math.Copysign(0, -1), Longitude: 0.000001},
		{ID: 7, Latitude: 41.9, Longitude: -87.6, Bathrooms: &half, LivingAreaSqft: &beds, LotSqft: &zero, YearBuilt: &beds,
			Stories: &half, Units: &zero, FactsOrigin: `{"source":"cook-county","as_of":"2026-09-30","fields":{"bathrooms":{"source":"cook-county","as_of":"2026-09-30"}}}`},
	}
	for i, p := range cases {
		want, err := json.Marshal(viewOf(&p))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendRecord(nil, &p); string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func BenchmarkAppendRecordVsEncodingJSON(b *testing.B) {
	pt, beds := "condo", 3
	p := &providers.Property{ID: 1, StreetAddress: "1600 PENNSYLVANIA AVE NW", City: "WASHINGTON", State: "DC",
		ZipCode: "20502", County: "District of Columbia", FIPSCode: "11001", CensusTract: "006202",
		Latitude: 38.898754, Longitude: -77.03535, PropertyType: &pt, Bedrooms: &beds, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	b.Run("appendRecord", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 512)
		for i := 0; i < b.N; i++ {
			buf = appendRecord(buf[:0], p)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_, _ = json.Marshal(viewOf(p))
		}
	})
}

func TestEnvelopeMetaMatchesEncodingJSON(t *testing.T) {
	yes, no := true, false
	fetched := time.Date(2026, 11, 21, 7, 0, 0, 123456789, time.UTC)
	expires := time.Date(2027, 1, 2, 3, 4, 5, 0, time.FixedZone("X", -5*3600))
	retry, age := 30, 86400
	full := providers.SectionMeta{Status: "stale", Source: "fema-nfhl", Vintage: "2023", FetchedAt: &fetched,
		ExpiresAt: &expires, Cache: "hit", AgeSeconds: &age, Error: "upstream_unavailable", RetryAfter: &retry}
	five := 5.0
	for _, m := range []recordMeta{{Source: "census"}, {Source: "census", Created: &yes}, {Source: `q"<`, Created: &no},
		{Source: "census", Created: &yes, Match: matchJSON(providers.Match{Type: providers.MatchAddressPoint, DistanceM: &five}),
			Sections: map[string]providers.SectionMeta{"flood": {Status: "ok"}}},
		{Source: "census", Sections: map[string]providers.SectionMeta{"flood": {Status: "ok"}}},
		{Source: "census", Created: &yes, Sections: map[string]providers.SectionMeta{
			"walkscore": {Status: "unavailable", Source: "osm-walk", Cache: "miss", Error: "section_not_applicable"},
			"amenities": full, "flood": {Status: "ok", Source: "<&>", FetchedAt: &fetched, ExpiresAt: &fetched, Cache: "hit"},
			"x\u2028\"": {}}},
		{Source: "census", Created: &no, Match: matchJSON(providers.Match{Type: "non_exact", MatchedAddress: "1 <A> ST, X, DC, 20001",
			Differences: []string{"zip"}, Candidates: []providers.Candidate{{MatchedAddress: "1 A ST, Y, DC, 20002", Latitude: 38.9}}}),
			Sections: map[string]providers.SectionMeta{"flood": {Status: "ok"}}},
		{Source: "census", Match: matchJSON(providers.Match{Type: "nearest_record", DistanceM: new(12.0)})},
	} {
		got, err := envelope([]byte(`{}`), m)
		if err != nil {
			t.Fatal(err)
		}
		mb, _ := json.Marshal(m)
		if want := `{"data":{},"meta":` + string(mb) + `}`; string(got) != want {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}
}

// matchJSON is m as a record's meta holds it: the text the store keeps.
func matchJSON(m providers.Match) json.RawMessage { return json.RawMessage(m.Text()) }

func TestEnvelopeMetaRefusesWhatEncodingJSONRefuses(t *testing.T) {
	far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	m := recordMeta{Source: "census", Sections: map[string]providers.SectionMeta{"flood": {Status: "ok", FetchedAt: &far}}}
	_, jerr := json.Marshal(m)
	if _, err := envelope([]byte(`{}`), m); err == nil || jerr == nil {
		t.Fatalf("a year past 9999: envelope error %v, encoding/json error %v; want both to fail", err, jerr)
	}
}

func TestRenameKeysRenamesMembersOnlyAndKeepsOrder(t *testing.T) {
	z, sub := `AE","zone":"X`, "FLOODWAY"
	data, _ := json.Marshal(providers.Flood{Zone: &z, ZoneSubtype: &sub, RiskLevel: "high",
		Description: `risk_level":"x`, Source: "fema-nfhl"})
	orig := string(data)
	got := string(renameKeys(data, "zone", "zone_code", "risk_level", "flood_risk_level"))
	want := `{"zone_code":"AE\",\"zone\":\"X","zone_subtype":"FLOODWAY","flood_risk_level":"high",` +
		`"description":"risk_level\":\"x","special_flood_hazard_area":null,"base_flood_elevation_feet":null,` +
		`"panel_number":null,"panel_effective_date":null,"source":"fema-nfhl"}`
	if got != want {
		t.Fatalf("renameKeys =\n%s\nwant\n%s", got, want)
	}
	if string(data) != orig {
		t.Fatal("renameKeys changed its input (a cached section value)")
	}
}

// Every ASCII byte is written as encoding/json writes it.
func TestAppendJSONStringEscapesEveryASCIIByteAsEncodingJSON(t *testing.T) {
	for c := range 128 {
		s := "a" + string(rune(c)) + "b"
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("byte %#x: got %s, want %s", c, got, want)
		}
	}
}
