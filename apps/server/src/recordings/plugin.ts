import { RecordingImported, RecordingQuery } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { ANSWERS } from '../http/schemas.js';
import { errorBody } from '../http/errors.js';
import { GroupCommitter } from '../ingest/group-commit.js';
import { Registrar } from '../ingest/entities.js';
import { RecordingError } from './errors.js';
import { importRecording, removeOrphanSpools } from './import.js';
import { RECORDING_LIMITS } from './limits.js';

/**
 * `POST /recordings`: a webrtc-internals dump or rtcstats file, the request's body as it is (any
 * content type, gzipped or not), becomes an ended call (docs/recordings.md).
 */
export async function recordingRoutes(app: FastifyInstance) {
  // Imports under way per project on this node: each is bounded (limits.ts), and so is how many a
  // project runs at once, so one tenant's uploads cannot take the node's memory from the others'.
  const running = new Map<string, number>();
  const orphans = await removeOrphanSpools();
  if (orphans) app.log.info({ orphans }, 'recordings: removed the spooled copies of imports that a stopped process left');
  const deps = { db: app.db, registrar: new Registrar(app.db.pool), committer: new GroupCommitter(app.db.pool) };
  // The body is streamed to the reader as it comes, whatever its type says: a JSON dump is not parsed whole.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post<{ Querystring: RecordingQuery }>(
    '/recordings',
    {
      bodyLimit: RECORDING_LIMITS.uploadBytes + 1,
      schema: {
        summary: 'Import a recording (Chrome webrtc-internals dump, or rtcstats file) as a call',
        description:
          'The file is the body, as it is, up to 200 MB (gzipped or not). A file that is not a recording, or is cut off, is refused with the line or field where it went wrong, and nothing of it is stored. The same file imported again answers 200 with its call.',
        querystring: RecordingQuery,
        response: { 201: RecordingImported, 200: RecordingImported, ...ANSWERS },
      },
    },
    async (request, reply) => {
      // Fastify hands a body to the parser above only when there is one.
      if (!(request.body instanceof Readable))
        return reply.code(400).send(errorBody(400, 'the recording is the request body: send the file itself (curl --data-binary @file)'));
      const { projectId } = request;
      if ((running.get(projectId) ?? 0) >= RECORDING_LIMITS.importsAtOnce) {
        return reply
          .code(429)
          .header('retry-after', '30')
          .header('connection', 'close')
          .send(
            errorBody(
              429,
              `this project is importing ${RECORDING_LIMITS.importsAtOnce} recordings already: send this one when one of them is done`,
            ),
          );
      }
      running.set(projectId, (running.get(projectId) ?? 0) + 1);
      try {
        const imported = await importRecording(deps, request.projectId, request.query.name, request.body);
        if (!imported.duplicate) app.live.callsChanged(request.projectId, imported.callId);
        return reply.code(imported.duplicate ? 200 : 201).send(imported);
      } catch (err) {
        if (err instanceof RecordingError) {
          // Refused before the whole body came: the rest is not read, so the connection cannot carry another request.
          if (!request.raw.complete) reply.header('connection', 'close');
          return reply.code(400).send(errorBody(400, `recording ${err.message}`));
        }
        // The uploader cancelled (or went away) mid-file: nothing was stored, and no one is left to answer.
        // (A body read to its end is destroyed too, by Node, once it ends: an error after that is no cancel.)
        if (request.raw.destroyed && !request.raw.complete) {
          request.log.info('recording upload cancelled');
          return reply.code(400).send(errorBody(400, 'the upload was cancelled'));
        }
        throw err;
      } finally {
        const left = running.get(projectId)! - 1;
        if (left) running.set(projectId, left);
        else running.delete(projectId);
      }
    },
  );
}
