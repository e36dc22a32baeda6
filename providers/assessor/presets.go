package assessor

import (
	"fmt"
	"slices"
	"strings"
)

// Presets are datasets whose columns are confirmed from their publishers'
// own documentation; `-preset NAME` (or `preset: NAME` in config.yaml)
// needs no mapping. The mapping of codes to property types is ours; the
// codes and their meanings are the publishers'. Each preset's test loads a
// fixture written in the published columns (testdata/).
var Presets = map[string]Dataset{
	// Cook County (IL) Assessor, on the county's open data portal, as its
	// SODA API CSV (/resource/<id>.csv: the header is the field names):
	// "Single and Multi-Family Improvement Characteristics" (x54s-btds;
	// one row a PIN, card and tax year) joined on pin with "Parcel
	// Addresses" (3723-97qp; one row a PIN and year). The columns are the
	// CCAO's open-data views in ccao-data/data-architecture
	// (dbt/models/open_data/open_data.vw_sf_mf_improvement_char.sql and
	// open_data.vw_parcel_address.sql; its socrata_upload.py refuses to
	// publish unless the portal's field names equal the views' columns);
	// the class codes are its ccao.class_dict seed. The unit is written
	// at the end of prop_address_full (there is no unit column); the
	// newest year wins, then the lowest card (the main building).
	// char_bldg_sf is the building's area measured from the outside.
	"cook-county": {
		Source: "cook-county-assessor",
		Mapping: Mapping{
			Key:  []string{"pin"},
			Rank: []string{"year", "-card"},
			Fields: map[string]Field{
				"property_type":    {Column: "class", Map: cookClasses},
				"bedrooms":         {Column: "char_beds"},
				"bathrooms":        {Sum: []Term{{Column: "char_fbath", Times: 1}, {Column: "char_hbath", Times: 0.5}}},
				"living_area_sqft": {Column: "char_bldg_sf", ZeroUnknown: true},
				"lot_sqft":         {Column: "char_land_sf", ZeroUnknown: true},
				"year_built":       {Column: "char_yrblt", ZeroUnknown: true},
				// Published as text ("1 Story"); the internal codes 1-9
				// (5-9 are 1.5 to 1.9 stories, 4 split level) are read too.
				"stories": {Column: "char_type_resd", Map: map[string]string{
					"1 Story": "1", "1.5 Story": "1.5", "2 Story": "2", "3 Story +": "3", "Split Level": "",
					"1": "1", "2": "2", "3": "3", "4": "", "5": "1.5", "6": "1.5", "7": "1.5", "8": "1.5", "9": "1.5", "9.9": "",
				}},
				// Apartments of a class 211/212 building, as words.
				"units": {Column: "char_apts", Map: map[string]string{
					"Two": "2", "Three": "3", "Four": "4", "Five": "5", "Six": "6", "None": "", "*": "",
				}},
			},
			Join: &Join{
				Column: "pin",
				Key:    []string{"pin"},
				Address: &AddressColumns{Street: []string{"prop_address_full"}, City: "prop_address_city_name",
					State: "prop_address_state", Zip: "prop_address_zipcode_1", DefaultState: "IL"},
			},
		},
	},

	// New York City's PLUTO (Department of City Planning), the CSV its
	// build writes (\COPY of export_pluto, lower-case header; NYC Open
	// Data 64uk-42ks): one row a tax lot (bbl), with its address, ZIP and
	// centroid. Meanings are DCP's metadata.yml; building classes are the
	// Department of Finance's. PLUTO has no bedrooms or bathrooms;
	// resarea, yearbuilt, lotarea and numfloors write 0 for unknown.
	"nyc-pluto": {
		Source: "nyc-pluto",
		Mapping: Mapping{
			Key:     []string{"bbl"},
			Address: &AddressColumns{Street: []string{"address"}, Zip: "zipcode", DefaultState: "NY"},
			Point:   &PointColumns{Lat: "latitude", Lng: "longitude"},
			Fields: map[string]Field{
				"property_type":    {Column: "bldgclass", Map: plutoClasses},
				"living_area_sqft": {Column: "resarea", ZeroUnknown: true},
				"lot_sqft":         {Column: "lotarea", ZeroUnknown: true},
				"year_built":       {Column: "yearbuilt", ZeroUnknown: true},
				"stories":          {Column: "numfloors", ZeroUnknown: true},
				"units":            {Column: "unitsres"},
			},
		},
	},

	// Allegheny County (PA) Property Assessments, published by the
	// Western Pennsylvania Regional Data Center (the county master file,
	// upper-case header; columns as in WPRDC's ETL schema): one row a
	// parcel (PARID). The street line is house number, fraction and street
	// name; units are in PROPERTYUNIT. Uses are mapped from USEDESC, the
	// published text. LOTAREA is read as square feet.
	"allegheny": {
		Source: "allegheny-county-assessment",
		Mapping: Mapping{
			Key: []string{"PARID"},
			Address: &AddressColumns{Street: []string{"PROPERTYHOUSENUM", "PROPERTYFRACTION", "PROPERTYADDRESS"},
				Unit: "PROPERTYUNIT", City: "PROPERTYCITY", State: "PROPERTYSTATE", Zip: "PROPERTYZIP", DefaultState: "PA"},
			Fields: map[string]Field{
				"property_type":    {Column: "USEDESC", Map: alleghenyUses},
				"bedrooms":         {Column: "BEDROOMS"},
				"bathrooms":        {Sum: []Term{{Column: "FULLBATHS", Times: 1}, {Column: "HALFBATHS", Times: 0.5}}},
				"living_area_sqft": {Column: "FINISHEDLIVINGAREA", ZeroUnknown: true},
				"lot_sqft":         {Column: "LOTAREA", ZeroUnknown: true},
				"year_built":       {Column: "YEARBLT", ZeroUnknown: true},
				"stories":          {Column: "STORIES", ZeroUnknown: true},
			},
		},
	},
}

