#!/bin/sh
# Rebuilds the binary fixtures of package geofile from the GeoJSON sources
# beside this script. Needs GDAL's ogr2ogr (Debian: apt-get install gdal-bin;
# these were made with GDAL 3.6.2), zip and sqlite3. The tests need neither: they
# read the files committed.
set -eu
cd "$(dirname "$0")"
rm -f tracts.shp tracts.shx tracts.dbf tracts.prj tracts.cpg tracts.zip tracts.gpkg \
  tracts.geojsonl tracts.geojsons tracts_3857.* S_FLD_HAZ_AR.* S_FIRM_PAN.* nfhl.zip nfhl.gpkg

# TIGER/Line's tract layer: a shapefile in NAD83 (EPSG:4269, assigned, not
# reprojected: the hand-written coordinates stay as they are), UTF-8 .dbf
# with its .cpg, as the Census Bureau ships it; then the same in a .zip, with
# an ISO metadata file as the downloads hold.
ogr2ogr -f "ESRI Shapefile" -a_srs EPSG:4269 -lco ENCODING=UTF-8 -lco RESIZE=YES tracts.shp tracts.geojson
printf '<?xml version="1.0"?>\n<metadata/>\n' > tracts.shp.iso.xml
zip -q -X tracts.zip tracts.shp tracts.shx tracts.dbf tracts.prj tracts.cpg tracts.shp.iso.xml
rm tracts.shp.iso.xml

# The same features as a GeoPackage (NAD83) and as GeoJSON text sequences:
# one feature a line, and RFC 8142's record-separator form.
ogr2ogr -f GPKG -lco SPATIAL_INDEX=NO -a_srs EPSG:4269 tracts.gpkg tracts.geojson
ogr2ogr -f GeoJSONSeq tracts.geojsonl tracts.geojson
ogr2ogr -f GeoJSONSeq -lco RS=YES tracts.geojsons tracts.geojson

# A projected variant (Web Mercator), which the reader refuses.
ogr2ogr -f "ESRI Shapefile" -t_srs EPSG:3857 -lco ENCODING=UTF-8 -lco RESIZE=YES tracts_3857.shp tracts.geojson
ogr2ogr -f GPKG -lco SPATIAL_INDEX=NO -t_srs EPSG:3857 tracts_3857.gpkg tracts.geojson

# An NFHL-like download: two layers in one .zip (the flood hazard areas and
# the FIRM panels), and the same two layers in one GeoPackage, as a File
# Geodatabase converted with ogr2ogr holds them.
ogr2ogr -f "ESRI Shapefile" -a_srs EPSG:4269 -lco ENCODING=UTF-8 -lco RESIZE=YES S_FLD_HAZ_AR.shp flood.geojson
ogr2ogr -f "ESRI Shapefile" -a_srs EPSG:4269 -lco ENCODING=UTF-8 -lco RESIZE=YES S_FIRM_PAN.shp panels.geojson
zip -q -X nfhl.zip S_FLD_HAZ_AR.shp S_FLD_HAZ_AR.shx S_FLD_HAZ_AR.dbf S_FLD_HAZ_AR.prj S_FLD_HAZ_AR.cpg \
  S_FIRM_PAN.shp S_FIRM_PAN.shx S_FIRM_PAN.dbf S_FIRM_PAN.prj S_FIRM_PAN.cpg
rm S_FIRM_PAN.*
ogr2ogr -f GPKG -lco SPATIAL_INDEX=NO -a_srs EPSG:4269 -nln S_FLD_HAZ_AR nfhl.gpkg flood.geojson
ogr2ogr -f GPKG -lco SPATIAL_INDEX=NO -a_srs EPSG:4269 -update -nln S_FIRM_PAN nfhl.gpkg panels.geojson

# GDAL writes 4 KiB pages and tables of its own; a smaller page keeps each
# GeoPackage a few KB (the content is unchanged).
for f in tracts.gpkg tracts_3857.gpkg nfhl.gpkg; do
  sqlite3 "$f" 'PRAGMA page_size=512; VACUUM;'
done
