package sandbox

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
)

// Place is one sample property the sandbox knows, with everything each
// upstream says about it. The JSON names are those of the places file.
type Place struct {
	// ID names the place in messages and tests, e.g. "austin-tx"; unique.
	ID string `json:"id"`
	// Street, City, State and Zip are the canonical, UPPER-CASE parts of
	// the address the geocoder matches ("1100 CONGRESS AVE", "AUSTIN",
	// "TX", "78701"); the geocoder matches a street as the real one does
	// (fakeupstream.CensusSameStreet: case and spelled-out suffixes and
	// directionals aside, apostrophes significant), and Aliases are other
	// street spellings it also matches.
	Street  string   `json:"street"`
	City    string   `json:"city"`
	State   string   `json:"state"`
	Zip     string   `json:"zip"`
	Aliases []string `json:"aliases,omitempty"`
	// Lat and Lng are the WGS84 coordinates the geocoder answers.
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
	// CountyName is the county as the geocoder names it ("Travis County").
	CountyName string `json:"county_name"`
	// StateFIPS (2 digits), CountyFIPS (3), Tract (6) and Block (4, may be
	// empty) are the census geography codes of the place.
	StateFIPS  string `json:"state_fips"`
	CountyFIPS string `json:"county_fips"`
	Tract      string `json:"tract"`
	Block      string `json:"block,omitempty"`
	// Flood lists the flood map areas around the place; empty means the
	// place lies in an unmapped area.
	Flood []FloodArea `json:"flood,omitempty"`
	// ACS holds the ACS 5-year values of the place's tract, variable id to
	// the raw string the Census API sends ("5213", "34.6", "-666666666").
	// A variable that is asked for but missing is answered -888888888.
	ACS map[string]string `json:"acs,omitempty"`
	// OSM lists the OpenStreetMap elements around the place.
	OSM []OSMElement `json:"osm,omitempty"`
	// WalkScore is what Walk Score says of the place; nil answers its
	// "invalid coordinates" status.
	WalkScore *WalkScore `json:"walkscore,omitempty"`
	// FMR holds HUD's fair market rents for the place's county; nil
	// answers HUD's "no data" 404.
	FMR *FairMarketRents `json:"fmr,omitempty"`
}

// FloodArea is one rectangle of the fake flood map holding a flood zone
// polygon and a FIRM panel.
type FloodArea struct {
	Zone      string   `json:"zone"`                 // FLD_ZONE, e.g. "AE"; empty maps only a panel
	Subtype   string   `json:"subtype,omitempty"`    // ZONE_SUBTY, e.g. "FLOODWAY"
	SFHA      bool     `json:"sfha"`                 // SFHA_TF
	StaticBFE *float64 `json:"static_bfe"`           // STATIC_BFE in feet; null is the -9999 sentinel
	DFIRMID   string   `json:"dfirm_id,omitempty"`   // DFIRM_ID, e.g. "48453C"
	Panel     string   `json:"panel,omitempty"`      // FIRM_PAN; empty maps no panel
	PanelType string   `json:"panel_type,omitempty"` // PANEL_TYP
	// PanelEffective is the panel's effective date, YYYY-MM-DD.
	PanelEffective string `json:"panel_effective,omitempty"`
	// Box is the rectangle; nil means DefaultFloodBox degrees around the place.
	Box *Box `json:"box,omitempty"`
}

// Box is a latitude/longitude rectangle, edges included.
type Box struct {
	MinLat float64 `json:"min_lat"`
	MinLng float64 `json:"min_lng"`
	MaxLat float64 `json:"max_lat"`
	MaxLng float64 `json:"max_lng"`
}

// DefaultFloodBox is the half size, in degrees, of the square a FloodArea
// without a Box covers around its place (about 1 km).
const DefaultFloodBox = 0.01

// OSMElement is one OpenStreetMap object near a place. Type is "node",
// "way" or "relation"; Lat and Lng are a node's position or a way's center.
type OSMElement struct {
	Type string            `json:"type"`
	ID   int64             `json:"id"`
	Lat  float64           `json:"lat"`
	Lng  float64           `json:"lng"`
	Tags map[string]string `json:"tags,omitempty"`
}

