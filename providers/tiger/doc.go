// Package tiger is the one definition of how the Census Bureau's TIGER/Line
// geographies become a record's location fields: the county, the five-digit
// county FIPS code and the six-digit census tract at a point. Both paths that
// read those geographies use it: the census module, whose geocoder answers
// with the county and tract layers holding a point (TIGERweb's names for the
// same attributes; see below), and the boundaries loaded from TIGER/Line
// files (shapefiles, GeoPackages, GeoJSON), whose features CountyOf and
// TractOf read. So the two cannot drift: a point answered from loaded
// boundaries and from the geocoder gets the same County, FIPSCode and
// CensusTract (see Locate).
//
// # The specs
//
// The attributes are named and typed as the Census Bureau's "TIGER/Line
// Shapefiles Technical Documentation" (U.S. Census Bureau, Geography
// Division; one edition a year, e.g. "TIGER/Line Shapefiles 2020 Technical
// Documentation", issued February 2021) lays them out in its record layouts
// of the Census Tract State-based Shapefile (tl_YYYY_SS_tract) and of the
// County and Equivalent Entity National Shapefile (tl_YYYY_us_county):
//
//	tract   STATEFP(2) COUNTYFP(3) TRACTCE(6) GEOID(11) NAME NAMELSAD MTFCC(G5020)
//	        FUNCSTAT ALAND AWATER INTPTLAT INTPTLON
//	county  STATEFP(2) COUNTYFP(3) COUNTYNS(8) GEOID(5) NAME NAMELSAD LSAD(2)
//	        CLASSFP(2) MTFCC(G4020) FUNCSTAT ALAND AWATER INTPTLAT INTPTLON
//
// Every column is a String of the width given, except ALAND and AWATER
// (Number, square meters). GEOID is the state, county (and tract) codes
// concatenated. NAME is the name alone ("Fairfax", and for a tract its
// number as people write it, "4714.01"); NAMELSAD the name with its
// legal/statistical area description ("Fairfax County", "Census Tract
// 4714.01"). INTPTLAT and INTPTLON, the internal point, are text with a
// sign and zero padding ("+38.8849109", "-077.1976624"). The files of a
// decennial census edition suffix every column with the census year
// (tl_2010_SS_tract10: STATEFP10, TRACTCE10, ...; the 2020 tabulation
// blocks: STATEFP20, ...); the readers take those names too.
//
// # The geocoder's names for the same attributes
//
// The geocoder's geographies come from TIGERweb's layers, which hold the
// same entities with other column names: STATE and COUNTY are STATEFP and
// COUNTYFP, TRACT is TRACTCE, BASENAME is TIGER/Line's NAME, and NAME is
// TIGER/Line's NAMELSAD. The recordings show it: Fairfax County has NAME
// "Fairfax County" and BASENAME "Fairfax"; tract 471401 has NAME "Census
// Tract 4714.01" and BASENAME "4714.01". A record's county has always been
// the geocoder's NAME, so from a file it is NAMELSAD ("District of
// Columbia" for Washington, whose NAME and NAMELSAD are the same).
//
// # Values as each path has them
//
// Text is text on both paths, trimmed; a blank or empty value is null. The
// geocoder sends numbers as JSON numbers or, in some vintages, as "" (the
// census module reads only what Locate needs). A file's numbers are dBase N
// fields, GeoJSON numbers or GeoPackage INTEGER or REAL; text holding a
// number is taken too, as INTPTLAT and INTPTLON are written.
//
// # Vintages
//
// Tract boundaries are redrawn for each decennial census; Connecticut's
// counties gave way to its planning regions in 2022. SameTracts says
// whether a TIGER/Line vintage's tracts are those of an ACS 5-year release,
// so that a loader can warn when the boundaries and the ACS tables it keys
// by tract disagree.
package tiger
