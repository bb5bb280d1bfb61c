import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, type CallList } from '@rtcscope/protocol';
import { api, handshake, ingestSocket, runAdmin, send, startTestServer, type TestServer } from './harness.js';
import { linkToken } from './mail-receiver.js';
import { Browser } from './people.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(0);
});
afterAll(() => t.close());

const admin = (...args: string[]) => runAdmin(t.databaseUrl, ...args);

describe('operator commands (admin.ts)', () => {
  it('makes a project, lists it with its calls and limits, and sets its own ingest limit', { timeout: 60_000 }, async () => {
    const made = await admin('create-project', 'Acme');
    expect(made.code).toBe(0);
    const id = /^project Acme \((\S+)\)$/m.exec(made.out)![1]!;
    const ingestKey = /ingest key:\s+(ik_\S+)/.exec(made.out)![1]!;
    const apiKey = /API key:\s+(rk_\S+)/.exec(made.out)![1]!;

    const socket = await ingestSocket(t.url, handshake({ projectId: id, name: 'Acme', ingestKey, apiKey: '' }, 'listed-call', 'alice'));
    const sentAt = Date.now() - 2000;
    expect(await send(socket, { n: 0, t0: sentAt, conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] })).toMatchObject({ ok: true });
    socket.disconnect();

    const listed = await admin('list-projects');
    expect(listed.out.split('\n')[0]).toMatch(
      /^id\s+name\s+retention\s+ingest limit \/s\/node\s+calls 24 h\s+live\s+last call\s+last API use$/,
    );
    // Its call was seen just now; its API key never used (the project was made by the command, not opened).
    const minute = new Date(sentAt).toISOString().slice(0, 16).replace('T', ' ');
    expect(listed.out).toMatch(new RegExp(`^${id}\\s+Acme\\s+30 days\\s+20000 \\(deployment\\)\\s+1\\s+1\\s+${minute} UTC\\s+never$`, 'm'));

    expect(await admin('set-ingest-limit', id, '5000')).toEqual({
      code: 0,
      out: `project ${id}: ingest limit 5000 samples a second on each node\n`,
    });
    // Once its API key has been used, that shows too.
    expect((await api(t, '/project', apiKey)).status).toBe(200);
    expect((await admin('list-projects')).out).toMatch(
      new RegExp(`^${id}\\s+Acme\\s+30 days\\s+5000\\s+1\\s+1\\s+${minute} UTC\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC$`, 'm'),
    );
    expect(await admin('set-ingest-limit', id, 'default')).toMatchObject({ code: 0, out: expect.stringMatching(/the deployment's/) });
    expect((await t.db.pool.query('SELECT ingest_limit FROM project WHERE id = $1', [id])).rows).toEqual([{ ingest_limit: null }]);
  });

  it(
    'refuses an ingest limit that is not a whole number in range or "default", or a project that does not exist, and changes nothing',
    { timeout: 60_000 },
    async () => {
      const { rows } = await t.db.pool.query<{ id: string }>('SELECT id FROM project LIMIT 1');
      const id = rows[0]!.id;
      const refused = await Promise.all([
        admin('set-ingest-limit', id, '999'),
        admin('set-ingest-limit', id, '1500.5'),
        admin('set-ingest-limit', 'acme', '5000'),
        admin('set-ingest-limit', '00000000-0000-4000-8000-000000000000', '5000'),
      ]);
      expect(refused.map((r) => r.code)).toEqual([1, 1, 1, 1]);
      expect(refused[0]!.out).toBe(
        'rtcscope-admin: limit must be a whole number of samples a second from 1000 to 10000000, or "default"; got "999"\n',
      );
      expect(refused[1]!.out).toMatch(/got "1500.5"/);
      expect(refused[2]!.out).toMatch(/"acme" is not a project id/);
      expect(refused[3]!.out).toMatch(/no project 00000000-0000-4000-8000-000000000000/);
      expect((await t.db.pool.query('SELECT ingest_limit FROM project')).rows).toEqual([{ ingest_limit: null }]);
    },
  );

  it(
    'invites the first owner of a project made before people existed; they see its calls, and the audit log says the operator did it',
    { timeout: 60_000 },
    async () => {
      const made = await admin('create-project', 'Legacy');
      const id = /^project Legacy \((\S+)\)$/m.exec(made.out)![1]!;
      const ingestKey = /ingest key:\s+(ik_\S+)/.exec(made.out)![1]!;
      const socket = await ingestSocket(t.url, handshake({ projectId: id, name: 'Legacy', ingestKey, apiKey: '' }, 'old-call', 'alice'));
      expect(await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] })).toMatchObject({ ok: true });
      socket.disconnect();

      expect(await admin('invite', id, 'ops@example.com', '--role', 'boss')).toMatchObject({
        code: 1,
        out: expect.stringMatching(/--role must be one of viewer, member, admin, owner/),
      });
      const invited = await admin('invite', id, 'ops@example.com');
      expect(invited.code).toBe(0);
      expect(invited.out).toMatch(/^invitation for ops@example.com as owner, single use, for 7 days:\n {2}<url>\/invite#token=iv_/);
      const b = new Browser(t.url);
      expect(
        (
          await b.request('POST', '/auth/invitations/accept', {
            token: linkToken(invited.out),
            name: 'Ops',
            password: 'correct horse battery',
          })
        ).status,
      ).toBe(204);
      const me = await b.me();
      expect(me.organizations).toEqual([
        { id: expect.any(String), name: 'Legacy', role: 'owner', projects: [{ id, name: 'Legacy' }], can: [...ACTIONS] },
      ]);
      b.project = id;
      expect((await b.request<CallList>('GET', '/calls')).body.calls.map((c) => c.id)).toEqual(['old-call']);
      const { rows } = await t.db.pool.query(
        'SELECT actor_kind, actor_label, action, target FROM audit_event WHERE organization_id = $1 ORDER BY id',
        [me.organizations[0]!.id],
      );
      expect(rows.slice(0, 2)).toEqual([
        { actor_kind: 'system', actor_label: 'operator (rtcscope-admin)', action: 'member.invited', target: 'ops@example.com' },
        { actor_kind: 'user', actor_label: 'ops@example.com', action: 'member.joined', target: 'ops@example.com' },
      ]);
    },
  );
});
