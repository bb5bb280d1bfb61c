import { mean } from '@rtcscope/metrics';
import type { Insights } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLL_UP_AFTER_S, rollUpDay, rollUpDirtyDays } from '../src/insights/day-rollup.js';
import { api, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
});
afterAll(() => t.close());

interface Seeded {
  call: string;
  participant: string;
  browser: string | null;
  os: string;
  path: [string, string];
  startedMinutesAgo: number;
  seconds: number;
  score: number | null;
  rttMs: number;
  lossPct: number;
  issues: string[];
  metadata?: Record<string, string>;
  setupFailed?: boolean;
}

/** Each seeded call's verdict, as the summary job copies it from the call's judgement. */
const VERDICTS: Record<string, string> = { c1: 'fair', c2: 'poor', c3: 'good', c4: 'unknown', old: 'good' };

/** Calls as their summaries say, written straight to the tables (no samples: the summary job leaves them). */
async function seed(projectId: string, rows: Seeded[]): Promise<void> {
  for (const r of rows) {
    const started = new Date(Date.now() - r.startedMinutesAgo * 60_000);
    const ended = new Date(started.getTime() + r.seconds * 1000);
    const { rows: calls } = await t.db.pool.query<{ id: string }>(
      `INSERT INTO call (project_id, external_id, started_at, last_seen_at, ended_at, summarized_at) VALUES ($1, $2, $3, $4, $4, $4::timestamptz + interval '1 day')
       ON CONFLICT (project_id, external_id) DO UPDATE SET last_seen_at = call.last_seen_at RETURNING id`,
      [projectId, r.call, started, ended],
    );
    const { rows: people } = await t.db.pool.query<{ id: string }>(
      `INSERT INTO participant (project_id, call_id, external_id, joined_at, last_seen_at, left_at, metadata, browser, os) VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8) RETURNING id`,
      [projectId, calls[0]!.id, r.participant, started, ended, JSON.stringify(r.metadata ?? {}), r.browser, r.os],
    );
    await t.db.pool.query(
      `INSERT INTO participant_summary (participant_id, project_id, call_id, started_at, ended_at, seconds, score, rtt_ms, loss_pct, local_candidate_type, local_protocol, issues, setup_failed, verdict)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        people[0]!.id,
        projectId,
        calls[0]!.id,
        started,
        ended,
        r.seconds,
        r.score,
        r.rttMs,
        r.lossPct,
        r.path[0],
        r.path[1],
        r.issues,
        r.setupFailed ?? false,
        VERDICTS[r.call],
      ],
    );
  }
}

/** PostgreSQL's percentile_cont, written out: linear between the two nearest ranks. */
function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = q * (sorted.length - 1);
  const low = Math.floor(at);
  return sorted[low]! + (at - low) * ((sorted[Math.min(low + 1, sorted.length - 1)] ?? 0) - sorted[low]!);
}

const FLEET: Seeded[] = [
  {
    call: 'c1',
    participant: 'ann',
    browser: 'Chrome',
    os: 'Windows',
    path: ['host', 'udp'],
    startedMinutesAgo: 120,
    seconds: 600,
    score: 4.0,
    rttMs: 50,
    lossPct: 1,
    issues: ['downlink-loss'],
  },
  {
    call: 'c1',
    participant: 'ben',
    browser: 'Firefox',
    os: 'Linux',
    path: ['relay', 'tcp'],
    startedMinutesAgo: 120,
    seconds: 600,
    score: 3.0,
    rttMs: 80,
    lossPct: 3,
    issues: [],
  },
  {
    call: 'c2',
    participant: 'cat',
    browser: 'Chrome',
    os: 'macOS',
    path: ['srflx', 'udp'],
    startedMinutesAgo: 60,
    seconds: 300,
    score: 2.0,
    rttMs: 200,
    lossPct: 6,
    issues: ['downlink-loss', 'high-rtt'],
    metadata: { appVersion: '2.0' },
  },
  {
    call: 'c2',
    participant: 'dan',
    browser: 'Safari',
    os: 'iOS',
    path: ['srflx', 'udp'],
    startedMinutesAgo: 60,
    seconds: 300,
    score: 4.5,
    rttMs: 60,
    lossPct: 0,
    issues: [],
    metadata: { appVersion: '2.0' },
  },
  {
    call: 'c3',
    participant: 'eve',
    browser: 'Chrome',
    os: 'Windows',
    path: ['host', 'udp'],
    startedMinutesAgo: 30,
    seconds: 120,
    score: 3.5,
    rttMs: 100,
    lossPct: 2,
    issues: [],
    metadata: { appVersion: '2.1' },
  },
  {
    call: 'c4',
    participant: 'fay',
    browser: null,
    os: 'Linux',
    path: ['host', 'udp'],
    startedMinutesAgo: 20,
    seconds: 60,
    score: null,
    rttMs: 40,
    lossPct: 0,
    issues: ['one-way-media'],
  },
  {
    call: 'c4',
    participant: 'gus',
    browser: 'Chrome',
    os: 'Linux',
    path: ['host', 'udp'],
    startedMinutesAgo: 20,
    seconds: 60,
    score: null,
    rttMs: 40,
    lossPct: 0,
    issues: [],
    setupFailed: true,
  },
];

describe('insights', () => {
  beforeAll(async () => {
    await seed(t.projects[0]!.projectId, FLEET);
    // Another project's calls, which must not count.
    await seed(t.projects[1]!.projectId, [
      { ...FLEET[0]!, score: 1, rttMs: 900 },
      // Three days back, the only day whose participants carried the app's version.
      { ...FLEET[0]!, call: 'old', startedMinutesAgo: 3 * 1440, metadata: { appVersion: '1.0' } },
    ]);
    // What the summary job does when it writes summaries: their days' rollups, which long periods read.
    const { rows } = await t.db.pool.query<{ project_id: string; day: string }>(
      `SELECT DISTINCT project_id, to_char((started_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day FROM participant_summary`,
    );
    for (const r of rows) await rollUpDay(t.db.pool, r.project_id, new Date(`${r.day}T00:00:00Z`));
  });

  const periods: [string, () => number, (got: number | null, want: number) => void][] = [
    [
      'the last 47 hours, from the summaries: percentiles exact',
      () => Date.now() - 47 * 3600_000,
      (got, want) => expect(got).toBeCloseTo(want, 5),
    ],
    [
      'all time, from the days’ rollups: percentiles within 1 %',
      () => 0,
      (got, want) => expect(Math.abs(got! - want)).toBeLessThanOrEqual(0.01 * want),
    ],
  ];
  it.each(periods)(
    'break the fleet down by browser over %s: counts, minutes, each distribution and issue shares as computed from the calls',
    async (_period, from, close) => {
      const p = t.projects[0]!;
      const body = (await api<Insights>(t, `/insights?breakdown=browser&from=${from()}`, p.apiKey)).body;
      expect(body.segments.map((s) => [s.segment, s.calls, s.participants, s.setupFailures])).toEqual([
        ['Chrome', 4, 4, 1],
        ['Firefox', 1, 1, 0],
        ['Safari', 1, 1, 0],
        [null, 1, 1, 0],
      ]);
      const chrome = body.segments[0]!;
      const mine = FLEET.filter((r) => r.browser === 'Chrome' && r.score !== null);
      expect(chrome.minutes).toBeCloseTo((600 + 300 + 120 + 60) / 60, 6);
      for (const [metric, values] of [
        ['score', mine.map((r) => r.score!)],
        ['rttMs', [...mine.map((r) => r.rttMs), 40]],
        ['lossPct', [...mine.map((r) => r.lossPct), 0]],
      ] as const) {
        const d = chrome.metrics[metric]!;
        expect(d.n).toBe(metric === 'score' ? 3 : 4);
        expect(d.mean).toBeCloseTo(mean(values)!, 5);
        close(d.p10, percentile(values, 0.1));
        close(d.p50, percentile(values, 0.5));
        close(d.p90, percentile(values, 0.9));
        close(d.p99, percentile(values, 0.99));
      }
      expect(chrome.metrics.fps).toEqual({ n: 0, mean: null, p10: null, p50: null, p90: null, p99: null });
      expect(chrome.issues['downlink-loss']!.callsShare).toBeCloseTo(2 / 4, 6);
      expect(chrome.issues['downlink-loss']!.minutesShare).toBeCloseTo((600 + 300) / (600 + 300 + 120 + 60), 6);
      expect(chrome.issues['high-rtt']!.callsShare).toBeCloseTo(1 / 4, 6);
      expect(Object.keys(body.segments[3]!.issues)).toEqual(['one-way-media']);
      // The calls list's verdicts, as shares of the segment's calls: Chrome was in c1 (fair), c2 (poor), c3 (good) and c4 (not judged).
      expect(chrome.verdicts).toEqual({ good: 0.25, fair: 0.25, poor: 0.25, unknown: 0.25 });
      expect(body.segments[1]!.verdicts).toEqual({ good: 0, fair: 1, poor: 0, unknown: 0 });
    },
  );

  it('break it down by path, OS or a metadata key the app sets, over a period, with the score per time bucket', async () => {
    const p = t.projects[0]!;
    const byPath = (await api<Insights>(t, '/insights?breakdown=path&from=0', p.apiKey)).body;
    expect(Object.fromEntries(byPath.segments.map((s) => [s.segment, s.participants]))).toEqual({
      'host/udp': 4,
      'srflx/udp': 2,
      'relay/tcp': 1,
    });
    const byVersion = (await api<Insights>(t, '/insights?breakdown=metadata:appVersion&from=0', p.apiKey)).body;
    expect(Object.fromEntries(byVersion.segments.map((s) => [String(s.segment), s.participants]))).toEqual({ null: 4, '2.0': 2, '2.1': 1 });
    // A day on which no one carried the key counts its participants as unknown, not as nothing.
    const other = (await api<Insights>(t, '/insights?breakdown=metadata:appVersion&from=0', t.projects[1]!.apiKey)).body;
    expect(Object.fromEntries(other.segments.map((s) => [String(s.segment), s.participants]))).toEqual({ null: 1, '1.0': 1 });
    // The last 45 minutes: c3 and c4 only.
    const recent = (await api<Insights>(t, `/insights?breakdown=os&from=${Date.now() - 45 * 60_000}`, p.apiKey)).body;
    expect(Object.fromEntries(recent.segments.map((s) => [s.segment, s.participants]))).toEqual({ Windows: 1, Linux: 2 });
    const hourly = (await api<Insights>(t, `/insights?bucket=hour&from=${Date.now() - 47 * 3600_000}`, p.apiKey)).body;
    expect(hourly.overTime.reduce((n, b) => n + b.participants, 0)).toBe(FLEET.length);
    expect(hourly.overTime.every((b) => b.ts % 3_600_000 === 0)).toBe(true);
    // A long period is read by the day, from whole UTC days.
    const daily = (await api<Insights>(t, '/insights?bucket=hour&from=0', p.apiKey)).body;
    expect(daily).toMatchObject({ bucket: 'day', from: 0 });
    expect(daily.to % 86_400_000).toBe(0);
    expect(daily.overTime.every((b) => b.ts % 86_400_000 === 0)).toBe(true);
    expect(daily.overTime.reduce((n, b) => n + b.participants, 0)).toBe(FLEET.length);
    const all = FLEET.filter((r) => r.score !== null).map((r) => r.score!);
    const total = (await api<Insights>(t, '/insights?from=0', p.apiKey)).body.segments;
    expect(total).toHaveLength(1);
    expect(Math.abs(total[0]!.metrics.score!.p50! - percentile(all, 0.5))).toBeLessThanOrEqual(0.01 * percentile(all, 0.5));
  });

  it('drill down to the calls behind a segment, and behind its share of an issue', async () => {
    const p = t.projects[0]!;
    const calls = async (query: string, key = p.apiKey) =>
      (await api<{ calls: { id: string }[] }>(t, `/calls?${query.includes('from=') ? '' : 'from=0&'}${query}`, key)).body.calls
        .map((c) => c.id)
        .sort();
    expect(await calls('breakdown=browser&segment=Chrome')).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(await calls('breakdown=browser&segment=')).toEqual(['c4']);
    expect(await calls('breakdown=metadata:appVersion&segment=2.0')).toEqual(['c2']);
    // Chrome's share of downlink-loss: ann's c1 and cat's c2. Firefox's ben had none, though his c1 did.
    expect(await calls('breakdown=browser&segment=Chrome&issue=downlink-loss')).toEqual(['c1', 'c2']);
    expect(await calls('breakdown=browser&segment=Firefox&issue=downlink-loss')).toEqual([]);
    expect(await calls(`breakdown=os&segment=Linux&from=${Date.now() - 45 * 60_000}`)).toEqual(['c4']);
    expect(await calls('breakdown=browser&segment=Chrome', t.projects[1]!.apiKey)).toEqual(['c1', 'old']);
    const alone = await api<{ message: string }>(t, '/calls?segment=Chrome', p.apiKey);
    expect(alone.status).toBe(400);
    expect(alone.body.message).toMatch(/segment and querystring\/breakdown go together/);
  });

  it('roll a day up only once its summaries have settled', async () => {
    const p = t.projects[0]!;
    const day = new Date().toISOString().slice(0, 10);
    await t.db.pool.query('DELETE FROM insight_day_dirty');
    // Marked just now: not yet (the summary rounds of a busy day make one rollup).
    await t.db.pool.query('INSERT INTO insight_day_dirty (project_id, day) VALUES ($1, $2)', [p.projectId, day]);
    await t.db.pool.query(`DELETE FROM insight_day WHERE project_id = $1 AND day = $2`, [p.projectId, day]);
    expect(await rollUpDirtyDays(t.db, 10)).toBe(0);
    expect((await t.db.pool.query('SELECT 1 FROM insight_day_dirty')).rowCount).toBe(1);
    // Settled: rolled up, by this call or by the server's own job, whichever claims it.
    await t.db.pool.query(`UPDATE insight_day_dirty SET since = now() - make_interval(secs => $1 + 1)`, [ROLL_UP_AFTER_S]);
    await rollUpDirtyDays(t.db, 10);
    const today = FLEET.filter((r) => new Date(Date.now() - r.startedMinutesAgo * 60_000).toISOString().slice(0, 10) === day).length;
    await expect
      .poll(
        async () =>
          (
            await t.db.pool.query<{ participants: number }>(
              `SELECT participants FROM insight_day WHERE project_id = $1 AND day = $2 AND breakdown = 'none'`,
              [p.projectId, day],
            )
          ).rows,
      )
      .toEqual(today ? [{ participants: today }] : []);
    expect((await t.db.pool.query('SELECT 1 FROM insight_day_dirty')).rowCount).toBe(0);
  });

  it("count the lab's runs apart from production's live traffic (issue 60: 5 calls where a person made 3)", async () => {
    const p = t.projects[0]!;
    const participants = async (source: string) =>
      (await api<Insights>(t, `/insights?from=${Date.now() - 3 * 3_600_000}&source=${source}`, p.apiKey)).body.segments[0]?.participants ??
      0;
    const [live, all] = [await participants('live'), await participants('all')];
    await seed(p.projectId, [
      {
        call: 'lab-run',
        participant: 'lab-p0',
        browser: 'Chrome',
        os: 'Linux',
        path: ['host', 'udp'],
        startedMinutesAgo: 5,
        seconds: 60,
        score: 4,
        rttMs: 20,
        lossPct: 0,
        issues: [],
      },
    ]);
    await t.db.pool.query(`UPDATE call SET metadata = '{"lab": true}' WHERE project_id = $1 AND external_id = 'lab-run'`, [p.projectId]);
    expect(await participants('live')).toBe(live);
    expect(await participants('lab')).toBe(1);
    expect(await participants('all')).toBe(all + 1);
  });

  it('refuse a breakdown they do not know, naming it', async () => {
    const res = await api<{ message: string }>(t, '/insights?breakdown=planet', t.projects[0]!.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/breakdown/);
  });
});
