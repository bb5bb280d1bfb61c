import { Readable } from 'node:stream';
import { unsafeContent } from '@rtcscope/protocol';
import Ajv from 'ajv';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * How a request is read before its route sees it. Query strings and paths are text, so numbers and
 * booleans in them are converted as the route's schema says; a JSON body is typed already, so it is
 * taken exactly as sent (`"7"` is not 7, `[30]` is not 30). What no schema says is refused in every
 * part, naming where: NUL characters (PostgreSQL's text cannot hold one) and nesting deeper than
 * MAX_DEPTH (walking it would overflow the stack).
 */
export const requestInput = fp(async (app: FastifyInstance) => {
  const options = { useDefaults: true, removeAdditional: false, allErrors: false, verbose: true } as const;
  const text = new Ajv({ ...options, coerceTypes: 'array' });
  const json = new Ajv({ ...options, coerceTypes: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? json : text).compile(schema));
  // A pattern is for the validator, not for the person who broke it: where the schema describes the text
  // it wants, the answer says that instead ("body/urls/0 must be a TURN or STUN server URL: …").
  app.setSchemaErrorFormatter(
    (errors, dataVar) =>
      new Error(
        errors
          .map((e) => {
            const described =
              e.keyword === 'pattern' ? (e as { parentSchema?: { description?: string } }).parentSchema?.description : undefined;
            return `${dataVar}${e.instancePath} ${described ? `must be ${described}` : e.message}`;
          })
          .join(', '),
      ),
  );
  app.addHook('preValidation', async (request) => {
    // A body left as a stream (a recording's upload) is read, and checked, by its route.
    const body = request.body instanceof Readable ? undefined : request.body;
    const parts = { querystring: request.query, params: request.params, body };
    for (const [part, value] of Object.entries(parts)) {
      const unsafe = unsafeContent(value);
      if (unsafe) throw Object.assign(new Error(`${part}${unsafe.pointer} ${unsafe.message}`), { statusCode: 400 });
    }
  });
});
