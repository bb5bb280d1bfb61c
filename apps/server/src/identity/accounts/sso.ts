import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import type { Role, SsoConnection, SsoConnectionInfo } from '@rtcscope/protocol';
import * as oidc from 'openid-client';
import type pg from 'pg';
import { hashKey } from '../keys/keys.js';
import { guardedFetch, type OutboundTargets } from '../../http/outbound.js';
import { emailDomain, emailKey } from './emails.js';
import { addMember, roleIn } from '../organizations/organizations.js';
import { createUser, type User, userByEmail, userById } from './users.js';

/** How long a sign-on may take at the provider, from start to callback. */
const ATTEMPT_MINUTES = 10;
export const CALLBACK_PATH = '/api/v1/auth/sso/callback';

type Connection = SsoConnection & { organizationId: string };

/** Where an organization publishes the proof that an email domain is its own, and what it says. */
const proofRecord = (domain: string) => `_rtcscope-challenge.${domain}`;
const proofValue = (token: string) => `rtcscope-domain-verification=${token}`;
/** DNS answers that mean "no such record" rather than "DNS could not be asked". */
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

/** What checking a domain's proof came to: `proved` now, or `verified` before. */
export type DomainCheck = 'proved' | 'verified' | 'missing' | 'taken' | 'none';

/**
 * Single sign-on with OpenID Connect, per organization: its provider (issuer, client id and secret)
 * signs in the people whose email is in its domain. Someone who arrives for the first time gets an
 * account and the connection's default role; an existing account is signed in only if it is already a
 * member of that organization (a provider vouches for its own people, not for anyone's account).
 * A connection signs on nobody until the organization proved the domain its own (a DNS TXT record):
 * anyone can claim a domain, and a claim must neither route its people's sign-ins nor block its owner.
 * Every request to a provider goes where the server's outbound requests may (`OutboundTargets`); DNS is
 * asked through the machine's resolver, or `dnsServers` (a server that may reach loopback only asks
 * only those, and none when none are given).
 */
export class SingleSignOn {
  private readonly fetch: oidc.CustomFetch;
  private readonly resolver: Resolver | null;

  constructor(
    private readonly pool: pg.Pool,
    targets: OutboundTargets,
    dnsServers: readonly string[] | null,
  ) {
    this.fetch = guardedFetch(targets) as oidc.CustomFetch;
    this.resolver = targets === 'loopback' && !dnsServers ? null : new Resolver({ timeout: 3000, tries: 2 });
    if (dnsServers) this.resolver?.setServers(dnsServers);
  }

