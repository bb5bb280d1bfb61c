-- A live call's streams' running sums of the fields its participants' summaries average
-- (insights/stream-means.ts): each round adds the samples since the stream's last, so a live call's
-- summary reads its last minute, not its whole length (a summary read the whole call, ~13 ms for 2
-- minutes of 4 streams and growing: past ~600 live calls a deployment fell behind). Rebuilt from every
-- sample when the call ends, then dropped. Gone with its call or project.
CREATE TABLE stream_summary_fold (
    stream_id BIGINT PRIMARY KEY REFERENCES stream(id) ON DELETE CASCADE,
    project_id UUID NOT NULL REFERENCES project(id) ON DELETE CASCADE,
    call_id BIGINT NOT NULL REFERENCES call(id) ON DELETE CASCADE,
    through TIMESTAMPTZ(3) NOT NULL,
    kbps_sum FLOAT8 NOT NULL, kbps_n INT NOT NULL,
    rtt_ms_sum FLOAT8 NOT NULL, rtt_ms_n INT NOT NULL,
    loss_pct_sum FLOAT8 NOT NULL, loss_pct_n INT NOT NULL,
    jitter_ms_sum FLOAT8 NOT NULL, jitter_ms_n INT NOT NULL,
    fps_sum FLOAT8 NOT NULL, fps_n INT NOT NULL,
    height_sum FLOAT8 NOT NULL, height_n INT NOT NULL,
    freezes_sum FLOAT8 NOT NULL, freezes_n INT NOT NULL
);
CREATE INDEX stream_summary_fold_call ON stream_summary_fold (call_id);

-- The end a call's final summaries were written for: an ended call is due until they are. Its
-- summarized_at could not tell: a call whose participants went silent ends at their last sample, up to
-- the idle timeout before the sweeper sees it, and a live summary written in between looked final.
ALTER TABLE call ADD COLUMN summarized_end TIMESTAMPTZ(3);
UPDATE call SET summarized_end = ended_at WHERE ended_at IS NOT NULL AND summarized_at >= ended_at + interval '10 seconds';
CREATE INDEX call_summary_due ON call (ended_at) WHERE ended_at IS NOT NULL AND summarized_end IS DISTINCT FROM ended_at;
