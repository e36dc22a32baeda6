package fakeupstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// FEMAZonesLayer and FEMAPanelsLayer are the layer ids of the real NFHL
// MapServer (Flood Hazard Zones and FIRM Panels).
const (
	FEMAZonesLayer  = 28
	FEMAPanelsLayer = 3
)

// FEMANoBFE is the STATIC_BFE value the NFHL sends for "no static base flood
// elevation"; use it in FloodArea.StaticBFE.
const FEMANoBFE = -9999.0

// FloodArea is one rectangle of the fake NFHL, edges included: every zone and
// panel query whose point lies in it returns its features, so two areas that
// share an edge model a point on a zone boundary. The zero value of each
// text field is sent as null.
//
// Shape, when set, is the area instead of the rectangle: an orb.Polygon or
// orb.MultiPolygon in longitude, latitude, as a flood map file holds its
// polygons, so a point in a hole (the floodway cut out of its zone) is
// outside it. Edges are included, those of holes too, as the service's
// esriSpatialRelIntersects has them. Any other geometry holds no point.
type FloodArea struct {
	MinLat, MinLng, MaxLat, MaxLng float64
	Shape                          orb.Geometry

	Zone      string  // FLD_ZONE, e.g. "AE"; "" puts no zone polygon in the area (a panel only)
	Subtype   string  // ZONE_SUBTY, e.g. "FLOODWAY"
	SFHA      bool    // SFHA_TF, sent as "T" or "F"
	StaticBFE float64 // STATIC_BFE in feet; FEMANoBFE (-9999) for none, 0 is sent as 0
	DFIRMID   string  // DFIRM_ID of both the zone and the panel, e.g. "48201C"

	Panel          string    // FIRM_PAN, e.g. "48201C0655L"; "" puts no panel in the area
	PanelType      string    // PANEL_TYP, e.g. "Countywide, Panel Printed"
	PanelEffective time.Time // EFF_DATE, sent as epoch milliseconds; zero is null
}

func (a FloodArea) contains(lat, lng float64) bool {
	pt := orb.Point{lng, lat}
	if a.Shape == nil {
		return lat >= a.MinLat && lat <= a.MaxLat && lng >= a.MinLng && lng <= a.MaxLng
	}
	return shapeHolds(a.Shape, pt)
}

// shapeHolds reports whether the polygon or multipolygon g holds pt, edges
// included (see polygonHolds); any other geometry holds nothing.
func shapeHolds(g orb.Geometry, pt orb.Point) bool {
	switch s := g.(type) {
	case orb.Polygon:
		return polygonHolds(s, pt)
	case orb.MultiPolygon:
		for _, p := range s {
			if polygonHolds(p, pt) {
				return true
			}
		}
	}
	return false
}

// polygonHolds reports whether pt is in p or on one of its edges, a
// hole's edge included (planar.PolygonContains counts that one out).
func polygonHolds(p orb.Polygon, pt orb.Point) bool {
	if len(p) == 0 || !planar.RingContains(p[0], pt) {
		return false
	}
	for _, hole := range p[1:] {
		if planar.RingContains(hole, pt) && !onRing(hole, pt) {
			return false
		}
	}
	return true
}

// onRing reports whether pt lies on an edge of r.
func onRing(r orb.Ring, pt orb.Point) bool {
	for i := 0; i+1 < len(r); i++ {
		a, b := r[i], r[i+1]
		cross := (b[0]-a[0])*(pt[1]-a[1]) - (b[1]-a[1])*(pt[0]-a[0])
		if cross == 0 &&
			pt[0] >= math.Min(a[0], b[0]) && pt[0] <= math.Max(a[0], b[0]) &&
			pt[1] >= math.Min(a[1], b[1]) && pt[1] <= math.Max(a[1], b[1]) {
			return true
		}
	}
	return false
}

// FEMALayerPath is the path, below the MapServer's base URL, of the point
// queries on layer: "/28/query".
func FEMALayerPath(layer int) string { return "/" + strconv.Itoa(layer) + "/query" }

// FEMA returns the routes of the NFHL point queries on zonesLayer and
// panelsLayer (GET {base}/28/query and {base}/3/query for the real layer
// ids), answering with the zones and panels of every area containing the
// point, as the real MapServer does with f=json and returnGeometry=false:
// {"displayFieldName", "fieldAliases", "fields",
// "features":[{"attributes":{...}}]}, with only the requested outFields in
// the layer's own field order. The zones route comes first.
//
// The fake is stricter than the service so that a malformed query fails the
// test instead of quietly answering for a wrong place: it insists on
// geometryType=esriGeometryPoint, inSR=4326, an intersects spatialRel,
// returnGeometry=false, f=json and outFields. Like the service, it answers a
// field the layer does not have (such as EFF_DATE on the zones layer) with
// HTTP 200 and {"error":{"code":400,"message":"Failed to execute query."}};
// other malformed queries get code 400 "Invalid or missing input
// parameters." with a detail saying what the fake wanted.
func FEMA(zonesLayer, panelsLayer int, areas ...FloodArea) []Route {
	areas = append([]FloodArea(nil), areas...)
	zones := femaServe(femaZoneFields, func(lat, lng float64) []map[string]any {
		var out []map[string]any
		for _, a := range areas {
			if a.Zone == "" || !a.contains(lat, lng) {
				continue
			}
			out = append(out, map[string]any{
				"FLD_ZONE":   a.Zone,
				"ZONE_SUBTY": femaNull(a.Subtype),
				"SFHA_TF":    map[bool]string{true: "T", false: "F"}[a.SFHA],
				"STATIC_BFE": a.StaticBFE,
				"DFIRM_ID":   femaNull(a.DFIRMID),
			})
		}
		return out
	})
	panels := femaServe(femaPanelFields, func(lat, lng float64) []map[string]any {
		var out []map[string]any
		for _, a := range areas {
			if a.Panel == "" || !a.contains(lat, lng) {
				continue
			}
			var eff any
			if !a.PanelEffective.IsZero() {
				eff = a.PanelEffective.UnixMilli()
			}
			out = append(out, map[string]any{
				"DFIRM_ID":  femaNull(a.DFIRMID),
				"FIRM_PAN":  a.Panel,
				"PANEL_TYP": femaNull(a.PanelType),
				"EFF_DATE":  eff,
			})
		}
		return out
	})
	return []Route{
		{Method: http.MethodGet, Path: FEMALayerPath(zonesLayer), Serve: zones},
		{Method: http.MethodGet, Path: FEMALayerPath(panelsLayer), Serve: panels},
	}
}

// FEMAFailure describes how a fake NFHL layer fails. The zero value is the
// service's usual failure: HTTP 200 with
// {"error":{"code":400,"message":"Failed to execute query.","details":[]}}.
type FEMAFailure struct {
	// Status is the HTTP status; 0 means 200, ArcGIS's way of failing. Any
	// other status is sent with a plain-text body, as a gateway would.
	Status int
	// Code, Message and Details fill the ArcGIS error envelope sent with
	// HTTP 200; Code defaults to 400 and Message to "Failed to execute query.".
	Code    int
	Message string
	Details []string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// Body, when set, is sent as is instead of the envelope or the text,
	// e.g. a truncated JSON document.
	Body string
}

// Reply is the answer of a layer failing as f says. Like the service's
// answers it has no Content-Type.
func (f FEMAFailure) Reply() Reply {
	status, body := f.Status, f.Body
	if status == 0 {
		status = http.StatusOK
	}
	if body == "" {
		if status == http.StatusOK {
			code, msg := f.Code, f.Message
			if code == 0 {
				code = 400
			}
			if msg == "" {
				msg = "Failed to execute query."
			}
			body = femaErrorBody(code, msg, f.Details...)
		} else {
			body = http.StatusText(status)
		}
	}
	r := reply(status, "", []byte(body))
	if f.RetryAfter != "" {
		r.Header.Set("Retry-After", f.RetryAfter)
	}
	return r
}

// femaField is one field of a layer's schema, as the service describes it.
type femaField struct {
	name, typ string
	length    int // 0: no length key (doubles)
}

// The schemas of the two layers, in the order the service lists them.
var (
	femaZoneFields = []femaField{
		{"FLD_ZONE", "esriFieldTypeString", 17},
		{"ZONE_SUBTY", "esriFieldTypeString", 72},
		{"SFHA_TF", "esriFieldTypeString", 1},
		{"STATIC_BFE", "esriFieldTypeDouble", 0},
		{"DFIRM_ID", "esriFieldTypeString", 6},
	}
	femaPanelFields = []femaField{
		{"DFIRM_ID", "esriFieldTypeString", 6},
		{"FIRM_PAN", "esriFieldTypeString", 11},
		{"PANEL_TYP", "esriFieldTypeString", 30},
		{"EFF_DATE", "esriFieldTypeDate", 8},
	}
)

