package providers

import "time"

// Section names, as used in include= and in meta.sections.
const (
	SectionFlood        = "flood"
	SectionDemographics = "demographics"
	SectionAmenities    = "amenities"
	SectionWalkScore    = "walkscore"
	SectionHousing      = "housing"
)

// The service's catalogue (service.Catalog) declares what each section is:
// its role, key, TTL, cost, and the order sections appear in responses.

// Flood risk levels.
const (
	RiskHigh         = "high"
	RiskModerate     = "moderate"
	RiskLow          = "low"
	RiskUndetermined = "undetermined"
)

// Flood is the FEMA flood hazard at a point. The include form of the section
// renames zone and risk_level to zone_code and flood_risk_level (the gateway
// does that); the standalone endpoint uses these names. Source says where
// it was read: "fema-nfhl" (FEMA's NFHL service), or "fema-nfhl-file" (a
// flood map loaded from FEMA's files, whose effective date Vintage gives).
//
// Values are stored as JSON. Before panel_number, panel_effective_date and
// description existed, the panel was firm_panel and its date
// firm_panel_effective_date; the flood module rewrites such a stored value
// in this shape when it is read (see SectionUpgrader).
type Flood struct {
	Zone               *string  `json:"zone"`                      // FLD_ZONE, e.g. "AE"; null when no polygon is mapped
	ZoneSubtype        *string  `json:"zone_subtype"`              // ZONE_SUBTY
	RiskLevel          string   `json:"risk_level"`                // high, moderate, low, undetermined
	Description        string   `json:"description"`               // what the zone means, e.g. "1% annual chance flood"
	SpecialFloodHazard *bool    `json:"special_flood_hazard_area"` // SFHA_TF
	StaticBFE          *float64 `json:"base_flood_elevation_feet"` // STATIC_BFE; null for the -9999 sentinel
	PanelNumber        *string  `json:"panel_number"`              // FIRM panel number (FIRM_PAN)
	PanelEffectiveDate *string  `json:"panel_effective_date"`      // the panel's EFF_DATE, YYYY-MM-DD
	Source             string   `json:"source"`
	// Vintage is the effective date (YYYY-MM-DD) of the loaded flood map
	// the section was read from (its newest panel's), when Source is
	// "fema-nfhl-file"; empty for an answer of the service, which is the
	// NFHL as of the moment it was asked.
	Vintage string `json:"vintage,omitempty"`
}

// Demographics holds tract-level ACS 5-year figures. Nil pointers are values
// the Census Bureau suppressed or could not compute (its negative sentinels).
type Demographics struct {
	CensusTract           string   `json:"census_tract"`
	StateFIPS             string   `json:"state_fips"`
	CountyFIPS            string   `json:"county_fips"`
	TotalPopulation       *int64   `json:"total_population"`
	MedianHouseholdIncome *int64   `json:"median_household_income"`
	MedianHomeValue       *int64   `json:"median_home_value"`
	MedianGrossRent       *int64   `json:"median_gross_rent"`
	VacancyRate           *float64 `json:"vacancy_rate"`
	OwnerOccupiedPct      *float64 `json:"owner_occupied_pct"`
	RenterOccupiedPct     *float64 `json:"renter_occupied_pct"`
	MedianAge             *float64 `json:"median_age"`
	AverageHouseholdSize  *float64 `json:"average_household_size"`
	Source                string   `json:"source"`
	Vintage               string   `json:"vintage"`
}

// AmenityCategories lists the category keys of Amenities, always all present.
var AmenityCategories = []string{"schools", "hospitals", "grocery", "parks", "transit", "restaurants", "banks"}

// Amenity is one point of interest near a property.
type Amenity struct {
	Name          string  `json:"name"`
	Type          string  `json:"type"` // the OSM tag value, e.g. "school", "bus_stop"
	DistanceMiles float64 `json:"distance_miles"`
	Latitude      float64 `json:"latitude"`
	Longitude     float64 `json:"longitude"`
}

// Amenities are the points of interest within a radius, by category, each
// category sorted by distance. Every key of AmenityCategories is present.
// Source says where they were read: "overpass", or "osm-extract" (a loaded
// OpenStreetMap extract, whose date Vintage gives); Attribution is the
// credit OpenStreetMap's licence asks of an answer built from its data
// (empty in values stored before it was added).
type Amenities struct {
	RadiusMeters int                  `json:"radius_meters"`
	Categories   map[string][]Amenity `json:"categories"`
	TotalCount   int                  `json:"total_count"`
	Source       string               `json:"source"`
	Vintage      string               `json:"vintage,omitempty"`
	Attribution  string               `json:"attribution,omitempty"`
}

// WalkScoreCategory is one category's part of a computed walk score.
type WalkScoreCategory struct {
	Weight  float64  `json:"weight"`
	Count   int      `json:"count"`
	Nearest *float64 `json:"nearest_miles"`
	Points  float64  `json:"points"`
}