// WalkScore is the Walk Score API's answer for a place. Transit nil
// answers a transit object of nulls (no transit data); Bike nil leaves the
// bike object out.
type WalkScore struct {
	Walk           int    `json:"walk"`
	Description    string `json:"description,omitempty"`
	Transit        *int   `json:"transit"`
	TransitSummary string `json:"transit_summary,omitempty"`
	Bike           *int   `json:"bike,omitempty"`
}

// FairMarketRents is HUD's answer for a county. Rents are Efficiency
// through Four-Bedroom; ZIPRents, when set, makes the county a Small Area
// FMR area whose answer lists ZIP rows after the metro-wide one. Year
// empty means "2025".
type FairMarketRents struct {
	CountyName string            `json:"county_name"`
	MetroName  string            `json:"metro_name,omitempty"`
	AreaName   string            `json:"area_name,omitempty"`
	Year       string            `json:"year,omitempty"`
	Rents      [5]int            `json:"rents"`
	ZIPRents   map[string][5]int `json:"zip_rents,omitempty"`
}

// Address returns the place's address as a client sends it.
func (p Place) Address() providers.Address {
	return providers.Address{Street: p.Street, City: p.City, State: p.State, Zip: p.Zip}
}

// Point returns the place's coordinates.
func (p Place) Point() providers.Point { return providers.Point{Lat: p.Lat, Lng: p.Lng} }

// CensusTract returns the place's census tract, the key of its ACS figures.
func (p Place) CensusTract() providers.Tract {
	return providers.Tract{State: p.StateFIPS, County: p.CountyFIPS, Tract: p.Tract}
}

// FIPS returns the five-digit county FIPS code, the key of HUD's rents.
func (p Place) FIPS() string { return p.StateFIPS + p.CountyFIPS }

//go:embed places.json
var defaultPlaces []byte

// DefaultPlaces returns the sample places shipped with the sandbox (this
// package's places.json, embedded), so tests need no path. Each call
// returns a fresh copy the caller may change.
func DefaultPlaces() []Place {
	places, err := ParsePlaces(defaultPlaces)
	if err != nil {
		panic("sandbox: the embedded places.json is invalid: " + err.Error())
	}
	return places
}

