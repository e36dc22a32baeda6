package service_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/service"
)

func loc(matched, zip string, lat float64) providers.Location {
	street, city := "", ""
	parts := []string{}
	start := 0
	for i := 0; i <= len(matched); i++ {
		if i == len(matched) || matched[i] == ',' {
			p := matched[start:i]
			for len(p) > 0 && p[0] == ' ' {
				p = p[1:]
			}
			parts = append(parts, p)
			start = i + 1
		}
	}
	street, city = parts[0], parts[1]
	return providers.Location{MatchedAddress: matched, Street: street, City: city, State: parts[2], Zip: zip,
		Point: providers.Point{Lat: lat, Lng: -77}, County: "Somewhere County", FIPSCode: "11001"}
}

func withOthers(first providers.Location, others ...providers.Location) providers.Location {
	first.Others = others
	return first
}

func TestResolveDecidesBetweenCandidates(t *testing.T) {
	edgeA := loc("1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502", "20502", 38.8987)
	edgeB := loc("1600 Pennsylvania Ave NW, WASHINGTON, DC, 20502", "20502", 38.8988)
	zip37 := loc("1600 Pennsylvania Ave NW, WASHINGTON, DC, 20037", "20037", 38.8989)
	tests := []struct {
		name      string
		in        providers.Address
		answer    providers.Location
		mode      service.MatchMode
		wantCode  string
		wantType  string
		wantAddr  string
		wantDiffs []string
		wantCands int
	}{
		{"one address on two edges is one match", providers.Address{Street: "1600 Pennsylvania Ave NW", City: "Washington", State: "DC", Zip: "20502"},
			withOthers(edgeA, edgeB), service.MatchAuto, "", "exact", edgeA.MatchedAddress, nil, 0},
		{"two ZIP codes and none given is ambiguous", providers.Address{Street: "1600 Pennsylvania Ave NW", State: "DC"},
			withOthers(zip37, edgeA), service.MatchAuto, "ambiguous_address", "", "", nil, 2},
		{"two ZIP codes, neither the one given, is ambiguous", providers.Address{Street: "1600 Pennsylvania Avenue NW", City: "Washington", State: "DC", Zip: "20500"},
			withOthers(zip37, edgeA), service.MatchAuto, "ambiguous_address", "", "", nil, 2},
		{"the ZIP given picks the one exact candidate", providers.Address{Street: "1600 Pennsylvania Ave NW", State: "DC", Zip: "20502"},
			withOthers(zip37, edgeA), service.MatchAuto, "", "exact", edgeA.MatchedAddress, nil, 0},
		{"best takes the first as non_exact with the others", providers.Address{Street: "1600 Pennsylvania Ave NW", State: "DC"},
			withOthers(zip37, edgeA, edgeB), service.MatchBest, "", "non_exact", zip37.MatchedAddress, nil, 1},
		{"strict refuses a changed ZIP", providers.Address{Street: "1600 Pennsylvania Ave NW", State: "DC", Zip: "20500"},
			edgeA, service.MatchStrict, "inexact_match", "", "", nil, 0},
		{"strict accepts an exact match", providers.Address{Street: "1600 Pennsylvania Avenue Northwest", State: "DC", Zip: "20502"},
			edgeA, service.MatchStrict, "", "exact", edgeA.MatchedAddress, nil, 0},
		{"strict with two different addresses is still ambiguous", providers.Address{Street: "1600 Pennsylvania Ave NW", State: "DC"},
			withOthers(zip37, edgeA), service.MatchStrict, "ambiguous_address", "", "", nil, 2},
		{"a changed house number is non_exact", providers.Address{Street: "1602 Pennsylvania Ave NW", State: "DC", Zip: "20502"},
			edgeA, service.MatchAuto, "", "non_exact", edgeA.MatchedAddress, []string{"house_number"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := address.Normalize(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, m, err := service.Resolve(n, tt.answer, tt.mode)
			if tt.wantCode != "" {
				pe := providers.As(err)
				if err == nil || pe.Code != tt.wantCode || pe.Kind != providers.KindConflict || len(pe.Candidates) != tt.wantCands {
					t.Fatalf("Resolve = %+v, %+v, %v; want %s with %d candidates", got, m, err, tt.wantCode, tt.wantCands)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if m.Type != tt.wantType || m.MatchedAddress != tt.wantAddr || got.MatchedAddress != tt.wantAddr ||
				!reflect.DeepEqual(m.Differences, tt.wantDiffs) || len(m.Candidates) != tt.wantCands || got.Others != nil {
				t.Fatalf("Resolve = %+v\nmatch %+v; want %s %q differences %q, %d candidates", got, m, tt.wantType, tt.wantAddr, tt.wantDiffs, tt.wantCands)
			}
		})
	}
}

// NewRecord's keys are the lookups that find the record from then on
// without the geocoder: the client's spelling, unless the match was taken
// among several different addresses with match=best (that spelling is
// still ambiguous for everyone else), and always the geocoder's own.
func TestNewRecordKeysLeaveAnAmbiguousSpellingOut(t *testing.T) {
	edgeA := loc("1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502", "20502", 38.8987)
	zip37 := loc("1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20037", "20037", 38.8989)
	const canonical37 = "1600 PENNSYLVANIA AVE NW||WASHINGTON|DC|20037"
	const canonicalA = "1600 PENNSYLVANIA AVE NW||WASHINGTON|DC|20502"
	tests := []struct {
		name   string
		in     providers.Address
		answer providers.Location
		mode   service.MatchMode
		keys   []string
	}{
		{"one match: the spelling and the geocoder's", providers.Address{Street: "1600 Pennsylvania Avenue NW", State: "DC"},
			edgeA, service.MatchAuto, []string{"1600 PENNSYLVANIA AVE NW|||DC|", canonicalA}},
		{"the spelling is the geocoder's: once", providers.Address{Street: "1600 Pennsylvania Ave NW", City: "Washington", State: "DC", Zip: "20502"},
			edgeA, service.MatchAuto, []string{canonicalA}},
		{"several told apart by the ZIP given: the spelling names one", providers.Address{Street: "1600 Pennsylvania Ave NW", State: "DC", Zip: "20502"},
			withOthers(zip37, edgeA), service.MatchAuto, []string{"1600 PENNSYLVANIA AVE NW|||DC|20502", canonicalA}},
		{"several taken with best: the geocoder's only", providers.Address{Street: "1600 Pennsylvania Ave NW", State: "DC"},
			withOthers(zip37, edgeA), service.MatchBest, []string{canonical37}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := address.Normalize(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			chosen, m, err := service.Resolve(n, tt.answer, tt.mode)
			if err != nil {
				t.Fatal(err)
			}
			np := service.NewRecord(chosen, m, n, "census", time.Unix(0, 0))
			if !reflect.DeepEqual(np.Keys, tt.keys) {
				t.Fatalf("keys %q, want %q", np.Keys, tt.keys)
			}
		})
	}
}
