import { defineConfig } from 'vitest/config';

// Browser tests: each file launches its own Chromium in its own worker process; two files run at
// once (2-core machines), all against the one site global-setup.js builds and serves.
// RIGSCOPE_E2E_WORKERS=1 runs them one at a time.
const workers = Number(process.env.RIGSCOPE_E2E_WORKERS) || 2;

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/e2e/**/*.test.js'],
    globalSetup: ['tests/e2e/global-setup.js'],
    environment: 'node',
    pool: 'forks',
    maxWorkers: workers,
    minWorkers: 1,
    // A test's own work takes up to twice as long while another file renders beside it, and three
    // to four times as long on a machine loaded beyond its cores (element-looks' metal test ran
    // past 120 s at a load of 28 on 2 cores): the limits only bound a hang, they add no wait to a
    // test that passes.
    testTimeout: 300000,
    hookTimeout: 240000,
  },
});
