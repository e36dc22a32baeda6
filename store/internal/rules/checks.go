package rules

import (
	"math"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// MaxPerPage is the largest page Search returns.
const MaxPerPage = 100

// CheckCoordinates returns KindInvalid (invalid_parameter, naming latitude
// or longitude) for a point no record can be at; both engines also have the
// range as a CHECK constraint, but this error names the parameter.
func CheckCoordinates(lat, lng float64) error {
	if math.IsNaN(lat) || lat < -90 || lat > 90 {
		return providers.Invalid("latitude", "must be between -90 and 90")
	}
	if math.IsNaN(lng) || lng < -180 || lng > 180 {
		return providers.Invalid("longitude", "must be between -180 and 180")
	}
	return nil
}

// CheckRadius returns KindInvalid for a Nearest radius that is not a
// positive number of metres.
func CheckRadius(radiusMeters float64) error {
	if math.IsNaN(radiusMeters) || radiusMeters <= 0 {
		return providers.Invalid("radius", "must be a positive number of metres")
	}
	return nil
}

// CheckPage returns KindInvalid (invalid_parameter) when f.Page < 1 or so
// large that its offset overflows, or f.PerPage is outside 1..MaxPerPage.
func CheckPage(f providers.SearchFilter) error {
	if f.Page < 1 || int64(f.Page) > math.MaxInt64/MaxPerPage {
		return providers.Invalid("page", "must be a positive page number")
	}
	if f.PerPage < 1 || f.PerPage > MaxPerPage {
		return providers.Invalid("per_page", "must be between 1 and 100")
	}
	return nil
}

// CheckSearch returns KindInvalid (invalid_parameter, naming the
// parameter) for a search CheckPage refuses, a census tract without a FIPS
// code, or a location out of range: a circle's centre off the globe or its
// radius not within (0, providers.MaxSearchRadiusMeters], a box whose
// sides are inverted, off the globe or longer than
// providers.MaxSearchBoxDegrees, or a circle and a box together. The
// gateway refuses all of these first; the engines check again so that no
// caller can send them a search the indexes were not built for.
func CheckSearch(f providers.SearchFilter) error {
	if err := CheckPage(f); err != nil {
		return err
	}
	if f.CensusTract != "" && f.FIPSCode == "" {
		return providers.Invalid("census_tract", "requires fips_code")
	}
	if c := f.Near; c != nil {
		if err := CheckCoordinates(c.Center.Lat, c.Center.Lng); err != nil {
			return err
		}
		if math.IsNaN(c.RadiusMeters) || c.RadiusMeters <= 0 || c.RadiusMeters > providers.MaxSearchRadiusMeters {
			return providers.Invalid("radius_m", "must be between 1 and 50000")
		}
		if f.Box != nil {
			return providers.Invalid("bbox", "cannot be combined with lat, lng and radius_m")
		}
	}
	if b := f.Box; b != nil {
		if err := CheckCoordinates(b.South, b.West); err != nil {
			return providers.Invalid("bbox", "must hold longitudes within -180..180 and latitudes within -90..90")
		}
		if err := CheckCoordinates(b.North, b.East); err != nil {
			return providers.Invalid("bbox", "must hold longitudes within -180..180 and latitudes within -90..90")
		}
		if !(b.West < b.East) || !(b.South < b.North) {
			return providers.Invalid("bbox", "must be west,south,east,north with west < east and south < north")
		}
		if b.East-b.West > providers.MaxSearchBoxDegrees || b.North-b.South > providers.MaxSearchBoxDegrees {
			return providers.Invalid("bbox", "must be at most 1 degree on each side")
		}
	}
	return nil
}

// Offset is the number of matches before f's page; CheckPage(f) must have
// passed.
func Offset(f providers.SearchFilter) int64 { return int64(f.Page-1) * int64(f.PerPage) }

// CheckSection returns KindInvalid for an empty section name or a time
// outside the years 1 to 9999: SQLite keeps times as fixed-width text,
// which cannot hold the others, and PostgreSQL is held to the same range so
// that a value one engine takes the other takes too.
func CheckSection(r providers.SectionRecord) error {
	if r.Section == "" {
		return providers.Invalid("section", "must not be empty")
	}
	for _, t := range []struct {
		name string
		at   time.Time
	}{{"fetched_at", r.FetchedAt}, {"expires_at", r.ExpiresAt}} {
		if y := t.at.UTC().Year(); y < 1 || y > 9999 {
			return providers.Invalid(t.name, "must be a time in the years 1 to 9999")
		}
	}
	return nil
}

// Stamp returns t as stored: UTC, truncated (not rounded) to the
// millisecond. A value a write returns then equals the one read back later,
// on either engine.
func Stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// ErrPropertyNotFound is the error of a lookup by id that finds nothing.
func ErrPropertyNotFound() error {
	return providers.NotFound(providers.CodePropertyNotFound, "no property with that id")
}

// ErrKeyNotFound is the error of a lookup by key that finds nothing.
func ErrKeyNotFound() error {
	return providers.NotFound(providers.CodePropertyNotFound, "no property for that address")
}

// ErrNoneNear is the error of a Nearest that finds nothing in its radius.
func ErrNoneNear() error {
	return providers.NotFound(providers.CodePropertyNotFound, "no property near that point")
}

// ErrSectionNotFound is the error of a Section that finds no stored value.
func ErrSectionNotFound() error {
	return providers.NotFound(providers.CodeSectionNotFound, "no stored value for that section")
}
