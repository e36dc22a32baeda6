// Package femanfhl is the fema-nfhl provider module: it reports the FEMA
// flood hazard at a point from the National Flood Hazard Layer (NFHL), the
// public ArcGIS REST MapServer at hazards.fema.gov (DefaultBaseURL). It fills
// the flood role.
//
// # Endpoints
//
// Flood makes two point queries, GET {base}/{layer}/query with
// geometry=<lng>,<lat>, geometryType=esriGeometryPoint, inSR=4326,
// spatialRel=esriSpatialRelIntersects, returnGeometry=false and f=json:
//
//   - layer 28, Flood Hazard Zones (S_FLD_HAZ_AR), outFields
//     FLD_ZONE,ZONE_SUBTY,SFHA_TF,STATIC_BFE,DFIRM_ID;
//   - layer 3, FIRM Panels, outFields FIRM_PAN,EFF_DATE,PANEL_TYP,DFIRM_ID.
//
// The layer ids are options (zones_layer, panels_layer), so the module can
// follow a renumbering or point at the preliminary/pending service, which
// uses the same numbering. The service publishes no rate limit, so the two
// queries run concurrently; when either fails the other is cancelled and the
// call fails as a whole: a zone without its panel would be cached as "no
// panel", which is not what the map says.
//
// # Quirks handled
//
//   - Geometry is x,y: longitude first.
//   - ArcGIS reports failures with HTTP 200 and a body of the form
//     {"error":{"code":400,"message":"Failed to execute query.","details":[]}};
//     such a body is KindUpstream with code upstream_error and keeps the
//     ArcGIS code and message in an *ArcGISError cause. Real HTTP 429 and 5xx
//     answers from the gateway in front of the service are surfaced with
//     Retry-After; unreadable bodies are KindUpstream.
//   - EFF_DATE is an Esri date, epoch milliseconds UTC (floodmap.Date
//     decodes it).
//   - An empty feature set means no mapped polygon, which is not zone X:
//     large areas have no digital NFHL. The answer is then RiskUndetermined
//     with a nil Zone, not an error.
//
// # What it reports
//
// The features' attributes decode into floodmap.HazardArea and
// floodmap.Panel, and floodmap.Section turns them into the flood section,
// the rules the flood maps loaded from FEMA's downloads share: -9999 and
// empty text are null, SFHA_TF becomes a *bool, EFF_DATE "YYYY-MM-DD"; of
// several features at a point (one on a zone boundary) the riskiest is
// reported, ties going to the one inside the Special Flood Hazard Area,
// then to the one with a base flood elevation; of several panels (one on a
// county line) the one of the reported zone's DFIRM_ID, then the most
// recent. Each Flood carries a risk level (RiskLevel) and a description of
// the zone in words (Description). Its Source is Name. Flood values stored
// by a version that named the panel firm_panel and had no description are
// rewritten in the current shape when the service reads them back
// (Upgrade, in stored.go).
//
// hazards.fema.gov accepts only TLS 1.2 with modern cipher suites, which Go's
// default TLS configuration offers; a custom transport must not restrict them.
package femanfhl
