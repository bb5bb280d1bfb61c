import { createSocket } from 'node:dgram';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { launchChromium, type PeerPage, runPrecallInPage } from '@rtcscope/lab';
import type { PrecallDetail, PrecallList } from '@rtcscope/protocol';
import { freePort, localTurnSecret } from '@rtcscope/server/testing';
import { apiReader, type Product, startProduct } from '../support/product.js';
import { cutPlaceholders } from '../support/placeholders.js';

// The pre-call test against `npm start`'s own coturn (on loopback: no link in between, so the figures
// are the machine's; tests/precall-measured.spec.ts sets the link and checks what is measured).

test("a support engineer's link: the customer runs the test on the hosted page and sees the verdict; the result is on the Pre-call page", async () => {
  const { server, keys, signInLink } = await startProduct('precall-hosted', {
    LOCAL_TURN: 'on',
    LOCAL_TURN_PORT: String(await freePort()),
  });
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-precall-hosted'));
  try {
    const engineer = await browser.newPage();
    await engineer.goto(signInLink);
    await engineer.getByRole('link', { name: 'Pre-call' }).click();
    await expect(engineer.getByTestId('precall-tests').or(engineer.getByText('No pre-call test yet'))).toBeVisible();
    expect(await cutPlaceholders(engineer)).toEqual([]);
    await engineer.getByTestId('precall-ticket').fill('T-4711');
    const link = (await engineer.getByTestId('precall-link').textContent())!;
    expect(link).toBe(`${server.url}/test?key=${keys.ingestKey}&ticket=T-4711`);

    // The customer: another browser profile, nobody signed in.
    const customer = await (await browser.newContext()).newPage();
    // A link whose key is no project's says so and runs nothing.
    await customer.goto(`${server.url}/test?key=ik_not-a-project-key&ticket=T-4711`);
    await expect(customer.getByRole('alert')).toContainText("this link's project key is not valid");
    await expect(customer.getByTestId('precall-start')).toHaveCount(0);
    await customer.goto(link);
    // Before it runs, the page names whose project the results go to.
    await expect(customer.getByTestId('precall-recipient')).toHaveText('Local organization');
    await expect(customer.getByText('their project Local project')).toBeVisible();
    await expect(customer.getByTestId('ticket')).toHaveText('T-4711');
    await customer.getByTestId('precall-start').click();
    await expect(customer.getByTestId('precall-progress')).toBeVisible();
    await expect(customer.getByTestId('precall-verdict')).toHaveText('good', { timeout: 60_000 });
    await expect(customer.getByTestId('precall-throughput')).toContainText(/kbit\/s through the TURN server over UDP/);
    await expect(customer.getByTestId('precall-transports')).toContainText('UDP');
    await expect(customer.getByTestId('precall-transports')).toContainText('TCP');
    await expect(customer.getByTestId('precall-sent')).toContainText('The result was sent to Local organization');

    // The engineer's list updates by itself, and the test opens with its report and its call.
    const row = engineer.getByTestId('precall-tests').getByRole('row', { name: /T-4711/ });
    await expect(row).toContainText('good');
    await expect(row).toContainText('UDP');
    await row.getByRole('link').click();
    await expect(engineer.getByRole('heading', { name: 'Pre-call test for T-4711' })).toBeVisible();
    await expect(engineer.getByTestId('precall-transports')).toContainText('works');
    await expect(engineer.getByTestId('precall-insights').or(engineer.getByTestId('precall-findings'))).toBeVisible();
    await engineer.getByRole('link', { name: 'its samples, issues and scores as a call' }).click();
    await expect(engineer.getByTestId('call-title')).toHaveText(stored0(await apiReader({ server, keys })<PrecallList>('/precall-tests')));

    const [stored] = (await apiReader({ server, keys })<PrecallList>('/precall-tests?ticket=T-4711')).tests;
    // The fake camera's clip is 640×360: the page asked for 720p, as an app would.
    expect(stored!.findings).toEqual([
      'The camera gives 640×360 where 1280×720 was asked.',
      expect.stringMatching(/through the TURN server: enough for/),
    ]);
    expect(stored).toMatchObject({ verdict: 'good', transport: 'udp', udpOk: true, tcpOk: true, browser: 'Chrome' });
    expect(stored!.throughputKbps).toBeGreaterThan(1100);
  } finally {
    await browser.close();
    await server.stop();
  }
});

const stored0 = (list: PrecallList) => list.tests[0]!.callId;

/** The SDK's pre-call test in a page of the product, asking for the fake camera's size (its clip is 640×360). */
const runTest = (page: PeerPage, p: Product, options: Record<string, unknown> = {}) =>
  runPrecallInPage(page, p.server.url, p.keys.ingestKey, { camera: { width: 640, height: 360 }, ...options });

