import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { repeat } from '../jobs/repeat.js';
import { expireImportedCalls } from './expiry.js';

/** Imported calls are kept for days: an hour late is no matter. */
const INTERVAL_S = 3600;

/** Every hour and at start, imported calls past their project's retention go (expiry.ts). */
export const recordingJobs = fp(
  async (app: FastifyInstance) => {
    const { db, log } = app;
    const pass = async () => {
      const expired = await expireImportedCalls(db.pool);
      if (expired) log.info({ expired }, 'retention: deleted imported calls older than their project keeps them');
    };
    app.addHook(
      'onClose',
      repeat(INTERVAL_S, pass, (err) => log.error({ err }, 'expiring imported calls failed'), true),
    );
  },
  { name: 'recording-jobs' },
);
