import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { launchChromium, loopbackContext } from '@rtcscope/lab';
import { startProduct } from '../support/product.js';
import { pageSettled } from '../support/settled.js';
import { openWithKey } from '../support/open-with-key.js';

test('a newcomer starts the demo call and watches it live, then sees it end', async () => {
  const { server, keys } = await startProduct('demo-data', { SWEEP_INTERVAL_S: '1' });
  const { apiKey } = keys;
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home'));
  try {
    const context = await loopbackContext(browser);
    // The dashboard runs under a Content-Security-Policy: anything it would refuse is a broken page.
    const refused: string[] = [];
    context.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    const page = await context.newPage();
    const document = await page.goto(`${server.url}/`);
    expect(document!.headers()).toMatchObject({
      'content-security-policy': expect.stringContaining("frame-ancestors 'none'"),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    // Other sites' pages load the SDK's script: the resource policy lets them.
    expect((await fetch(`${server.url}/sdk/rtcscope.js`)).headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    await expect(page.getByRole('heading', { name: 'Sign in to rtcscope' })).toBeVisible();
    await openWithKey(page, server.url, apiKey);
    await page.getByRole('link', { name: 'Demo call' }).click();
    await page.getByTestId('demo-start').click();
    const callId = (await page.getByTestId('demo-call-id').textContent())!;
    expect(callId).toMatch(/^demo-/);

    const dashboard = await context.newPage();
    await dashboard.goto(`${server.url}/calls/${callId}`);
    await expect(dashboard.getByTestId('call-state')).toHaveText('live');
    await expect(dashboard.getByTestId('chart-rate').locator('.recharts-legend-item')).toHaveCount(4, { timeout: 20_000 });
    await expect(dashboard.getByTestId('chart-fps').locator('path.recharts-line-curve').first()).toHaveAttribute('d', /^M[^L]+L/);
    await expect(dashboard.getByTestId('events')).toContainText('connection-state');
    // The call at a glance: each participant's means and worst values, in its colour.
    for (const who of ['alice', 'bob']) await expect(dashboard.getByTestId(`summary-${who}`)).toContainText(/\d+ kbit\/s/);
    const shot = test.info().outputPath('call-page.png');
    await dashboard.screenshot({ path: shot, fullPage: true });
    await test.info().attach('call page', { path: shot, contentType: 'image/png' });

    // The page reloads the call on each change (a participant left, the call ended), and the answers
    // may come back out of order on a busy server. The first reload after the stop is answered with
    // the call as it was before it (live), and only once the page shows it ended: the page must keep
    // the newest answer, not the one that arrived last.
    const detail = await fetch(`${server.url}/api/v1/calls/${callId}`, { headers: { authorization: `Bearer ${apiKey}` } });
    const staleBody = await detail.text();
    expect((JSON.parse(staleBody) as { call: { state: string } }).call.state).toBe('live');
    let showEnded!: () => void;
    const endedShown = new Promise<void>((resolve) => (showEnded = resolve));
    let staleSent!: () => void;
    const staleDelivered = new Promise<void>((resolve) => (staleSent = resolve));
    let first = true;
    await dashboard.route(`**/api/v1/calls/${callId}`, async (route) => {
      if (!first) return route.continue();
      first = false;
      await endedShown;
      await route.fulfill({ status: 200, contentType: 'application/json', body: staleBody });
      staleSent();
    });
    await page.getByTestId('demo-stop').click();
    await expect(dashboard.getByTestId('call-state')).toHaveText('ended', { timeout: 20_000 });
    showEnded();
    await staleDelivered;
    await pageSettled(dashboard);
    expect(await dashboard.getByTestId('call-state').textContent()).toBe('ended');
    await dashboard.getByRole('link', { name: '← Calls' }).click();
    await expect(dashboard.getByTestId(`call-row-${callId}`).locator('.badge')).toHaveText('ended');
    expect(refused).toEqual([]);
  } finally {
    await browser.close();
    await server.stop();
  }
});
