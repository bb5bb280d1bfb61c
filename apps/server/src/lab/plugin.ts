import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { repeat } from '../jobs/repeat.js';
import { AgentHub } from './agents.js';
import { RunQueue } from './queue.js';

/**
 * Lab agents (socket.io `/agent`) and the durable run queue they take campaigns' runs from. A running
 * run whose agent has not reported for `graceS` has failed (checked every `checkS`); a deleted
 * project's agents are ended.
 */
export const labAgents = fp(
  async (app: FastifyInstance, { graceS, checkS }: { graceS: number; checkS: number }) => {
    const queue = new RunQueue(app.db.pool);
    const agents = new AgentHub(app.io, app.db, queue, app.live, app.log);
    app.decorate('labQueue', queue);
    app.decorate('agents', agents);
    app.projectChanges.onChange((change) => {
      if (change.deleted) agents.disconnectProject(change.projectId);
    });
    const stop = repeat(
      checkS,
      async () => {
        for (const r of await queue.failSilent(graceS)) app.live.labChanged(r.projectId, { campaignId: r.campaignId, runId: r.runId });
      },
      (err) => app.log.error({ err }, 'lab: checking for silent agents failed'),
    );
    app.addHook('onClose', stop);
  },
  { name: 'lab', dependencies: ['live', 'project-changes'] },
);
