package censusacs

import (
	"context"
	"math"

	"github.com/propertyd/propertyd/providers"
)

// ACS detailed-table variables read by this package (estimates, suffix E).
// The IDs are stable across the 5-year vintages since 2009 for these tables.
const (
	VarPopulation      = "B01003_001E" // total population
	VarMedianAge       = "B01002_001E" // median age, decimal
	VarMedianIncome    = "B19013_001E" // median household income, top-coded at 250001
	VarHousingUnits    = "B25002_001E" // occupancy status: all housing units
	VarOccupied        = "B25002_002E" // occupancy status: occupied
	VarVacant          = "B25002_003E" // occupancy status: vacant
	VarTenureTotal     = "B25003_001E" // tenure: occupied housing units
	VarOwner           = "B25003_002E" // tenure: owner occupied
	VarRenter          = "B25003_003E" // tenure: renter occupied
	VarHouseholdSize   = "B25010_001E" // average household size, decimal
	VarMedianRooms     = "B25018_001E" // median number of rooms, decimal
	VarMedianYearBuilt = "B25035_001E" // median year structure built
	VarMedianRent      = "B25064_001E" // median gross rent, dollars
	VarMedianValue     = "B25077_001E" // median value of owner-occupied units, dollars

	VarStructTotal     = "B25024_001E" // units in structure: all housing units
	VarStructDetached  = "B25024_002E" // 1, detached
	VarStructAttached  = "B25024_003E" // 1, attached
	VarStruct2         = "B25024_004E" // 2
	VarStruct3To4      = "B25024_005E" // 3 or 4
	VarStruct5To9      = "B25024_006E" // 5 to 9
	VarStruct10To19    = "B25024_007E" // 10 to 19
	VarStruct20To49    = "B25024_008E" // 20 to 49
	VarStruct50Plus    = "B25024_009E" // 50 or more
	VarStructMobile    = "B25024_010E" // mobile home (B25024_011E, boat/RV/van, is not reported)
	VarBedroomsTotal   = "B25041_001E" // bedrooms: all housing units
	VarBedrooms0       = "B25041_002E" // no bedroom
	VarBedrooms1       = "B25041_003E" // 1 bedroom
	VarBedrooms2       = "B25041_004E" // 2 bedrooms
	VarBedrooms3       = "B25041_005E" // 3 bedrooms
	VarBedrooms4       = "B25041_006E" // 4 bedrooms
	VarBedrooms5OrMore = "B25041_007E" // 5 or more bedrooms
)

// DemographicsVariables are the variables a Demographics call asks for, in
// request order: the property-profile query of the upstream's documentation
// (B25002_002E, occupied units, is asked for but not reported).
var DemographicsVariables = []string{
	VarPopulation, VarMedianIncome, VarMedianValue, VarMedianRent,
	VarHousingUnits, VarOccupied, VarVacant,
	VarTenureTotal, VarOwner, VarRenter,
	VarMedianAge, VarHouseholdSize,
}

// HousingVariables are the variables a Housing call asks for, in request
// order.
var HousingVariables = []string{
	VarHousingUnits, VarOccupied, VarMedianYearBuilt, VarMedianRooms,
	VarStructTotal, VarStructDetached, VarStructAttached, VarStruct2, VarStruct3To4,
	VarStruct5To9, VarStruct10To19, VarStruct20To49, VarStruct50Plus, VarStructMobile,
	VarBedroomsTotal, VarBedrooms0, VarBedrooms1, VarBedrooms2, VarBedrooms3,
	VarBedrooms4, VarBedrooms5OrMore,
	VarMedianRent, VarMedianValue,
}

// UnitsInStructure maps each key of providers.Housing.UnitsInStructure to
// the B25024 variables summed for it.
var UnitsInStructure = map[string][]string{
	"single_family_detached": {VarStructDetached},
	"single_family_attached": {VarStructAttached},
	"units_2_4":              {VarStruct2, VarStruct3To4},
	"units_5_19":             {VarStruct5To9, VarStruct10To19},
	"units_20_plus":          {VarStruct20To49, VarStruct50Plus},
	"mobile_home":            {VarStructMobile},
}

// Bedrooms maps each key of providers.Housing.Bedrooms to its B25041
// variable.
var Bedrooms = map[string]string{
	"0":      VarBedrooms0,
	"1":      VarBedrooms1,
	"2":      VarBedrooms2,
	"3":      VarBedrooms3,
	"4":      VarBedrooms4,
	"5_plus": VarBedrooms5OrMore,
}

