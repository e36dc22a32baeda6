-- 0002: search by city without a state, as SQLite's 0002_city_index.sql. The
-- index covers the filters that may come with a city (bedrooms and property
-- type) and the id, so such a search never reads the table to filter.
CREATE INDEX properties_city ON properties (city_upper, bedrooms, property_type) INCLUDE (id);
