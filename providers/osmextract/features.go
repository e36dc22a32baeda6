package osmextract

import (
	"strconv"
	"strings"

	"github.com/paulmach/osm"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
)

// The tags read, as the OpenStreetMap wiki names them (Key:building,
// Key:building:levels, Key:building:flats, Key:start_date, Key:addr:*).
const (
	tagBuilding    = "building"
	tagLevels      = "building:levels"
	tagFlats       = "building:flats"
	tagStartDate   = "start_date"
	tagHouseNumber = "addr:housenumber"
	tagStreet      = "addr:street"
	tagUnit        = "addr:unit"
	tagCity        = "addr:city"
	tagPostcode    = "addr:postcode"
)

// kinds says what an element's tags make of it; the geometry comes later.
type kinds struct {
	category, typ string // the amenity category and type, "" for none
	building      string // the building tag's value, "" for none
	address       bool   // tagged addr:housenumber and addr:street
}

func (k kinds) any() bool { return k.category != "" || k.building != "" || k.address }

// classify reads an element's tags.
func classify(tags osm.Tags) kinds {
	var k kinds
	if len(tags) == 0 {
		return k
	}
	k.category, k.typ, _ = amenity.ClassifyFunc(func(key string) (string, bool) {
		if t := tags.FindTag(key); t != nil {
			return t.Value, true
		}
		return "", false
	})
	if b := strings.TrimSpace(tags.Find(tagBuilding)); b != "" && b != "no" {
		k.building = b
	}
	k.address = strings.TrimSpace(tags.Find(tagHouseNumber)) != "" && strings.TrimSpace(tags.Find(tagStreet)) != ""
	return k
}

// place is the amenity place of an element of kinds k at p.
func place(ref providers.OSMRef, k kinds, tags osm.Tags, p providers.Point) providers.OSMPlace {
	name := tags.Find("name")
	return providers.OSMPlace{OSMRef: ref, Category: k.category, Type: k.typ,
		Name:    amenity.DisplayName(name, tags.Find("brand"), k.typ),
		NameKey: amenity.NameKey(name), Point: p}
}

// address is the address point of an element at p.
func address(ref providers.OSMRef, tags osm.Tags, p providers.Point) providers.OSMAddress {
	f := func(k string) string { return strings.TrimSpace(tags.Find(k)) }
	return providers.OSMAddress{OSMRef: ref, HouseNumber: f(tagHouseNumber), Street: f(tagStreet), Unit: f(tagUnit),
		City: f(tagCity), Postcode: f(tagPostcode), Point: p}
}

// building is the building of an element with its footprint; levels and
// flats that are not numbers are left unknown.
func building(ref providers.OSMRef, k kinds, tags osm.Tags, footprint *providers.Parcel, centroid providers.Point) providers.OSMBuilding {
	b := providers.OSMBuilding{OSMRef: ref, Building: k.building, StartDate: strings.TrimSpace(tags.Find(tagStartDate)),
		Footprint: footprint, Point: centroid}
	// Most buildings carry neither tag: parsing "" would build an error
	// each time, a million of them for a million buildings.
	if s := strings.TrimSpace(tags.Find(tagLevels)); s != "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 && v <= 200 {
			b.Levels = &v
		}
	}
	if s := strings.TrimSpace(tags.Find(tagFlats)); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v >= 0 && v <= 20000 {
			b.Flats = &v
		}
	}
	return b
}
