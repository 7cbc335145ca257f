// @ts-check
// Vite's dev server pre-bundles dependencies into its cache folder (node_modules/.vite/deps/),
// which moves this code away from the decoder worker: `new URL('./worker.js', import.meta.url)`
// then names a file that does not exist (vitejs/vite#10838, #11095). The cache folder's
// _metadata.json says where each pre-bundled package's source is, so a small relay worker reads
// it, imports the package's own worker.js from there and replays what arrived meanwhile. Every
// other setup (Vite build, webpack, the package excluded from pre-bundling, no bundler) keeps the
// bundler's own worker.

/** Vite's pre-bundled files: `<cacheDir>/deps/<name>.js?v=<hash>` (or deps_<env>/). */
const PREBUNDLED = /\/deps(_\w+)?\/[^/]+\.js$/;

/**
 * The relay worker's source. It buffers messages until worker.js has set its own onmessage (a
 * module worker's messages are not held for a top-level await), then hands them over in order.
 * @param {string} metadataUrl
 */
function relaySource(metadataUrl) {
  return `const early = [];
self.onmessage = (e) => early.push(e);
const meta = await (await fetch(${JSON.stringify(metadataUrl)})).json();
const entry = Object.entries(meta.optimized ?? {}).map(([, d]) => d.src).find((src) => /(^|\\/)rigscope\\/web\\/src\\/(index|element\\/index)\\.js$/.test(src));
if (!entry) throw new Error('rigscope: the package is not in ' + ${JSON.stringify(metadataUrl)});
await import(new URL(entry.replace(/web\\/src\\/.*$/, 'web/src/decoder/worker.js'), ${JSON.stringify(metadataUrl)}).href);
for (const e of early) self.onmessage(e);
`;
}

/**
 * The decoder worker for code running from Vite's pre-bundled cache, or null anywhere else.
 * @param {string} moduleUrl the calling module's import.meta.url
 * @returns {Worker | null}
 */
export function prebundledWorker(moduleUrl) {
  const url = new URL(moduleUrl);
  if (!PREBUNDLED.test(url.pathname) || !/[?&]v=\w+/.test(url.search)) return null;
  const blob = new Blob([relaySource(new URL('_metadata.json', url).href)], { type: 'text/javascript' });
  const blobUrl = URL.createObjectURL(blob);
  try {
    return new Worker(blobUrl, { type: 'module' });
  } finally {
    setTimeout(() => URL.revokeObjectURL(blobUrl), 30000);
  }
}
