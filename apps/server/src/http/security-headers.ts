import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';

/**
 * What a browser needs to keep the dashboard safe: scripts, styles and connections from this server
 * only, never inside another site's frame, no content-type sniffing, no referrer sent away. Pages are
 * served over plain HTTP on a laptop, so requests are not upgraded to HTTPS here (a proxy with TLS does
 * that). The SDK's script is for other sites' pages: its route lets them load it (`sdkHeaders`).
 */
export const securityHeaders = fp(async (app: FastifyInstance) => {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Charts set style attributes.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
});

/** For files other sites' pages load (the SDK): helmet's default resource policy would block them. */
export function sdkHeaders(reply: FastifyReply): void {
  void reply.header('cross-origin-resource-policy', 'cross-origin');
}
