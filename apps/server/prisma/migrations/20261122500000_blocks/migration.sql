-- Compacted samples. Once a UTC day is over (and an hour more for late batches), the compaction job
-- rewrites the day's samples as one row per stream (connection) and 10 minutes (UTC) whose columns
-- are arrays in time order, then empties the day's row partitions. PostgreSQL compresses the large
-- arrays (TOAST), and a row header and index entry are paid per block instead of per sample; a
-- zoomed-in read unpacks at most 10 minutes more than it shows. Partitioned by the UTC day
-- of t0 and by retention tier like the samples (the partitions are made by the server), dropped with
-- them. Reads see rows and blocks as one table (apps/server/src/db/points.ts).
CREATE TABLE stream_block (
    stream_id BIGINT NOT NULL,
    -- First sample's time; every sample of a block lies in the 10 minutes (UTC) that start before it.
    t0 TIMESTAMPTZ(3) NOT NULL,
    n INTEGER NOT NULL,
    -- Each sample's time, in milliseconds after t0.
    offset_ms INTEGER[] NOT NULL,
    seq INTEGER[] NOT NULL,
    kbps REAL[],
    packets INTEGER[],
    packets_lost INTEGER[],
    loss_pct REAL[],
    jitter_ms REAL[],
    rtt_ms REAL[],
    fps REAL[],
    width SMALLINT[],
    height SMALLINT[],
    frames INTEGER[],
    frames_dropped INTEGER[],
    freezes INTEGER[],
    nack INTEGER[],
    pli INTEGER[],
    fir INTEGER[],
    quality_limitation SMALLINT[],
    PRIMARY KEY (stream_id, t0)
) PARTITION BY RANGE (t0);

CREATE TABLE connection_block (
    connection_id BIGINT NOT NULL,
    t0 TIMESTAMPTZ(3) NOT NULL,
    n INTEGER NOT NULL,
    offset_ms INTEGER[] NOT NULL,
    seq INTEGER[] NOT NULL,
    rtt_ms REAL[],
    available_out_kbps REAL[],
    available_in_kbps REAL[],
    sent_kbps REAL[],
    received_kbps REAL[],
    PRIMARY KEY (connection_id, t0)
) PARTITION BY RANGE (t0);