// LoadPlaces reads and checks a places file: a JSON object
// {"places": [...]} of Place values. Unknown fields are errors, so a typo
// does not silently drop data.
func LoadPlaces(path string) ([]Place, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	places, err := ParsePlaces(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return places, nil
}

// ParsePlaces decodes and checks the contents of a places file; see
// LoadPlaces.
func ParsePlaces(b []byte) ([]Place, error) {
	var doc struct {
		Places []Place `json:"places"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decoding places: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF { // dec.More misses a stray } or ]
		return nil, fmt.Errorf("decoding places: data after the top-level object")
	}
	if len(doc.Places) == 0 {
		return nil, fmt.Errorf("no places")
	}
	if err := checkPlaces(doc.Places); err != nil {
		return nil, err
	}
	return doc.Places, nil
}

var (
	digitsRE = regexp.MustCompile(`^[0-9]+$`)
	// acsNameRE matches the names the ACS fake accepts besides NAME and GEO_ID.
	acsNameRE = regexp.MustCompile(`^([BC][0-9]{5}[A-Z]{0,2}_[0-9]{3}(E|M|EA|MA)|NAME|GEO_ID)$`)
)

func checkDigits(id, field, v string, n int, optional bool) error {
	if optional && v == "" {
		return nil
	}
	if len(v) != n || !digitsRE.MatchString(v) {
		return fmt.Errorf("place %q: %s %q is not %d digits", id, field, v, n)
	}
	return nil
}

// checkPlaces rejects places the fakes would answer wrongly or ambiguously.
func checkPlaces(places []Place) error {
	ids := map[string]bool{}
	osmIDs := map[string]string{}
	acsTracts := map[string]string{}
	fmrCounties := map[string]string{}
	for _, p := range places {
		if p.ID == "" {
			return fmt.Errorf("a place has no id")
		}
		if ids[p.ID] {
			return fmt.Errorf("place id %q is used twice", p.ID)
		}
		ids[p.ID] = true
		if p.Street == "" || len(p.State) != 2 {
			return fmt.Errorf("place %q: street and a two-letter state are required", p.ID)
		}
		if !(p.Lat >= -90 && p.Lat <= 90) || !(p.Lng >= -180 && p.Lng <= 180) {
			return fmt.Errorf("place %q: coordinates %v,%v are out of range", p.ID, p.Lat, p.Lng)
		}
		for _, c := range []struct {
			field, v string
			n        int
			optional bool
		}{
			{"state_fips", p.StateFIPS, 2, false}, {"county_fips", p.CountyFIPS, 3, false},
			{"tract", p.Tract, 6, false}, {"block", p.Block, 4, true}, {"zip", p.Zip, 5, true},
		} {
			if err := checkDigits(p.ID, c.field, c.v, c.n, c.optional); err != nil {
				return err
			}
		}
		for i, f := range p.Flood {
			if f.PanelEffective != "" {
				if _, err := time.Parse(time.DateOnly, f.PanelEffective); err != nil {
					return fmt.Errorf("place %q: flood[%d].panel_effective %q is not YYYY-MM-DD", p.ID, i, f.PanelEffective)
				}
			}
			if b := f.Box; b != nil && (b.MinLat > b.MaxLat || b.MinLng > b.MaxLng) {
				return fmt.Errorf("place %q: flood[%d].box has min above max", p.ID, i)
			}
		}
		if len(p.ACS) > 0 {
			geoid := p.CensusTract().GEOID()
			if other, dup := acsTracts[geoid]; dup {
				return fmt.Errorf("places %q and %q both give ACS values for tract %s", other, p.ID, geoid)
			}
			acsTracts[geoid] = p.ID
			for name := range p.ACS {
				if !acsNameRE.MatchString(name) {
					return fmt.Errorf("place %q: acs variable %q is not an ACS variable id", p.ID, name)
				}
			}
		}
		for i, e := range p.OSM {
			switch e.Type {
			case "node", "way", "relation":
			default:
				return fmt.Errorf("place %q: osm[%d].type %q is not node, way or relation", p.ID, i, e.Type)
			}
			key := fmt.Sprintf("%s/%d", e.Type, e.ID)
			if other, dup := osmIDs[key]; dup {
				return fmt.Errorf("places %q and %q both hold OSM element %s", other, p.ID, key)
			}
			osmIDs[key] = p.ID
		}
		if w := p.WalkScore; w != nil {
			for _, s := range []*int{&w.Walk, w.Transit, w.Bike} {
				if s != nil && (*s < 0 || *s > 100) {
					return fmt.Errorf("place %q: walk score %d is not within 0-100", p.ID, *s)
				}
			}
		}
		if p.FMR != nil {
			if other, dup := fmrCounties[p.FIPS()]; dup {
				return fmt.Errorf("places %q and %q both give fair market rents for county %s", other, p.ID, p.FIPS())
			}
			fmrCounties[p.FIPS()] = p.ID
			if y := p.FMR.Year; y != "" && (len(y) != 4 || !digitsRE.MatchString(y)) {
				return fmt.Errorf("place %q: fmr.year %q is not a four-digit year", p.ID, y)
			}
		}
	}
	return nil
}

// The conversions below turn places into the data of the upstream fakes.

func censusPlaces(places []Place) []fakeupstream.CensusPlace {
	out := make([]fakeupstream.CensusPlace, 0, len(places))
	for _, p := range places {
		out = append(out, fakeupstream.CensusPlace{
			Street: p.Street, City: p.City, State: p.State, Zip: p.Zip,
			Aliases: append([]string(nil), p.Aliases...),
			Lat:     p.Lat, Lng: p.Lng,
			CountyName: p.CountyName,
			StateFIPS:  p.StateFIPS, CountyFIPS: p.CountyFIPS,
			Tract: p.Tract, Block: p.Block,
		})
	}
	return out
}

func floodAreas(places []Place) []fakeupstream.FloodArea {
	var out []fakeupstream.FloodArea
	for _, p := range places {
		for _, f := range p.Flood {
			box := Box{MinLat: p.Lat - DefaultFloodBox, MinLng: p.Lng - DefaultFloodBox,
				MaxLat: p.Lat + DefaultFloodBox, MaxLng: p.Lng + DefaultFloodBox}
			if f.Box != nil {
				box = *f.Box
			}
			bfe := fakeupstream.FEMANoBFE
			if f.StaticBFE != nil {
				bfe = *f.StaticBFE
			}
			var eff time.Time
			if f.PanelEffective != "" {
				eff, _ = time.Parse(time.DateOnly, f.PanelEffective) // checked by checkPlaces
			}
			out = append(out, fakeupstream.FloodArea{
				MinLat: box.MinLat, MinLng: box.MinLng, MaxLat: box.MaxLat, MaxLng: box.MaxLng,
				Zone: f.Zone, Subtype: f.Subtype, SFHA: f.SFHA, StaticBFE: bfe, DFIRMID: f.DFIRMID,
				Panel: f.Panel, PanelType: f.PanelType, PanelEffective: eff,
			})
		}
	}
	return out
}

func acsTracts(places []Place) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, p := range places {
		if len(p.ACS) == 0 {
			continue
		}
		vars := make(map[string]string, len(p.ACS))
		for k, v := range p.ACS {
			vars[k] = v
		}
		out[p.CensusTract().GEOID()] = vars
	}
	return out
}

func osmElements(places []Place) []fakeupstream.OSMElement {
	var out []fakeupstream.OSMElement
	for _, p := range places {
		for _, e := range p.OSM {
			tags := make(map[string]string, len(e.Tags))
			for k, v := range e.Tags {
				tags[k] = v
			}
			out = append(out, fakeupstream.OSMElement{Type: e.Type, ID: e.ID, Lat: e.Lat, Lng: e.Lng, Tags: tags})
		}
	}
	return out
}

func walkScorePlaces(places []Place) []fakeupstream.WalkScorePlace {
	var out []fakeupstream.WalkScorePlace
	for _, p := range places {
		w := p.WalkScore
		if w == nil {
			continue
		}
		out = append(out, fakeupstream.WalkScorePlace{
			Point:     p.Point(),
			Address:   p.Street + ", " + p.City + ", " + p.State + " " + p.Zip,
			WalkScore: w.Walk, Description: w.Description,
			TransitScore: w.Transit, TransitSummary: w.TransitSummary, BikeScore: w.Bike,
		})
	}
	return out
}

func hudCounties(places []Place) map[string]fakeupstream.HUDCounty {
	out := map[string]fakeupstream.HUDCounty{}
	for _, p := range places {
		f := p.FMR
		if f == nil {
			continue
		}
		var zips map[string][5]int
		if len(f.ZIPRents) > 0 {
			zips = make(map[string][5]int, len(f.ZIPRents))
			for z, r := range f.ZIPRents {
				zips[z] = r
			}
		}
		out[p.FIPS()] = fakeupstream.HUDCounty{
			CountyName: f.CountyName, MetroName: f.MetroName, AreaName: f.AreaName,
			Year: f.Year, Rents: f.Rents, ZIPRents: zips,
		}
	}
	return out
}

// nearest returns the place nearest to pt within radius metres.
func nearest(places []Place, pt providers.Point, radius float64) (Place, bool) {
	var best Place
	bestD := math.Inf(1)
	for _, p := range places {
		if d := pt.DistanceMeters(p.Point()); d <= radius && d < bestD {
			best, bestD = p, d
		}
	}
	return best, !math.IsInf(bestD, 1)
}
