import { defineConfig } from 'vitest/config';

// The package as an app installs it: npm pack, a fresh app, a Vite build, Chromium and Node.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/consumer/**/*.test.js'],
    environment: 'node',
    testTimeout: 120000,
    hookTimeout: 300000,
  },
});
