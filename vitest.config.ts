import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['apps/*/src/**/*.int.test.ts', 'apps/*/test/**/*.int.test.ts'],
          globalSetup: ['apps/server/test/postgres.global.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Two cores: integration files share one PostgreSQL and run one at a time.
          fileParallelism: false,
        },
      },
    ],
  },
});
