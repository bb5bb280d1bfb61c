import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { listen } from '../../db/notifications.js';
import { announceProjectChange, PROJECT_CHANNEL, type ProjectChange, parseProjectChange } from './changes.js';

export interface ProjectChanges {
  /** Applies a change made through this node here, before its answer is sent, then tells every other node. */
  announce(change: ProjectChange): Promise<void>;
  /** What else must follow a change of a project (its dashboards rechecked, its agents ended). */
  onChange(listener: (change: ProjectChange) => void): void;
}

/**
 * Project changes (keys revoked or replaced, limits changed, projects deleted) heard from every node
 * and operator command through PostgreSQL `NOTIFY`: this node forgets the project's keys, and each
 * plugin that listens does the rest. A node skips its own notices (it applied them already); after its
 * listening connection was lost it forgets every key, as notices may have been missed meanwhile.
 */
export const projectChanges = fp(
  async (app: FastifyInstance) => {
    const listeners: ((change: ProjectChange) => void)[] = [];
    const apply = (change: ProjectChange) => {
      app.keys.forgetProject(change.projectId);
      for (const listener of listeners) listener(change);
    };
    const nodeId = randomUUID();
    const notices = listen(app.db.url, PROJECT_CHANNEL, {
      onNotice: (payload) => {
        const notice = parseProjectChange(payload);
        if (notice && notice.origin !== nodeId) apply(notice);
      },
      onReconnect: () => app.keys.forgetAll(),
      onLost: (err) => app.log.warn({ err }, 'project changes: lost the connection that hears them; connecting again'),
    });
    app.decorate<ProjectChanges>('projectChanges', {
      announce: async (change) => {
        apply(change);
        await announceProjectChange(app.db.prisma, change, nodeId);
      },
      onChange: (listener) => listeners.push(listener),
    });
    app.addHook('onClose', () => notices.close());
  },
  { name: 'project-changes' },
);
