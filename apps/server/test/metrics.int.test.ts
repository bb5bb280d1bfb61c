import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMPACT_AFTER_MS, SLICE_MS } from '../src/samples/partitions.js';
import { compactSamples } from '../src/samples/compaction.js';
import { apiSend, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

const TOKEN = 'operator-token-for-the-tests';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(1, { metricsToken: TOKEN });
});
afterAll(() => t.close());

async function scrape(server: TestServer, authorization?: string) {
  const res = await fetch(`${server.url}/metrics`, authorization ? { headers: { authorization } } : {});
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** A series' value in Prometheus' text format, by its name and labels as printed. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('operator metrics (GET /metrics)', () => {
  it('refuses a scrape without the operator token', async () => {
    for (const authorization of [undefined, 'Bearer not-the-token', `Basic ${TOKEN}`]) {
      const res = await scrape(t, authorization);
      expect(res.status).toBe(401);
      expect(res.text).toContain('METRICS_TOKEN');
    }
  });

  it('counts batches by outcome, samples stored, ack latency, refused handshakes and connected SDKs', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'metrics-call', 'alice'));
    const batch = {
      n: 0,
      t0: Date.now() - 5000,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 1 }],
      s: [
        [0, 0, 0, 100],
        [0, 1, 1000, 110],
      ],
      c: [[0, 0, 0, 20]],
    };
    expect(await send(socket, batch)).toMatchObject({ ok: true, stored: 3 });
    expect(await send(socket, batch)).toMatchObject({ ok: true, stored: 0 });
    expect(await send(socket, { n: 2, t0: batch.t0, s: [[5, 2, 0, 1]] })).toMatchObject({ ok: false, retry: false });
    await expect(ingestSocket(t.url, { ...handshake(p, 'metrics-call', 'bob'), key: 'ik_unknown' })).rejects.toThrow(/unknown ingest key/);

    const res = await scrape(t, `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(value(res.text, 'rtcscope_ingest_batches_total{outcome="stored"}')).toBe(2);
    expect(value(res.text, 'rtcscope_ingest_batches_total{outcome="invalid"}')).toBe(1);
    expect(value(res.text, 'rtcscope_ingest_samples_total')).toBe(3);
    expect(value(res.text, 'rtcscope_ingest_ack_seconds_count')).toBe(3);
    expect(value(res.text, 'rtcscope_ingest_ack_seconds_bucket{le="10"}')).toBe(3);
    // One at a time from one socket: two statements of one batch each (the invalid one was never written).
    expect(value(res.text, 'rtcscope_ingest_group_batches_count')).toBe(2);
    expect(value(res.text, 'rtcscope_ingest_group_batches_sum')).toBe(2);
    expect(value(res.text, 'rtcscope_ingest_handshakes_refused_total{status="401"}')).toBe(1);
    expect(value(res.text, 'rtcscope_sockets{namespace="ingest"}')).toBe(1);
    expect(value(res.text, 'rtcscope_db_pool_clients{state="total"}')).toBeGreaterThan(0);
    expect(value(res.text, 'rtcscope_process_resident_memory_bytes')).toBeGreaterThan(0);
    // The operator's view names no tenant and carries no secret.
    for (const secret of [p.ingestKey, p.apiKey, p.projectId, TOKEN]) expect(res.text).not.toContain(secret);
    socket.disconnect();
  });

  it('shows how far compaction is behind: slices due and still rows, and how long the oldest has waited', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'late-call', 'alice'));
    // Two days back: a slice long due, with stream and connection samples (one slice, two tables).
    const t0 = Date.now() - 2 * 86_400_000;
    const batch = {
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 1 }],
      s: [[0, 0, 0, 100]],
      c: [[0, 0, 0, 20]],
    };
    expect(await send(socket, batch)).toMatchObject({ ok: true, stored: 2 });
    socket.disconnect();

    const behind = await scrape(t, `Bearer ${TOKEN}`);
    expect(value(behind.text, 'rtcscope_compaction_backlog_slices')).toBe(1);
    const sliceEnd = Math.floor(t0 / SLICE_MS) * SLICE_MS + SLICE_MS;
    const overdue = value(behind.text, 'rtcscope_compaction_overdue_seconds')!;
    expect(Math.abs(overdue - (Date.now() - sliceEnd - COMPACT_AFTER_MS) / 1000)).toBeLessThan(30);

    await compactSamples(t.db);
    const caughtUp = await scrape(t, `Bearer ${TOKEN}`);
    expect(value(caughtUp.text, 'rtcscope_compaction_backlog_slices')).toBe(0);
    expect(value(caughtUp.text, 'rtcscope_compaction_overdue_seconds')).toBe(0);
  });

  it('times each round of alert rules and, within it, each kind of condition with rules', { timeout: 30_000 }, async () => {
    const rule = { name: 'Loss', enabled: true, condition: { kind: 'call-issue', issueType: 'downlink-loss' } };
    expect((await apiSend(t, 'POST', '/alerts/rules', t.projects[0]!.apiKey, rule)).status).toBe(201);
    // Rounds come every 2 s: one after the rule was made reads its kind.
    await vi.waitFor(
      async () =>
        expect(
          value((await scrape(t, `Bearer ${TOKEN}`)).text, 'rtcscope_alert_condition_seconds_count{kind="call-issue"}'),
        ).toBeGreaterThan(0),
      { timeout: 15_000, interval: 500 },
    );
    const { text } = await scrape(t, `Bearer ${TOKEN}`);
    expect(value(text, 'rtcscope_alert_evaluation_seconds_count')).toBeGreaterThan(0);
    expect(value(text, 'rtcscope_alert_evaluation_seconds_sum')).toBeGreaterThan(0);
    // A kind no rule has is not read, so it is not timed.
    expect(value(text, 'rtcscope_alert_condition_seconds_count{kind="call-score"}')).toBeUndefined();
  });

  it("times each round of the insights' jobs and counts the calls it summarized", { timeout: 30_000 }, async () => {
    const socket = await ingestSocket(t.url, handshake(t.projects[0]!, 'summarized-call', 'alice'));
    const t0 = Date.now() - 1000;
    const batch = { n: 0, t0, conns: [{ i: 0, key: 'pc1' }], streams: [{ i: 0, conn: 0, direction: 'in', kind: 'audio', ssrc: 9 }] };
    expect(await send(socket, { ...batch, s: [[0, 0, 0, 32]] })).toMatchObject({ ok: true });
    socket.disconnect();
    // A live call never summarized is due at the next round (every 5 s).
    const { rows } = await t.db.pool.query<{ at: Date | null }>(
      "SELECT summarized_at AS at FROM call WHERE external_id = 'summarized-call'",
    );
    expect(rows[0]!.at).toBeNull();
    await vi.waitFor(
      async () => {
        const { rows: now } = await t.db.pool.query<{ at: Date | null }>(
          "SELECT summarized_at AS at FROM call WHERE external_id = 'summarized-call'",
        );
        expect(now[0]!.at).not.toBeNull();
      },
      { timeout: 15_000, interval: 500 },
    );
    // The call is claimed (summarized_at) as its round begins; the count is taken when the round ends.
    await vi.waitFor(
      async () => expect(value((await scrape(t, `Bearer ${TOKEN}`)).text, 'rtcscope_summarized_calls_total')).toBeGreaterThan(0),
      {
        timeout: 15_000,
        interval: 500,
      },
    );
    const { text } = await scrape(t, `Bearer ${TOKEN}`);
    expect(value(text, 'rtcscope_insights_round_seconds_count{job="summaries"}')).toBeGreaterThan(0);
    expect(value(text, 'rtcscope_insights_round_seconds_count{job="rollups"}')).toBeGreaterThan(0);
    expect(value(text, 'rtcscope_rolled_up_days_total')).toBeGreaterThanOrEqual(0);
  });

  it('is off, and says how to turn it on, on a server without a token', async () => {
    const plain = await startTestServer(0);
    try {
      const res = await scrape(plain, `Bearer ${TOKEN}`);
      expect(res.status).toBe(404);
      expect(res.text).toContain('set METRICS_TOKEN');
    } finally {
      await plain.close();
    }
  });
});
