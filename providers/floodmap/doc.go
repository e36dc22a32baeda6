// Package floodmap is the one definition of how FEMA's National Flood Hazard
// Layer (NFHL) becomes a flood section: the attributes propertyd reads of a
// flood hazard area and of a FIRM panel, and the rules that turn the areas
// and panels at a point into a providers.Flood. Both paths that read the
// NFHL use it: the fema-nfhl module, which asks FEMA's ArcGIS MapServer and
// decodes its Esri JSON attributes into HazardArea and Panel, and the flood
// maps loaded from FEMA's downloads (shapefiles, GeoPackages, GeoJSON), whose
// features HazardAreaOf and PanelOf read. So the two cannot drift: a point
// answered from a loaded map and from the service gets the same zone, risk
// level, description, base flood elevation and panel; only the source tells
// them apart (see Section).
//
// # The specs
//
// The attributes are named and typed as FEMA's "Flood Insurance Rate Map
// (FIRM) Database Technical Reference" (Guidelines and Standards for Flood
// Risk Analysis and Mapping, February 2019) defines them, the data
// dictionary of the NFHL and of every county's FIRM database download:
//
//	S_FLD_HAZ_AR  flood hazard areas   FLD_ZONE, ZONE_SUBTY, SFHA_TF, STATIC_BFE, DEPTH, DFIRM_ID
//	S_FIRM_PAN    FIRM panels          FIRM_PAN, EFF_DATE, PANEL_TYP, DFIRM_ID
//
// FLD_ZONE holds the zone (A, AE, AH, AO, AR, A99, V, VE, X, D, OPEN WATER,
// AREA NOT INCLUDED...), ZONE_SUBTY its subtype (FLOODWAY, 0.2 PCT ANNUAL
// CHANCE FLOOD HAZARD, AREA OF MINIMAL FLOOD HAZARD...; often null), SFHA_TF
// "T" or "F" (whether the area is a Special Flood Hazard Area, the flag FEMA
// calls authoritative), STATIC_BFE and DEPTH feet, with -9999 for "none"
// (the technical reference's null for numbers), DFIRM_ID the county's map
// (6 characters, e.g. 48201C). FIRM_PAN is the panel number (11
// characters, e.g. 18057C0233G), EFF_DATE its effective date, with
// far-future dates such as 8/8/8888 for "none". The two NFHL layers of the
// ArcGIS service, Flood Hazard Zones (28) and FIRM Panels (3), carry the
// same fields.
//
// # Values as each path has them
//
// Text is text on both paths; a blank or empty value is null (a .dbf writes
// blanks for null). Numbers are numbers, the -9999 sentinel included:
// Esri JSON doubles, a .dbf's N and F fields, GeoJSON numbers, GeoPackage
// REAL or INTEGER. Dates differ: the service writes an Esri date, epoch
// milliseconds UTC; a shapefile a dBase D field and a GeoPackage a DATE
// (both read as a time.Time); a GeoJSON file text (2010-09-27, or GDAL's
// 2010/09/27), or epoch milliseconds when ArcGIS wrote it with f=geojson.
// Date holds any of them as the calendar day it names.
//
// # Section
//
// Section applies the rules: the riskiest area at the point wins (SFHA_TF
// "T" makes any zone high), ties going to the one inside the SFHA, then to
// the one with a static base flood elevation, then to the first; the panel
// of the winning area's DFIRM_ID is preferred, then the most recently
// effective. RiskLevel and Description say what a zone means. DEPTH is read
// (a loaded map keeps it) but decides nothing and is not reported: the
// flood section has no depth, and the service is not asked for it, so
// using it would make the two paths answer differently.
package floodmap
