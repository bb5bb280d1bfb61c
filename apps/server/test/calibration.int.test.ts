import { CALIBRATION_LIMITS, type ApiKeyCreated, type CalibrationLatest } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrationUpload, calibrationWindow, heardWindow } from './calibrations.js';
import { api, apiSend, count, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
});
afterAll(() => t.close());

const upload = calibrationUpload;
const window = calibrationWindow;
const { setup } = upload(0);

describe('score calibrations', () => {
  it("stores a run and gives the project's latest back whole, its audio windows too; another project sees none", async () => {
    const [a, b] = t.projects;
    expect((await api<CalibrationLatest>(t, '/score-calibrations/latest', a!.apiKey)).body).toEqual({ calibration: null });
    const run = upload(350, 340);
    const stored = await apiSend<{ id: number; windows: number }>(t, 'POST', '/score-calibrations', a!.apiKey, run);
    expect(stored.status).toBe(201);
    expect(stored.body.windows).toBe(350);
    // What /score shows everyone is replaced in the audit log, by whom.
    const { rows } = await t.db.pool.query<{ actor_kind: string; detail: unknown }>(
      "SELECT actor_kind, detail FROM audit_event WHERE action = 'score-calibration.published' AND project_id = $1",
      [a!.projectId],
    );
    expect(rows).toEqual([{ actor_kind: 'key', detail: { windows: 350 } }]);
    const latest = await api<CalibrationLatest>(t, '/score-calibrations/latest', a!.apiKey);
    expect(latest.body.calibration).toMatchObject({ id: stored.body.id, setup, windows: run.windows, heard: run.heard });
    expect((await api<CalibrationLatest>(t, '/score-calibrations/latest', b!.apiKey)).body).toEqual({ calibration: null });
    // A run that measured no audio reads back with none.
    expect((await apiSend(t, 'POST', '/score-calibrations', a!.apiKey, upload(3))).status).toBe(201);
    expect((await api<CalibrationLatest>(t, '/score-calibrations/latest', a!.apiKey)).body.calibration?.heard).toEqual([]);
  });

  it('takes uploads only from a key with the lab scope, and shows runs to a key that may read', async () => {
    const p = t.projects[1]!;
    const key = async (scopes: string[]) =>
      (await apiSend<ApiKeyCreated>(t, 'POST', '/project/keys', p.apiKey, { name: scopes.join('+') || 'none', scopes })).body.apiKey;
    const [reader, ingest] = [await key(['read']), await key(['ingest'])];
    expect((await apiSend(t, 'POST', '/score-calibrations', reader, upload(2))).status).toBe(403);
    expect((await apiSend(t, 'POST', '/score-calibrations', ingest, upload(2))).status).toBe(403);
    expect((await apiSend(t, 'POST', '/score-calibrations', p.ingestKey, upload(2))).status).toBe(401);
    expect((await api<CalibrationLatest>(t, '/score-calibrations/latest', reader)).body.calibration).toBeNull();
    expect((await api(t, '/score-calibrations/latest', ingest)).status).toBe(403);
  });

  it('refuses a run with a value out of range, an unknown field, too many windows or too many bytes, storing nothing', async () => {
    const p = t.projects[1]!;
    const before = await count(t.db, 'score_calibration');
    const bad: [string, unknown][] = [
      ['vmaf over 100', { setup, windows: [{ ...window(0), vmaf: 150 }] }],
      ['a score past 5', { setup, windows: [{ ...window(0), score: 7 }] }],
      ['a field nobody asked for', { setup: { ...setup, secret: 'x' }, windows: [window(0)] }],
      ['a label with markup', { setup, windows: [{ ...window(0), case: '<img src=x>' }] }],
      ['no windows', { setup, windows: [] }],
      ['PESQ past 5', { setup, windows: [window(0)], heard: [{ ...heardWindow(1), pesq: 5.5 }] }],
      ['an audio window without its score', { setup, windows: [window(0)], heard: [{ ...heardWindow(1), score: undefined }] }],
      ['too many audio windows', { ...upload(1, CALIBRATION_LIMITS.maxWindows + 1) }],
      ['too many windows', upload(CALIBRATION_LIMITS.maxWindows + 1)],
    ];
    for (const [what, body] of bad) {
      const res = await apiSend<{ message: string }>(t, 'POST', '/score-calibrations', p.apiKey, body);
      expect(res.status, what).toBe(400);
      expect(res.body.message, what).toBeTruthy();
    }
    const padded = { ...upload(1), setup: { ...setup, scoreModel: 'x' }, padding: 'y'.repeat(CALIBRATION_LIMITS.maxWindows * 600) };
    expect((await apiSend(t, 'POST', '/score-calibrations', p.apiKey, padded)).status).toBe(413);
    expect(await count(t.db, 'score_calibration')).toBe(before);
  });

  it(`keeps a project's latest ${CALIBRATION_LIMITS.keptRuns} runs`, async () => {
    const p = t.projects[0]!;
    let last = 0;
    for (let k = 0; k < CALIBRATION_LIMITS.keptRuns + 2; k++) {
      last = (await apiSend<{ id: number }>(t, 'POST', '/score-calibrations', p.apiKey, upload(1 + k))).body.id;
    }
    const { rows } = await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM score_calibration WHERE project_id = $1', [
      p.projectId,
    ]);
    expect(rows[0]!.n).toBe(CALIBRATION_LIMITS.keptRuns);
    const latest = await api<CalibrationLatest>(t, '/score-calibrations/latest', p.apiKey);
    expect(latest.body.calibration?.id).toBe(last);
    expect(latest.body.calibration?.windows).toHaveLength(CALIBRATION_LIMITS.keptRuns + 2);
  });
});
