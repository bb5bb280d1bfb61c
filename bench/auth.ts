// People's figures: what signing up and in costs (argon2id at its defaults is meant to be slow), what a
// request costs with a session (the session's row and the person's role looked up per request, a CSRF
// token checked on changes) next to one with an API key (cached a minute), and how fast a brute-force
// guess is refused once the account's limit is reached. Through a server process on an embedded
// PostgreSQL, one request at a time: p50 / p95.
// Run: pnpm bench:auth   (BENCH_REPEAT=200 for more requests per line)
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@rtcscope/server';
import { freePort, startServerProcess } from '@rtcscope/server/testing';

const REPEAT = Number(process.env.BENCH_REPEAT ?? 100);
const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-auth-'));
chmodSync(dir, 0o755);
const pg = await startEmbeddedPostgres(join(dir, 'db'), await freePort(), () => {});
const server = await startServerProcess({
  DATABASE_URL: pg.url,
  DATA_DIR: join(dir, 'data'),
  PORT: String(await freePort()),
  API_RATE_LIMIT: '1000000',
});
const { apiKey } = JSON.parse(readFileSync(join(dir, 'data', 'local-project.json'), 'utf8')) as { apiKey: string };
const url = `${server.url}/api/v1`;

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
async function timed(what: string, times: number, request: (k: number) => Promise<Response>, expected: number) {
  const ms: number[] = [];
  for (let k = 0; k < times; k++) {
    const started = performance.now();
    const res = await request(k);
    ms.push(performance.now() - started);
    if (res.status !== expected) throw new Error(`${what}: answered ${res.status}, not ${expected}: ${await res.text()}`);
    await res.arrayBuffer();
  }
  console.log(
    `${what.padEnd(58)} p50 ${percentile(ms, 50).toFixed(1).padStart(6)} ms  p95 ${percentile(ms, 95).toFixed(1).padStart(6)} ms  (${times} requests)`,
  );
}
const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const cookieOf = (res: Response) => res.headers.getSetCookie()[0]!.split(';')[0]!;

try {
  // Sign-ups from one address are limited to 30 an hour.
  const signUps = Math.min(REPEAT, 25);
  await timed(
    'sign up (argon2id hash, account, organization, session)',
    signUps,
    (k) =>
      fetch(
        `${url}/auth/sign-up`,
        json({ email: `p${k}@bench.test`, password: 'a long enough password', name: `P${k}`, organization: `Org ${k}` }),
      ),
    204,
  );
  await timed(
    'sign in (argon2id verify, limits, new session)',
    signUps,
    (k) => fetch(`${url}/auth/sign-in`, json({ email: `p${k}@bench.test`, password: 'a long enough password' })),
    204,
  );

  const signedIn = await fetch(`${url}/auth/sign-in`, json({ email: 'p0@bench.test', password: 'a long enough password' }));
  const cookie = cookieOf(signedIn);
  const me = (await (await fetch(`${url}/auth/me`, { headers: { cookie } })).json()) as {
    csrfToken: string;
    organizations: { id: string }[];
  };
  const orgId = me.organizations[0]!.id;
  const made = (await (
    await fetch(`${url}/orgs/${orgId}/projects`, json({ name: 'bench' }, { cookie, 'x-csrf-token': me.csrfToken }))
  ).json()) as { project: { id: string } };
  const session = { cookie, 'rtcscope-project': made.project.id };

  await timed('GET /calls with an API key', REPEAT, () => fetch(`${url}/calls`, { headers: { authorization: `Bearer ${apiKey}` } }), 200);
  await timed('GET /calls with a session (session and role looked up)', REPEAT, () => fetch(`${url}/calls`, { headers: session }), 200);
  await timed(
    'PATCH /project with a session (and CSRF token, audit row)',
    REPEAT,
    (k) =>
      fetch(`${url}/project`, {
        method: 'PATCH',
        headers: { ...session, 'x-csrf-token': me.csrfToken, 'content-type': 'application/json' },
        body: JSON.stringify({ retentionDays: k % 2 ? 7 : 30 }),
      }),
    200,
  );
  await timed('GET /auth/me', REPEAT, () => fetch(`${url}/auth/me`, { headers: { cookie } }), 200);

  for (let k = 0; k < 10; k++) await fetch(`${url}/auth/sign-in`, json({ email: 'p1@bench.test', password: 'a wrong guess' }));
  await timed(
    "a guess refused after the account's 10 failures (no hash)",
    REPEAT,
    () => fetch(`${url}/auth/sign-in`, json({ email: 'p1@bench.test', password: 'another guess' })),
    429,
  );
} finally {
  await server.stop();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
