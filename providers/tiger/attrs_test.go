package tiger_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers/tiger"
)

func TestTractOfReadsTheColumnsAsTIGERLineWritesThem(t *testing.T) {
	got, err := tiger.TractOf(map[string]any{
		"STATEFP": "11", "COUNTYFP": "001", "TRACTCE": "006202", "GEOID": "11001006202",
		"NAME": "62.02", "NAMELSAD": "Census Tract 62.02", "MTFCC": "G5020", "FUNCSTAT": "S",
		"ALAND": int64(2153017), "AWATER": float64(0), "INTPTLAT": "+38.9001239", "INTPTLON": "-077.0124564",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := tiger.Tract{StateFP: "11", CountyFP: "001", TractCE: "006202", GEOID: "11001006202",
		Name: "62.02", NameLSAD: "Census Tract 62.02", MTFCC: "G5020", FuncStat: "S",
		ALand: i64(2153017), AWater: i64(0), IntPtLat: f64(38.9001239), IntPtLon: f64(-77.0124564)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TractOf =\n%+v\nwant\n%+v", got, want)
	}
}

func TestCountyOfReadsTheColumnsAsTIGERLineWritesThem(t *testing.T) {
	got, err := tiger.CountyOf(map[string]any{
		"STATEFP": "51", "COUNTYFP": "059", "COUNTYNS": "01480119", "GEOID": "51059", "NAME": "Fairfax",
		"NAMELSAD": "Fairfax County", "LSAD": "06", "CLASSFP": "H1", "MTFCC": "G4020", "FUNCSTAT": "A",
		"ALAND": "1012739503", "AWATER": int64(40071739), "INTPTLAT": 38.8295203, "INTPTLON": "-077.2732524",
		"CSAFP": "548", // a column County does not hold is ignored
	})
	if err != nil {
		t.Fatal(err)
	}
	want := tiger.County{StateFP: "51", CountyFP: "059", CountyNS: "01480119", GEOID: "51059", Name: "Fairfax",
		NameLSAD: "Fairfax County", LSAD: "06", ClassFP: "H1", MTFCC: "G4020", FuncStat: "A",
		ALand: i64(1012739503), AWater: i64(40071739), IntPtLat: f64(38.8295203), IntPtLon: f64(-77.2732524)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CountyOf =\n%+v\nwant\n%+v", got, want)
	}
}

func TestReadersTakeOtherSpellingsOfTheColumns(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]any
		want  tiger.Tract
	}{
		{"lower case, as other exports write them",
			map[string]any{"statefp": "11", "countyfp": "001", "tractce": "006202", "geoid": "11001006202", "aland": int64(5)},
			tiger.Tract{StateFP: "11", CountyFP: "001", TractCE: "006202", GEOID: "11001006202", ALand: i64(5)}},
		{"a decennial edition's suffixed names (tl_2010_SS_tract10)",
			map[string]any{"STATEFP10": "11", "COUNTYFP10": "001", "TRACTCE10": "006202", "GEOID10": "11001006202", "NAMELSAD10": "Census Tract 62.02"},
			tiger.Tract{StateFP: "11", CountyFP: "001", TractCE: "006202", GEOID: "11001006202", NameLSAD: "Census Tract 62.02"}},
		{"the plain name over the edition's, as a faces file holds both",
			map[string]any{"TRACTCE10": "006200", "TRACTCE": "006202"},
			tiger.Tract{TractCE: "006202"}},
		{"blanks trimmed, a .dbf's blank and null numbers are null",
			map[string]any{"TRACTCE": " 006202 ", "NAME": "   ", "ALAND": "  ", "AWATER": nil},
			tiger.Tract{TractCE: "006202"}},
		{"an area written as a whole double",
			map[string]any{"ALAND": 1081225.0},
			tiger.Tract{ALand: i64(1081225)}},
		{"no columns at all", map[string]any{}, tiger.Tract{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tiger.TractOf(tt.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("TractOf =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestReadersRefuseAValueOfTheWrongTypeNamingTheColumn(t *testing.T) {
	tests := []struct {
		name   string
		attrs  map[string]any
		county bool
		column string
	}{
		{"a code read as a number", map[string]any{"GEOID": int64(11001006202)}, false, "GEOID"},
		{"text where a number belongs", map[string]any{"ALAND": "about two km²"}, false, "ALAND"},
		{"a fraction of a square meter", map[string]any{"AWATER": 12.5}, false, "AWATER"},
		{"a boolean", map[string]any{"INTPTLAT": true}, false, "INTPTLAT"},
		{"a county's name as a number", map[string]any{"NAMELSAD": int64(7)}, true, "NAMELSAD"},
		{"a county's internal point that is not a number", map[string]any{"INTPTLON": "west"}, true, "INTPTLON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.county {
				_, err = tiger.CountyOf(tt.attrs)
			} else {
				_, err = tiger.TractOf(tt.attrs)
			}
			if err == nil || !strings.Contains(err.Error(), "column "+tt.column) {
				t.Errorf("error %v, want one naming column %s", err, tt.column)
			}
		})
	}
}

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }
