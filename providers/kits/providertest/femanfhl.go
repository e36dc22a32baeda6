package providertest

import (
	"net/http"
	"strings"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
)

// FEMAZonesLayer and FEMAPanelsLayer are the layer ids RegisterFEMA answers
// on: those of the real NFHL MapServer (Flood Hazard Zones and FIRM Panels).
const (
	FEMAZonesLayer  = fakeupstream.FEMAZonesLayer
	FEMAPanelsLayer = fakeupstream.FEMAPanelsLayer
)

// FEMANoBFE is the STATIC_BFE value the NFHL sends for "no static base flood
// elevation"; use it in FloodArea.StaticBFE.
const FEMANoBFE = fakeupstream.FEMANoBFE

// FloodArea is one rectangle of the fake NFHL, edges included: every zone and
// panel query whose point lies in it returns its features, so two areas that
// share an edge model a point on a zone boundary. The zero value of each
// text field is sent as null. Its fields: MinLat, MinLng, MaxLat and MaxLng
// bound it; Zone (FLD_ZONE, "" for a panel only), Subtype (ZONE_SUBTY), SFHA
// (SFHA_TF, sent as "T" or "F"), StaticBFE (feet, FEMANoBFE for none) and
// DFIRMID (of both the zone and the panel) describe its zone; Panel
// (FIRM_PAN, "" for no panel), PanelType (PANEL_TYP) and PanelEffective
// (EFF_DATE, sent as epoch milliseconds; zero is null) its panel. Shape,
// when set (an orb.Polygon or orb.MultiPolygon in longitude, latitude, as a
// flood map file holds it), is the area instead of the rectangle: a point in
// a hole is outside, one on any edge inside, as the service's intersects
// query has it.
type FloodArea = fakeupstream.FloodArea

// RegisterFEMA makes mt answer NFHL point queries (GET
// {baseURL}/28/query and {baseURL}/3/query) with the zones and panels of
// every area containing the point, as the real MapServer does with f=json and
// returnGeometry=false: {"displayFieldName", "fieldAliases", "fields",
// "features":[{"attributes":{...}}]}, with only the requested outFields in
// the layer's own field order.
//
// The fake is stricter than the service so that a malformed query fails the
// test instead of quietly answering for a wrong place: it insists on
// geometryType=esriGeometryPoint, inSR=4326, an intersects spatialRel,
// returnGeometry=false, f=json and outFields. Like the service, it answers a
// field the layer does not have (such as EFF_DATE on the zones layer) with
// HTTP 200 and {"error":{"code":400,"message":"Failed to execute query."}};
// other malformed queries get code 400 "Invalid or missing input
// parameters." with a detail saying what the fake wanted.
func RegisterFEMA(mt *httpmock.MockTransport, baseURL string, areas ...FloodArea) {
	RegisterFEMALayers(mt, baseURL, FEMAZonesLayer, FEMAPanelsLayer, areas...)
}

// RegisterFEMALayers is RegisterFEMA with the zones and panels served on the
// given layer ids, for clients configured with other layers.
func RegisterFEMALayers(mt *httpmock.MockTransport, baseURL string, zonesLayer, panelsLayer int, areas ...FloodArea) {
	register(mt, strings.TrimRight(baseURL, "/"), fakeupstream.FEMA(zonesLayer, panelsLayer, areas...))
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
	// Delay holds the answer back, for timeout tests; a cancelled request
	// returns at once.
	Delay time.Duration
}

// RegisterFEMAFailure makes mt answer every query on one layer of the fake
// NFHL at baseURL with f, replacing what RegisterFEMA registered for that
// layer (FEMAZonesLayer or FEMAPanelsLayer).
func RegisterFEMAFailure(mt *httpmock.MockTransport, baseURL string, layer int, f FEMAFailure) {
	rep := fakeupstream.FEMAFailure{Status: f.Status, Code: f.Code, Message: f.Message, Details: f.Details,
		RetryAfter: f.RetryAfter, Body: f.Body}.Reply()
	r := responder(func(*http.Request) fakeupstream.Reply { return rep })
	if f.Delay > 0 {
		r = r.Delay(f.Delay)
	}
	mt.RegisterResponder(http.MethodGet, strings.TrimRight(baseURL, "/")+fakeupstream.FEMALayerPath(layer), r)
}
