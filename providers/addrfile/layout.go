package addrfile

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Mapping is how the columns of an address file become address points,
// for a file of none of the presets' layouts (a county's address points,
// a state's NG911 export), in the shape the assessor loads declare theirs.
// Column names compare without regard to case. A mapping names only
// columns the file has: a column it names and the file lacks is an error
// before anything is read.
type Mapping struct {
	// Number names the columns of the house number, joined with nothing
	// between them ("N" and "5322" are "N5322", "12" and "A" are "12A")
	// but a space before a fraction ("12" and "1/2" are "12 1/2").
	Number []string `yaml:"number"`
	// Street names the columns of the street name (pre-modifier,
	// pre-directional, pre-type, name, post-type, post-directional...),
	// joined with spaces.
	Street []string `yaml:"street"`
	Unit   string   `yaml:"unit"`
	City   string   `yaml:"city"`
	State  string   `yaml:"state"`
	Zip    string   `yaml:"zip"`
	// Lat and Lng name the WGS84 (or NAD83) coordinate columns. In a
	// GeoJSON, shapefile or GeoPackage file they may be left empty: the
	// feature's point is used.
	Lat string `yaml:"lat"`
	Lng string `yaml:"lng"`
	// Key names the columns that identify a row, the first non-empty
	// wins (an OpenAddresses HASH, else its ID); none: the row's line.
	Key []string `yaml:"key"`
}

// Validate checks m as declared, before any file is read.
func (m *Mapping) Validate() error {
	switch {
	case len(m.Number) == 0:
		return fmt.Errorf("mapping: number names no column")
	case len(m.Street) == 0:
		return fmt.Errorf("mapping: street names no column")
	case (m.Lat == "") != (m.Lng == ""):
		return fmt.Errorf("mapping: lat and lng name both columns or neither")
	}
	return nil
}

// columns lists the columns m reads: required first, then the optional.
func (m *Mapping) columns() (required, optional []string) {
	required = append(slices.Clone(m.Number), m.Street...)
	if m.Lat != "" {
		required = append(required, m.Lat, m.Lng)
	}
	for _, c := range []string{m.Unit, m.City, m.State, m.Zip} {
		if c != "" {
			optional = append(optional, c)
		}
	}
	return required, append(optional, m.Key...)
}

// The layouts a file is recognized as.
const (
	// LayoutOpenAddresses is OpenAddresses' output, as its batch service
	// publishes it per source: a CSV with the header LON, LAT, NUMBER,
	// STREET, UNIT, CITY, DISTRICT, REGION, POSTCODE, ID, HASH, or
	// newline-delimited GeoJSON features whose properties are those names
	// in lower case (hash, number, street, unit, city, district, region,
	// postcode, id) and whose geometry is the point.
	LayoutOpenAddresses = "openaddresses"
	// LayoutNAD is the USDOT National Address Database's text file (the
	// TXT/NAD_rNN.txt of its download): comma-separated, with the header
	// of release 23 (see nadMapping).
	LayoutNAD = "nad"
	// LayoutAddrfeat is the Census Bureau's TIGER/Line Address Range
	// Feature county-based shapefile (tl_YYYY_SSCCC_addrfeat), as
	// published (.zip) or converted (GeoJSON, GeoPackage) with its columns.
	LayoutAddrfeat = "addrfeat"
	// LayoutMapping is a file read by Options.Mapping.
	LayoutMapping = "mapping"
)

// openAddressesMapping reads OpenAddresses' columns. Only NUMBER, STREET
// and the point are required: older outputs have no HASH, and a source's
// rows often leave CITY, REGION and POSTCODE empty (the source's folder,
// us/ny/..., names the state: Options.State gives it). DISTRICT (a
// county, or in some sources a FIPS code) is not read.
var openAddressesMapping = Mapping{
	Number: []string{"NUMBER"}, Street: []string{"STREET"}, Unit: "UNIT",
	City: "CITY", State: "REGION", Zip: "POSTCODE", Lat: "LAT", Lng: "LON",
	Key: []string{"HASH", "ID"},
}

// nadMapping reads the National Address Database text file, by the
// column names of its schema (USDOT NAD Schema; the header of release
// 23's TXT/NAD_r23.txt: OID_, AddNum_Pre, Add_Number, AddNum_Suf,
// AddNo_Full, St_PreMod, St_PreDir, St_PreTyp, St_PreSep, St_Name,
// St_PosTyp, St_PosDir, St_PosMod, StNam_Full, Building, Floor, Unit,
// Room, Seat, Addtl_Loc, SubAddress, LandmkName, County, Inc_Muni,
// Post_City, Census_Plc, Uninc_Comm, Nbrhd_Comm, NatAmArea, NatAmSub,
// Urbnztn_PR, PlaceOther, PlaceNmTyp, State, Zip_Code, Plus_4, UUID,
// AddAuth, AddrRefSys, Longitude, Latitude, NatGrid, Elevation,
// Placement, AddrPoint, Related_ID, RelateType, ParcelSrc, Parcel_ID,
// AddrClass, Lifecycle, Effective, Expire, DateUpdate, AnomStatus,
// LocatnDesc, Addr_Type, DeliverTyp, NAD_Source, DataSet_ID). The street
// is composed from its parts rather than read from StNam_Full, which
// publishers fill unevenly; the city is the postal city (Post_City), the
// one a lookup gives; of the sub-address fields only Unit is read
// (Building, Floor and Room are often set without their designator). The
// first releases' header (StN_PreDir, StreetName, Post_Comm, GUID) is not
// this layout: read it with a Mapping.
var nadMapping = Mapping{
	Number: []string{"AddNum_Pre", "Add_Number", "AddNum_Suf"},
	Street: []string{"St_PreMod", "St_PreDir", "St_PreTyp", "St_PreSep", "St_Name", "St_PosTyp", "St_PosDir", "St_PosMod"},
	Unit:   "Unit", City: "Post_City", State: "State", Zip: "Zip_Code",
	Lat: "Latitude", Lng: "Longitude", Key: []string{"UUID"},
}

