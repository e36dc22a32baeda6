package floodmap_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers/floodmap"
)

// TestHazardAreaOfReadsFileColumns reads attributes as package geofile gives
// them from each format: a .dbf's trimmed text and float64 numbers, a
// GeoPackage's INTEGER, lower-case column names, and text numbers.
func TestHazardAreaOfReadsFileColumns(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]any
		want  floodmap.HazardArea
	}{
		{
			name: "a shapefile's columns",
			attrs: map[string]any{"FLD_ZONE": "AE", "ZONE_SUBTY": "FLOODWAY", "SFHA_TF": "T", "STATIC_BFE": 12.5,
				"DEPTH": -9999.0, "DFIRM_ID": "11001C", "OTHER": "ignored"},
			want: floodmap.HazardArea{Zone: str("AE"), Subtype: str("FLOODWAY"), SFHA: str("T"), StaticBFE: num(12.5),
				Depth: num(-9999), DFIRMID: str("11001C")},
		},
		{
			name:  "nulls, a missing column and an INTEGER",
			attrs: map[string]any{"FLD_ZONE": "AO", "ZONE_SUBTY": nil, "SFHA_TF": "T", "STATIC_BFE": int64(-9999), "DEPTH": int64(2)},
			want:  floodmap.HazardArea{Zone: str("AO"), SFHA: str("T"), StaticBFE: num(-9999), Depth: num(2)},
		},
		{
			name:  "lower-case names, a boolean flag and numbers as text",
			attrs: map[string]any{"fld_zone": "X", "sfha_tf": false, "static_bfe": " -9999.0 ", "depth": ""},
			want:  floodmap.HazardArea{Zone: str("X"), SFHA: str("F"), StaticBFE: num(-9999)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := floodmap.HazardAreaOf(tt.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %s, want %s", show(got), show(tt.want))
			}
		})
	}
}

// TestAttributesOfTheWrongTypeNameTheColumn: a loader refuses such a row and
// says why.
func TestAttributesOfTheWrongTypeNameTheColumn(t *testing.T) {
	for _, attrs := range []map[string]any{
		{"FLD_ZONE": int64(7)},
		{"STATIC_BFE": "about ten"},
		{"DEPTH": true},
	} {
		_, err := floodmap.HazardAreaOf(attrs)
		for name := range attrs {
			if err == nil || !strings.Contains(err.Error(), "column "+name) {
				t.Errorf("HazardAreaOf(%v): error %v, want one naming column %s", attrs, err, name)
			}
		}
	}
	if _, err := floodmap.PanelOf(map[string]any{"EFF_DATE": "27 Sept 2010"}); err == nil || !strings.Contains(err.Error(), "column EFF_DATE") {
		t.Errorf("PanelOf with a date in words: error %v, want one naming EFF_DATE", err)
	}
}

// TestPanelDatesAsEachFormatWritesThem: one effective date, 2010-09-27, as a
// dBase D field or GeoPackage DATE (time.Time), GeoJSON text (ISO or GDAL's
// slashes, with or without a time), and epoch milliseconds (ArcGIS's
// f=geojson and Esri JSON).
func TestPanelDatesAsEachFormatWritesThem(t *testing.T) {
	ms := time.Date(2010, 9, 27, 0, 0, 0, 0, time.UTC).UnixMilli()
	for _, v := range []any{
		time.Date(2010, 9, 27, 0, 0, 0, 0, time.UTC),
		time.Date(2010, 9, 26, 20, 0, 0, 0, time.FixedZone("EDT", -4*3600)),
		"2010-09-27", "2010/09/27", " 2010-09-27T00:00:00Z", "2010/09/27 00:00:00",
		ms, float64(ms),
	} {
		pn, err := floodmap.PanelOf(map[string]any{"FIRM_PAN": "1100010019C", "EFF_DATE": v})
		if err != nil {
			t.Errorf("EFF_DATE %#v: %v", v, err)
			continue
		}
		if d, ok := pn.Effective.Day(); !ok || d != "2010-09-27" {
			t.Errorf("EFF_DATE %#v is day %q (%v), want 2010-09-27", v, d, ok)
		}
	}
	for _, v := range []any{nil, "", "   ", time.Date(8888, 8, 8, 0, 0, 0, 0, time.UTC), "8888-08-08"} {
		pn, err := floodmap.PanelOf(map[string]any{"EFF_DATE": v})
		if err != nil {
			t.Errorf("EFF_DATE %#v: %v", v, err)
			continue
		}
		if d, ok := pn.Effective.Day(); ok {
			t.Errorf("EFF_DATE %#v is day %q, want none", v, d)
		}
	}
	for _, v := range []any{"2010-13-01", "2010-09-27x", "9/27/2010", true} {
		if _, err := floodmap.DateOf(v); err == nil {
			t.Errorf("DateOf(%#v) accepted it", v)
		}
	}
}

// TestEsriJSONDecodes: the service's attributes decode into the same
// structs, EFF_DATE from epoch milliseconds, and a date that is not a number
// is refused as a number field is.
func TestEsriJSONDecodes(t *testing.T) {
	var a floodmap.HazardArea
	if err := json.Unmarshal([]byte(`{"FLD_ZONE":"A","ZONE_SUBTY":null,"SFHA_TF":"T","STATIC_BFE":-9999,"DFIRM_ID":"18057C"}`), &a); err != nil {
		t.Fatal(err)
	}
	if want := (floodmap.HazardArea{Zone: str("A"), SFHA: str("T"), StaticBFE: num(-9999), DFIRMID: str("18057C")}); !reflect.DeepEqual(a, want) {
		t.Errorf("got %s, want %s", show(a), show(want))
	}
	var pn floodmap.Panel
	if err := json.Unmarshal([]byte(`{"DFIRM_ID":"18057C","FIRM_PAN":"18057C0233G","PANEL_TYP":"Countywide, Panel Printed","EFF_DATE":1416355200000}`), &pn); err != nil {
		t.Fatal(err)
	}
	if d, ok := pn.Effective.Day(); !ok || d != "2014-11-19" || *pn.Panel != "18057C0233G" {
		t.Errorf("panel %s effective %q (%v), want 18057C0233G of 2014-11-19", *pn.Panel, d, ok)
	}
	if err := json.Unmarshal([]byte(`{"EFF_DATE":null}`), &pn); err != nil {
		t.Fatal(err)
	}
	if d, ok := pn.Effective.Day(); ok {
		t.Errorf("a null EFF_DATE is day %q", d)
	}
	if err := json.Unmarshal([]byte(`{"EFF_DATE":"2014-11-19"}`), &pn); err == nil {
		t.Error("an EFF_DATE as text decoded from Esri JSON; the service writes epoch milliseconds")
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