// Demographics returns the ACS demographics of tract t. It returns
// KindInvalid for a malformed tract, KindNotFound (tract_not_found) when the
// upstream has no such tract, KindUnavailable (upstream_misconfigured) for a
// refused API key or an unpublished year, KindUpstream for upstream errors
// and unreadable answers, KindTimeout and KindCanceled when ctx ends.
func (c *Client) Demographics(ctx context.Context, t providers.Tract) (*providers.Demographics, error) {
	row, year, err := c.fetch(ctx, t, DemographicsVariables)
	if err != nil {
		return nil, err
	}
	return DemographicsFrom(t, row, year)
}

// Housing returns the ACS housing figures of tract t, without fair market
// rents (another module adds those). Errors as for Demographics.
func (c *Client) Housing(ctx context.Context, t providers.Tract) (*providers.Housing, error) {
	row, year, err := c.fetch(ctx, t, HousingVariables)
	if err != nil {
		return nil, err
	}
	return HousingFrom(row, year)
}

// DemographicsFrom builds the demographics of tract t from its decoded row
// (which must hold every DemographicsVariables column) of the year release.
// Sentinels become nil fields; percentages are derived with Percent.
func DemographicsFrom(t providers.Tract, row Row, year string) (*providers.Demographics, error) {
	r := reader{row: row}
	units, vacant := r.int(VarHousingUnits), r.int(VarVacant)
	occupied, owner, renter := r.int(VarTenureTotal), r.int(VarOwner), r.int(VarRenter)
	d := &providers.Demographics{
		CensusTract:           t.Tract,
		StateFIPS:             t.State,
		CountyFIPS:            t.County,
		TotalPopulation:       r.int(VarPopulation),
		MedianHouseholdIncome: r.int(VarMedianIncome),
		MedianHomeValue:       r.int(VarMedianValue),
		MedianGrossRent:       r.int(VarMedianRent),
		VacancyRate:           Percent(vacant, units),
		OwnerOccupiedPct:      Percent(owner, occupied),
		RenterOccupiedPct:     Percent(renter, occupied),
		MedianAge:             r.float(VarMedianAge),
		AverageHouseholdSize:  r.float(VarHouseholdSize),
		Source:                Name,
		Vintage:               Vintage(year),
	}
	if r.err != nil {
		return nil, r.err
	}
	return d, nil
}

// HousingFrom builds the housing figures from a decoded row (which must hold
// every HousingVariables column) of the year release. Every key of
// UnitsInStructure and Bedrooms is present; a share is nil when one of its
// counts is a sentinel or the table total is zero or missing.
func HousingFrom(row Row, year string) (*providers.Housing, error) {
	r := reader{row: row}
	h := &providers.Housing{
		TotalHousingUnits: r.int(VarHousingUnits),
		OccupiedUnits:     r.int(VarOccupied),
		MedianYearBuilt:   r.int(VarMedianYearBuilt),
		MedianRooms:       r.float(VarMedianRooms),
		UnitsInStructure:  make(map[string]*float64, len(UnitsInStructure)),
		Bedrooms:          make(map[string]*float64, len(Bedrooms)),
		MedianGrossRent:   r.int(VarMedianRent),
		MedianHomeValue:   r.int(VarMedianValue),
		Source:            HousingName,
		Vintage:           Vintage(year),
	}
	structTotal := r.int(VarStructTotal)
	for key, vars := range UnitsInStructure {
		h.UnitsInStructure[key] = Percent(r.sum(vars...), structTotal)
	}
	bedTotal := r.int(VarBedroomsTotal)
	for key, v := range Bedrooms {
		h.Bedrooms[key] = Percent(r.int(v), bedTotal)
	}
	if r.err != nil {
		return nil, r.err
	}
	return h, nil
}

// Percent returns 100 * part / whole rounded half away from zero to one
// decimal (231 of 2571 is 9.0, 1 of 8 is 12.5, 1 of 16 is 6.3), or nil when
// either count is unknown or whole is zero.
func Percent(part, whole *int64) *float64 {
	if part == nil || whole == nil || *whole == 0 {
		return nil
	}
	p := math.Round(float64(*part)*1000/float64(*whole)) / 10
	return &p
}

// reader reads typed values from a row, keeping the first error so the
// section builders read like a list of fields.
type reader struct {
	row Row
	err error
}

func (r *reader) int(name string) *int64 {
	v, err := r.row.Int(name)
	if err != nil && r.err == nil {
		r.err = err
	}
	return v
}

func (r *reader) float(name string) *float64 {
	v, err := r.row.Float(name)
	if err != nil && r.err == nil {
		r.err = err
	}
	return v
}

// sum adds the named counts; nil when any of them is unknown.
func (r *reader) sum(names ...string) *int64 {
	var total int64
	known := true
	for _, n := range names {
		v := r.int(n)
		if v == nil {
			known = false
			continue
		}
		total += *v
	}
	if !known {
		return nil
	}
	return &total
}