  /** The provider's configuration, from its discovery document; throws a message for the admin when it cannot be had. */
  async discover(c: Pick<SsoConnection, 'issuer' | 'clientId' | 'clientSecret'>): Promise<oidc.Configuration> {
    const issuer = new URL(c.issuer);
    // Plain HTTP only to a provider on this machine (a test's, or a development one).
    const local = issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
    try {
      return await oidc.discovery(issuer, c.clientId, c.clientSecret, undefined, {
        [oidc.customFetch]: this.fetch,
        ...(local ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
    } catch (err) {
      throw new Error(`could not read ${c.issuer}'s OpenID configuration (${(err as Error).message}): check the issuer URL`);
    }
  }

  async connection(organizationId: string, redirectUri: string): Promise<SsoConnectionInfo> {
    const { rows } = await this.pool.query<Omit<SsoConnection, 'clientSecret'> & { token: string; verifiedAt: Date | null }>(
      `SELECT issuer, client_id AS "clientId", email_domain AS "emailDomain", default_role AS "defaultRole", domain_token AS token, domain_verified_at AS "verifiedAt"
       FROM sso_connection WHERE organization_id = $1`,
      [organizationId],
    );
    const row = rows[0];
    if (!row) return { connection: null, redirectUri, domainProof: null };
    const { token, verifiedAt, ...connection } = row;
    return {
      connection,
      redirectUri,
      domainProof: { record: proofRecord(row.emailDomain), value: proofValue(token), verifiedAt: verifiedAt?.getTime() ?? null },
    };
  }

  /**
   * Saves an organization's connection once its provider answers: a new domain needs a new proof (a new
   * token); 'taken' when another organization proved the domain.
   */
  async save(client: pg.ClientBase, organizationId: string, c: SsoConnection): Promise<'saved' | 'taken'> {
    const { rowCount: taken } = await client.query(
      'SELECT 1 FROM sso_connection WHERE email_domain = $1 AND domain_verified_at IS NOT NULL AND organization_id <> $2',
      [c.emailDomain, organizationId],
    );
    if (taken) return 'taken';
    await client.query(
      `INSERT INTO sso_connection (organization_id, issuer, client_id, client_secret, email_domain, default_role, domain_token) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (organization_id) DO UPDATE SET issuer = $2, client_id = $3, client_secret = $4, default_role = $6,
         domain_token = CASE WHEN sso_connection.email_domain = $5 THEN sso_connection.domain_token ELSE $7 END,
         domain_verified_at = CASE WHEN sso_connection.email_domain = $5 THEN sso_connection.domain_verified_at END,
         email_domain = $5`,
      [organizationId, c.issuer, c.clientId, c.clientSecret, c.emailDomain, c.defaultRole, randomBytes(16).toString('hex')],
    );
    return 'saved';
  }

  /**
   * Looks for the organization's proof of its domain in DNS and, found, lets the connection sign on.
   * Only whether the expected record is there is told: DNS answers are not repeated to the asker.
   * Throws a message for the admin when DNS cannot be asked.
   */
  async verify(client: pg.ClientBase, organizationId: string): Promise<DomainCheck> {
    const { rows } = await client.query<{ domain: string; token: string; verified: boolean }>(
      'SELECT email_domain AS domain, domain_token AS token, domain_verified_at IS NOT NULL AS verified FROM sso_connection WHERE organization_id = $1 FOR UPDATE',
      [organizationId],
    );
    const c = rows[0];
    if (!c) return 'none';
    if (c.verified) return 'verified';
    if (!this.resolver) throw new Error('this server asks no DNS (it reaches loopback only): a domain cannot be proved here');
    let records: string[][];
    try {
      records = await this.resolver.resolveTxt(proofRecord(c.domain));
    } catch (err) {
      if (!NO_RECORD.has((err as NodeJS.ErrnoException).code ?? ''))
        throw new Error('DNS did not answer the question: try again in a minute');
      records = [];
    }
    if (!records.some((chunks) => chunks.join('') === proofValue(c.token))) return 'missing';
    try {
      await client.query('SAVEPOINT prove');
      await client.query('UPDATE sso_connection SET domain_verified_at = now() WHERE organization_id = $1', [organizationId]);
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await client.query('ROLLBACK TO SAVEPOINT prove');
      return 'taken';
    }
    return 'proved';
  }

  async remove(client: pg.ClientBase, organizationId: string): Promise<boolean> {
    const { rowCount } = await client.query('DELETE FROM sso_connection WHERE organization_id = $1', [organizationId]);
    return rowCount === 1;
  }

  /** Where to send a person who signs in as `email`, and the state the callback must come back with; null: no organization signs that domain on. */
  async start(email: string, redirectUri: string): Promise<{ url: string; state: string } | null> {
    const c = await this.byDomain(emailDomain(email));
    if (!c) return null;
    const config = await this.discover(c);
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    await this.pool.query('DELETE FROM sso_attempt WHERE created_at < now() - make_interval(mins => $1)', [ATTEMPT_MINUTES]);
    await this.pool.query('INSERT INTO sso_attempt (state_hash, organization_id, code_verifier, nonce) VALUES ($1, $2, $3, $4)', [
      hashKey(state),
      c.organizationId,
      codeVerifier,
      nonce,
    ]);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      login_hint: email,
    });
    return { url: url.href, state };
  }

  /**
   * The provider's answer at the callback (`callbackUrl`, with `state` the browser kept): the person it
   * signs in, made and added to the organization on first arrival. Throws a message for the person.
   */
  async finish(
    client: pg.ClientBase,
    callbackUrl: URL,
    state: string,
  ): Promise<{ user: User; organizationId: string; joined: Role | null }> {
    const { rows } = await client.query<{ organizationId: string; codeVerifier: string; nonce: string }>(
      `DELETE FROM sso_attempt WHERE state_hash = $1 AND created_at > now() - make_interval(mins => $2)
       RETURNING organization_id AS "organizationId", code_verifier AS "codeVerifier", nonce`,
      [hashKey(state), ATTEMPT_MINUTES],
    );
    const attempt = rows[0];
    if (!attempt) throw new Error('this sign-on has expired or was used already: start again');
    const c = await this.byOrganization(client, attempt.organizationId);
    if (!c) throw new Error("this organization's single sign-on was removed: sign in with your password");
    const config = await this.discover(c);
    let claims: { sub: string; email?: unknown; email_verified?: unknown; name?: unknown };
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: attempt.codeVerifier,
        expectedState: state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims()!;
      // A provider that keeps the ID token to the subject (as the spec has it when an access token is
      // issued) gives the email at its userinfo endpoint, for the same subject.
      if (claims.email === undefined) claims = { ...claims, ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)) };
    } catch (err) {
      throw new Error(`the identity provider's answer was refused (${(err as Error).message}): try again`);
    }
    const email = typeof claims.email === 'string' ? claims.email : null;
    if (!email || claims.email_verified === false) throw new Error('the identity provider gave no verified email address');
    if (emailDomain(email) !== c.emailDomain) throw new Error(`${email} is not in ${c.emailDomain}, the domain this organization signs on`);
    return {
      ...(await this.person(client, c, claims.sub, email, typeof claims.name === 'string' ? claims.name : email.split('@')[0]!)),
      organizationId: c.organizationId,
    };
  }

  /** The account a provider's subject is: known by it, or a member's by email (then linked), or new. */
  private async person(
    client: pg.ClientBase,
    c: Connection,
    subject: string,
    email: string,
    name: string,
  ): Promise<{ user: User; joined: Role | null }> {
    const { rows } = await client.query<{ userId: string }>(
      'SELECT user_id AS "userId" FROM user_identity WHERE issuer = $1 AND subject = $2',
      [c.issuer, subject],
    );
    let user = rows[0] ? await userById(client, rows[0].userId) : null;
    let joined: Role | null = null;
    // Removed from the organization, a person is not let back in by its provider: only an invitation does that.
    if (user && !(await roleIn(client, user.id, c.organizationId)))
      throw new Error('you are no longer a member of this organization: ask an admin to invite you again');
    if (!user) {
      user = await userByEmail(client, email);
      if (user && !(await roleIn(client, user.id, c.organizationId))) {
        throw new Error(
          `an account for ${emailKey(email)} exists and is not a member of this organization: sign in with its password, and ask an admin to invite it`,
        );
      }
      if (!user) {
        user = (await createUser(client, { email, name, passwordHash: null }))!;
        await addMember(client, c.organizationId, user.id, c.defaultRole);
        joined = c.defaultRole;
      }
      await client.query('INSERT INTO user_identity (issuer, subject, user_id) VALUES ($1, $2, $3)', [c.issuer, subject, user.id]);
    }
    return { user, joined };
  }

  private async byDomain(domain: string): Promise<Connection | null> {
    const { rows } = await this.pool.query<Connection>(
      `SELECT ${CONNECTION} FROM sso_connection WHERE email_domain = $1 AND domain_verified_at IS NOT NULL`,
      [domain],
    );
    return rows[0] ?? null;
  }

  private async byOrganization(client: pg.ClientBase, organizationId: string): Promise<Connection | null> {
    const { rows } = await client.query<Connection>(
      `SELECT ${CONNECTION} FROM sso_connection WHERE organization_id = $1 AND domain_verified_at IS NOT NULL`,
      [organizationId],
    );
    return rows[0] ?? null;
  }
}

const CONNECTION = `organization_id AS "organizationId", issuer, client_id AS "clientId", client_secret AS "clientSecret", email_domain AS "emailDomain", default_role AS "defaultRole"`;
