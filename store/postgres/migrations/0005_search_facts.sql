-- 0005: search by the facts, several property types, county, FIPS code
-- and tract, and in an area, as SQLite's 0005_search_facts.sql (whose
-- comments say which index serves which filters). The county compares
-- with its ASCII letters upper-cased, as SQLite's NOCASE does, through a
-- generated copy upper-cased in the "C" collation (whatever the server's
-- locale, so both engines fold the same letters). Here the planner
-- chooses among the indexes from its statistics; an area is searched
-- through properties_location (0001).
ALTER TABLE properties ADD COLUMN county_upper text GENERATED ALWAYS AS (upper(county COLLATE "C")) STORED;

DROP INDEX properties_zip;
DROP INDEX properties_state_city;
DROP INDEX properties_city;
DROP INDEX properties_type;
DROP INDEX properties_bedrooms;

CREATE INDEX properties_zip ON properties
    (zip_code, bedrooms, property_type, bathrooms, year_built, living_area_sqft, county_upper, fips_code, census_tract) INCLUDE (id);
CREATE INDEX properties_state_city ON properties
    (state_upper, city_upper, bedrooms, property_type, bathrooms, year_built, living_area_sqft) INCLUDE (id);
CREATE INDEX properties_city ON properties
    (city_upper, bedrooms, property_type, bathrooms, year_built, living_area_sqft) INCLUDE (id);
CREATE INDEX properties_type ON properties
    (property_type, bedrooms, bathrooms, year_built, living_area_sqft) INCLUDE (id);
CREATE INDEX properties_fips ON properties
    (fips_code, census_tract, state_upper, bedrooms, property_type, bathrooms, year_built, living_area_sqft) INCLUDE (id);
CREATE INDEX properties_county ON properties
    (county_upper, state_upper, bedrooms, property_type, bathrooms, year_built, living_area_sqft) INCLUDE (id);
CREATE INDEX properties_year ON properties
    (year_built, living_area_sqft, bedrooms, bathrooms) INCLUDE (id);
CREATE INDEX properties_area ON properties
    (living_area_sqft, bedrooms, bathrooms) INCLUDE (id);
CREATE INDEX properties_bedrooms ON properties (bedrooms, bathrooms) INCLUDE (id);
CREATE INDEX properties_bathrooms ON properties (bathrooms) INCLUDE (id);
