-- 0006: a state with a bathrooms or living-area bound, as SQLite's
-- 0006_search_state_facts.sql (whose comment says why): indexes leading
-- with the state then the fact, so that counting the matches reads
-- matches only. The planner chooses them from its statistics.
CREATE INDEX properties_state_bathrooms ON properties
    (state_upper, bathrooms, living_area_sqft, year_built, bedrooms, property_type) INCLUDE (id);
CREATE INDEX properties_state_area ON properties
    (state_upper, living_area_sqft, bathrooms, year_built, bedrooms, property_type) INCLUDE (id);
