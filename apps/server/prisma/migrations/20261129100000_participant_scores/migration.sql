-- A participant's score per window: the lowest of its received streams' (what the call page, the call's
-- score, its participants' summaries and the alert rules all read). Written with the streams' scores,
-- so that a read of a call's windows is one index range, not every stream score joined through its
-- stream, connection and participant (a round of alert rules did that for every live call every 2 s).
-- A stream's window scored again (a node taking over a call mid-window) keeps the lower of the two.
CREATE TABLE participant_score (
    call_id BIGINT NOT NULL REFERENCES call(id) ON DELETE CASCADE,
    ts TIMESTAMPTZ(3) NOT NULL,
    participant TEXT NOT NULL,
    lowest REAL NOT NULL CHECK (lowest BETWEEN 1 AND 5),
    PRIMARY KEY (call_id, ts, participant)
);
INSERT INTO participant_score (call_id, ts, participant, lowest)
SELECT sc.call_id, sc.ts, pa.external_id, min(sc.mos)
FROM stream_score sc JOIN stream st ON st.id = sc.stream_id JOIN connection cn ON cn.id = st.connection_id JOIN participant pa ON pa.id = cn.participant_id
GROUP BY sc.call_id, sc.ts, pa.external_id;

-- A live call's score so far, for the alert rules' verdicts: the windows that no longer change (older
-- than the call's newest by a margin) folded into a count and a sum of their means, so that a round
-- reads each live call's last few windows, not its whole history. Gone with its call.
CREATE TABLE call_score_fold (
    call_id BIGINT PRIMARY KEY REFERENCES call(id) ON DELETE CASCADE,
    windows INT NOT NULL CHECK (windows > 0),
    total FLOAT8 NOT NULL,
    through TIMESTAMPTZ(3) NOT NULL
);
