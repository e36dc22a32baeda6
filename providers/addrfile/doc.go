// Package addrfile reads the files of an addresses dataset (propertyd data
// load addresses) into address points and TIGER/Line address ranges
// (providers.AddressPoint, providers.AddressRange), and places a house
// number along a range (Interpolate), so a lookup is matched locally before
// the remote Census geocoder is asked.
//
// It knows the files and nothing else: no SQL, no HTTP. Every address is
// normalized by package providers/address exactly as a lookup's is, so a
// point joins the record a lookup of its address makes, and a range's name
// is the street a lookup names after its number (address.StreetName).
//
// # The files, and the documents their columns come from
//
//   - OpenAddresses, as its batch service publishes a source's output: a
//     CSV with the header LON, LAT, NUMBER, STREET, UNIT, CITY, DISTRICT,
//     REGION, POSTCODE, ID, HASH, or newline-delimited GeoJSON features
//     with those properties in lower case and the point as geometry.
//     Rows often leave CITY and REGION empty (the source's folder, us/ny/...,
//     names the state): Options.State and Options.City fill them.
//   - The USDOT National Address Database text file (TXT/NAD_rNN.txt), by
//     the column names of the NAD schema as release 23's header writes them
//     (see nadMapping).
//   - Any other address file through a Mapping of its columns, in the shape
//     of the assessor loads' mappings.
//   - TIGER/Line Address Range Feature shapefiles (tl_YYYY_SSCCC_addrfeat,
//     the .zip as published or converted to GeoJSON or GeoPackage), read
//     through package providers/geofile, by the record layout of the
//     TIGER/Line Shapefiles technical documentation (chapter "Address
//     Range Feature County-based Shapefile"): TLID, FULLNAME, LFROMHN,
//     LTOHN, RFROMHN, RTOHN, ZIPL, ZIPR, PARITYL, PARITYR and the edge's
//     line. ADDRFEAT has one record per address range and name
//     combination: an edge named "Hwy 360" and "State Hwy 360" is two
//     records with one TLID and one line, hence two ranges per side. The
//     file has no state column: its name's state FIPS code gives it.
//
// A file's layout is recognized by its columns (or named in Options); a
// file of none is refused before anything is read, naming the columns it
// lacks. A row that cannot be loaded (no number, no street, no usable
// point, a field a lookup would refuse) comes back from Next as a
// *Rejected with its file, position, key and reason, for the failures
// file, and reading goes on; so does a range side whose numbers are not
// numbers (Rejected.NonNumeric).
//
// # House numbers
//
// A range's From and To are address.HouseNumber values: a letter suffix
// and a fraction are dropped ("12A" and "12 1/2" are 12), and hyphenated
// Queens numbers ("117-11") are values of their own, above every plain
// number, in order within their block and with the parity of the building
// part (see address.HouseNumber for why). Ranges of letters ("N101") are
// skipped and counted.
//
// # Interpolation
//
// Interpolate places a number at its proportion between the range's ends
// along the line's length, then SideOffset (10 m) to the range's side, as
// PostGIS's tiger geocoder does; the Census geocoder interpolates the same
// ranges. Holds says whether a range holds a number, with its parity.
//
// Reading streams a row at a time in constant memory; a Reader is not safe
// for concurrent use; Interpolate and Holds are pure and are.
package addrfile
