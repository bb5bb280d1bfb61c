import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: './tests',
  globalSetup: './support/global-setup.ts',
  // Real calls take a core each on this 2-core machine: one test at a time.
  workers: 1,
  fullyParallel: false,
  timeout: 240_000,
  expect: { timeout: 20_000 },
  use: { actionTimeout: 20_000 },
  retries: 0,
  reporter: [['list']],
  outputDir: '../test-results/e2e',
});
