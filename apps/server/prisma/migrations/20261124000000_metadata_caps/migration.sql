-- Handshakes and batches merge their metadata into the stored metadata of a participant and a call.
-- The ingest key that sends them is publishable, so the merge refuses to take either past the caps it
-- is given (keys, and bytes of JSON text): it raises SQLSTATE RS001 with the target ('participant' or
-- 'call') as its detail, and the statement, with everything else the message carried, changes nothing.
-- A merge that changes nothing is taken whatever the size (rows stored before these caps existed).
CREATE FUNCTION rtcscope_merge_metadata(stored JSONB, added JSONB, target TEXT, max_keys INTEGER, max_bytes INTEGER)
  RETURNS JSONB LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  merged JSONB := stored || added;
BEGIN
  IF added IS NULL OR merged = stored THEN
    RETURN stored;
  END IF;
  IF (SELECT count(*) FROM jsonb_object_keys(merged)) > max_keys OR octet_length(merged::text) > max_bytes THEN
    RAISE EXCEPTION USING ERRCODE = 'RS001', MESSAGE = format('the %s''s metadata would pass its cap', target), DETAIL = target;
  END IF;
  RETURN merged;
END $$;
