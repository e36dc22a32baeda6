package sandbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
	"github.com/propertyd/propertyd/providers/modules/overpass"
)

func TestCensusGeocoderAnswersEveryPlace(t *testing.T) {
	_, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	ctx := context.Background()
	for _, p := range sandbox.DefaultPlaces() {
		t.Run(p.ID, func(t *testing.T) {
			want := providers.Location{
				MatchedAddress: fmt.Sprintf("%s, %s, %s, %s", p.Street, p.City, p.State, p.Zip),
				Street:         p.Street, City: p.City, State: p.State, Zip: p.Zip,
				Point:  p.Point(),
				County: p.CountyName, FIPSCode: p.FIPS(), CensusTract: p.Tract,
				Precision: providers.PrecisionCensus,
			}
			got, err := c.census.Geocode(ctx, p.Address())
			if err != nil {
				t.Fatalf("Geocode(%+v): %v", p.Address(), err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Geocode = %+v\nwant      %+v", got, want)
			}
			for _, alias := range p.Aliases {
				a := p.Address()
				a.Street = strings.ToLower(alias)
				got, err := c.census.Geocode(ctx, a)
				if err != nil || got.FIPSCode != p.FIPS() || got.CensusTract != p.Tract {
					t.Errorf("Geocode(alias %q) = %+v, %v; want tract %s%s", alias, got, err, p.FIPS(), p.Tract)
				}
			}
			rev, err := c.census.Reverse(ctx, p.Point())
			if err != nil {
				t.Fatalf("Reverse(%v): %v", p.Point(), err)
			}
			if rev.FIPSCode != p.FIPS() || rev.CensusTract != p.Tract || rev.County != p.CountyName {
				t.Errorf("Reverse = %+v, want county %q FIPS %s tract %s", rev, p.CountyName, p.FIPS(), p.Tract)
			}
		})
	}

	_, err := c.census.Geocode(ctx, providers.Address{Street: "1 NOWHERE RD", City: "NOWHERE", State: "KS"})
	wantKind(t, "Geocode of an unknown address", err, providers.KindNotFound, "address_not_found")
	_, err = c.census.Reverse(ctx, providers.Point{Lat: 0.5, Lng: -30})
	wantKind(t, "Reverse at sea", err, providers.KindNotFound, "location_not_found")
}

func TestCensusBatchAnswersEveryPlace(t *testing.T) {
	_, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	places := sandbox.DefaultPlaces()
	var rows []census.BatchRow
	for i, p := range places {
		rows = append(rows, census.BatchRow{ID: strconv.Itoa(i), Address: p.Address()})
	}
	rows = append(rows, census.BatchRow{ID: "unknown", Address: providers.Address{Street: "1 NOWHERE RD", City: "X", State: "KS"}})
	got, err := c.census.GeocodeBatch(context.Background(), rows)
	if err != nil {
		t.Fatalf("GeocodeBatch: %v", err)
	}
	if len(got) != len(rows) {
		t.Fatalf("GeocodeBatch returned %d results for %d rows", len(got), len(rows))
	}
	for i, p := range places {
		r := got[i]
		if !r.Matched || r.MatchType != "Exact" || r.Location.FIPSCode != p.FIPS() ||
			r.Location.CensusTract != p.Tract || r.Location.Point != p.Point() {
			t.Errorf("batch row %s (%s) = %+v, want an exact match in tract %s%s at %v", r.ID, p.ID, r, p.FIPS(), p.Tract, p.Point())
		}
	}
	if last := got[len(got)-1]; last.ID != "unknown" || last.Matched {
		t.Errorf("batch row for an unknown address = %+v, want unmatched", last)
	}
}

func TestFEMAAnswersEveryPlace(t *testing.T) {
	_, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	for _, p := range sandbox.DefaultPlaces() {
		t.Run(p.ID, func(t *testing.T) {
			area := p.Flood[0]
			got, err := c.fema.Flood(context.Background(), p.Point())
			if err != nil {
				t.Fatalf("Flood: %v", err)
			}
			var subtype *string
			if area.Subtype != "" {
				subtype = ptr(area.Subtype)
			}
			if got.Zone == nil || *got.Zone != area.Zone || !reflect.DeepEqual(got.ZoneSubtype, subtype) {
				t.Errorf("zone = %v / %v, want %q / %v", deref(got.Zone), deref(got.ZoneSubtype), area.Zone, deref(subtype))
			}
			if got.SpecialFloodHazard == nil || *got.SpecialFloodHazard != area.SFHA {
				t.Errorf("special flood hazard area = %v, want %v", got.SpecialFloodHazard, area.SFHA)
			}
			if !reflect.DeepEqual(got.StaticBFE, area.StaticBFE) {
				t.Errorf("base flood elevation = %v, want %v", got.StaticBFE, area.StaticBFE)
			}
			if deref(got.PanelNumber) != area.Panel || deref(got.PanelEffectiveDate) != area.PanelEffective {
				t.Errorf("panel = %s effective %s, want %s effective %s",
					deref(got.PanelNumber), deref(got.PanelEffectiveDate), area.Panel, area.PanelEffective)
			}
			if area.SFHA && got.RiskLevel != providers.RiskHigh {
				t.Errorf("risk level in a special flood hazard area = %q, want high", got.RiskLevel)
			}
			if !area.SFHA && got.RiskLevel == providers.RiskHigh {
				t.Errorf("risk level outside a special flood hazard area = %q, want below high", got.RiskLevel)
			}
		})
	}
	got, err := c.fema.Flood(context.Background(), providers.Point{Lat: 44.5, Lng: -100.3})
	if err != nil || got.Zone != nil || got.RiskLevel != providers.RiskUndetermined {
		t.Errorf("Flood away from every place = %+v, %v; want an undetermined risk without zone", got, err)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// acsRow is the row the ACS API sends for vars of p's tract.
func acsRow(p sandbox.Place, vars []string) censusacs.Row {
	row := censusacs.Row{}
	for _, v := range vars {
		s, ok := p.ACS[v]
		if !ok {
			s = "-888888888"
		}
		row[v] = &s
	}
	return row
}

// TestACSDiscoveryDocumentIsServed: the census-acs modules follow the
// newest release by default, so the sandbox serves the API's discovery
// document beside the data; it lists releases up to the sample data's.
func TestACSDiscoveryDocumentIsServed(t *testing.T) {
	srv, root := start(t, sandbox.Options{})
	acs, err := censusacs.New(providers.Settings{BaseURL: sandbox.BaseURLs(root)[string(providers.RoleHousing)], Client: http.DefaultClient})
	if err != nil {
		t.Fatal(err)
	}
	p := place(t, "new-orleans-la")
	h, err := acs.Housing(context.Background(), p.CensusTract())
	if err != nil || h.Vintage != censusacs.Vintage(strconv.Itoa(providertest.ACSNewestYear)) {
		t.Fatalf("housing %+v, %v; want the newest release the sandbox lists, %d", h, err, providertest.ACSNewestYear)
	}
	if got := srv.RouteCalls(sandbox.UpstreamACS)["GET /acs/data.json"]; got != 1 {
		t.Fatalf("discovery document asked %d times, want 1", got)
	}
	// The vintage above is also what the module asks for when discovery
	// fails: the document itself must be there, in the API's format.
	resp, err := http.Get(root + "/acs/data.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Type    string `json:"@type"`
		Dataset []struct {
			Vintage int      `json:"c_vintage"`
			Dataset []string `json:"c_dataset"`
		} `json:"dataset"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); resp.StatusCode != http.StatusOK || err != nil || doc.Type != "dcat:Catalog" {
		t.Fatalf("GET /acs/data.json: %s, %v, %+v; want 200 and the API's catalog", resp.Status, err, doc)
	}
	newest := 0
	for _, d := range doc.Dataset {
		if strings.Join(d.Dataset, "/") == "acs/acs5" {
			newest = max(newest, d.Vintage)
		}
	}
	if newest != providertest.ACSNewestYear {
		t.Fatalf("the catalog's newest acs/acs5 release is %d, want %d", newest, providertest.ACSNewestYear)
	}
}

func TestACSAnswersEveryPlace(t *testing.T) {
	_, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	ctx := context.Background()
	for _, p := range sandbox.DefaultPlaces() {
		t.Run(p.ID, func(t *testing.T) {
			d, err := c.acs.Demographics(ctx, p.CensusTract())
			if err != nil {
				t.Fatalf("Demographics: %v", err)
			}
			wantD, err := censusacs.DemographicsFrom(p.CensusTract(), acsRow(p, censusacs.DemographicsVariables), c.acs.Year())
			if err != nil {
				t.Fatalf("DemographicsFrom the places file: %v", err)
			}
			if !reflect.DeepEqual(d, wantD) {
				t.Errorf("Demographics = %s\nwant           %s", show(d), show(wantD))
			}
			pop, _ := strconv.ParseInt(p.ACS[censusacs.VarPopulation], 10, 64)
			if d.TotalPopulation == nil || *d.TotalPopulation != pop {
				t.Errorf("total population = %v, want %d", deref(d.TotalPopulation), pop)
			}
			h, err := c.acs.Housing(ctx, p.CensusTract())
			if err != nil {
				t.Fatalf("Housing: %v", err)
			}
			wantH, err := censusacs.HousingFrom(acsRow(p, censusacs.HousingVariables), c.acs.Year())
			if err != nil {
				t.Fatalf("HousingFrom the places file: %v", err)
			}
			if !reflect.DeepEqual(h, wantH) {
				t.Errorf("Housing = %s\nwant      %s", show(h), show(wantH))
			}
		})
	}

	// The sentinels of the places file come out as unknown values.
	d, err := c.acs.Demographics(ctx, place(t, "new-orleans-la").CensusTract())
	if err != nil || d.MedianHomeValue != nil {
		t.Errorf("median home value of a tract holding -666666666 = %v, %v; want nil", deref(d.MedianHomeValue), err)
	}
	h, err := c.acs.Housing(ctx, place(t, "denver-co").CensusTract())
	if err != nil || h.MedianYearBuilt != nil {
		t.Errorf("median year built of a tract holding -999999999 = %v, %v; want nil", deref(h.MedianYearBuilt), err)
	}
	_, err = c.acs.Demographics(ctx, providers.Tract{State: "48", County: "453", Tract: "999999"})
	wantKind(t, "Demographics of an unknown tract", err, providers.KindNotFound, "tract_not_found")
}

func show(v any) string {
	rv := reflect.Indirect(reflect.ValueOf(v))
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < rv.NumField(); i++ {
		f := rv.Field(i)
		fmt.Fprintf(&b, "%s:", rv.Type().Field(i).Name)
		switch {
		case f.Kind() == reflect.Pointer && !f.IsNil():
			fmt.Fprintf(&b, "%v ", f.Elem().Interface())
		case f.Kind() == reflect.Map:
			fmt.Fprintf(&b, "{")
			for _, k := range f.MapKeys() {
				fmt.Fprintf(&b, "%v:%v,", k, deref(f.MapIndex(k).Interface().(*float64)))
			}
			fmt.Fprintf(&b, "} ")
		default:
			fmt.Fprintf(&b, "%v ", f.Interface())
		}
	}
	b.WriteString("}")
	return b.String()
}

func TestOverpassAnswersEveryPlace(t *testing.T) {
	_, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	for _, p := range sandbox.DefaultPlaces() {
		t.Run(p.ID, func(t *testing.T) {
			for _, radius := range []int{overpass.DefaultRadius, overpass.MaxRadius} {
				want := map[string][]string{}
				total := 0
				for _, e := range p.OSM {
					cat, _, ok := amenity.Classify(e.Tags)
					d := p.Point().DistanceMeters(providers.Point{Lat: e.Lat, Lng: e.Lng})
					if ok && d <= float64(radius) {
						want[cat] = append(want[cat], e.Tags["name"])
						total++
					}
				}
				got, err := c.overpass.Amenities(context.Background(), p.Point(), radius)
				if err != nil {
					t.Fatalf("Amenities(radius %d): %v", radius, err)
				}
				if got.TotalCount != total {
					t.Errorf("radius %d: %d amenities, want %d", radius, got.TotalCount, total)
				}
				for cat, names := range want {
					var have []string
					for _, a := range got.Categories[cat] {
						have = append(have, a.Name)
					}
					for _, n := range names {
						if !strings.Contains(strings.Join(have, "|"), n) {
							t.Errorf("radius %d: category %s = %v, missing %q", radius, cat, have, n)
						}
					}
				}
			}
		})
	}
}

func TestWalkScoreAnswersEveryPlace(t *testing.T) {
	_, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	ctx := context.Background()
	for _, p := range sandbox.DefaultPlaces() {
		t.Run(p.ID, func(t *testing.T) {
			w := p.WalkScore
			// On the place, and 300 m north of it: both are scored as the place.
			for _, at := range []providers.Point{p.Point(), {Lat: p.Lat + 0.0027, Lng: p.Lng}} {
				got, err := c.walk.WalkScore(ctx, at, p.Street+", "+p.City)
				if err != nil {
					t.Fatalf("WalkScore(%v): %v", at, err)
				}
				if got.WalkScore != w.Walk || !reflect.DeepEqual(got.TransitScore, w.Transit) || !reflect.DeepEqual(got.BikeScore, w.Bike) {
					t.Errorf("WalkScore(%v) = walk %d transit %v bike %v, want %d %v %v", at,
						got.WalkScore, deref(got.TransitScore), deref(got.BikeScore), w.Walk, deref(w.Transit), deref(w.Bike))
				}
			}
		})
	}
	_, err := c.walk.WalkScore(ctx, providers.Point{Lat: 47.1, Lng: -120.2}, "")
	wantKind(t, "WalkScore far from every place", err, providers.KindUpstream, "upstream_rejected_input")
}

func TestHUDAnswersEveryPlace(t *testing.T) {
	_, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	ctx := context.Background()
	for _, p := range sandbox.DefaultPlaces() {
		t.Run(p.ID, func(t *testing.T) {
			f := p.FMR
			got, err := c.hud.FairMarketRents(ctx, p.FIPS())
			if err != nil {
				t.Fatalf("FairMarketRents(%s): %v", p.FIPS(), err)
			}
			area := f.AreaName
			if area == "" {
				area = f.MetroName
			}
			want := &providers.FairMarketRents{Year: "2025", AreaName: area, Source: "hud-fmr", ByBedrooms: map[string]int{}}
			for i, r := range f.Rents {
				want.ByBedrooms[strconv.Itoa(i)] = r
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("FairMarketRents = %+v, want %+v", got, want)
			}
		})
	}
	_, err := c.hud.FairMarketRents(ctx, "01001")
	wantKind(t, "FairMarketRents of an unknown county", err, providers.KindNotFound, "fmr_not_found")

	wrong, err := newHUDClient(root, "not-the-token")
	if err != nil {
		t.Fatal(err)
	}
	_, err = wrong.FairMarketRents(ctx, place(t, "austin-tx").FIPS())
	wantKind(t, "FairMarketRents with a wrong token", err, providers.KindUnavailable, "upstream_misconfigured")
}

func TestHUDTokenOption(t *testing.T) {
	_, root := start(t, sandbox.Options{HUDToken: "my-token"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for token, ok := range map[string]bool{"my-token": true, sandbox.HUDToken: false} {
		c, err := newHUDClient(root, token)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.FairMarketRents(ctx, place(t, "denver-co").FIPS())
		if (err == nil) != ok {
			t.Errorf("token %q with Options.HUDToken my-token: err = %v, want success %v", token, err, ok)
		}
	}
}
