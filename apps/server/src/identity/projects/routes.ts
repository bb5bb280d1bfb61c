import { LiveKitSettings, LiveKitSettingsInfo, ProjectInfo, ProjectUpdate, TurnSettings, TurnSettingsInfo } from '@rtcscope/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { auditRequest } from '../access/plugin.js';
import type { Database } from '../../db/database.js';
import { loadProject, setRetention } from './project.js';
import { errorBody } from '../../http/errors.js';
import { ANSWERS, ID_ANSWERS } from '../../http/schemas.js';
import { removeTurnSettings, setTurnSettings, turnSettings } from './turn.js';
import { liveKitSettings, removeLiveKitSettings, setLiveKitSettings } from './livekit.js';
import { liveKitWebhookPath } from '../../sfu/plugin.js';

export async function projectRoutes(app: FastifyInstance, { db, projectIngestLimit }: { db: Database; projectIngestLimit: number | null }) {
  app.get(
    '/project',
    {
      schema: {
        summary: 'The project, with its publishable ingest key, retention and ingest limit',
        response: { 200: ProjectInfo, ...ANSWERS },
      },
    },
    async (request) => loadProject(db.prisma, request.projectId, projectIngestLimit),
  );
  app.patch<{ Body: ProjectUpdate }>(
    '/project',
    {
      schema: {
        summary: 'Change how long raw samples are kept (7, 30, 90 or 365 days); streams that start from now on follow it',
        body: ProjectUpdate,
        response: { 200: ProjectInfo, ...ANSWERS },
      },
    },
    async (request) =>
      db.prisma.$transaction(async (tx) => {
        const before = await loadProject(db.prisma, request.projectId, projectIngestLimit);
        const after = await setRetention(tx, request.projectId, request.body.retentionDays, projectIngestLimit);
        await auditRequest(tx, request, 'project.retention-changed', after.name, {
          from: before.retentionDays,
          to: after.retentionDays,
        });
        return after;
      }),
  );

  // The project's TURN servers, which the pre-call test and the SDK are to be handed time-limited
  // credentials for (turn-credentials.ts): set with the secret they share with rtcscope, shown without it.
  app.get(
    '/project/turn',
    { schema: { summary: "The project's TURN servers (never their secret)", response: { 200: TurnSettingsInfo, ...ANSWERS } } },
    async (request) => ({ turn: await turnSettings(db.prisma, request.projectId) }),
  );
  app.put<{ Body: TurnSettings }>(
    '/project/turn',
    {
      schema: {
        summary:
          "Set the project's TURN servers and the secret they share with rtcscope (coturn: use-auth-secret, static-auth-secret); browsers get credentials signed with it that expire",
        body: TurnSettings,
        response: { 200: TurnSettingsInfo, ...ANSWERS },
      },
    },
    async (request) =>
      db.prisma.$transaction(async (tx) => {
        await setTurnSettings(tx, request.projectId, request.body);
        await auditRequest(tx, request, 'turn.configured', null, { urls: request.body.urls });
        return { turn: await turnSettings(tx, request.projectId) };
      }),
  );
  app.delete(
    '/project/turn',
    { schema: { summary: "Remove the project's TURN servers", response: { 204: Type.Null(), ...ID_ANSWERS } } },
    async (request, reply) => {
      const removed = await db.prisma.$transaction(async (tx) => {
        const done = await removeTurnSettings(tx, request.projectId);
        if (done) await auditRequest(tx, request, 'turn.removed', null);
        return done;
      });
      if (!removed) return reply.code(404).send(errorBody(404, 'this project has no TURN servers set'));
      return reply.code(204).send();
    },
  );

  // The key the project's LiveKit server signs its webhooks with (sfu/plugin.ts): set with its
  // secret, shown without it, beside the address LiveKit is to post to.
  const liveKitInfo = async (db: Parameters<typeof liveKitSettings>[0], projectId: string) => ({
    livekit: await liveKitSettings(db, projectId),
    webhookPath: liveKitWebhookPath(projectId),
  });
  app.get(
    '/project/livekit',
    {
      schema: {
        summary: "The LiveKit key the project's webhooks are verified with (never its secret), and where LiveKit is to post them",
        response: { 200: LiveKitSettingsInfo, ...ANSWERS },
      },
    },
    async (request) => liveKitInfo(db.prisma, request.projectId),
  );
  app.put<{ Body: LiveKitSettings }>(
    '/project/livekit',
    {
      schema: {
        summary:
          "Set the LiveKit API key and secret the project's LiveKit server signs its webhooks with (its config's webhook.api_key): posts not signed with them are refused",
        body: LiveKitSettings,
        response: { 200: LiveKitSettingsInfo, ...ANSWERS },
      },
    },
    async (request) =>
      db.prisma.$transaction(async (tx) => {
        await setLiveKitSettings(tx, request.projectId, request.body);
        await auditRequest(tx, request, 'livekit.configured', null, { apiKey: request.body.apiKey });
        return liveKitInfo(tx, request.projectId);
      }),
  );
  app.delete(
    '/project/livekit',
    {
      schema: {
        summary: "Remove the project's LiveKit key (its webhooks are refused from then on)",
        response: { 204: Type.Null(), ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const removed = await db.prisma.$transaction(async (tx) => {
        const done = await removeLiveKitSettings(tx, request.projectId);
        if (done) await auditRequest(tx, request, 'livekit.removed', null);
        return done;
      });
      if (!removed) return reply.code(404).send(errorBody(404, 'this project has no LiveKit key set'));
      return reply.code(204).send();
    },
  );
}
