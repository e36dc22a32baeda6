-- 0014: the places of some categories or types around a point are read
-- from indexes led by the category or the type, as 0010's are by the
-- area. The answer of an amenities section reads every place near the
-- point, then, of the whole circle, only the categories and types that
-- near circle left unsettled: the rare ones, the types a city lacks
-- included. Through the area index that second read went over every
-- place of the circle to return a handful; led by the kind, it seeks the
-- bands of each. The band expression is 0010's, written the same way in
-- the queries (store/postgres/osm.go). SQLite's 0014 does the same.
CREATE INDEX osm_places_category_band ON osm_places
    (generation, category, (trunc(latitude * 200)::integer), longitude)
    INCLUDE (latitude, type, name, name_key, osm_type, osm_id, version);
CREATE INDEX osm_places_type_band ON osm_places
    (generation, type, (trunc(latitude * 200)::integer), longitude)
    INCLUDE (latitude, category, name, name_key, osm_type, osm_id, version);
