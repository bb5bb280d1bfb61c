import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { ProjectInfo } from '@rtcscope/protocol';
import { launchChromium } from '@rtcscope/lab';
import { startProduct } from '../support/product.js';
import { openWithKey } from '../support/open-with-key.js';
import { cutPlaceholders } from '../support/placeholders.js';

test("the project page shows how to monitor a page, changes how long data is kept, and manages the project's keys", async () => {
  const { server, keys, signInLink } = await startProduct('project-data');
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-project'));
  try {
    const page = await browser.newPage();
    // The local owner, signed in with the link the start printed.
    await page.goto(signInLink);
    await expect(page.getByRole('link', { name: 'Local user' })).toBeVisible();
    await page.getByRole('link', { name: 'Project' }).click();
    await expect(page.getByTestId('ingest-key')).toHaveText(keys.ingestKey);
    expect(await cutPlaceholders(page)).toEqual([]);
    await expect(page.locator('pre.snippet')).toContainText(`ingestKey: '${keys.ingestKey}'`);
    // The deployment's default limit, as `npm start` runs it, in the viewer's number format.
    await expect(page.getByTestId('ingest-limit')).toContainText(/Ingest limit: 20\D?000 samples a second per server/);
    await expect(page.getByTestId('retention')).toHaveValue('30');
    await page.getByTestId('retention').selectOption('7');
    await expect(page.getByText('keep their raw samples 7 days')).toBeVisible();
    const project = async (apiKey: string) => fetch(`${server.url}/api/v1/project`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(((await (await project(keys.apiKey)).json()) as ProjectInfo).retentionDays).toBe(7);

    // API keys, for programs: the start's own is listed; a new one (read only unless more is ticked) is
    // shown once, works, and stops working once revoked.
    page.on('dialog', (dialog) => void dialog.accept());
    await expect(page.getByTestId('api-key-default')).toContainText('ingest, read, lab, admin');
    await page.getByPlaceholder('e.g. grafana, ci').fill('grafana');
    await page.getByRole('button', { name: 'Make key' }).click();
    const made = (await page.getByTestId('new-api-key').locator('code').first().textContent())!;
    expect(made).toMatch(/^rk_/);
    expect((await project(made)).status).toBe(200);
    await expect(page.getByTestId('api-key-grafana')).toContainText('read');
    expect((await fetch(`${server.url}/api/v1/project/keys`, { headers: { authorization: `Bearer ${made}` } })).status).toBe(403);
    // A link carrying a key, opened by a signed-in person, asks before it shows the key's project; declined,
    // the person stays as they are, also after a reload.
    await page.goto(`${server.url}/#key=${made}`);
    await expect(page.getByTestId('key-offer')).toContainText('carries an API key for the project');
    await expect(page.getByRole('link', { name: 'Local user' })).toBeVisible();
    await page.getByRole('button', { name: 'Stay as I am' }).click();
    await expect(page.getByTestId('key-offer')).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole('link', { name: 'Local user' })).toBeVisible();
    await expect(page.getByText('API key', { exact: true })).toHaveCount(0);
    await page.getByRole('link', { name: 'Project' }).click();
    // Nobody signed in: the link only offers the key, naming its project; declined, nothing of it is kept
    // (it was adopted at once, and whoever made the link then received what the visitor imported).
    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${server.url}/#key=${made}`);
    await expect(visitor.getByTestId('key-offer')).toContainText('carries an API key for the project');
    expect(await visitor.evaluate(() => localStorage.getItem('rtcscope.apiKey'))).toBeNull();
    await visitor.getByRole('button', { name: 'Sign in instead' }).click();
    await expect(visitor.getByRole('heading', { name: 'Sign in to rtcscope' })).toBeVisible();
    await visitor.goto(server.url);
    await expect(visitor.getByRole('heading', { name: 'Sign in to rtcscope' })).toBeVisible();
    // A tab opened with it elsewhere (another browser profile) is signed out when it is revoked.
    const elsewhere = await (await browser.newContext()).newPage();
    await openWithKey(elsewhere, server.url, made);
    await expect(elsewhere.getByTitle('Live updates on')).toBeVisible();
    await page.getByTestId('api-key-grafana').getByRole('button', { name: 'Revoke' }).click();
    await expect(page.getByTestId('api-key-grafana')).toHaveCount(0);
    expect((await project(made)).status).toBe(401);
    await expect(elsewhere.getByText('This tab may no longer watch the project')).toBeVisible();
    await expect(elsewhere.getByRole('heading', { name: 'Sign in to rtcscope' })).toBeVisible();

    // The ingest key, replaced: the page and the snippet show the new one, and the API agrees.
    await page.getByTestId('replace-ingest-key').click();
    await expect(page.getByTestId('ingest-key')).not.toHaveText(keys.ingestKey);
    const ingestKey = (await page.getByTestId('ingest-key').textContent())!;
    expect(ingestKey).toMatch(/^ik_/);
    await expect(page.locator('pre.snippet')).toContainText(`ingestKey: '${ingestKey}'`);
    expect(((await (await project(keys.apiKey)).json()) as ProjectInfo).ingestKey).toBe(ingestKey);

    // TURN servers: none at first; set with their secret, listed without it; a refused one says why and keeps them.
    const turn = page.getByTestId('turn-servers');
    await expect(turn).toContainText('None set');
    await turn.getByLabel('Servers, one per line').fill('turn:127.0.0.1:3478?transport=udp\nturn:127.0.0.1:3478?transport=tcp');
    await turn.getByLabel('Shared secret').fill('a-secret-the-turn-server-has');
    await turn.getByLabel('Credentials last').selectOption({ label: '10 minutes' });
    await turn.getByRole('button', { name: 'Save' }).click();
    await expect(turn.getByTestId('turn-set')).toContainText('turn:127.0.0.1:3478?transport=tcp');
    await expect(turn.getByTestId('turn-set')).toContainText('credentials good for 10 minutes');
    await expect(turn.getByLabel('Shared secret')).toHaveValue('');
    await turn.getByLabel('Servers, one per line').fill('http://not-a-turn-server');
    await turn.getByLabel('Shared secret').fill('a-secret-the-turn-server-has');
    await turn.getByRole('button', { name: 'Replace' }).click();
    await expect(turn.getByRole('alert')).toContainText('urls');
    await page.reload();
    await expect(page.getByTestId('turn-set')).toContainText('turn:127.0.0.1:3478?transport=udp');
    await expect(page.locator('body')).not.toContainText('a-secret-the-turn-server-has');
  } finally {
    await browser.close();
    await server.stop();
  }
});
