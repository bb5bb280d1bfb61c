import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  AudioRecording,
  type LabCall,
  launchChromium,
  measureAudio,
  measureVideo,
  runScenario,
  VideoRecording,
  writeNumberedClip,
  writeSyllableLoop,
} from '@rtcscope/lab';
import type { CalibrationUpload, CallDiagnosis } from '@rtcscope/protocol';
import { parseScenario } from '@rtcscope/scenario';
import { apiReader, startProduct } from '../support/product.js';
import { openWithKey } from '../support/open-with-key.js';

// The full-reference pipeline of bench:quality, short: a numbered clip through a real call, what the
// receiving page showed recorded and measured against it (SSIM and PSNR: the bench's VMAF needs an ffmpeg
// the suite does not install), and the sender's fake microphone playing speech-like syllables, what the
// receiving page heard recorded and aligned with them (the bench's PESQ needs a build the suite does not
// make). The sender's uplink drops everything for 8 s mid-call: the viewer's picture holds, then jumps on,
// and the listener hears what the browser makes up, then silence. However the cut falls across the score's 5-s windows, one of them holds
// 4 s of it or more (a 6-s cut split evenly left 3 s in each: a loaded run heard that window 2.95 dB
// under the quietest clean one, against the 3 dB asked below).
const BLACKOUT = { fromS: 17, untilS: 25 };

