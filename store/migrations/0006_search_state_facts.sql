-- 0006: a state with a bathrooms or living-area bound. properties_state_city
-- (0005) holds those facts after the city, bedrooms and type, and they
-- grow with the bedrooms: counting the matches of "DC, 2.5 bathrooms or
-- more" read the state's records with fewer bedrooms first (300,000 at a
-- million records) before it found the 10,001 a search counts. These lead
-- with the state then the fact, so the count reads matches only, and hold
-- the other filters that may come with them. Store.searchIndex picks them
-- for a state with such a bound and no zip, FIPS code, county or city.
CREATE INDEX properties_state_bathrooms ON properties
    (state, bathrooms, living_area_sqft, year_built, bedrooms, property_type);
CREATE INDEX properties_state_area ON properties
    (state, living_area_sqft, bathrooms, year_built, bedrooms, property_type);
