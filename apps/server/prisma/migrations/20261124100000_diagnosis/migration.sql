-- What the diagnosis found in a call (packages/diagnosis): its issues, open (ended_at NULL) or cleared,
-- and a score per received stream per 5-second window. Both go with their call.
CREATE TABLE call_issue (
    id BIGSERIAL PRIMARY KEY,
    project_id UUID NOT NULL REFERENCES project(id) ON DELETE CASCADE,
    call_id BIGINT NOT NULL REFERENCES call(id) ON DELETE CASCADE,
    participant TEXT NOT NULL,
    stream_id BIGINT,
    connection_id BIGINT,
    direction TEXT CHECK (direction IN ('in', 'out')),
    type TEXT NOT NULL,
    category TEXT NOT NULL,
    severity TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
    started_at TIMESTAMPTZ(3) NOT NULL,
    ended_at TIMESTAMPTZ(3),
    cause TEXT NOT NULL,
    evidence JSONB NOT NULL,
    check_hint TEXT NOT NULL
);
-- One issue of a kind on one subject starts once: a diagnosis run again over the same samples stores nothing twice.
CREATE UNIQUE INDEX call_issue_once ON call_issue (call_id, type, participant, coalesce(stream_id, 0), coalesce(connection_id, 0), started_at);
CREATE INDEX call_issue_project_time ON call_issue (project_id, started_at);

CREATE TABLE stream_score (
    call_id BIGINT NOT NULL REFERENCES call(id) ON DELETE CASCADE,
    stream_id BIGINT NOT NULL,
    participant TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('audio', 'video')),
    ts TIMESTAMPTZ(3) NOT NULL,
    mos REAL NOT NULL CHECK (mos BETWEEN 1 AND 5),
    PRIMARY KEY (call_id, stream_id, ts)
);
