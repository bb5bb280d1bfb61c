import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  sub: string;
  email: string;
  name: string;
  emailVerified?: boolean;
}

/**
 * A real OpenID Connect provider (`oidc-provider`) on loopback for tests of single sign-on. Whoever
 * comes to its login is signed in as the account the test set with `as()`; consent is given by itself.
 * `signOn(url)` follows a browser's redirects from the authorization URL to the callback URL it ends
 * at, keeping the provider's cookies as a browser would.
 */
export class TestOpenIdProvider {
  readonly clientId = 'rtcscope';
  readonly clientSecret = 'a-client-secret-for-tests';
  issuer = '';
  private account: TestAccount | null = null;
  private server: Server | null = null;

  async start(redirectUri: string): Promise<void> {
    this.server = createServer();
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    const accounts = () => this.account;
    const provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: this.clientId,
          client_secret: this.clientSecret,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      cookies: { keys: ['cookie-key-for-tests'] },
      // Its signing key, made for this run.
      jwks: {
        keys: [
          {
            ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
            kid: 'test',
            use: 'sig',
            alg: 'RS256',
          },
        ],
      },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, sub) => {
        const a = accounts();
        if (!a || a.sub !== sub) return undefined;
        return { accountId: sub, claims: () => ({ sub, email: a.email, email_verified: a.emailVerified ?? true, name: a.name }) };
      },
      // Consent given by itself: a grant of what the client asks.
      loadExistingGrant: async (ctx) => {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    });
    const callback = provider.callback();
    this.server.on('request', (req, res) => {
      if (req.url?.startsWith('/interaction/')) {
        const a = this.account;
        if (!a) return void provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'no account' });
        return void provider.interactionFinished(req, res, { login: { accountId: a.sub } }, { mergeWithLastSubmission: false });
      }
      callback(req, res);
    });
  }

  /** Who the next login is. */
  as(account: TestAccount | null): void {
    this.account = account;
  }

  /** Follows the redirects from an authorization URL, with the provider's cookies, to the URL outside it they end at. */
  async signOn(url: string): Promise<string> {
    const cookies = new Map<string, string>();
    let next = url;
    for (let hop = 0; hop < 10; hop++) {
      if (!next.startsWith(this.issuer)) return next;
      const res = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`the provider answered ${res.status} without a redirect: ${await res.text()}`);
      next = new URL(location, next).href;
    }
    throw new Error('too many redirects at the provider');
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