// nadRequired are the NAD columns a file must have to be read as one: the
// number, the name, the state and the point. The other street parts are
// read when present.
var nadRequired = []string{"Add_Number", "St_Name", "State", "Longitude", "Latitude"}

// addrfeatColumns are the ADDRFEAT columns a range is read from, as the
// TIGER/Line technical documentation's Address Range Feature record layout
// names them (confirmed in the entity and attribute metadata published
// beside each file, tl_YYYY_SSCCC_addrfeat.shp.ea.iso.xml).
var addrfeatColumns = []string{"TLID", "FULLNAME", "LFROMHN", "LTOHN", "RFROMHN", "RTOHN", "ZIPL", "ZIPR", "PARITYL", "PARITYR"}

// layout is how one file is read: its name, the mapping for points (none
// for ADDRFEAT), and whether the point comes from the geometry.
type layout struct {
	name     string
	mapping  Mapping
	geometry bool
}

// candidate is a known layout and the columns a file needs to be one.
type candidate struct {
	name     string
	required []string
}

// chooseLayout decides how a file with columns cols is read: the layout
// named in opts, else the first known one whose required columns it has
// (ADDRFEAT and the geometry-pointed OpenAddresses only in spatial
// files), else opts.Mapping. A file of no layout is an error naming, for
// the layout it comes closest to, the columns it lacks.
func chooseLayout(cols []string, spatial bool, opts Options) (layout, error) {
	have := map[string]bool{}
	for _, c := range cols {
		have[strings.ToLower(strings.TrimSpace(c))] = true
	}
	missing := func(names []string) []string {
		var out []string
		for _, n := range names {
			if !have[strings.ToLower(n)] {
				out = append(out, n)
			}
		}
		return out
	}
	oaRequired := []string{"NUMBER", "STREET"}
	if !spatial {
		oaRequired = append(oaRequired, "LON", "LAT")
	}
	var cands []candidate
	if spatial {
		cands = append(cands, candidate{LayoutAddrfeat, addrfeatColumns})
	}
	cands = append(cands, candidate{LayoutOpenAddresses, oaRequired}, candidate{LayoutNAD, nadRequired})
	if opts.Mapping != nil {
		req, _ := opts.Mapping.columns()
		cands = append(cands, candidate{LayoutMapping, req})
	}
	if opts.Layout != "" {
		i := slices.IndexFunc(cands, func(c candidate) bool { return c.name == opts.Layout })
		if i < 0 {
			return layout{}, fmt.Errorf("%w: %q is not a layout this file can be read as (known: %s)", ErrLayout, opts.Layout, strings.Join(layoutNames(cands), ", "))
		}
		cands = cands[i : i+1]
	} else if opts.Mapping != nil {
		cands = cands[len(cands)-1:]
	}
	best, bestMissing := "", []string(nil)
	for _, c := range cands {
		m := missing(c.required)
		if len(m) == 0 {
			return makeLayout(c.name, spatial, opts), nil
		}
		if best == "" || len(m) < len(bestMissing) {
			best, bestMissing = c.name, m
		}
	}
	sort.Strings(bestMissing)
	return layout{}, fmt.Errorf("%w: not a known layout; closest is %s, which needs the columns %s (the file has: %s)",
		ErrLayout, best, strings.Join(bestMissing, ", "), strings.Join(cols, ", "))
}

func layoutNames(cands []candidate) []string {
	var out []string
	for _, c := range cands {
		out = append(out, c.name)
	}
	return out
}

// makeLayout is the layout of that name for a file.
func makeLayout(name string, spatial bool, opts Options) layout {
	switch name {
	case LayoutAddrfeat:
		return layout{name: name}
	case LayoutOpenAddresses:
		m := openAddressesMapping
		if spatial {
			m.Lat, m.Lng = "", ""
		}
		return layout{name: name, mapping: m, geometry: spatial}
	case LayoutNAD:
		return layout{name: name, mapping: nadMapping}
	}
	m := *opts.Mapping
	return layout{name: LayoutMapping, mapping: m, geometry: spatial && m.Lat == ""}
}
