import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { launchChromium, loopbackContext } from '@rtcscope/lab';
import { startProduct } from '../support/product.js';

test('a newcomer starts the demo call and watches it live, then sees it end', async () => {
  const { server, keys } = await startProduct('demo-data', { SWEEP_INTERVAL_S: '1' });
  const { apiKey } = keys;
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home'));
  try {
    const context = await loopbackContext(browser);
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    await expect(page.getByRole('heading', { name: 'Sign in to rtcscope' })).toBeVisible();
    await page.goto(`${server.url}/#key=${apiKey}`);
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

    await page.getByTestId('demo-stop').click();
    await expect(dashboard.getByTestId('call-state')).toHaveText('ended', { timeout: 20_000 });
    await dashboard.getByRole('link', { name: '← Calls' }).click();
    await expect(dashboard.getByTestId(`call-row-${callId}`).locator('.badge')).toHaveText('ended');
  } finally {
    await browser.close();
    await server.stop();
  }
});
