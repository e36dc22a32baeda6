-- 0019: a record that match=best made by taking one of several different
-- addresses (its first match lists candidates) was reached, before this
-- version, by the spelling the client sent as well as by its own address:
-- after one client chose, every later caller of that ambiguous spelling
-- got the chosen record, even under match=strict. Such a record now keeps
-- no key of a spelling; its keys go, and the next lookup of its own
-- address finds it again through the geocoder (one call, the same record:
-- records are unique by their address), while the ambiguous spelling is
-- decided again in each caller's mode.
DELETE FROM property_keys
WHERE property_id IN (SELECT id FROM properties WHERE first_match LIKE '%"candidates":[%');
