import { defineConfig } from 'vitest/config';

const fidelity = 'apps/lab/src/**/*.fidelity.int.test.ts';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'infra/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['apps/*/src/**/*.int.test.ts', 'apps/*/test/**/*.int.test.ts'],
          exclude: [fidelity, '**/node_modules/**'],
          globalSetup: ['apps/server/test/postgres.global.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Two cores: integration files share one PostgreSQL and run one at a time.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'fidelity',
          include: [fidelity],
          testTimeout: 30_000,
          // Emulator fidelity measures rates and delays against the clock: these files run last, one at a
          // time, when no other test competes for the two cores.
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
