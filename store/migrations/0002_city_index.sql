-- 0002: search by city without a state. Cities are stored upper case, as
-- the geocoder matched them; the index covers the filters that may come with
-- a city (bedrooms and property type), so such a search never reads the
-- table to filter, as the other search indexes do.
CREATE INDEX properties_city ON properties (city, bedrooms, property_type);
