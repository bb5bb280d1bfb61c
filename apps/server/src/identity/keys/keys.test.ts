import { describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { KeyResolver } from './keys.js';

/** A project table of one ingest key whose lookups answer when the test says so, counted. */
function projects() {
  const pending: ((row: { id: string; ingestLimit: number | null } | null) => void)[] = [];
  const prisma = { project: { findUnique: () => new Promise((resolve) => pending.push(resolve)) } } as unknown as PrismaClient;
  return { prisma, pending };
}

describe('KeyResolver', () => {
  it('remembers a key until its project is forgotten', async () => {
    const { prisma, pending } = projects();
    const keys = new KeyResolver(prisma);
    const first = keys.ingest('ik_a');
    pending.shift()!({ id: 'p1', ingestLimit: null });
    expect(await first).toEqual({ projectId: 'p1', ingestLimit: null });
    expect(await keys.ingest('ik_a')).toEqual({ projectId: 'p1', ingestLimit: null });
    expect(pending).toHaveLength(0);

    keys.forgetProject('p2');
    expect(await keys.ingest('ik_a')).toEqual({ projectId: 'p1', ingestLimit: null });
    keys.forgetProject('p1');
    const again = keys.ingest('ik_a');
    expect(pending).toHaveLength(1);
    pending.shift()!(null);
    expect(await again).toBeNull();
  });

  it('does not remember an answer whose lookup was under way when the project was forgotten', async () => {
    const { prisma, pending } = projects();
    const keys = new KeyResolver(prisma);
    const during = keys.ingest('ik_a');
    keys.forgetProject('p1');
    pending.shift()!({ id: 'p1', ingestLimit: 10 });
    expect(await during).toEqual({ projectId: 'p1', ingestLimit: 10 });

    const after = keys.ingest('ik_a');
    expect(pending).toHaveLength(1);
    pending.shift()!(null);
    expect(await after).toBeNull();
  });
});
