// PSKLoader against the plain-JS peer in Chromium, where three.js apps run loaders (issue #31):
// one page built with Vite holding both, a new loader of each per file, one after the other,
// median of BENCH_PEER_RUNS (default 9) after 10 warm-up rounds over every mesh. Ours decodes a
// small file on the page's thread once its first worker has compiled the module
// (web/src/decoder/direct.js) and a larger one in a worker; the peer parses on the page's thread.
// The page answers the peer's FileLoader from memory, as bench-peer.mjs does in Node. Informative:
// the targets are judged on bench-peer.mjs's Node line. The peer's code is built from where
// BENCH_PEER_PSK names it into build/ (never committed).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { median } from './bench-files.mjs';

const root = new URL('..', import.meta.url).pathname;
const siteDir = join(root, 'build/bench-peer');

/**
 * The page's script: both loaders; the peer's FileLoader (of the three.js module its loader
 * imports, the same file and so the same module here) answers from the page's memory.
 */
function pageScript(peer, peerThree) {
  return `import { PSKLoader } from ${JSON.stringify(join(root, 'web/src/three/loaders.js'))};
import { PSKLoader as PeerLoader } from ${JSON.stringify(peer)};
import * as PEER_THREE from ${JSON.stringify(peerThree)};
import { trianglesOf as triangles } from ${JSON.stringify(join(root, 'scripts/bench-triangles.mjs'))};
const files = new Map();
PEER_THREE.FileLoader.prototype.load = function answerFromMemory(name, onLoad, onProgress, onError) {
  const data = files.get(name) ?? (/\\.mat$/i.test(name) ? '' : undefined);
  if (data === undefined) onError?.(new Error('peer bench: no file ' + name));
  else onLoad?.(data);
};
window.ours = async (name, bytes) => {
  const loader = new PSKLoader();
  const group = await loader.parseAsync(bytes, name);
  loader.dispose();
  return triangles(group);
};
// The peer reads the ArrayBuffer it is given; a copy of its own, as a fetch gives.
window.peer = (name, bytes) =>
  new Promise((resolve, reject) => {
    files.set(name, bytes.slice().buffer);
    new PeerLoader().load({ url: name, PathMaterials: '' }, (g) => resolve(triangles(g)), undefined, reject);
  });
window.ready = true;
`;
}

/** Builds the page into build/bench-peer/dist; returns it relative to the repository. */
function buildPage(peerModule) {
  const peer = resolve(peerModule);
  const threeImport = /import\s+\*\s+as\s+THREE\s+from\s+['"]([^'"]+)['"]/.exec(readFileSync(peer, 'utf8'))?.[1];
  if (!threeImport) throw new Error(`${peerModule}: no "import * as THREE from ..." to answer its file loads through`);
  const src = join(siteDir, 'src');
  mkdirSync(src, { recursive: true });
  writeFileSync(
    join(src, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>peer bench</title><script type="module" src="./main.js"></script>\n',
  );
  writeFileSync(join(src, 'main.js'), pageScript(peer, resolve(dirname(peer), threeImport)));
  const outDir = join(siteDir, 'dist');
  const config = join(siteDir, 'vite.config.mjs');
  writeFileSync(
    config,
    `export default ${JSON.stringify({ root: src, base: './', logLevel: 'error', build: { outDir, emptyOutDir: true, target: 'es2022' }, worker: { format: 'es' } })};\n`,
  );
  execFileSync('npx', ['vite', 'build', '--config', config], { cwd: root, stdio: 'inherit' });
  return `${relative(root, outDir)}/`;
}

/**
 * @param {{ meshes: { name: string, path: string, size: number, where: string }[], modulePath: string, runs?: number, log?: (...a: any[]) => void }} options
 *   meshes: files under ../shared/samples (the test server serves them at /samples/)
 */
export async function peerBrowserBench({ meshes, modulePath, runs = Number(process.env.BENCH_PEER_RUNS ?? 9), log = () => {} }) {
  log('peer (Chromium): building the page');
  const site = buildPage(modulePath);
  const { startServer } = await import('../tests/e2e/server.js');
  const { launchChromium } = await import('../web/cli/chromium.js');
  const { server, url } = await startServer(0, { site });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${url}/index.html`);
    await page.waitForFunction(() => window.ready);
    log('peer (Chromium): warming up, then each mesh');
    const times = await page.evaluate(
      async ({ files, runs }) => {
        const bytes = {};
        for (const f of files) bytes[f.name] = new Uint8Array(await (await fetch(`/samples/${f.where}`)).arrayBuffer());
        const one = async (side, name) => {
          // Each load in a task of its own, as an app makes them.
          await new Promise((next) => setTimeout(next, 0));
          const t = performance.now();
          const made = await window[side](name, bytes[name]).catch(() => null);
          return { ms: performance.now() - t, made };
        };
        for (let r = 0; r < 10; r++) for (const f of files) for (const side of ['ours', 'peer']) await one(side, f.name);
        const out = {};
        for (const f of files) {
          const ms = { ours: [], peer: [] };
          const made = {};
          for (let i = 0; i < runs; i++)
            for (const side of i % 2 ? ['peer', 'ours'] : ['ours', 'peer']) {
              const r = await one(side, f.name);
              ms[side].push(r.ms);
              made[side] = r.made;
            }
          out[f.name] = { ms, made };
        }
        return out;
      },
      { files: meshes.map((m) => ({ name: m.name, where: m.where })), runs },
    );
    const rows = meshes.map((m) => {
      const { ms, made } = times[m.name];
      const ours = median(ms.ours),
        peer = median(ms.peer);
      return {
        mesh: m.where,
        MB: (m.size / 1e6).toFixed(3),
        'ours ms': ours.toFixed(2),
        'peer ms': peer.toFixed(2),
        ratio: `${(peer / ours).toFixed(1)}x`,
        'triangles ours/peer': `${made.ours}/${made.peer ?? 'failed'}`,
      };
    });
    return { rows, runs };
  } finally {
    await browser.close();
    server.close();
  }
}

/** Prints what peerBrowserBench() measured. */
export function printPeerBrowserBench(r) {
  console.log(
    `PSKLoader against the plain-JS peer in Chromium (one page, alternating, a new loader per file, medians of ${r.runs} after 10 warm-up rounds; the page's timer has 0.1 ms steps)`,
  );
  console.table(r.rows);
}
