import type { Me } from '@rtcscope/protocol';

export interface Answer<T> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * A person's browser against a test server: it keeps the cookies the server sets, sends them back, and
 * sends the CSRF token `/auth/me` gave with every change, as the dashboard does. `project` names the
 * project of project routes.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  csrf: string | null = null;
  project: string | null = null;

  constructor(
    readonly url: string,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  async request<T = unknown>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
    const res = await fetch(`${this.url}/api/v1${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...this.extraHeaders,
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(this.csrf && method !== 'GET' ? { 'x-csrf-token': this.csrf } : {}),
        ...(this.project ? { 'rtcscope-project': this.project } : {}),
        ...(body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' }),
        ...headers,
      },
      // A string is sent as it is (a recording); anything else as JSON.
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    // JSON answers parsed; exports (CSV, JSON lines) as the text they are.
    const json = res.headers.get('content-type')?.startsWith('application/json');
    return { status: res.status, body: (json ? JSON.parse(text) : text || null) as T, headers: res.headers };
  }

  /** Who the session is, and the CSRF token for changes after it. */
  async me(): Promise<Me> {
    const answer = await this.request<Me>('GET', '/auth/me');
    if (answer.status !== 200) throw new Error(`GET /auth/me answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    this.csrf = answer.body.csrfToken;
    return answer.body;
  }

  async signUp(email: string, password = 'correct horse battery', organization = `${email}'s team`): Promise<Me> {
    const answer = await this.request('POST', '/auth/sign-up', { email, password, name: email.split('@')[0], organization });
    if (answer.status !== 204) throw new Error(`sign-up answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return this.me();
  }

  async signIn(email: string, password = 'correct horse battery'): Promise<number> {
    const answer = await this.request('POST', '/auth/sign-in', { email, password });
    if (answer.status === 204) await this.me();
    return answer.status;
  }
}
