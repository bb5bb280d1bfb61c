import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { OutboundTargets } from '../../http/outbound.js';
import { repeat } from '../../jobs/repeat.js';
import { pruneAccounts } from './prune.js';
import { type Limits, SignInLimits } from './limits.js';
import type { Mailer } from './mail.js';
import { CALLBACK_PATH, SingleSignOn } from './sso.js';

/** What the account routes share: the brute-force limits, the mailer, where links point. */
export interface Accounts {
  limits: SignInLimits;
  mailer: Mailer;
  /** The base of links in mail and of links shown: PUBLIC_URL, else the address the request came to. */
  linkBase(request: FastifyRequest): string;
  /** Where links in mail point; null when PUBLIC_URL is unset (mail then cannot be trusted to point home). */
  publicUrl: string | null;
  sso: SingleSignOn;
  /** The redirect URI providers send people back to: PUBLIC_URL's, else the request's. */
  ssoRedirectUri(request: FastifyRequest): string;
}

declare module 'fastify' {
  interface FastifyInstance {
    accounts: Accounts;
  }
}

const PRUNE_EVERY_S = 3600;

export const accounts = fp(
  async (
    app: FastifyInstance,
    opts: {
      limits: Limits;
      mailer: Mailer;
      publicUrl: string | null;
      outboundTargets: OutboundTargets;
      dnsServers: readonly string[] | null;
    },
  ) => {
    const linkBase = (request: FastifyRequest) => (opts.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/$/, '');
    app.decorate<Accounts>('accounts', {
      limits: new SignInLimits(app.db.pool, opts.limits),
      mailer: opts.mailer,
      publicUrl: opts.publicUrl,
      linkBase,
      sso: new SingleSignOn(app.db.prisma, opts.outboundTargets, opts.dnsServers),
      ssoRedirectUri: (request) => `${linkBase(request)}${CALLBACK_PATH}`,
    });
    app.addHook(
      'onClose',
      repeat(
        PRUNE_EVERY_S,
        async () => void (await pruneAccounts(app.db.prisma)),
        (err) => app.log.error({ err }, 'pruning ended sessions and links failed'),
        true,
      ),
    );
  },
  { name: 'accounts' },
);
