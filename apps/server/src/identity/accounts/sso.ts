import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import type { Role, SsoConnection, SsoConnectionInfo } from '@rtcscope/protocol';
import * as oidc from 'openid-client';
import type { Db } from '../../db/database.js';
import type { SsoConnection as ConnectionRow } from '../../generated/prisma/client.js';
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
    private readonly db: Db,
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
    const row = await this.db.ssoConnection.findUnique({ where: { organizationId } });
    if (!row) return { connection: null, redirectUri, domainProof: null };
    const { organizationId: _, clientSecret: __, ...connection } = asConnection(row);
    return {
      connection,
      redirectUri,
      domainProof: {
        record: proofRecord(row.emailDomain),
        value: proofValue(row.domainToken),
        verifiedAt: row.domainVerifiedAt?.getTime() ?? null,
      },
    };
  }

  /**
   * Saves an organization's connection once its provider answers: a new domain needs a new proof (a new
   * token); 'taken' when another organization proved the domain.
   */
  async save(db: Db, organizationId: string, c: SsoConnection): Promise<'saved' | 'taken'> {
    const taken = await db.ssoConnection.count({
      where: { emailDomain: c.emailDomain, domainVerifiedAt: { not: null }, organizationId: { not: organizationId } },
    });
    if (taken) return 'taken';
    const { issuer, clientId, clientSecret, emailDomain, defaultRole } = c;
    const before = await db.ssoConnection.findUnique({ where: { organizationId }, select: { emailDomain: true } });
    // The same domain keeps its proof; another needs a new one.
    const proof = before?.emailDomain === emailDomain ? {} : { domainToken: randomBytes(16).toString('hex'), domainVerifiedAt: null };
    await db.ssoConnection.upsert({
      where: { organizationId },
      create: { organizationId, issuer, clientId, clientSecret, emailDomain, defaultRole, domainToken: randomBytes(16).toString('hex') },
      update: { issuer, clientId, clientSecret, emailDomain, defaultRole, ...proof },
    });
    return 'saved';
  }

  /**
   * Looks for the organization's proof of its domain in DNS and, found, lets the connection sign on.
   * Only whether the expected record is there is told: DNS answers are not repeated to the asker.
   * Throws a message for the admin when DNS cannot be asked.
   */
  async verify(db: Db, organizationId: string): Promise<DomainCheck> {
    // Locked, so that two checks at once cannot both prove it (Prisma Client takes no row locks).
    const rows = await db.$queryRaw<{ domain: string; token: string; verified: boolean }[]>`
      SELECT email_domain AS domain, domain_token AS token, domain_verified_at IS NOT NULL AS verified
      FROM sso_connection WHERE organization_id = ${organizationId}::uuid FOR UPDATE`;
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
    // Another organization proving the same domain meanwhile is the unique index's to refuse: the
    // transaction goes on past the refusal (its audit entry is not written then), so a savepoint.
    await db.$executeRaw`SAVEPOINT prove`;
    try {
      await db.ssoConnection.update({ where: { organizationId }, data: { domainVerifiedAt: new Date() } });
    } catch (err) {
      if ((err as { code?: string }).code !== 'P2002') throw err;
      await db.$executeRaw`ROLLBACK TO SAVEPOINT prove`;
      return 'taken';
    }
    return 'proved';
  }

  async remove(db: Db, organizationId: string): Promise<boolean> {
    const { count } = await db.ssoConnection.deleteMany({ where: { organizationId } });
    return count === 1;
  }

  /** Where to send a person who signs in as `email`, and the state the callback must come back with; null: no organization signs that domain on. */
  async start(email: string, redirectUri: string): Promise<{ url: string; state: string } | null> {
    const c = await this.byDomain(emailDomain(email));
    if (!c) return null;
    const config = await this.discover(c);
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    await this.db.ssoAttempt.deleteMany({ where: { createdAt: { lt: attemptsSince() } } });
    await this.db.ssoAttempt.create({ data: { stateHash: hashKey(state), organizationId: c.organizationId, codeVerifier, nonce } });
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
  async finish(db: Db, callbackUrl: URL, state: string): Promise<{ user: User; organizationId: string; joined: Role | null }> {
    // Taken and deleted in one statement, so that a state is used once however many callbacks bring it.
    const rows = await db.$queryRaw<{ organizationId: string; codeVerifier: string; nonce: string }[]>`
      DELETE FROM sso_attempt WHERE state_hash = ${hashKey(state)} AND created_at > ${attemptsSince()}
      RETURNING organization_id AS "organizationId", code_verifier AS "codeVerifier", nonce`;
    const attempt = rows[0];
    if (!attempt) throw new Error('this sign-on has expired or was used already: start again');
    const c = await this.byOrganization(db, attempt.organizationId);
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
      ...(await this.person(db, c, claims.sub, email, typeof claims.name === 'string' ? claims.name : email.split('@')[0]!)),
      organizationId: c.organizationId,
    };
  }

  /** The account a provider's subject is: known by it, or a member's by email (then linked), or new. */
  private async person(db: Db, c: Connection, subject: string, email: string, name: string): Promise<{ user: User; joined: Role | null }> {
    const identity = await db.userIdentity.findUnique({ where: { issuer_subject: { issuer: c.issuer, subject } } });
    let user = identity ? await userById(db, identity.userId) : null;
    let joined: Role | null = null;
    // Removed from the organization, a person is not let back in by its provider: only an invitation does that.
    if (user && !(await roleIn(db, user.id, c.organizationId)))
      throw new Error('you are no longer a member of this organization: ask an admin to invite you again');
    if (!user) {
      user = await userByEmail(db, email);
      if (user && !(await roleIn(db, user.id, c.organizationId))) {
        throw new Error(
          `an account for ${emailKey(email)} exists and is not a member of this organization: sign in with its password, and ask an admin to invite it`,
        );
      }
      if (!user) {
        user = (await createUser(db, { email, name, passwordHash: null }))!;
        await addMember(db, c.organizationId, user.id, c.defaultRole);
        joined = c.defaultRole;
      }
      await db.userIdentity.create({ data: { issuer: c.issuer, subject, userId: user.id } });
    }
    return { user, joined };
  }

  private async byDomain(emailDomain: string): Promise<Connection | null> {
    const row = await this.db.ssoConnection.findFirst({ where: { emailDomain, domainVerifiedAt: { not: null } } });
    return row && asConnection(row);
  }

  private async byOrganization(db: Db, organizationId: string): Promise<Connection | null> {
    const row = await db.ssoConnection.findFirst({ where: { organizationId, domainVerifiedAt: { not: null } } });
    return row && asConnection(row);
  }
}

const attemptsSince = () => new Date(Date.now() - ATTEMPT_MINUTES * 60_000);

const asConnection = (r: ConnectionRow): Connection => ({
  organizationId: r.organizationId,
  issuer: r.issuer,
  clientId: r.clientId,
  clientSecret: r.clientSecret,
  emailDomain: r.emailDomain,
  defaultRole: r.defaultRole as Connection['defaultRole'],
});
