import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { AuditList, ProjectInfo } from '@rtcscope/protocol';
import { launchChromium } from '@rtcscope/lab';
import { freePort, handshake, ingestSocket, linkToken, MailReceiver, send, startServerProcess } from '@rtcscope/server/testing';
import { cutPlaceholders } from '../support/placeholders.js';

test('an owner signs up, makes a project and invites a viewer by mail; the viewer sees its calls but cannot change its ingest key', async () => {
  const smtp = new MailReceiver();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // A SaaS node as an operator runs it: no local project, mail through SMTP, links to its public address.
  const server = await startServerProcess({
    DATABASE_URL: process.env.E2E_DATABASE_URL!,
    DATA_DIR: join(process.env.E2E_DIR!, 'teams'),
    PORT: String(port),
    LOCAL_PROJECT: 'off',
    SMTP_URL: await smtp.start(),
    PUBLIC_URL: url,
  });
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-teams'));
  try {
    const owner = await browser.newPage();
    await owner.goto(`${url}/`);
    await expect(owner.getByRole('heading', { name: 'Sign in to rtcscope' })).toBeVisible();
    await owner.getByRole('link', { name: 'Sign up' }).click();
    await owner.getByLabel('Your name').fill('Olivia Owner');
    await owner.getByLabel('Email').fill('olivia@example.com');
    await owner.getByLabel(/^Password/).fill('a long enough password');
    await owner.getByLabel(/^Organization/).fill('Acme');
    await owner.getByRole('button', { name: 'Sign up' }).click();

    await expect(owner.getByRole('heading', { name: 'Acme' })).toBeVisible();
    await expect(owner.getByText('No project yet')).toBeVisible();
    await owner.getByPlaceholder('e.g. Web app').fill('Web app');
    await owner.getByRole('button', { name: 'Make project' }).click();
    await expect(owner.getByRole('heading', { name: 'Web app' })).toBeVisible();
    const ingestKey = (await owner.getByTestId('ingest-key').textContent())!;
    expect(ingestKey).toMatch(/^ik_/);

    const sdk = await ingestSocket(url, handshake({ projectId: '', name: 'Web app', ingestKey, apiKey: '' }, 'team-call', 'alice'));
    expect(await send(sdk, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] })).toMatchObject({ ok: true });
    sdk.disconnect();

    await owner.getByRole('link', { name: 'Organization' }).click();
    await expect(owner.getByPlaceholder('name@company.com')).toBeVisible();
    expect(await cutPlaceholders(owner)).toEqual([]);
    await owner.getByPlaceholder('name@company.com').fill('vera@example.com');
    await owner.getByLabel('Role of the invited').selectOption('viewer');
    await owner.getByRole('button', { name: 'Invite' }).click();
    await expect(owner.getByTestId('invitation-vera@example.com')).toContainText('viewer');
    const mail = await smtp.next('vera@example.com');
    expect(mail.subject).toBe('Olivia Owner invited you to Acme on rtcscope');
    const link = /(http\S+#token=\S+)/.exec(mail.text)![1]!;
    expect(link.startsWith(`${url}/invite#token=`)).toBe(true);
    expect(linkToken(link)).toMatch(/^iv_/);

    // The viewer, in a browser of their own.
    const viewer = await (await browser.newContext()).newPage();
    await viewer.goto(link);
    await expect(viewer.getByRole('heading', { name: 'Join Acme' })).toBeVisible();
    await expect(viewer.getByText('as viewer')).toBeVisible();
    await viewer.getByLabel('Your name').fill('Vera Viewer');
    await viewer.getByLabel(/Choose a password/).fill('another long password');
    await viewer.getByRole('button', { name: 'Join Acme' }).click();
    await expect(viewer.getByRole('link', { name: 'team-call' })).toBeVisible();

    await viewer.getByRole('link', { name: 'Project' }).click();
    await expect(viewer.getByTestId('ingest-key')).toHaveText(ingestKey);
    await expect(viewer.getByTestId('replace-ingest-key')).toHaveCount(0);
    await expect(viewer.getByTestId('api-keys')).toHaveCount(0);
    // Nor can the viewer's session do it through the API, CSRF token and all.
    const refused = await viewer.evaluate(async () => {
      const me = (await (await fetch('/api/v1/auth/me')).json()) as { csrfToken: string; organizations: { projects: { id: string }[] }[] };
      const res = await fetch('/api/v1/project/ingest-key', {
        method: 'POST',
        headers: { 'x-csrf-token': me.csrfToken, 'rtcscope-project': me.organizations[0]!.projects[0]!.id },
      });
      return { status: res.status, message: ((await res.json()) as { message: string }).message };
    });
    expect(refused).toEqual({ status: 403, message: 'this needs the admin role or above in the organization; yours is viewer' });
    await owner.getByRole('link', { name: 'Project' }).click();
    await expect(owner.getByTestId('ingest-key')).toHaveText(ingestKey);

    // On record: the owner's audit log says who joined.
    await owner.getByRole('link', { name: 'Organization' }).click();
    await expect(owner.getByTestId('audit-log')).toContainText('member.joined');
    const projectId = await owner.getByTestId('project-picker').inputValue();
    const audit = await owner.evaluate(async () => {
      const me = (await (await fetch('/api/v1/auth/me')).json()) as { organizations: { id: string }[] };
      return (await (await fetch(`/api/v1/orgs/${me.organizations[0]!.id}/audit?action=member`)).json()) as AuditList;
    });
    expect(audit.events.map((e) => [e.action, e.actor.label])).toEqual([
      ['member.joined', 'vera@example.com'],
      ['member.invited', 'olivia@example.com'],
    ]);
    const project = (await (
      await owner.request.get(`${url}/api/v1/project`, { headers: { 'rtcscope-project': projectId } })
    ).json()) as ProjectInfo;
    expect(project.ingestKey).toBe(ingestKey);
  } finally {
    await browser.close();
    await server.stop();
    await smtp.close();
  }
});
