import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { standalonePageTemplate } from './scripts/vite-plugin-standalone.mjs';
import { elementExamplePage } from './scripts/vite-plugin-element-example.mjs';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// The viewer lives in web/; the WASM decoders are built into build/wasm by scripts/build.sh.
// base './' makes the built site work from any sub-path of any static host.
export default defineConfig({
  root: here('./web'),
  base: './',
  publicDir: here('./web/public'),
  server: { host: '127.0.0.1', port: 5173, fs: { allow: [here('.')] } },
  preview: { host: '127.0.0.1', port: 4173 },
  worker: { format: 'es' },
  // glTF-Transform's texture pixels (unused, and `new Function` at load) stay out: see the stub.
  resolve: { alias: [{ find: /^ndarray-pixels$/, replacement: here('./web/src/three/no-pixels.js') }] },
  // rigscope-page.html: the standalone page's player, which Save page fills with the files.
  // rigscope-viewer-example.html: each <rigscope-viewer> attribute on the demo and the fixtures.
  plugins: [standalonePageTemplate(), elementExamplePage()],
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: {
      input: { index: here('./web/index.html'), embed: here('./web/embed.html'), 'rigscope-viewer': here('./web/rigscope-viewer.js') },
      // The element's one script tag needs a name that does not change: dist/rigscope-viewer.js.
      output: { entryFileNames: (chunk) => (chunk.name === 'rigscope-viewer' ? '[name].js' : 'assets/[name]-[hash].js') },
    },
  },
  test: {
    root: here('.'),
    include: ['tests/unit/**/*.test.js'],
    environment: 'node',
    // Two files at once even on two cores (Vitest's default keeps one core free, so one file at a
    // time here): many files wait on a child process (the CLI, tsc, gltfpack) or on workers.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30000,
  },
});
