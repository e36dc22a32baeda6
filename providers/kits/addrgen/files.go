package addrgen

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"

	"github.com/propertyd/propertyd/providers/kits/layergen"
)

// AddrfeatColumns are the columns of TIGER/Line's Address Range Feature
// shapefile (tl_YYYY_SSCCC_addrfeat), with the types and widths the Census
// Bureau gives them (as in tl_2021_30059_addrfeat.dbf).
var AddrfeatColumns = []layergen.Column{
	{Name: "TLID", Type: 'N', Width: 10}, {Name: "TFIDL", Type: 'N', Width: 10}, {Name: "TFIDR", Type: 'N', Width: 10},
	{Name: "ARIDL", Type: 'C', Width: 22}, {Name: "ARIDR", Type: 'C', Width: 22}, {Name: "LINEARID", Type: 'C', Width: 22},
	{Name: "FULLNAME", Type: 'C', Width: 100}, {Name: "LFROMHN", Type: 'C', Width: 12}, {Name: "LTOHN", Type: 'C', Width: 12},
	{Name: "RFROMHN", Type: 'C', Width: 12}, {Name: "RTOHN", Type: 'C', Width: 12}, {Name: "ZIPL", Type: 'C', Width: 5},
	{Name: "ZIPR", Type: 'C', Width: 5}, {Name: "EDGE_MTFCC", Type: 'C', Width: 5}, {Name: "ROAD_MTFCC", Type: 'C', Width: 5},
	{Name: "PARITYL", Type: 'C', Width: 1}, {Name: "PARITYR", Type: 'C', Width: 1}, {Name: "PLUS4L", Type: 'C', Width: 4},
	{Name: "PLUS4R", Type: 'C', Width: 4}, {Name: "LFROMTYP", Type: 'C', Width: 1}, {Name: "LTOTYP", Type: 'C', Width: 1},
	{Name: "RFROMTYP", Type: 'C', Width: 1}, {Name: "RTOTYP", Type: 'C', Width: 1}, {Name: "OFFSETL", Type: 'C', Width: 1},
	{Name: "OFFSETR", Type: 'C', Width: 1},
}

// OpenAddressesHeader is the header of an OpenAddresses source's CSV as
// its batch service publishes it.
var OpenAddressesHeader = []string{"LON", "LAT", "NUMBER", "STREET", "UNIT", "CITY", "DISTRICT", "REGION", "POSTCODE", "ID", "HASH"}

// AddrfeatLayer is the edges as the layer tl_YYYY_SSCCC_addrfeat, one
// feature an edge (each street has one name), in AddrfeatColumns: a side
// without a block leaves its numbers, ZIP code, parity and range id
// empty, as TIGER/Line does; the face ids and the linear id are made up
// from the edge's index, in their real widths.
func (g County) AddrfeatLayer(year int) layergen.Layer {
	return layergen.Layer{Name: g.AddrfeatName(year), Columns: AddrfeatColumns,
		Each: func(yield func(layergen.Feature) error) error {
			for i := range g.Edges() {
				e := g.Edge(i)
				vals := []any{e.TLID, 200_000_000 + 2*e.TLID%100_000_000, 200_000_001 + 2*e.TLID%100_000_000}
				var side [2][5]any // ARID, FROM, TO, ZIP, PARITY
				for s, sd := range e.Sides {
					if sd.Empty() {
						continue
					}
					side[s] = [5]any{fmt.Sprintf("40%012d", 2*e.TLID+int64(s)), strconv.FormatInt(sd.From, 10),
						strconv.FormatInt(sd.To, 10), sd.Zip, string(sd.Parity)}
				}
				vals = append(vals, side[0][0], side[1][0], fmt.Sprintf("1105%09d", e.Index/8), e.Name,
					side[0][1], side[0][2], side[1][1], side[1][2], side[0][3], side[1][3], "S1400", "S1400",
					side[0][4], side[1][4], nil, nil, nil, nil, nil, nil, "N", "N")
				if err := yield(layergen.Feature{Key: strconv.FormatInt(e.TLID, 10), Line: e.Line, Values: vals}); err != nil {
					return err
				}
			}
			return nil
		}}
}

// AddrfeatName is the name the Census Bureau gives the county's ADDRFEAT
// file of year: tl_2024_51107_addrfeat. The loader reads the state from it.
func (g County) AddrfeatName(year int) string {
	return fmt.Sprintf("tl_%d_%s%s_addrfeat", year, g.StateFIPS, g.CountyFIPS)
}

// Files are what WriteFiles wrote: the address points' CSV and the
// ranges' shapefile (its .shp), with their counts.
type Files struct {
	Points, Ranges string
	PointN         int64 // address points (rows of the CSV)
	RangeN         int64 // ranges (sides of edges with numbers)
	EdgeN          int64 // ADDRFEAT records
}

// WriteFiles writes the county's address points into dir as an
// OpenAddresses CSV (OpenAddressesHeader, the street spelled out, the
// point to seven decimals, a 16-hex-digit HASH) and its ranges as the
// shapefile of AddrfeatLayer(year). It streams: one edge is in memory at
// a time.
func (g County) WriteFiles(dir string, year int) (Files, error) {
	fs := Files{Points: filepath.Join(dir, "us_"+lower(g.State)+"_benchton.csv")}
	base := filepath.Join(dir, g.AddrfeatName(year))
	w, err := layergen.WriteShapefile(base, g.AddrfeatLayer(year))
	if err != nil {
		return Files{}, err
	}
	fs.Ranges, fs.EdgeN = base+".shp", w.Features
	f, err := os.Create(fs.Points)
	if err != nil {
		return Files{}, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	cw := csv.NewWriter(bw)
	cw.Write(OpenAddressesHeader) //nolint:errcheck // the writer keeps its first error for Flush
	h := fnv.New64a()
	for i := range g.Edges() {
		e := g.Edge(i)
		for _, sd := range e.Sides {
			if sd.Empty() {
				continue
			}
			fs.RangeN++
			for _, b := range sd.Buildings {
				h.Reset()
				fmt.Fprintf(h, "%d/%d", e.TLID, b.Number)
				cw.Write([]string{ //nolint:errcheck // as above
					strconv.FormatFloat(b.Point.Lon(), 'f', 7, 64), strconv.FormatFloat(b.Point.Lat(), 'f', 7, 64),
					strconv.FormatInt(b.Number, 10), e.OAName, "", g.City, "", g.State, sd.Zip, "",
					fmt.Sprintf("%016x", h.Sum64()),
				})
				fs.PointN++
			}
		}
	}
	cw.Flush()
	err = cw.Error()
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Files{}, fmt.Errorf("writing %s: %w", fs.Points, err)
	}
	return fs, nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
