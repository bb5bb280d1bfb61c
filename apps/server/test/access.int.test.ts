import type { AgentCreated, CampaignDetail } from '@rtcscope/experiments';
import type {
  AlertRule,
  ApiKeyCreated,
  InvitationCreated,
  MemberList,
  ProjectCreated,
  Role,
  Scope,
  WebhookEndpoint,
} from '@rtcscope/protocol';
import { roleAtLeast, SCOPES } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../src/identity/accounts/sessions.js';
import { type Access, ACCESS } from '../src/identity/access/policy.js';
import { handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';
import { linkToken } from './mail-receiver.js';
import { Browser } from './people.js';
import { rtcstatsDump } from './recordings.js';
import { calibrationUpload } from './calibrations.js';

/**
 * Every route of the access policy × every role of the organization, a person of another organization,
 * and an API key of each scope: allowed or refused as `policy.ts` declares it. An allowed request is
 * sent so that the route itself refuses it after the access check (an invalid id or body), or is one
 * that only reads; a refused one is sent as it would succeed, and must change nothing at all.
 */
const PASSWORD = 'correct horse battery';
let t: TestServer;

interface Fixture {
  orgId: string;
  orgName: string;
  projectId: string;
  projectName: string;
  userIds: Record<Role, string>;
  sessionId: number;
  invitationId: number;
  ruleId: string;
  endpointId: string;
  campaignId: number;
  runId: number;
  agentId: number;
  keyIds: Record<Scope, number>;
}
let f: Fixture;

/** A request: path, and a body that would succeed (`good`) or one the route refuses after access (`bad`). */
interface Sample {
  path: string;
  good?: unknown;
  /** The path or body that the route's own validation refuses; none: the request only reads, or is harmless. */
  bad?: { path?: string; body?: unknown };
}

const rule = { name: 'low score', enabled: true, condition: { kind: 'call-score', below: 2, forS: 30 } };
const endpoint = { url: 'http://127.0.0.1:9/hook', format: 'json', enabled: true };

function sample(route: string): Sample {
  const o = `/orgs/${f.orgId}`;
  const samples: Record<string, Sample> = {
    'GET /auth/me': { path: '/auth/me' },
    'POST /auth/sign-out': { path: '/auth/sign-out' },
    'GET /account/sessions': { path: '/account/sessions' },
    'DELETE /account/sessions/:id': { path: `/account/sessions/${f.sessionId}`, bad: { path: '/account/sessions/x' } },
    'POST /account/password': {
      path: '/account/password',
      good: { current: PASSWORD, password: 'another long password' },
      bad: { body: {} },
    },
    'POST /orgs': { path: '/orgs', good: { name: 'Another' }, bad: { body: {} } },
    'PATCH /orgs/:orgId': { path: o, good: { name: 'Renamed' }, bad: { body: {} } },
    'DELETE /orgs/:orgId': { path: o, good: { confirm: f.orgName }, bad: { body: { confirm: 'not its name' } } },
    'GET /orgs/:orgId/members': { path: `${o}/members` },
    'PUT /orgs/:orgId/members/:userId': { path: `${o}/members/${f.userIds.viewer}`, good: { role: 'member' }, bad: { body: {} } },
    'DELETE /orgs/:orgId/members/:userId': { path: `${o}/members/${f.userIds.viewer}`, bad: { path: `${o}/members/x` } },
    // Leaving is every member's own (run last): the owner, the organization's only one, is refused it by the route.
    'DELETE /orgs/:orgId/membership': { path: `${o}/membership` },
    'POST /orgs/:orgId/members/:userId/reset-link': {
      path: `${o}/members/${f.userIds.viewer}/reset-link`,
      bad: { path: `${o}/members/x/reset-link` },
    },
    'POST /orgs/:orgId/invitations': { path: `${o}/invitations`, good: { email: 'new@example.com', role: 'viewer' }, bad: { body: {} } },
    'DELETE /orgs/:orgId/invitations/:id': { path: `${o}/invitations/${f.invitationId}`, bad: { path: `${o}/invitations/x` } },
    'POST /orgs/:orgId/projects': { path: `${o}/projects`, good: { name: 'Another' }, bad: { body: {} } },
    'DELETE /orgs/:orgId/projects/:projectId': {
      path: `${o}/projects/${f.projectId}`,
      good: { confirm: f.projectName },
      bad: { path: `${o}/projects/x`, body: { confirm: f.projectName } },
    },
    'GET /orgs/:orgId/audit': { path: `${o}/audit` },
    'GET /orgs/:orgId/audit/export': { path: `${o}/audit/export` },
    'GET /orgs/:orgId/sso': { path: `${o}/sso` },
    // No provider answers at this issuer: allowed, the route says so (400); refused, the access check does.
    'PUT /orgs/:orgId/sso': {
      path: `${o}/sso`,
      good: { issuer: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's', emailDomain: 'checked.test', defaultRole: 'viewer' },
      bad: { body: {} },
    },
    'DELETE /orgs/:orgId/sso': { path: `${o}/sso` },
    'POST /orgs/:orgId/sso/verify': { path: `${o}/sso/verify` },
    'GET /project': { path: '/project' },
    'PATCH /project': { path: '/project', good: { retentionDays: 7 }, bad: { body: {} } },
    'GET /project/keys': { path: '/project/keys' },
    'POST /project/keys': { path: '/project/keys', good: { name: 'k', scopes: ['admin'] }, bad: { body: {} } },
    'DELETE /project/keys/:id': { path: `/project/keys/${f.keyIds.admin}`, bad: { path: '/project/keys/x' } },
    'POST /project/ingest-key': { path: '/project/ingest-key' },
    'GET /project/turn': { path: '/project/turn' },
    'PUT /project/turn': {
      path: '/project/turn',
      good: { urls: ['turn:127.0.0.1:3478?transport=udp'], secret: 'a-secret-of-sixteen' },
      bad: { body: { urls: [], secret: 'short' } },
    },
    // None is set (the route answers 404 where it is allowed): refused, nothing is removed either.
    'DELETE /project/turn': { path: '/project/turn' },
    'GET /project/livekit': { path: '/project/livekit' },
    'PUT /project/livekit': {
      path: '/project/livekit',
      good: { apiKey: 'APIchecked', apiSecret: 'a-livekit-secret-of-32-characters' },
      bad: { body: { apiKey: 'k', apiSecret: 'short' } },
    },
    'DELETE /project/livekit': { path: '/project/livekit' },
    'GET /calls': { path: '/calls' },
    'GET /calls/:callId': { path: '/calls/c1' },
    'GET /calls/:callId/events': { path: '/calls/c1/events' },
    'GET /calls/:callId/series': { path: '/calls/c1/series' },
    'GET /calls/:callId/fairness': { path: '/calls/c1/fairness' },
    'GET /calls/:callId/diagnosis': { path: '/calls/c1/diagnosis' },
    'GET /calls/:callId/export.csv': { path: '/calls/c1/export.csv' },
    'GET /calls/:callId/export.rtcstats': { path: '/calls/c1/export.rtcstats' },
    'GET /issues': { path: '/issues' },
    'GET /insights': { path: '/insights' },
    'GET /precall-tests': { path: '/precall-tests' },
    'GET /precall-tests/insights': { path: '/precall-tests/insights' },
    'GET /precall-tests/:callId': { path: '/precall-tests/precall-none' },
    'POST /recordings': {
      path: '/recordings?name=checked.txt',
      good: rtcstatsDump({ startMs: Date.now() - 60_000, seconds: 5, connections: 1, sendKbps: 500 }, 'format3'),
      bad: { body: 'not a recording' },
    },
    'GET /score-calibrations/latest': { path: '/score-calibrations/latest' },
    'POST /score-calibrations': {
      path: '/score-calibrations',
      good: calibrationUpload(1),
      bad: { body: { setup: {}, windows: [] } },
    },
    'POST /sfu/janus/events': {
      path: '/sfu/janus/events',
      good: [
        {
          type: 64,
          timestamp: Date.now() * 1000,
          session_id: 1,
          handle_id: 2,
          event: { plugin: 'janus.plugin.videoroom', data: { event: 'joined', room: 1, id: 1 } },
        },
      ],
      bad: { body: [{ type: 64 }] },
    },
    'POST /sfu/livekit/events': {
      path: '/sfu/livekit/events',
      good: [
        {
          event: 'participant_joined',
          createdAt: String(Math.floor(Date.now() / 1000)),
          room: { name: 'r1' },
          participant: { sid: 'PA_1', identity: 'p1' },
        },
      ],
      bad: { body: [{ event: 'participant_joined' }] },
    },
    'GET /alerts/rules': { path: '/alerts/rules' },
    'POST /alerts/rules': { path: '/alerts/rules', good: rule, bad: { body: {} } },
    'PUT /alerts/rules/:id': { path: `/alerts/rules/${f.ruleId}`, good: { ...rule, name: 'changed' }, bad: { body: {} } },
    'DELETE /alerts/rules/:id': { path: `/alerts/rules/${f.ruleId}`, bad: { path: '/alerts/rules/x' } },
    'POST /alerts/rules/:id/test': { path: `/alerts/rules/${f.ruleId}/test`, bad: { path: '/alerts/rules/x/test' } },
    'GET /alerts/notifications': { path: '/alerts/notifications' },
    'GET /alerts/endpoints': { path: '/alerts/endpoints' },
    'POST /alerts/endpoints': { path: '/alerts/endpoints', good: endpoint, bad: { body: {} } },
    'PUT /alerts/endpoints/:id': { path: `/alerts/endpoints/${f.endpointId}`, good: { ...endpoint, enabled: false }, bad: { body: {} } },
    'DELETE /alerts/endpoints/:id': { path: `/alerts/endpoints/${f.endpointId}`, bad: { path: '/alerts/endpoints/x' } },
    'GET /alerts/endpoints/:id/deliveries': { path: `/alerts/endpoints/${f.endpointId}/deliveries` },
    'GET /lab/campaigns': { path: '/lab/campaigns' },
    'POST /lab/campaigns': { path: '/lab/campaigns', good: { scenario: 'static-bw' }, bad: { body: {} } },
    'GET /lab/campaigns/:id': { path: `/lab/campaigns/${f.campaignId}` },
    'POST /lab/campaigns/:id/cancel': { path: `/lab/campaigns/${f.campaignId}/cancel`, bad: { path: '/lab/campaigns/x/cancel' } },
    'POST /lab/runs/:id/cancel': { path: `/lab/runs/${f.runId}/cancel`, bad: { path: '/lab/runs/x/cancel' } },
    'GET /lab/agents': { path: '/lab/agents' },
    'POST /lab/agents': { path: '/lab/agents', good: { name: 'agent' }, bad: { body: {} } },
    'DELETE /lab/agents/:id': { path: `/lab/agents/${f.agentId}`, bad: { path: '/lab/agents/x' } },
  };
  const found = samples[route];
  if (!found) throw new Error(`no sample request for ${route}: add one`);
  return found;
}

type Principal = { kind: 'person'; role: Role | 'outsider' } | { kind: 'key'; scope: Scope };
const PRINCIPALS: Principal[] = [
  ...(['owner', 'admin', 'member', 'viewer', 'outsider'] as const).map((role): Principal => ({ kind: 'person', role })),
  ...SCOPES.map((scope): Principal => ({ kind: 'key', scope })),
];
const nameOf = (p: Principal) => (p.kind === 'person' ? p.role : `key:${p.scope}`);

function allowed(access: Access, p: Principal): boolean {
  if (access.kind === 'public') return true;
  if (p.kind === 'key') return access.kind === 'project' && access.scope === p.scope;
  if (access.kind === 'person') return true;
  return p.role !== 'outsider' && roleAtLeast(p.role, access.role);
}

const people: Record<string, { email: string; userId: string }> = {};
const keys = {} as Record<Scope, string>;
let outsiderProject = '';

/** A browser for the principal, with a session of its own (a sign-out or password change ends only it). */
async function browserFor(p: Principal): Promise<Browser> {
  if (p.kind === 'key') {
    const b = new Browser(t.url, { authorization: `Bearer ${keys[p.scope]}` });
    return b;
  }
  const person = people[p.role]!;
  const token = await openSession(t.db.prisma, person.userId, 'password', { ip: '127.0.0.1', userAgent: 'test' });
  const b = new Browser(t.url);
  b.cookies.set('rtcscope_session', token);
  await b.me();
  b.project = f.projectId;
  return b;
}

/** Every stored row a request could change, as one digest; times the server moves on its own left out. */
async function state(): Promise<string> {
  const tables: [string, string][] = [
    ['organization', ''],
    ['project', ''],
    ['api_key', "- 'last_used_at'"],
    ['app_user', ''],
    ['membership', ''],
    ['user_session', "- 'last_seen_at' - 'expires_at'"],
    ['user_token', ''],
    ['invitation', ''],
    ['audit_event', ''],
    ['call', "- 'summarized_at' - 'summarized_end' - 'rolled_up_at' - 'last_seen_at' - 'ended_at' - 'score'"],
    ['alert_rule', ''],
    ['project_turn', ''],
    ['webhook_endpoint', ''],
    ['lab_campaign', ''],
    ['lab_run', ''],
    ['lab_agent', "- 'last_seen_at'"],
    ['sfu_event', ''],
    ['score_calibration', ''],
  ];
  const parts = tables.map(
    ([table, leave]) =>
      `(SELECT md5(coalesce(string_agg((to_jsonb(x) ${leave})::text, ',' ORDER BY (to_jsonb(x) ${leave})::text), '')) FROM ${table} x)`,
  );
  const { rows } = await t.db.pool.query<{ s: string }>(`SELECT concat_ws('|', ${parts.join(', ')}) AS s`);
  return rows[0]!.s;
}

/** What the access check says when it refuses (every route's own refusals say something else). */
const REFUSALS = [
  /^sign in, or send a project API key/,
  /CSRF token/,
  /^you are not a member of an organization/,
  /^none of your organizations has a project/,
  /^this needs the \w+ role or above/,
  /^this API key lacks the "\w+" scope/,
  /^this is for a signed-in person, not an API key/,
  /^an organization's people are managed by its people/,
  /^no API key may do this/,
  /^name the project in the/,
];
const refusedByAccess = (answer: { status: number; body: unknown }) =>
  [400, 401, 403, 404].includes(answer.status) && REFUSALS.some((r) => r.test((answer.body as { message?: string } | null)?.message ?? ''));

beforeAll(async () => {
  t = await startTestServer(0, {
    apiRateLimit: 1_000_000,
    signInLimits: { accountFailures: 1000, addressFailures: 1000, addressRequests: 1000 },
  });
  const owner = new Browser(t.url);
  const me = await owner.signUp('owner@example.com', PASSWORD);
  const orgId = me.organizations[0]!.id;
  const made = await owner.request<ProjectCreated>('POST', `/orgs/${orgId}/projects`, { name: 'Checked' });
  owner.project = made.body.project.id;
  for (const role of ['admin', 'member', 'viewer'] as const) {
    const inv = await owner.request<InvitationCreated>('POST', `/orgs/${orgId}/invitations`, { email: `${role}@example.com`, role });
    const b = new Browser(t.url);
    expect(
      (await b.request('POST', '/auth/invitations/accept', { token: linkToken(inv.body.link!), name: role, password: PASSWORD })).status,
    ).toBe(204);
  }
  const members = (await owner.request<MemberList>('GET', `/orgs/${orgId}/members`)).body.members;
  for (const m of members) people[m.role] = { email: m.email, userId: m.userId };
  const outsider = new Browser(t.url);
  const theirs = await outsider.signUp('outsider@example.com', PASSWORD);
  people.outsider = { email: 'outsider@example.com', userId: theirs.user.id };
  outsiderProject = (await outsider.request<ProjectCreated>('POST', `/orgs/${theirs.organizations[0]!.id}/projects`, { name: 'Theirs' }))
    .body.project.id;

  const keyIds = {} as Record<Scope, number>;
  for (const scope of SCOPES) {
    const key = await owner.request<ApiKeyCreated>('POST', '/project/keys', { name: scope, scopes: [scope] });
    keys[scope] = key.body.apiKey;
    keyIds[scope] = key.body.key.id;
  }
  const sdk = await ingestSocket(
    t.url,
    handshake({ projectId: made.body.project.id, name: 'Checked', ingestKey: made.body.ingestKey, apiKey: '' }, 'c1', 'alice'),
  );
  expect(await send(sdk, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] })).toMatchObject({ ok: true });
  sdk.disconnect();
  const ruleId = (await owner.request<AlertRule>('POST', '/alerts/rules', rule)).body.id;
  const endpointId = (await owner.request<WebhookEndpoint>('POST', '/alerts/endpoints', endpoint)).body.id;
  const campaign = (await owner.request<CampaignDetail>('POST', '/lab/campaigns', { scenario: 'static-bw' })).body;
  const agentId = (await owner.request<AgentCreated>('POST', '/lab/agents', { name: 'agent' })).body.agent.id;
  const invitationId = (
    await owner.request<InvitationCreated>('POST', `/orgs/${orgId}/invitations`, { email: 'pending@example.com', role: 'viewer' })
  ).body.invitation.id;
  const { rows } = await t.db.pool.query<{ id: number }>('SELECT id::int AS id FROM user_session WHERE user_id = $1 ORDER BY id LIMIT 1', [
    people.owner!.userId,
  ]);

  f = {
    orgId,
    orgName: me.organizations[0]!.name,
    projectId: made.body.project.id,
    projectName: 'Checked',
    userIds: Object.fromEntries(Object.entries(people).map(([role, p]) => [role, p.userId])) as Record<Role, string>,
    sessionId: rows[0]!.id,
    invitationId,
    ruleId,
    endpointId,
    campaignId: campaign.campaign.id,
    runId: campaign.runs[0]!.id,
    agentId,
    keyIds,
  };
}, 60_000);
afterAll(() => t.close());

