import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { repeat } from '../jobs/repeat.js';
import { type EvaluationTimes, evaluateRules } from './evaluate.js';
import { pruneNotifications } from './notify.js';
import { deliverDue } from './outbox.js';
import type { OutboundTargets } from '../http/outbound.js';

/** Rules are evaluated this often: an alert is raised within this of its condition being stored. */
const EVALUATE_EVERY_S = 2;
const DELIVER_EVERY_S = 1;
/** Deliveries posted at once by one node: a slow receiver holds at most these, never ingest. */
const DELIVERIES_AT_ONCE = 16;
const PRUNE_EVERY_S = 3600;

/**
 * Alerts: rules evaluated on stored calls while they run, notifications pushed to dashboards and
 * delivered to webhooks from a durable outbox (docs/alerts.md). Every node runs all three jobs; one
 * evaluates at a time, and each delivery is leased to one node.
 */
export const alerts = fp(
  async (app: FastifyInstance, { outboundTargets }: { outboundTargets: OutboundTargets }) => {
    const { pool } = app.db;
    const times: EvaluationTimes = {
      round: (s) => app.telemetry.alertRoundSeconds.observe(s),
      condition: (kind, s) => app.telemetry.alertConditionSeconds.observe({ kind }, s),
    };
    const stops = [
      repeat(
        EVALUATE_EVERY_S,
        async () => {
          for (const n of await evaluateRules(pool, times)) app.live.notification(n.projectId, n.notification);
        },
        (err) => app.log.error({ err }, 'alert evaluation failed'),
      ),
      repeat(
        DELIVER_EVERY_S,
        async (signal) => {
          while (!signal.aborted && (await deliverDue(pool, DELIVERIES_AT_ONCE, outboundTargets)) === DELIVERIES_AT_ONCE);
        },
        (err) => app.log.error({ err }, 'webhook delivery failed'),
      ),
      repeat(
        PRUNE_EVERY_S,
        async () => void (await pruneNotifications(pool)),
        (err) => app.log.error({ err }, 'pruning notifications failed'),
        true,
      ),
    ];
    app.addHook('onClose', async () => void (await Promise.all(stops.map((stop) => stop()))));
  },
  { name: 'alerts', dependencies: ['live'] },
);
