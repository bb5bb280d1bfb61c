-- 10-second rollups of ended calls: long calls and long ranges read these instead of every raw
-- sample. Same columns as the sample tables (averages; shape fields keep their maximum), plus how
-- many raw samples each row stands for. Partitioned by UTC day like the samples, and dropped with them.
ALTER TABLE call ADD COLUMN rolled_up_at TIMESTAMPTZ(3);

CREATE TABLE stream_rollup (
    stream_id BIGINT NOT NULL,
    ts TIMESTAMPTZ(3) NOT NULL,
    n SMALLINT NOT NULL,
    kbps REAL,
    packets INTEGER,
    packets_lost INTEGER,
    loss_pct REAL,
    jitter_ms REAL,
    rtt_ms REAL,
    fps REAL,
    width SMALLINT,
    height SMALLINT,
    frames INTEGER,
    frames_dropped INTEGER,
    freezes INTEGER,
    nack INTEGER,
    pli INTEGER,
    fir INTEGER,
    quality_limitation SMALLINT,
    PRIMARY KEY (stream_id, ts)
) PARTITION BY RANGE (ts);

CREATE TABLE connection_rollup (
    connection_id BIGINT NOT NULL,
    ts TIMESTAMPTZ(3) NOT NULL,
    n SMALLINT NOT NULL,
    rtt_ms REAL,
    available_out_kbps REAL,
    available_in_kbps REAL,
    sent_kbps REAL,
    received_kbps REAL,
    PRIMARY KEY (connection_id, ts)
) PARTITION BY RANGE (ts);

-- Days that already have sample partitions get rollup partitions too.
DO $$
DECLARE part record;
BEGIN
  FOR part IN SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
              FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
              WHERE i.inhparent = 'stream_sample'::regclass LOOP
    EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF stream_rollup %s', replace(part.relname, 'stream_sample', 'stream_rollup'), part.bound);
    EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF connection_rollup %s', replace(part.relname, 'stream_sample', 'connection_rollup'), part.bound);
  END LOOP;
END $$;
