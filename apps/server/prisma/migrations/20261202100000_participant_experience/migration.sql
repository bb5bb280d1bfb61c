-- A participant's score per window is what it saw and heard (packages/diagnosis scores/windows.ts,
-- `experienced`), no longer the lowest of its streams': each stream's window carries its weight in it
-- (audio by its rate, video by its picture's size), and the participant's window keeps the weighted sums
-- of its audio and its video scores so that its streams, closing a window in different writes, add to
-- them. A stream's window scored again (a node taking over a call mid-window) keeps its first part in
-- the sums.
ALTER TABLE stream_score ADD COLUMN weight REAL NOT NULL DEFAULT 1 CHECK (weight > 0);

-- The product model of `experienced` (Hands 2004): 1.15 + 0.17·A·V, held to 1–5; one kind alone is its own score.
CREATE FUNCTION av_score(audio_sum FLOAT8, audio_weight FLOAT8, video_sum FLOAT8, video_weight FLOAT8) RETURNS REAL
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (CASE
    WHEN audio_weight > 0 AND video_weight > 0
      THEN least(5, greatest(1, 1.15 + 0.17 * (audio_sum / audio_weight) * (video_sum / video_weight)))
    WHEN audio_weight > 0 THEN audio_sum / audio_weight
    WHEN video_weight > 0 THEN video_sum / video_weight
    ELSE 1 END)::real
$$;

ALTER TABLE participant_score RENAME COLUMN lowest TO score;
ALTER TABLE participant_score
    ADD COLUMN audio_sum FLOAT8 NOT NULL DEFAULT 0,
    ADD COLUMN audio_weight FLOAT8 NOT NULL DEFAULT 0,
    ADD COLUMN video_sum FLOAT8 NOT NULL DEFAULT 0,
    ADD COLUMN video_weight FLOAT8 NOT NULL DEFAULT 0;

-- Windows stored before: each stream weighs the same.
UPDATE participant_score ps SET audio_sum = x.audio_sum, audio_weight = x.audio_weight, video_sum = x.video_sum, video_weight = x.video_weight,
    score = av_score(x.audio_sum, x.audio_weight, x.video_sum, x.video_weight)
FROM (
    SELECT sc.call_id, sc.ts, pa.external_id AS participant,
        coalesce(sum(sc.mos) FILTER (WHERE st.kind = 'audio'), 0) AS audio_sum, count(*) FILTER (WHERE st.kind = 'audio') AS audio_weight,
        coalesce(sum(sc.mos) FILTER (WHERE st.kind = 'video'), 0) AS video_sum, count(*) FILTER (WHERE st.kind = 'video') AS video_weight
    FROM stream_score sc JOIN stream st ON st.id = sc.stream_id JOIN connection cn ON cn.id = st.connection_id JOIN participant pa ON pa.id = cn.participant_id
    GROUP BY sc.call_id, sc.ts, pa.external_id
) x
WHERE ps.call_id = x.call_id AND ps.ts = x.ts AND ps.participant = x.participant;
