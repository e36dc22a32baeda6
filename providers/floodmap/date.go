package floodmap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Date is an NFHL date attribute (EFF_DATE) as either path has it: an Esri
// date from the service, a dBase or GeoPackage date or a text date from a
// file. Day says which calendar day it names. The zero value is null.
type Date struct {
	t   time.Time // UTC
	set bool
}

// EsriDate is the date an Esri date names: epoch milliseconds UTC, as the
// service writes date fields. NaN and infinities are null.
func EsriDate(ms float64) Date {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return Date{}
	}
	return Date{t: time.UnixMilli(int64(math.Round(ms))).UTC(), set: true}
}

// DateOf reads a date attribute of a file as package geofile gives it: nil
// (null), a time.Time (a dBase D field, a GeoPackage DATE or DATETIME; its
// day in UTC), text (YYYY-MM-DD or YYYY/MM/DD, optionally followed by a
// time as ISO 8601 or GDAL writes one; blank is null), or a number (epoch
// milliseconds, as ArcGIS writes dates in GeoJSON). Anything else is an
// error.
func DateOf(v any) (Date, error) {
	switch v := v.(type) {
	case nil:
		return Date{}, nil
	case time.Time:
		return Date{t: v.UTC(), set: true}, nil
	case int64:
		return EsriDate(float64(v)), nil
	case float64:
		return EsriDate(v), nil
	case string:
		return parseDate(v)
	}
	return Date{}, fmt.Errorf("%v (%T) is not a date", v, v)
}

// parseDate reads a text date: blank is null; the first ten characters are
// the day, in YYYY-MM-DD or YYYY/MM/DD, and whatever follows them must start
// with T or a space (a time, which is dropped).
func parseDate(s string) (Date, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Date{}, nil
	}
	if len(t) >= 10 && (len(t) == 10 || t[10] == 'T' || t[10] == ' ') {
		day := strings.ReplaceAll(t[:10], "/", "-")
		if d, err := time.Parse(time.DateOnly, day); err == nil {
			return Date{t: d, set: true}, nil
		}
	}
	return Date{}, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
}

// UnmarshalJSON reads an Esri date as the service's JSON writes it: a
// number of epoch milliseconds, or null. Anything else is an error, as for
// a number field.
func (d *Date) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*d = Date{}
		return nil
	}
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return err
	}
	*d = EsriDate(ms)
	return nil
}

// MarshalJSON writes the date as the service does, epoch milliseconds,
// or null: what UnmarshalJSON reads back, so a loaded map's panels keep
// their dates in the service's own form.
func (d Date) MarshalJSON() ([]byte, error) {
	if !d.set {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatInt(d.t.UnixMilli(), 10)), nil
}

// Day returns the date as YYYY-MM-DD. ok is false for null and for the
// far-future dates (past the year 2999, such as 8/8/8888) FEMA writes for
// "no date".
func (d Date) Day() (day string, ok bool) {
	if !d.set || d.t.Year() > 2999 {
		return "", false
	}
	return d.t.Format(time.DateOnly), true
}