// WalkScore is a 0-100 walkability score with its band description. A
// score computed from amenities (osm-walk) says where they were read
// (AmenitiesSource, as Amenities.Source) and their Vintage.
type WalkScore struct {
	WalkScore       int                          `json:"walk_score"`
	Description     string                       `json:"description"`
	Method          string                       `json:"method"`
	Source          string                       `json:"source"`
	AmenitiesSource string                       `json:"amenities_source,omitempty"`
	Vintage         string                       `json:"vintage,omitempty"`
	Breakdown       map[string]WalkScoreCategory `json:"breakdown,omitempty"`
	TransitScore    *int                         `json:"transit_score,omitempty"`
	BikeScore       *int                         `json:"bike_score,omitempty"`
}

// Housing holds tract-level ACS 5-year housing figures. Shares are
// percentages. When the hud-fmr module is configured, the housing section of
// a response also carries "fair_market_rents" (a FairMarketRents), cached
// per county on its own, so a HUD outage never taints the ACS figures.
type Housing struct {
	TotalHousingUnits *int64              `json:"total_housing_units"`
	OccupiedUnits     *int64              `json:"occupied_units"`
	MedianYearBuilt   *int64              `json:"median_year_built"`
	MedianRooms       *float64            `json:"median_rooms"`
	UnitsInStructure  map[string]*float64 `json:"units_in_structure_pct"` // single_family_detached, single_family_attached, units_2_4, units_5_19, units_20_plus, mobile_home
	Bedrooms          map[string]*float64 `json:"bedrooms_pct"`           // "0".."4", "5_plus"
	MedianGrossRent   *int64              `json:"median_gross_rent"`
	MedianHomeValue   *int64              `json:"median_home_value"`
	Source            string              `json:"source"`
	Vintage           string              `json:"vintage"`
}

// FairMarketRents are HUD's fair market rents for a county by bedroom count.
type FairMarketRents struct {
	Year       string         `json:"year"`
	AreaName   string         `json:"area_name"`
	ByBedrooms map[string]int `json:"by_bedrooms"` // "0".."4"
	Source     string         `json:"source"`
}

// SectionMeta describes how one section of a response was produced.
//
// A stale value (Status "stale") is an expired one served from the store
// (Cache "hit") while it is refreshed, or because refreshing it failed:
// AgeSeconds then says how old it is, and Error, when set, why the last
// attempt to refresh it failed.
type SectionMeta struct {
	Status     string     `json:"status"` // ok, stale, unavailable
	Source     string     `json:"source"`
	Vintage    string     `json:"vintage,omitempty"`
	FetchedAt  *time.Time `json:"fetched_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	Cache      string     `json:"cache"`                 // hit, miss
	AgeSeconds *int       `json:"age_seconds,omitempty"` // seconds since FetchedAt, set exactly when stale
	Error      string     `json:"error,omitempty"`
	RetryAfter *int       `json:"retry_after,omitempty"` // seconds, when a breaker is open
	// FailedParts names the members of the section's value left out
	// because the source of each failed (housing's fair_market_rents when
	// HUD did): Status is then "partial" where it would be "ok", and
	// Error, unless the section has its own, the first failed part's code.
	// Nil when every part is there, or had nothing to give.
	FailedParts []string `json:"failed_parts,omitempty"`
}

// Provenanced is implemented by section values that say where they come
// from: the module (or upstream) and the data's vintage ("" when it has
// none). The core records both beside the stored value, for
// meta.sections, without decoding the value again.
type Provenanced interface {
	Provenance() (source, vintage string)
}

var (
	_ Provenanced = (*Flood)(nil)
	_ Provenanced = (*Demographics)(nil)
	_ Provenanced = (*Amenities)(nil)
	_ Provenanced = (*WalkScore)(nil)
	_ Provenanced = (*Housing)(nil)
	_ Provenanced = (*FairMarketRents)(nil)
)

// Provenance reports the value's source and, from a loaded flood map, its
// effective date.
func (f *Flood) Provenance() (string, string) { return f.Source, f.Vintage }

// Provenance reports the value's source and ACS vintage.
func (d *Demographics) Provenance() (string, string) { return d.Source, d.Vintage }

// Provenance reports the value's source and, from an extract, its date.
func (a *Amenities) Provenance() (string, string) { return a.Source, a.Vintage }

// Provenance reports the value's source and the vintage of the amenities
// it was computed from.
func (w *WalkScore) Provenance() (string, string) { return w.Source, w.Vintage }

// Provenance reports the value's source and ACS vintage.
func (h *Housing) Provenance() (string, string) { return h.Source, h.Vintage }

// Provenance reports the value's source and HUD's fiscal year.
func (f *FairMarketRents) Provenance() (string, string) { return f.Source, "" }