// Leaving the organization last: a principal allowed to leave is no longer a member after it.
const LEAVE = 'DELETE /orgs/:orgId/membership';
const ROUTES = Object.entries(ACCESS)
  .filter(([, access]) => access.kind !== 'public')
  .sort(([a], [b]) => Number(a === LEAVE) - Number(b === LEAVE));

describe('the access policy, route by route', () => {
  it('has a sample request for every route it declares', () => {
    for (const [route] of ROUTES) expect(() => sample(route), route).not.toThrow();
  });

  for (const principal of PRINCIPALS) {
    it(`lets ${nameOf(principal)} do what the policy allows, and refuses the rest without changing anything`, async () => {
      const wrong: string[] = [];
      for (const [route, access] of ROUTES) {
        const method = route.split(' ')[0]!;
        const s = sample(route);
        const b = await browserFor(principal);
        if (principal.kind === 'person' && principal.role === 'outsider') b.project = f.projectId;
        if (allowed(access, principal)) {
          const answer = await b.request(method, s.bad?.path ?? s.path, s.bad ? (s.bad.body ?? s.good) : s.good);
          if (refusedByAccess(answer) || answer.status === 401 || answer.status === 403)
            wrong.push(`${route}: refused (${answer.status} ${JSON.stringify(answer.body)}) but the policy allows it`);
        } else {
          const before = await state();
          const answer = await b.request(method, s.path, s.good);
          if (!refusedByAccess(answer)) wrong.push(`${route}: answered ${answer.status} but the policy refuses it`);
          if ((await state()) !== before) wrong.push(`${route}: refused, but changed stored data`);
        }
      }
      expect(wrong).toEqual([]);
    }, 120_000);
  }

  it('refuses every route but the public ones without a session or key, and changes nothing', async () => {
    const wrong: string[] = [];
    for (const [route] of ROUTES) {
      const s = sample(route);
      const before = await state();
      const answer = await new Browser(t.url).request(route.split(' ')[0]!, s.path, s.good);
      if (answer.status !== 401) wrong.push(`${route}: answered ${answer.status}`);
      if ((await state()) !== before) wrong.push(`${route}: changed stored data`);
    }
    expect(wrong).toEqual([]);
  });

  it('refuses every change a session sends without its CSRF token, and changes nothing', async () => {
    const wrong: string[] = [];
    for (const [route] of ROUTES.filter(([r]) => !r.startsWith('GET '))) {
      const s = sample(route);
      const b = await browserFor({ kind: 'person', role: 'owner' });
      b.csrf = null;
      const before = await state();
      const answer = await b.request(route.split(' ')[0]!, s.path, s.good);
      if (answer.status !== 403 || !/CSRF token/.test((answer.body as { message: string }).message))
        wrong.push(`${route}: answered ${answer.status}`);
      if ((await state()) !== before) wrong.push(`${route}: changed stored data`);
    }
    expect(wrong).toEqual([]);
  });

  it("refuses a person's request naming another organization's project, whatever their role there", async () => {
    const b = await browserFor({ kind: 'person', role: 'outsider' });
    b.project = f.projectId;
    expect((await b.request('GET', '/calls')).status).toBe(404);
    b.project = outsiderProject;
    expect((await b.request('GET', '/calls')).status).toBe(200);
  });
});
