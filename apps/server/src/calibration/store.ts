import {
  CALIBRATION_LIMITS,
  type CalibrationHeardWindow,
  type CalibrationLatest,
  type CalibrationSetup,
  type CalibrationStored,
  type CalibrationUpload,
  type CalibrationWindow,
} from '@rtcscope/protocol';
import type { Db } from '../db/database.js';
import type { PrismaClient } from '../generated/prisma/client.js';

const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

/** Stores a calibration run, in the caller's transaction; the project keeps its latest `keptRuns`, the oldest going as one more arrives. */
export async function storeCalibration(tx: Db, projectId: string, upload: CalibrationUpload): Promise<CalibrationStored> {
  {
    const row = await tx.scoreCalibration.create({
      data: { projectId, setup: upload.setup, windows: upload.windows, heard: upload.heard ?? [] },
      select: { id: true, createdAt: true },
    });
    const older = await tx.scoreCalibration.findMany({
      where: { projectId },
      orderBy: newestFirst,
      skip: CALIBRATION_LIMITS.keptRuns,
      select: { id: true },
    });
    if (older.length) await tx.scoreCalibration.deleteMany({ where: { projectId, id: { in: older.map((r) => r.id) } } });
    return { id: Number(row.id), createdAt: row.createdAt.getTime(), windows: upload.windows.length };
  }
}

/** The project's latest calibration run, or null. */
export async function latestCalibration(prisma: PrismaClient, projectId: string): Promise<CalibrationLatest> {
  const row = await prisma.scoreCalibration.findFirst({ where: { projectId }, orderBy: newestFirst });
  return {
    calibration: row && {
      id: Number(row.id),
      createdAt: row.createdAt.getTime(),
      setup: row.setup as unknown as CalibrationSetup,
      windows: row.windows as unknown as CalibrationWindow[],
      heard: row.heard as unknown as CalibrationHeardWindow[],
    },
  };
}
