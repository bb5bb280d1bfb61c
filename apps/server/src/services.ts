import type { DiagnosisThread } from './diagnosis/thread.js';
import type { Server } from 'socket.io';
import type { KeyResolver } from './identity/keys/keys.js';
import type { Database } from './db/database.js';
import type { AgentHub } from './lab/agents.js';
import type { RunQueue } from './lab/queue.js';
import type { LiveHub } from './live/hub.js';
import type { ProjectChanges } from './identity/projects/plugin.js';
import type { Telemetry } from './telemetry/telemetry.js';

/**
 * What the server's plugins share, decorated on the Fastify instance: `buildServer` puts the first four
 * there; the plugin that owns each of the others puts it there when it is registered.
 */
declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    io: Server;
    keys: KeyResolver;
    telemetry: Telemetry;
    /** Live fan-out to dashboards (`live/plugin.ts`). */
    live: LiveHub;
    /** Project changes applied here and announced to every node (`projects/plugin.ts`). */
    projectChanges: ProjectChanges;
    /** The lab's run queue and connected agents (`lab/plugin.ts`). */
    labQueue: RunQueue;
    agents: AgentHub;
    /** The live diagnosis (`diagnosis/plugin.ts`); null when it is off. */
    diagnosis: DiagnosisThread | null;
  }
}
