import {
  AlertNotification,
  AlertRule,
  AlertRuleInput,
  AlertRuleList,
  DeliveryLog,
  NotificationList,
  NotificationQuery,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointList,
} from '@rtcscope/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { auditRequest } from '../identity/access/plugin.js';
import { createEndpoint, deleteEndpoint, deliveryLog, endpointProblem, listEndpoints, updateEndpoint } from './endpoints.js';
import { listNotifications } from './notify.js';
import { createRule, deleteRule, getRule, listRules, ruleProblem, updateRule } from './rules.js';
import { sendTest } from './test-alert.js';
import type { Database, Db } from '../db/database.js';
import { errorBody } from '../http/errors.js';
import type { LiveHub } from '../live/hub.js';
import { ANSWERS, ID_ANSWERS, Uuid } from '../http/schemas.js';

const UuidParams = Type.Object({ id: Uuid });
const LogQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) },
  { additionalProperties: false },
);

/**
 * Alert rules, webhook endpoints, the notification list and each endpoint's delivery log (docs/alerts.md).
 * Rules and endpoints changed are in the organization's audit log, recorded in the change's transaction.
 */
export async function alertRoutes(app: FastifyInstance, { db, live }: { db: Database; live: LiveHub }) {
  const { pool } = db;
  /** Runs `change`, recording `action` on what it returns (nothing recorded when it found nothing). */
  const audited = <T>(request: FastifyRequest, action: string, change: (tx: Db) => Promise<T>, target: (done: NonNullable<T>) => string) =>
    db.prisma.$transaction(async (tx) => {
      const done = await change(tx);
      if (done) await auditRequest(tx, request, action, target(done as NonNullable<T>));
      return done;
    });
  const noRule = (id: string) => errorBody(404, `this project has no alert rule ${id}`);
  const noEndpoint = (id: string) => errorBody(404, `this project has no webhook endpoint ${id}`);

  app.get(
    '/alerts/rules',
    { schema: { summary: "The project's alert rules", response: { 200: AlertRuleList, ...ANSWERS } } },
    async (request) => ({
      rules: await listRules(db.prisma, request.projectId),
    }),
  );

  app.post<{ Body: AlertRuleInput }>(
    '/alerts/rules',
    {
      schema: {
        summary: 'Make an alert rule: evaluated from the next round (every 2 s)',
        body: AlertRuleInput,
        response: { 201: AlertRule, ...ANSWERS },
      },
    },
    async (request, reply) => {
      const problem = await ruleProblem(db.prisma, request.projectId, request.body);
      if (problem) return reply.code(400).send(errorBody(400, problem));
      return reply.code(201).send(
        await audited(
          request,
          'alert-rule.created',
          (c) => createRule(c, request.projectId, request.body),
          (r) => r.name,
        ),
      );
    },
  );

  app.put<{ Params: { id: string }; Body: AlertRuleInput }>(
    '/alerts/rules/:id',
    { schema: { summary: 'Change an alert rule', params: UuidParams, body: AlertRuleInput, response: { 200: AlertRule, ...ID_ANSWERS } } },
    async (request, reply) => {
      const problem = await ruleProblem(db.prisma, request.projectId, request.body);
      if (problem) return reply.code(400).send(errorBody(400, problem));
      const rule = await audited(
        request,
        'alert-rule.changed',
        (c) => updateRule(c, request.projectId, request.params.id, request.body),
        (r) => r.name,
      );
      return rule ?? reply.code(404).send(noRule(request.params.id));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/alerts/rules/:id',
    {
      schema: {
        summary: 'Delete an alert rule and its alerts (their notifications stay)',
        params: UuidParams,
        response: { 204: Type.Null(), ...ID_ANSWERS },
      },
    },
    async (request, reply) =>
      (await audited(
        request,
        'alert-rule.deleted',
        (c) => deleteRule(c, request.projectId, request.params.id),
        () => request.params.id,
      ))
        ? reply.code(204).send()
        : reply.code(404).send(noRule(request.params.id)),
  );

  app.post<{ Params: { id: string } }>(
    '/alerts/rules/:id/test',
    {
      schema: {
        summary: 'Send a test notification of the rule to the dashboard and its endpoints, as a real alert goes',
        params: UuidParams,
        response: { 201: AlertNotification, ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const rule = await getRule(db.prisma, request.projectId, request.params.id);
      if (!rule) return reply.code(404).send(noRule(request.params.id));
      const notification = await sendTest(pool, request.projectId, rule);
      live.notification(request.projectId, notification);
      return reply.code(201).send(notification);
    },
  );

  app.get<{ Querystring: NotificationQuery }>(
    '/alerts/notifications',
    {
      schema: {
        summary: 'Alerts fired and resolved, and tests, newest first (kept 30 days)',
        querystring: NotificationQuery,
        response: { 200: NotificationList, ...ANSWERS },
      },
    },
    async (request) => ({
      notifications: await listNotifications(db.prisma, request.projectId, request.query.before, request.query.limit ?? 100),
    }),
  );

  app.get(
    '/alerts/endpoints',
    {
      schema: {
        summary: "The project's webhook endpoints, with their signing secrets",
        response: { 200: WebhookEndpointList, ...ANSWERS },
      },
    },
    async (request) => ({
      endpoints: await listEndpoints(db.prisma, request.projectId),
    }),
  );

  app.post<{ Body: WebhookEndpointInput }>(
    '/alerts/endpoints',
    {
      schema: {
        summary: 'Add a webhook endpoint: every notification is delivered to it from now on',
        body: WebhookEndpointInput,
        response: { 201: WebhookEndpoint, ...ANSWERS },
      },
    },
    async (request, reply) => {
      const problem = endpointProblem(request.body);
      if (problem) return reply.code(400).send(errorBody(400, problem));
      return reply.code(201).send(
        await audited(
          request,
          'webhook.created',
          (c) => createEndpoint(c, request.projectId, request.body),
          (e) => e.url,
        ),
      );
    },
  );

  app.put<{ Params: { id: string }; Body: WebhookEndpointInput }>(
    '/alerts/endpoints/:id',
    {
      schema: {
        summary: 'Change a webhook endpoint (its secret stays)',
        params: UuidParams,
        body: WebhookEndpointInput,
        response: { 200: WebhookEndpoint, ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const problem = endpointProblem(request.body);
      if (problem) return reply.code(400).send(errorBody(400, problem));
      const endpoint = await audited(
        request,
        'webhook.changed',
        (c) => updateEndpoint(c, request.projectId, request.params.id, request.body),
        (e) => e.url,
      );
      return endpoint ?? reply.code(404).send(noEndpoint(request.params.id));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/alerts/endpoints/:id',
    {
      schema: {
        summary: 'Delete a webhook endpoint, its pending deliveries and its log',
        params: UuidParams,
        response: { 204: Type.Null(), ...ID_ANSWERS },
      },
    },
    async (request, reply) =>
      (await audited(
        request,
        'webhook.deleted',
        (c) => deleteEndpoint(c, request.projectId, request.params.id),
        () => request.params.id,
      ))
        ? reply.code(204).send()
        : reply.code(404).send(noEndpoint(request.params.id)),
  );

  app.get<{ Params: { id: string }; Querystring: { limit?: number } }>(
    '/alerts/endpoints/:id/deliveries',
    {
      schema: {
        summary: "The endpoint's delivery log: every attempt, newest first",
        params: UuidParams,
        querystring: LogQuery,
        response: { 200: DeliveryLog, ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const attempts = await deliveryLog(db.prisma, request.projectId, request.params.id, request.query.limit ?? 100);
      return attempts ? { attempts } : reply.code(404).send(noEndpoint(request.params.id));
    },
  );
}
