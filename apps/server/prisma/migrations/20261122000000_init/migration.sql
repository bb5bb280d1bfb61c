-- Relational model (mirrors schema.prisma; checked by src/db/schema.int.test.ts).
CREATE TABLE "project" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "ingest_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "project_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "project_ingest_key_key" ON "project"("ingest_key");

CREATE TABLE "api_key" (
    "id" BIGSERIAL NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_key_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_key_hash_key" ON "api_key"("hash");
ALTER TABLE "api_key" ADD CONSTRAINT "api_key_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "call" (
    "id" BIGSERIAL NOT NULL,
    "project_id" UUID NOT NULL,
    "external_id" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "rtt_sum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "rtt_count" INTEGER NOT NULL DEFAULT 0,
    "loss_sum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "loss_count" INTEGER NOT NULL DEFAULT 0,
    "fps_sum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "fps_count" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "call_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "call_project_id_external_id_key" ON "call"("project_id", "external_id");
CREATE INDEX "call_project_id_last_seen_at_idx" ON "call"("project_id", "last_seen_at");
ALTER TABLE "call" ADD CONSTRAINT "call_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "participant" (
    "id" BIGSERIAL NOT NULL,
    "project_id" UUID NOT NULL,
    "call_id" BIGINT NOT NULL,
    "external_id" TEXT NOT NULL,
    "joined_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "left_at" TIMESTAMPTZ(3),
    "metadata" JSONB NOT NULL DEFAULT '{}',
    CONSTRAINT "participant_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "participant_call_id_external_id_key" ON "participant"("call_id", "external_id");
CREATE INDEX "participant_project_id_external_id_idx" ON "participant"("project_id", "external_id");
ALTER TABLE "participant" ADD CONSTRAINT "participant_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "call"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "connection" (
    "id" BIGSERIAL NOT NULL,
    "project_id" UUID NOT NULL,
    "participant_id" BIGINT NOT NULL,
    "session" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "local_candidate_type" TEXT,
    "local_protocol" TEXT,
    "remote_candidate_type" TEXT,
    "remote_protocol" TEXT,
    CONSTRAINT "connection_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "connection_participant_id_session_key_key" ON "connection"("participant_id", "session", "key");
ALTER TABLE "connection" ADD CONSTRAINT "connection_participant_id_fkey" FOREIGN KEY ("participant_id") REFERENCES "participant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "stream" (
    "id" BIGSERIAL NOT NULL,
    "project_id" UUID NOT NULL,
    "connection_id" BIGINT NOT NULL,
    "direction" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "ssrc" BIGINT NOT NULL,
    "rid" TEXT,
    "track_id" TEXT,
    "codec" TEXT,
    "implementation" TEXT,
    CONSTRAINT "stream_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "stream_connection_id_direction_kind_ssrc_key" ON "stream"("connection_id", "direction", "kind", "ssrc");
ALTER TABLE "stream" ADD CONSTRAINT "stream_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "connection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "call_event" (
    "id" BIGSERIAL NOT NULL,
    "project_id" UUID NOT NULL,
    "call_id" BIGINT NOT NULL,
    "participant_id" BIGINT NOT NULL,
    "connection_id" BIGINT,
    "session" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "type" TEXT NOT NULL,
    "detail" TEXT,
    CONSTRAINT "call_event_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "call_event_participant_id_session_seq_key" ON "call_event"("participant_id", "session", "seq");
CREATE INDEX "call_event_call_id_ts_idx" ON "call_event"("call_id", "ts");
ALTER TABLE "call_event" ADD CONSTRAINT "call_event_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "call"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "call_event" ADD CONSTRAINT "call_event_participant_id_fkey" FOREIGN KEY ("participant_id") REFERENCES "participant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Time series: typed columns, one row per stream (or connection) per interval, partitioned by day
-- (UTC). Partitions are created ahead by the server (src/db/partitions.ts). A sample belongs to its
-- project through its stream; the identity (stream, ts) makes a resent sample a no-op.
CREATE TABLE "stream_sample" (
    "stream_id" BIGINT NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "seq" INTEGER NOT NULL,
    "kbps" REAL,
    "packets" INTEGER,
    "packets_lost" INTEGER,
    "loss_pct" REAL,
    "jitter_ms" REAL,
    "rtt_ms" REAL,
    "fps" REAL,
    "width" SMALLINT,
    "height" SMALLINT,
    "frames" INTEGER,
    "frames_dropped" INTEGER,
    "freezes" INTEGER,
    "nack" INTEGER,
    "pli" INTEGER,
    "fir" INTEGER,
    "quality_limitation" SMALLINT,
    PRIMARY KEY ("stream_id", "ts")
) PARTITION BY RANGE ("ts");

CREATE TABLE "connection_sample" (
    "connection_id" BIGINT NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "seq" INTEGER NOT NULL,
    "rtt_ms" REAL,
    "available_out_kbps" REAL,
    "available_in_kbps" REAL,
    "sent_kbps" REAL,
    "received_kbps" REAL,
    PRIMARY KEY ("connection_id", "ts")
) PARTITION BY RANGE ("ts");
