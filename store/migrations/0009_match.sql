-- 0009: how a record was first matched (issue 23): the JSON object of
-- its providers.Match (type, matched_address, differences, candidates),
-- written when the record is created and never changed after, so that an
-- answer can say how the record was matched. NULL for the records stored
-- before: they were matched as they are, and nobody kept how.
ALTER TABLE properties ADD COLUMN first_match TEXT;
