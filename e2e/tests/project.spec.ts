import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { ProjectInfo } from '@rtcscope/protocol';
import { launchChromium } from '@rtcscope/lab';
import { startProduct } from '../support/product.js';

test('the project page shows how to monitor a page and changes how long data is kept', async () => {
  const { server, keys } = await startProduct('project-data');
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-project'));
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/#key=${keys.apiKey}`);
    await page.getByRole('link', { name: 'Project' }).click();
    await expect(page.getByTestId('ingest-key')).toHaveText(keys.ingestKey);
    await expect(page.locator('pre.snippet')).toContainText(`ingestKey: '${keys.ingestKey}'`);
    await expect(page.getByTestId('retention')).toHaveValue('30');
    await page.getByTestId('retention').selectOption('7');
    await expect(page.getByText('keep their raw samples 7 days')).toBeVisible();
    const res = await fetch(`${server.url}/api/v1/project`, { headers: { authorization: `Bearer ${keys.apiKey}` } });
    expect(((await res.json()) as ProjectInfo).retentionDays).toBe(7);
  } finally {
    await browser.close();
    await server.stop();
  }
});