// femaServe answers a point query on a layer with schema, taking the
// features at the point from at.
func femaServe(schema []femaField, at func(lat, lng float64) []map[string]any) func(*http.Request) Reply {
	return func(req *http.Request) Reply {
		q := req.URL.Query()
		invalid := func(detail string) Reply {
			return reply(http.StatusOK, "", []byte(femaErrorBody(400, "Invalid or missing input parameters.", detail)))
		}
		if f := q.Get("f"); f != "json" {
			return invalid(fmt.Sprintf("the fake NFHL answers only f=json, not f=%q", f))
		}
		if g := q.Get("geometryType"); g != "esriGeometryPoint" {
			return invalid(fmt.Sprintf("geometryType %q: the fake NFHL answers only esriGeometryPoint", g))
		}
		if sr := q.Get("inSR"); sr != "4326" {
			return invalid(fmt.Sprintf("inSR %q: without 4326 the service reads the point as NAD83", sr))
		}
		if rel := q.Get("spatialRel"); rel != "" && rel != "esriSpatialRelIntersects" {
			return invalid(fmt.Sprintf("spatialRel %q: the fake NFHL answers only esriSpatialRelIntersects", rel))
		}
		if rg := q.Get("returnGeometry"); rg != "false" {
			return invalid(fmt.Sprintf("returnGeometry %q: the fake NFHL sends no geometry", rg))
		}
		lng, lat, err := femaPoint(q.Get("geometry"))
		if err != nil {
			return invalid(err.Error())
		}
		fields, ok := femaOutFields(schema, q.Get("outFields"))
		if !ok {
			return reply(http.StatusOK, "", []byte(femaErrorBody(400, "Failed to execute query.")))
		}
		return reply(http.StatusOK, "", []byte(femaFeatureSet(fields, at(lat, lng))))
	}
}

// femaPoint reads a geometry parameter, "x,y" or {"x":..,"y":..}: longitude first.
func femaPoint(g string) (lng, lat float64, err error) {
	g = strings.TrimSpace(g)
	if strings.HasPrefix(g, "{") {
		var pt struct{ X, Y *float64 }
		if json.Unmarshal([]byte(g), &pt) != nil || pt.X == nil || pt.Y == nil {
			return 0, 0, fmt.Errorf("geometry %q is not a point", g)
		}
		lng, lat = *pt.X, *pt.Y
	} else {
		x, y, ok := strings.Cut(g, ",")
		var ex, ey error
		lng, ex = strconv.ParseFloat(strings.TrimSpace(x), 64)
		lat, ey = strconv.ParseFloat(strings.TrimSpace(y), 64)
		if !ok || ex != nil || ey != nil {
			return 0, 0, fmt.Errorf("geometry %q is not x,y", g)
		}
	}
	if lat < -90 || lat > 90 || lng < -180 || lng > 180 {
		return 0, 0, fmt.Errorf("geometry %q is not longitude,latitude", g)
	}
	return lng, lat, nil
}

// femaOutFields returns the schema fields named in outFields ("*" for all),
// in schema order; ok is false when one is not in the layer or none is asked.
func femaOutFields(schema []femaField, outFields string) ([]femaField, bool) {
	if strings.TrimSpace(outFields) == "*" {
		return schema, true
	}
	want := map[string]bool{}
	for _, name := range strings.Split(outFields, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		known := false
		for _, f := range schema {
			if strings.EqualFold(f.name, name) {
				want[f.name], known = true, true
			}
		}
		if !known {
			return nil, false
		}
	}
	var out []femaField
	for _, f := range schema {
		if want[f.name] {
			out = append(out, f)
		}
	}
	return out, len(out) > 0
}

// femaObject is a JSON object that keeps its keys in order, as ArcGIS
// writes them.
type femaObject []struct {
	key   string
	value any
}

func (o *femaObject) add(key string, value any) {
	*o = append(*o, struct {
		key   string
		value any
	}{key, value})
}

// MarshalJSON writes the object with its keys in order.
func (o femaObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		v, err := json.Marshal(kv.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// femaFeatureSet writes the Esri JSON featureset of features with fields.
func femaFeatureSet(fields []femaField, features []map[string]any) string {
	var aliases femaObject
	var defs []femaObject
	for _, f := range fields {
		aliases.add(f.name, f.name)
		var d femaObject
		d.add("name", f.name)
		d.add("type", f.typ)
		d.add("alias", f.name)
		if f.length > 0 {
			d.add("length", f.length)
		}
		defs = append(defs, d)
	}
	feats := []femaObject{}
	for _, attrs := range features {
		var a femaObject
		for _, f := range fields {
			a.add(f.name, attrs[f.name])
		}
		var feat femaObject
		feat.add("attributes", a)
		feats = append(feats, feat)
	}
	var fs femaObject
	fs.add("displayFieldName", "DFIRM_ID")
	fs.add("fieldAliases", aliases)
	fs.add("fields", defs)
	fs.add("features", feats)
	b, err := json.Marshal(fs)
	if err != nil {
		panic("fakeupstream: encoding a fake NFHL featureset: " + err.Error())
	}
	return string(b)
}

// femaErrorBody writes ArcGIS's error envelope.
func femaErrorBody(code int, message string, details ...string) string {
	if details == nil {
		details = []string{}
	}
	var e femaObject
	e.add("code", code)
	e.add("message", message)
	e.add("details", details)
	var o femaObject
	o.add("error", e)
	b, _ := json.Marshal(o)
	return string(b)
}

func femaNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}
