import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errorBody } from './errors.js';

/**
 * The methods each route's path answers, gathered as routes are added: a request whose path exists but
 * not with its method is told so (405, with `Allow`), not that the path does not exist (404).
 */
export class RouteMethods {
  private readonly routes: { path: RegExp; method: string }[] = [];

  add(url: string, methods: string | string[]): void {
    const path = new RegExp(
      `^${url
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/:[^/]+/g, '[^/]+')
        .replace(/\*/g, '.*')}/?$`,
    );
    for (const method of [methods].flat()) this.routes.push({ path, method });
  }

  /** The methods `url`'s path answers (none if it is no route's). */
  allowed(url: string): string[] {
    const path = url.split('?')[0]!;
    return [...new Set(this.routes.filter((r) => r.path.test(path)).map((r) => r.method))];
  }
}

/**
 * Answers 405 with `Allow` for a path that exists, asked with a method it does not answer. It looks
 * before the body is read (Fastify would refuse a body method such as QUERY without a content type as
 * a 400 first), at the routes added after it, from every scope.
 */
export const methodNotAllowed = fp(async (app: FastifyInstance) => {
  const methods = new RouteMethods();
  app.addHook('onRoute', (route) => methods.add(route.url, route.method));
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const allowed = methods.allowed(request.url);
    if (allowed.length) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(errorBody(405, `${request.method} is not answered here; this path answers ${allowed.join(', ')}`));
    }
  });
});
