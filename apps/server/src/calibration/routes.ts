import { CALIBRATION_LIMITS, CalibrationLatest, CalibrationStored, CalibrationUpload } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import { ANSWERS } from '../http/schemas.js';
import { auditRequest } from '../identity/access/plugin.js';
import { latestCalibration, storeCalibration } from './store.js';

/** A full upload's JSON: a video window is under 300 bytes, an audio window under 200. */
const MAX_UPLOAD_BYTES = CALIBRATION_LIMITS.maxWindows * 600;

/** Calibration runs of the video and audio scores (bench:quality uploads them; docs/scores.md) and the latest for the dashboard. */
export async function calibrationRoutes(app: FastifyInstance) {
  app.post<{ Body: CalibrationUpload }>(
    '/score-calibrations',
    {
      bodyLimit: MAX_UPLOAD_BYTES,
      schema: {
        summary:
          "Stores a calibration run of the scores: lab windows measured against the clip and the speech sent, with each window's score",
        description: `What \`BENCH_QUALITY_UPLOAD\` sends after \`pnpm bench:quality\`. The project keeps its latest ${CALIBRATION_LIMITS.keptRuns} runs.`,
        body: CalibrationUpload,
        response: { 201: CalibrationStored, ...ANSWERS },
      },
    },
    async (request, reply) => {
      // What /score shows everyone who reads the project: replaced by its admins (and lab keys), in the audit log.
      const stored = await app.db.prisma.$transaction(async (tx) => {
        const made = await storeCalibration(tx, request.projectId, request.body);
        await auditRequest(tx, request, 'score-calibration.published', `run ${made.id}`, { windows: made.windows });
        return made;
      });
      return reply.code(201).send(stored);
    },
  );
  app.get(
    '/score-calibrations/latest',
    {
      schema: {
        summary: "The project's latest calibration run of the scores, for the dashboard's plots",
        response: { 200: CalibrationLatest, ...ANSWERS },
      },
    },
    async (request) => latestCalibration(app.db.prisma, request.projectId),
  );
}
