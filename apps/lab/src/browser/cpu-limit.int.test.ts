import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.js';
import { cpuLimitUsable, limitCpu } from './cpu-limit.js';
import { writeY4m } from './y4m.js';

const usable = cpuLimitUsable();
const groups = () => readdirSync('/sys/fs/cgroup/cpu').filter((d) => d.startsWith(`rtcscope-lab-${process.pid}-`));

/** The share of wall time the page got to run while it spins for `ms`. */
async function share(page: Awaited<ReturnType<Browser['newPage']>>, ms: number): Promise<number> {
  return page.evaluate((ms) => {
    // Counts 1-ms slices of spinning: one that took longer lost the CPU for the difference.
    const started = performance.now();
    let busy = 0;
    while (performance.now() - started < ms) {
      const slice = performance.now();
      while (performance.now() - slice < 1);
      busy += 1;
    }
    return busy / (performance.now() - started);
  }, ms);
}

describe.skipIf(!usable.ok)('a CPU limit on a page', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rtcscope-cpu-test-'));
    await writeY4m(join(dir, 'cam.y4m'), { width: 320, height: 180, fps: 15, seconds: 1 });
    browser = await launchChromium(join(dir, 'cam.y4m'), join(dir, 'home'));
  });
  afterAll(async () => {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("holds the page's process to its share of a core, and lets it go with the group removed", async () => {
    const page = await browser.newPage();
    const before = await share(page, 1000);
    const undo = await limitCpu(page, 0.2);
    expect(groups()).toHaveLength(1);
    const held = await share(page, 2000);
    await undo();
    expect(groups()).toEqual([]);
    const after = await share(page, 1000);
    console.log(
      `the page's share of wall time: ${before.toFixed(2)} before, ${held.toFixed(2)} held to 0.2 of a core, ${after.toFixed(2)} after`,
    );
    // Over whole scheduling periods of 100 ms the quota allows 20 %; on a loaded host the page may get less.
    expect(held).toBeLessThan(0.3);
    expect(after).toBeGreaterThan(held * 2);
  });

  it('removes a group whose page closed before it was let go', async () => {
    const page = await browser.newPage();
    const undo = await limitCpu(page, 0.2);
    await page.close();
    await undo();
    expect(groups()).toEqual([]);
  });
});
