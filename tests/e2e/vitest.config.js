import { defineConfig } from 'vitest/config';

// Browser tests: one Chromium for all files, run one file at a time (2-core machines).
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/e2e/**/*.test.js'],
    globalSetup: ['tests/e2e/global-setup.js'],
    environment: 'node',
    fileParallelism: false,
    testTimeout: 60000,
    hookTimeout: 120000,
  },
});