test('a frozen stretch of a real call measures worse than its clean windows, and the frames it never showed count as skipped; stored as a calibration run, the dashboard draws it', async () => {
  const { server, keys } = await startProduct('quality-data');
  const dir = join(process.env.E2E_DIR!, 'quality');
  mkdirSync(dir, { recursive: true });
  try {
    const clip = await writeNumberedClip(join(dir, 'talking.y4m'), 'talking', { seconds: 4 });
    const speech = writeSyllableLoop(join(dir, 'syllables.wav'), 7.3);
    const scenario = parseScenario({
      id: 'quality-freeze',
      title: 'A numbered clip, the sender cut off for 8 s',
      participants: { count: 2, topology: 'pair', video: { width: clip.width, height: clip.height, fps: clip.fps } },
      links: { mode: 'per-participant', uplink: {}, downlink: {} },
      schedule: [
        { at: BLACKOUT.fromS, on: 'uplink', participant: 0, set: { loss: { model: 'random', pct: 100 } } },
        { at: BLACKOUT.untilS, on: 'uplink', participant: 0, set: { loss: { model: 'random', pct: 0 } } },
      ],
      durationS: 32,
    });
    if (!scenario.ok) throw new Error(`${scenario.error.field}: ${scenario.error.message}`);
    let recordings: Promise<[VideoRecording, VideoRecording, AudioRecording]> | null = null;
    const run = await runScenario({
      server: server.url,
      ingestKey: keys.ingestKey,
      scenario: scenario.value,
      runId: 'e2e',
      repetition: 1,
      camera: clip.path,
      microphone: speech.path,
      onCall: (call: LabCall) => {
        recordings = Promise.all([
          VideoRecording.start(call.page(0), 'camera', { sourceHeight: clip.height }),
          VideoRecording.start(call.page(1), 'received', { sourceHeight: clip.height, tickMs: 100 }),
          AudioRecording.start(call.page(1), { rate: speech.rate }),
        ]);
      },
    });
    const [sent, seen, heard] = await recordings!;
    await Promise.all([sent.stop(), seen.stop(), heard.stop()]);
    const windows = await measureVideo(clip, sent, seen, { windowMs: 5000, dir });
    const at = (s: number) => run.startedAt + s * 1000;
    // Clean: whole windows after the first 5 s (the call's start) and before the blackout.
    const clean = windows.filter((w) => w.ts >= at(5) && w.ts + 5000 <= at(BLACKOUT.fromS) && w.ticks >= 40);
    const frozen = windows.filter((w) => w.ts < at(BLACKOUT.untilS) && w.ts + 5000 > at(BLACKOUT.fromS));
    console.log(
      windows
        .map(
          (w) =>
            `${((w.ts - run.startedAt) / 1000).toFixed(1)} s: SSIM ${w.ssim?.toFixed(3)} PSNR ${w.psnr?.toFixed(1)} frozen ${w.frozenShare.toFixed(2)} skipped ${w.skipped} presented ${w.presented}`,
        )
        .join('\n'),
    );
    expect(clean.length).toBeGreaterThanOrEqual(1);
    expect(clean.every((w) => w.frozenShare < 0.1 && w.ssim! > 0.8)).toBe(true);
    // The window holding most of the blackout: frozen for a good part of it, further from the source
    // than any clean window, and missing the frames the blackout swallowed (~240 at 30 fps).
    const worst = frozen.sort((a, b) => b.frozenShare - a.frozenShare)[0]!;
    expect(worst.frozenShare).toBeGreaterThan(0.2);
    expect(worst.ssim!).toBeLessThan(Math.min(...clean.map((w) => w.ssim!)));
    expect(worst.psnr!).toBeLessThan(Math.min(...clean.map((w) => w.psnr!)));
    // Frames a freeze swallowed count when the picture jumps on, after the cut: over the windows from its
    // start to 5 s past its end, ~240 more skipped than clean windows skip in as many (at least a third of them).
    const after = windows.filter((w) => w.ts < at(BLACKOUT.untilS + 5) && w.ts + 5000 > at(BLACKOUT.fromS));
    const usual = Math.max(...clean.map((w) => w.skipped));
    expect(after.reduce((n, w) => n + w.skipped, 0) - after.length * usual).toBeGreaterThan(80);

    // The call's own score agrees: the frozen window scored under every clean one.
    const diagnosis = await apiReader({ server, keys })<CallDiagnosis>(`/calls/${run.callId}/diagnosis`);
    const received = diagnosis.scores!.streams.find((st) => st.participantId === 'p1' && st.kind === 'video')!;
    const score = new Map(received.windows.map((w) => [w.ts, w.mos]));
    expect(score.get(worst.ts)).toBeLessThan(Math.min(...clean.map((w) => score.get(w.ts)!)));

    // What was heard, window by window: the clean windows found in the syllables' loop, a window into
    // the next 5 s of it each time (their match varies with the jitter buffer's stretching: 0.3–0.75 in
    // runs); the one holding most of the cut quieter than any clean one by 3 dB or more (4 s of silence in
    // 5 take 7 dB), and the call's audio score of it under every clean one's (its seconds without a
    // packet count as missed).
    const listened = await measureAudio(
      speech,
      heard,
      windows.map((w) => w.ts),
      { windowMs: 5000, dir },
    );
    console.log(
      listened
        .map(
          (h) =>
            `${((h.ts - run.startedAt) / 1000).toFixed(1)} s: heard at ${h.loopOffsetS.toFixed(2)} s of the loop, correlation ${h.correlation.toFixed(2)}, level ${h.levelDb.toFixed(1)} dB`,
        )
        .join('\n'),
    );
    const cleanHeard = listened.filter((h) => clean.some((w) => w.ts === h.ts));
    expect(cleanHeard.length).toBe(clean.length);
    expect(Math.min(...cleanHeard.map((h) => h.correlation))).toBeGreaterThan(0.2);
    for (const [a, b] of cleanHeard.slice(1).map((h, k) => [cleanHeard[k]!, h] as const)) {
      const advanced = (b.loopOffsetS - a.loopOffsetS + speech.seconds) % speech.seconds;
      expect(Math.abs(advanced - (((b.ts - a.ts) / 1000) % speech.seconds))).toBeLessThan(0.2);
    }
    // The audio window holding most of the cut (the video's worst can be its neighbour: a picture stays
    // frozen after its sender's packets come back, until a key frame).
    const heldOfCut = (ts: number) => Math.min(ts + 5000, at(BLACKOUT.untilS)) - Math.max(ts, at(BLACKOUT.fromS));
    const cut = listened.reduce((a, b) => (heldOfCut(b.ts) > heldOfCut(a.ts) ? b : a));
    expect(cut.levelDb).toBeLessThan(Math.min(...cleanHeard.map((h) => h.levelDb)) - 3);
    const audio = diagnosis.scores!.streams.find((st) => st.participantId === 'p1' && st.kind === 'audio')!;
    const audioScore = new Map(audio.windows.map((w) => [w.ts, w.mos]));
    console.log(
      `audio score: the cut's window ${audioScore.get(cut.ts)?.toFixed(2)}, clean ${cleanHeard.map((h) => audioScore.get(h.ts)?.toFixed(2)).join(', ')}`,
    );
    expect(audioScore.get(cut.ts)).toBeLessThan(Math.min(...cleanHeard.map((h) => audioScore.get(h.ts)!)) - 0.5);

    // The windows as the project's calibration run (what bench:quality uploads): the call page's score
    // links to the page that draws them, every window a point.
    const scored = windows.filter((w) => score.has(w.ts));
    const upload: CalibrationUpload = {
      setup: {
        sender: 'chromium',
        receiver: 'chromium',
        codec: 'VP8',
        width: clip.width,
        height: clip.height,
        fps: clip.fps,
        callS: 32,
        scoreModel: 'shipped',
      },
      windows: scored.map((w) => ({
        content: 'talking',
        case: w === worst ? 'cut-8s' : 'clean',
        family: w === worst ? 'cut' : 'clean',
        ts: w.ts,
        score: score.get(w.ts)!,
        vmaf: null,
        ssim: w.ssim,
        psnr: w.psnr,
        frozenShare: w.frozenShare,
        skipped: w.skipped,
      })),
      // No PESQ in the suite (it is built by the bench's install script): the audio windows carry none.
      heard: listened
        .filter((h) => audioScore.has(h.ts))
        .map((h) => ({
          content: 'talking',
          case: h === cut ? 'cut-8s' : 'clean',
          family: h === cut ? 'cut' : 'clean',
          ts: h.ts,
          score: audioScore.get(h.ts)!,
          pesq: null,
          correlation: h.correlation,
        })),
    };
    const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-quality'));
    try {
      const page = await browser.newPage();
      await openWithKey(page, server.url, keys.apiKey);
      // Before a run is stored the page says what it would show, where the published run is and how to
      // make one, as one block (issue 60: its text was laid out in five columns).
      await page.goto(`${server.url}/score`);
      const empty = page.getByTestId('empty-state');
      await expect(empty).toContainText('No calibration run in this project yet.');
      await expect(empty).toContainText('docs/scores.md');
      await expect(empty.locator('pre')).toContainText(`BENCH_QUALITY_UPLOAD=${server.url}`);
      await expect(empty.locator('> *')).toHaveCount(1);
      const emptyShot = test.info().outputPath('score-empty.png');
      await page.screenshot({ path: emptyShot, fullPage: true });
      await test.info().attach('score page before a run', { path: emptyShot, contentType: 'image/png' });
      const stored = await fetch(`${server.url}/api/v1/score-calibrations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(upload),
      });
      expect(stored.status).toBe(201);
      await page.goto(`${server.url}/calls/${run.callId}`);
      // Where the call page never shows its diagnosis, the failure says what it shows instead.
      await page
        .getByRole('link', { name: 'how good is the score' })
        .click()
        .catch(async (e: unknown) => {
          throw new Error(`${String(e)}\nthe call page at ${page.url()} shows:\n${await page.locator('body').innerText()}`);
        });
      await expect(page.getByTestId('calibration-setup')).toContainText(`${scored.length} windows of 32-s calls, VP8 640×360`);
      const all = page.getByTestId('calibration-row').first().locator('td');
      await expect(all.nth(0)).toHaveText('all windows');
      await expect(all.nth(1)).toHaveText(String(scored.length));
      // No VMAF in the suite (the bench's ffmpeg is not installed here): its plot is empty, SSIM's is not.
      await expect(page.getByTestId('calibration-ssim').locator('.recharts-scatter-symbol')).toHaveCount(
        scored.filter((w) => w.ssim !== null).length,
      );
      await expect(page.getByTestId('calibration-vmaf').locator('.recharts-scatter-symbol')).toHaveCount(0);
      // The audio windows have their own table, every window counted, and no PESQ to plot.
      const audioAll = page.getByTestId('calibration-audio-agreement').getByTestId('calibration-row').first().locator('td');
      await expect(audioAll.nth(1)).toHaveText(String(upload.heard!.length));
      await expect(page.getByTestId('calibration-pesq').locator('.recharts-scatter-symbol')).toHaveCount(0);
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
  }
});