/** A way to a TURN server that a firewall drops: UDP and TCP ports that take packets and never answer. */
async function blackholes(): Promise<{ udp: number; tcp: number; close(): void }> {
  const udp = createSocket('udp4');
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  const held: Socket[] = [];
  const tcp = createServer((s) => held.push(s));
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  return {
    udp: udp.address().port,
    tcp: (tcp.address() as { port: number }).port,
    close: () => {
      udp.close();
      for (const s of held) s.destroy();
      tcp.close();
    },
  };
}

test('a firewall that drops UDP: the test says so and finds TCP through TURN; one that drops everything: failed, and why', async () => {
  const turnPort = await freePort();
  const p = await startProduct('precall-blocked', { LOCAL_TURN: 'on', LOCAL_TURN_PORT: String(turnPort) });
  const holes = await blackholes();
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-precall-blocked'));
  const setServers = (urls: string[]) =>
    fetch(`${p.server.url}/api/v1/project/turn`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${p.keys.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls, secret: localTurnSecret(p.env.DATA_DIR)! }),
    });
  try {
    const page = await browser.newPage();
    // UDP to the TURN server is dropped; its TCP port answers.
    expect((await setServers([`turn:127.0.0.1:${holes.udp}?transport=udp`, `turn:127.0.0.1:${turnPort}?transport=tcp`])).status).toBe(200);
    const tcpOnly = await runTest(page, p, { durationS: 8 });
    expect(tcpOnly.verdict, JSON.stringify(tcpOnly.findings)).toBe('fair');
    expect(tcpOnly.findings[0]).toMatchObject({
      code: 'udp-blocked',
      text: expect.stringMatching(/^UDP is blocked; TCP through TURN works: expect higher delay/),
    });
    expect(tcpOnly.transports).toEqual([
      expect.objectContaining({ transport: 'udp', connected: false, error: expect.stringMatching(/the TURN server did not answer/) }),
      expect.objectContaining({ transport: 'tcp', connected: true }),
    ]);
    expect(tcpOnly.media).toMatchObject({ transport: 'tcp', selectedPair: { localType: 'relay', relayProtocol: 'tcp' } });
    expect(tcpOnly.stored).toBe(true);

    // Both ways dropped: no media step, and a verdict that says what to ask for.
    expect((await setServers([`turn:127.0.0.1:${holes.udp}?transport=udp`, `turn:127.0.0.1:${holes.tcp}?transport=tcp`])).status).toBe(200);
    const blocked = await runTest(page, p, { durationS: 8 });
    expect(blocked).toMatchObject({ verdict: 'failed', media: null, stored: true });
    expect(blocked.findings.map((f) => f.text)).toEqual([
      expect.stringMatching(
        /^No way through to the TURN server \(UDP: .*; TCP: .*\)\. A firewall or proxy blocks WebRTC: ask the network's administrator/,
      ),
    ]);
    const read = apiReader(p);
    const list = (await read<PrecallList>('/precall-tests')).tests;
    expect(list.map((t) => [t.verdict, t.transport, t.udpOk, t.tcpOk])).toEqual([
      ['failed', null, false, false],
      ['fair', 'tcp', false, true],
    ]);
    // The failed test made a call of its own though no sample came: its result is read whole.
    expect((await read<PrecallDetail>(`/precall-tests/precall-${blocked.testId}`)).test.report.verdict).toBe('failed');
  } finally {
    holes.close();
    await browser.close();
    await p.server.stop();
  }
});

test('a machine with no camera and no microphone: the device part says what is missing, the network part still runs', async () => {
  const p = await startProduct('precall-nodevices', { LOCAL_TURN: 'on', LOCAL_TURN_PORT: String(await freePort()) });
  // The machine's own devices, and this server has none.
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-precall-nodevices'), { realDevices: true });
  try {
    const result = await runTest(await browser.newPage(), p, { durationS: 6 });
    expect(result.devices.camera).toMatchObject({ status: 'missing', error: 'no camera was found' });
    expect(result.devices.microphone).toMatchObject({ status: 'missing' });
    expect(result.findings.slice(0, 2).map((f) => f.text)).toEqual([
      'No camera was found: others will not see you.',
      'No microphone was found: others will not hear you.',
    ]);
    expect(result.verdict).toBe('poor');
    expect(result.media).toMatchObject({ transport: 'udp' });
    expect(result.media!.throughputKbps).toBeGreaterThan(0);
  } finally {
    await browser.close();
    await p.server.stop();
  }
});