// cookClasses maps Cook County's class 2 (and condominium) codes.
var cookClasses = map[string]string{
	"200": "other", "201": "other",
	"202": "single_family", "203": "single_family", "204": "single_family", "205": "single_family",
	"206": "single_family", "207": "single_family", "208": "single_family", "209": "single_family",
	"210": "townhouse", "211": "multi_family", "212": "multi_family", "213": "other",
	"218": "other", "219": "other", "224": "other", "225": "other",
	"234": "single_family", "236": "other", "239": "other", "240": "other", "241": "other",
	"278": "single_family", "288": "other", "290": "other", "295": "townhouse", "297": "other",
	"299": "condo", "399": "condo", "OA2": "other",
	"313": "multi_family", "314": "multi_family", "315": "multi_family", "318": "multi_family",
	"391": "multi_family", "396": "multi_family",
}

// plutoClasses maps the Department of Finance's building classes.
var plutoClasses = map[string]string{
	"A*": "single_family", "A5": "townhouse",
	"B*": "multi_family", "C*": "multi_family", "CM": "mobile_home", "D*": "multi_family",
	"R*": "other", "R1": "condo", "R2": "condo", "R3": "condo", "R4": "condo", "R6": "condo", "RD": "condo", "RR": "condo",
	"S*": "multi_family", "S0": "single_family", "S1": "single_family",
	"*": "other",
}

// alleghenyUses maps USEDESC texts (trimmed, any case).
var alleghenyUses = map[string]string{
	"SINGLE FAMILY": "single_family", "TOWNHOUSE": "townhouse", "ROWHOUSE": "townhouse",
	"CONDOMINIUM": "condo", "CONDOMINIUM UNIT": "condo",
	"TWO FAMILY": "multi_family", "THREE FAMILY": "multi_family", "FOUR FAMILY": "multi_family",
	"APART: 5-19 UNITS": "multi_family", "APART:5-19 UNITS": "multi_family", "APART:20-39 UNITS": "multi_family",
	"APART:40+ UNITS": "multi_family", "MOBILE HOME": "mobile_home", "MOBILE HOME (IN PARK)": "mobile_home",
	"CONDOMINIUM COMMON PROPERTY": "other", "VACANT LAND": "other", "RESIDENTIAL VACANT LAND": "other",
	"OFFICE/APARTMENTS OVER": "other", "RETL/APT'S OVER": "other",
}

// PresetNames lists the presets, sorted.
func PresetNames() []string {
	var out []string
	for k := range Presets {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Resolve returns d with its preset's mapping filled in (the dataset's own
// name, source and as_of kept) and checks it.
func (d Dataset) Resolve() (Dataset, error) {
	if d.Preset != "" {
		p, ok := Presets[d.Preset]
		if !ok {
			return d, fmt.Errorf("dataset %s: unknown preset %q; known: %s", d.Name, d.Preset, strings.Join(PresetNames(), ", "))
		}
		if d.Key != nil || d.Fields != nil || d.Address != nil || d.Point != nil || d.Join != nil {
			return d, fmt.Errorf("dataset %s: a preset brings its own mapping; give preset or columns, not both", d.Name)
		}
		d.Mapping = p.Mapping
		if d.Source == "" {
			d.Source = p.Source
		}
	}
	return d, d.Validate()
}
