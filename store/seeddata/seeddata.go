// Package seeddata makes the synthetic records the benchmarks and the
// search latency test seed a database with (cmd/bench, store/engine): one
// generator, so the latency the test reports is the one the benchmark
// measures. The records are spread over ZIPs, counties, tracts and a
// rectangle of the Washington area, with facts in plausible proportions
// (mostly single-family houses, bathrooms and living area growing with
// the bedrooms, an old housing stock) and a few facts unknown, as
// assessor data has them. It imports nothing but providers.
package seeddata

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/propertyd/propertyd/providers"
)

// The records live in Zips ZIP codes from Zip0 up (record i in Zip0 +
// i%Zips), with bedrooms uniform over 0..5, so one ZIP holds rows/Zips
// records of which half have 2 to 4 bedrooms: 5,000 at a million rows,
// enough for page 100 of 25.
const (
	Zips = 100
	Zip0 = 20001
)

// A county holds a run of the ZIPs: 60 in the District, then 15 each in
// Montgomery and Prince George's (Maryland) and 10 in Arlington
// (Virginia). Counties are the place filters' coarse grain.
var counties = []struct {
	upTo                    int // last ZIP index of the county
	name, fips, state, city string
}{
	{59, "District of Columbia", "11001", "DC", "WASHINGTON"},
	{74, "Montgomery County", "24031", "MD", "SILVER SPRING"},
	{89, "Prince George's County", "24033", "MD", "HYATTSVILLE"},
	{99, "Arlington County", "51013", "VA", "ARLINGTON"},
}

// The area the records cover: 0.2 degrees a side from (South, West),
// about 22 by 17 km.
const (
	South, West = 38.80, -77.12
	Side        = 0.2
)

// Types are the property types by share: single-family houses 55%,
// condos 15%, townhouses 12%, multi-family 10%, other 5%, mobile homes 3%.
var types = []struct {
	name  string
	share int // in percent
}{{"single_family", 55}, {"condo", 15}, {"townhouse", 12}, {"multi_family", 10}, {"other", 5}, {"mobile_home", 3}}

// Generator makes records; the same seed makes the same records. The
// zero value is not usable (New). Not safe for concurrent use.
type Generator struct {
	rng *rand.Rand
	n   int
}

// New returns a generator of the standard sequence.
func New() *Generator { return &Generator{rng: rand.New(rand.NewPCG(1, 2))} }

// Next returns the next record: record i of the sequence.
func (g *Generator) Next() providers.Property {
	rng, i := g.rng, g.n
	g.n++
	z := i % Zips
	c := counties[0]
	for _, k := range counties {
		if z <= k.upTo {
			c = k
			break
		}
	}
	beds := rng.IntN(6)
	typ := pickType(rng.IntN(100))
	p := providers.Property{
		StreetAddress: fmt.Sprintf("%d BENCH ST", 100+i/Zips),
		City:          c.city, State: c.state, ZipCode: fmt.Sprint(Zip0 + z),
		County: c.name, FIPSCode: c.fips,
		// Three tracts a ZIP, about 3,300 records each at a million.
		CensusTract: fmt.Sprintf("%06d", 100+3*z+rng.IntN(3)),
		Latitude:    South + Side*rng.Float64(), Longitude: West + Side*rng.Float64(),
		PropertyType: &typ, Bedrooms: &beds, Source: "bench-seed",
	}
	if rng.IntN(20) == 0 {
		return p // one in twenty knows only its type and bedrooms
	}
	baths := 1 + 0.5*float64(rng.IntN(beds+1))
	area := int(float64(500+400*beds) * math.Exp(0.25*rng.NormFloat64()))
	var year int
	switch r := rng.IntN(10); {
	case r < 3:
		year = 1900 + rng.IntN(50)
	case r < 7:
		year = 1950 + rng.IntN(40)
	default:
		year = 1990 + rng.IntN(35)
	}
	stories := []float64{1, 1.5, 2, 2, 2.5, 3}[rng.IntN(6)]
	units := 1
	if typ == "multi_family" {
		units = 2 + rng.IntN(3)
	}
	p.Bathrooms, p.LivingAreaSqft, p.YearBuilt, p.Stories, p.Units = &baths, &area, &year, &stories, &units
	if typ == "single_family" || typ == "multi_family" || typ == "mobile_home" {
		lot := 2000 + rng.IntN(18000)
		p.LotSqft = &lot
	}
	return p
}

func pickType(pct int) string {
	for _, t := range types {
		if pct < t.share {
			return t.name
		}
		pct -= t.share
	}
	return types[0].name
}
