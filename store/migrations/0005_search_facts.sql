-- 0005: search by the facts (bathrooms, year built, living area), by
-- several property types, by county, FIPS code and tract, and in an area.
--
-- As in 0001, each search index holds, after the column a search seeks,
-- the other filter columns that may come with it, so a search finds its
-- page of ids and its total from one index without reading the table.
-- Store.searchIndex picks the index by the most selective filter: zip,
-- FIPS code (and tract), county, state (and city), city, property type,
-- then the facts by year built, living area, bedrooms and bathrooms. The
-- indexes the earlier migrations made are widened by the new fact columns
-- (zip also by the county and tract, which come with a zip); the ones
-- added lead with the new filters. An area is searched through
-- properties_rtree (0001): no index here.
DROP INDEX properties_zip;
DROP INDEX properties_state_city;
DROP INDEX properties_city;
DROP INDEX properties_type;
DROP INDEX properties_bedrooms;

CREATE INDEX properties_zip ON properties
    (zip_code, bedrooms, property_type, bathrooms, year_built, living_area_sqft, county, fips_code, census_tract);
CREATE INDEX properties_state_city ON properties
    (state, city, bedrooms, property_type, bathrooms, year_built, living_area_sqft);
CREATE INDEX properties_city ON properties
    (city, bedrooms, property_type, bathrooms, year_built, living_area_sqft);
CREATE INDEX properties_type ON properties
    (property_type, bedrooms, bathrooms, year_built, living_area_sqft);
CREATE INDEX properties_fips ON properties
    (fips_code, census_tract, state, bedrooms, property_type, bathrooms, year_built, living_area_sqft);
-- The county compares NOCASE (ASCII letters folded), as the search does.
CREATE INDEX properties_county ON properties
    (county COLLATE NOCASE, state, bedrooms, property_type, bathrooms, year_built, living_area_sqft);
CREATE INDEX properties_year ON properties
    (year_built, living_area_sqft, bedrooms, bathrooms);
CREATE INDEX properties_area ON properties
    (living_area_sqft, bedrooms, bathrooms);
CREATE INDEX properties_bedrooms ON properties (bedrooms, bathrooms);
CREATE INDEX properties_bathrooms ON properties (bathrooms);
