import type pg from 'pg';

const DAY = 86_400_000;

/**
 * `calls` ended calls spread over the 30 days before `now`, 2–4 participants each with a client (six
 * browser/OS/device kinds, three SDK versions), call metadata (appVersion, region), and each participant's
 * summary as the server's job writes it (values drawn with a fixed seed), already summarized so the job
 * leaves them.
 */
export async function seedFleet(pool: pg.Pool, projectId: string, now: number, calls: number): Promise<void> {
  // One session: the seed holds for the statement's random() calls.
  const fleet = await pool.connect();
  await fleet.query('SELECT setseed(0.42)');
  await fleet.query(
    `WITH c AS (
       INSERT INTO call (project_id, external_id, started_at, last_seen_at, ended_at, summarized_at, metadata)
       SELECT $1, 'fleet-' || k, t, t + d, t + d, t + d + interval '1 day', jsonb_build_object('appVersion', '3.' || (k % 7), 'region', (ARRAY['eu', 'us', 'ap'])[1 + k % 3])
       FROM (SELECT k, to_timestamp(($2::float8 + k * $3::float8) / 1000.0) AS t, make_interval(secs => 60 + floor(random() * 3000)) AS d FROM generate_series(0, $4::int - 1) k) g
       RETURNING id, started_at, ended_at),
     p AS (
       INSERT INTO participant (project_id, call_id, external_id, joined_at, last_seen_at, left_at, browser, browser_version, os, device_type, sdk_version)
       SELECT $1, c.id, 'p' || j, c.started_at, c.ended_at, c.ended_at, (ARRAY['Chrome', 'Chrome', 'Firefox', 'Safari', 'Chrome', 'Edge'])[x.i],
              (ARRAY['131', '130', '133', '18', '131', '131'])[x.i], (ARRAY['Windows', 'macOS', 'Linux', 'iOS', 'Android', 'Windows'])[x.i],
              (ARRAY['desktop', 'desktop', 'desktop', 'mobile', 'mobile', 'desktop'])[x.i], '0.' || (3 + (c.id + j) % 3)
       FROM c, generate_series(0, 1 + (c.id % 3)::int) j, LATERAL (SELECT 1 + ((c.id + j) % 6)::int AS i) x
       RETURNING id, call_id, joined_at, left_at)
     INSERT INTO participant_summary (participant_id, project_id, call_id, started_at, ended_at, seconds, score, rtt_ms, loss_pct, jitter_ms, sent_kbps, received_kbps,
                                      fps, height, freezes, setup_ms, setup_failed, local_candidate_type, local_protocol, issues)
     SELECT p.id, $1, p.call_id, p.joined_at, p.left_at, extract(epoch FROM p.left_at - p.joined_at), 1 + 4 * random() ^ 0.5, 20 + 300 * random() ^ 3, 8 * random() ^ 4,
            2 + 30 * random() ^ 3, 300 + 1500 * random(), 300 + 1500 * random(), 15 + 15 * random(), (ARRAY[360, 540, 720])[1 + floor(random() * 3)::int],
            floor(5 * random() ^ 4)::int, 200 + 2000 * random() ^ 3, random() < 0.02, (ARRAY['host', 'srflx', 'relay'])[1 + floor(random() * 3)::int],
            (ARRAY['udp', 'udp', 'tcp'])[1 + floor(random() * 3)::int],
            array_remove(ARRAY[CASE WHEN random() < 0.1 THEN 'downlink-loss' END, CASE WHEN random() < 0.05 THEN 'high-rtt' END, CASE WHEN random() < 0.03 THEN 'video-freeze' END], NULL)
     FROM p`,
    [projectId, now - 30 * DAY, (30 * DAY - 3600_000) / Math.max(1, calls), calls],
  );
  fleet.release();
}
