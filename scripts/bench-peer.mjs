// PSKLoader against a plain-JS three.js PSK loader (issue #31): for every real PSK/PSKX mesh in
// ../shared/samples (and BENCH_PEER_MESHES, a folder of more), our PSKLoader and the peer's, one
// after the other in this one process, a new loader of each per file, median of BENCH_PEER_RUNS
// (default 9) after BENCH_PEER_WARM rounds (default 10) of every mesh through both. Targets (issue
// #41): 3x the peer on meshes from 0.2 MB, and no slower than it (1x) from 0.1 MB (MB = 1e6
// bytes), judged on the wall clock; the process's CPU time is printed beside it. The triangles
// each side made are printed too: the peer reads FACE0000 only, so on a PSKX of FACE3200 it makes
// none.
//
// The peer's code is never part of this project: BENCH_PEER_PSK names its loader module (the
// PSKLoader.js of lovepsone/Psk-Loaders, kept outside the repository). It is run as it is, through
// its own load(): its FileLoader (the copy of three.js it imports) is answered from memory in the
// same task, so neither side reads a disk or waits for a timer, and the materials it asks for
// beside the mesh (Name.mat) are empty. The same pairs are then timed in Chromium
// (bench-peer-browser.mjs), for information, unless BENCH_SKIP_BROWSER=1. scripts/bench.mjs calls
// peerBench(); BENCH_ONLY=peer runs only this.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, walk } from './bench-files.mjs';
import { peerBrowserBench, printPeerBrowserBench } from './bench-peer-browser.mjs';
import { trianglesOf } from './bench-triangles.mjs';

const root = new URL('..', import.meta.url).pathname;
const samplesDir = join(root, '../shared/samples');

/**
 * Targets by size (issue #41): 3x from 0.2 MB; a smaller mesh from 0.1 MB no slower than the peer
 * (there the fixed cost of a load, the same for any size, is most of ours).
 */
const TARGETS = [
  { from: 2e5, ratio: 3 },
  { from: 1e5, ratio: 1 },
];

/** PSK meshes by content (an ActorX file opens with its ACTRHEAD chunk), whatever their extension. */
function pskMeshes(dirs) {
  const files = dirs.filter((d) => existsSync(d)).flatMap((d) => walk(d).sort());
  return files
    .filter((f) => /\.pskx?$/i.test(f))
    .map((f) => ({ path: f, bytes: new Uint8Array(readFileSync(f)) }))
    .filter((m) => new TextDecoder().decode(m.bytes.subarray(0, 8)) === 'ACTRHEAD')
    .map((m) => ({ ...m, size: statSync(m.path).size, name: basename(m.path) }));
}

/**
 * The peer's loader, with its three.js FileLoader answering from `files` (url → ArrayBuffer or
 * text) synchronously. The loader module names its three.js by a relative import; the same URL
 * gives the same module instance, whose FileLoader is the one the loader makes.
 */
async function peerLoader(modulePath, files) {
  const url = pathToFileURL(resolve(modulePath));
  const source = readFileSync(url, 'utf8');
  const threeImport = /import\s+\*\s+as\s+THREE\s+from\s+['"]([^'"]+)['"]/.exec(source)?.[1];
  if (!threeImport) throw new Error(`${modulePath}: no "import * as THREE from ..." to answer its file loads through`);
  const THREE = await import(new URL(threeImport, url).href);
  THREE.FileLoader.prototype.load = function answerFromMemory(name, onLoad, onProgress, onError) {
    const data = files.get(name) ?? (/\.mat$/i.test(name) ? '' : undefined);
    if (data === undefined) onError?.(new Error(`peer bench: no file ${name}`));
    else onLoad?.(data);
  };
  const { PSKLoader } = await import(url.href);
  if (typeof PSKLoader !== 'function') throw new Error(`${modulePath} exports no PSKLoader`);
  return PSKLoader;
}

/** One load by the peer's loader: its geometry, as its load() gives it with textures and skeleton. */
function peerLoad(PeerLoader, name) {
  return new Promise((resolveLoad, reject) => {
    const loader = new PeerLoader();
    const failed = (err) => reject(err instanceof Error ? err : new Error(String(err)));
    loader.load({ url: name, PathMaterials: '' }, (geometry) => resolveLoad(geometry), undefined, failed);
  });
}

/**
 * @param {{ runs?: number, log?: (...a: any[]) => void }} [options]
 * @returns {Promise<{ skipped: string } | { rows: object[], targets: object[], raw: object }>}
 */
export async function peerBench({ runs = Number(process.env.BENCH_PEER_RUNS ?? 9), log = () => {} } = {}) {
  const modulePath = process.env.BENCH_PEER_PSK;
  if (!modulePath)
    return {
      skipped:
        'PSKLoader against the peer: not measured, BENCH_PEER_PSK is not set (the path of the PSKLoader.js of lovepsone/Psk-Loaders, kept outside this repository)',
    };
  if (!existsSync(modulePath)) return { skipped: `PSKLoader against the peer: not measured, BENCH_PEER_PSK=${modulePath} does not exist` };
  const meshes = pskMeshes([samplesDir, ...(process.env.BENCH_PEER_MESHES ? [process.env.BENCH_PEER_MESHES] : [])]);
  if (!meshes.length) return { skipped: 'PSKLoader against the peer: not measured, no PSK meshes (../shared/samples is missing)' };

  const files = new Map();
  const PeerLoader = await peerLoader(modulePath, files);
  const { PSKLoader } = await import('../web/src/three/loaders.js');
  const ours = async (m) => {
    const loader = new PSKLoader();
    const group = await loader.parseAsync(m.bytes, m.name);
    loader.dispose();
    return group;
  };
  const peer = (m) => {
    // The peer's loader reads the ArrayBuffer it is given; a copy of its own, as a fetch gives.
    files.set(m.name, m.bytes.slice().buffer);
    return peerLoad(PeerLoader, m.name);
  };

  // Every mesh through both loaders, some rounds, before any is timed (as bench-files.mjs does):
  // the meshes measured first would otherwise carry V8's compiling of each side's code, and ours
  // is the larger (the viewer's whole pipeline against one parser): it takes some tens of loads
  // before V8 has optimized it (a 0.36 MB mesh: 2-60 ms a load for the first 20, then 1.2-1.5).
  const rounds = Number(process.env.BENCH_PEER_WARM ?? 10);
  log(`peer: warming up, ${rounds} rounds over every mesh`);
  for (let r = 0; r < rounds; r++)
    for (const m of meshes) {
      m.ourTriangles = trianglesOf(await ours(m));
      m.peerTriangles = trianglesOf(await peer(m).catch(() => null));
    }
  const warm = 2;
  const rows = [];
  const targets = [];
  const raw = [];
  for (const m of meshes) {
    log(`peer: ${m.name}`);
    const ourMs = [],
      peerMs = [],
      ourCpu = [],
      peerCpu = [];
    let peerError = null;
    for (let i = 0; i < warm + runs; i++) {
      // Alternating which goes first, so that a collection one leaves behind falls on both alike.
      const order = i % 2 ? ['peer', 'ours'] : ['ours', 'peer'];
      for (const side of order) {
        // Each load in a task of its own, as a page or a server makes them: the collector's tasks
        // queued by the load before run between the two, not inside the next one's time.
        await new Promise((next) => setImmediate(next));
        // CPU time beside the wall clock: on a shared machine the wall clock also counts the
        // time this process waited for a core.
        const cpu = process.cpuUsage();
        const t = performance.now();
        if (side === 'ours') await ours(m);
        else
          await peer(m).catch((err) => {
            peerError ??= err;
          });
        const ms = performance.now() - t;
        const { user, system } = process.cpuUsage(cpu);
        if (i < warm) continue;
        (side === 'ours' ? ourMs : peerMs).push(ms);
        (side === 'ours' ? ourCpu : peerCpu).push((user + system) / 1000);
      }
    }
    const our = median(ourMs),
      theirs = median(peerMs);
    const cpu = { ours: median(ourCpu), peer: median(peerCpu) };
    const ratio = theirs / our;
    const target = TARGETS.find((t) => m.size >= t.from);
    const where = m.path.startsWith(samplesDir) ? m.path.slice(samplesDir.length + 1) : m.path;
    raw.push({
      file: where,
      bytes: m.size,
      ourMs: our,
      peerMs: theirs,
      cpuMs: cpu,
      ratio,
      target: target?.ratio ?? null,
      triangles: { ours: m.ourTriangles, peer: m.peerTriangles },
      peerError: peerError?.message,
    });
    rows.push({
      mesh: where,
      MB: (m.size / 1e6).toFixed(3),
      'ours ms': our.toFixed(2),
      'peer ms': theirs.toFixed(2),
      ratio: `${ratio.toFixed(1)}x`,
      'CPU ms ours/peer': `${cpu.ours.toFixed(2)}/${cpu.peer.toFixed(2)}`,
      'CPU ratio': `${(cpu.peer / cpu.ours).toFixed(1)}x`,
      target: target ? `${target.ratio}x` : '-',
      pass: target ? (ratio >= target.ratio ? 'PASS' : 'MISS') : 'info',
      'triangles ours/peer': `${m.ourTriangles}/${m.peerTriangles}`,
      ...(peerError ? { note: `peer failed: ${peerError.message}` } : {}),
    });
    if (target)
      targets.push({
        target: `PSKLoader >= ${target.ratio}x the plain-JS peer on ${basename(where)} (${(m.size / 1e6).toFixed(2)} MB)`,
        value: `${theirs.toFixed(2)} / ${our.toFixed(2)} ms = ${ratio.toFixed(1)}x`,
        pass: !peerError && ratio >= target.ratio,
      });
  }
  // The same in Chromium, where apps run loaders (the samples' meshes: the page fetches them).
  const inSamples = meshes.filter((m) => m.path.startsWith(samplesDir)).map((m) => ({ ...m, where: m.path.slice(samplesDir.length + 1) }));
  const browser = process.env.BENCH_SKIP_BROWSER === '1' ? null : await peerBrowserBench({ meshes: inSamples, modulePath, runs, log });
  return { rows, targets, browser, raw: { runs, warmRounds: rounds, meshes: raw, browser: browser?.rows } };
}

/** Prints what peerBench() measured, or why it was not. */
export function printPeerBench(r) {
  if ('skipped' in r) {
    console.log(r.skipped);
    return;
  }
  console.log(
    `PSKLoader against the plain-JS peer (one process, alternating, a new loader per file, medians of ${r.raw.runs} after ${r.raw.warmRounds} warm-up rounds)`,
  );
  console.table(r.rows);
  if (r.browser) printPeerBrowserBench(r.browser);
}

if (import.meta.url === `file://${process.argv[1]}`) printPeerBench(await peerBench({ log: (...a) => console.error('[bench]', ...a) }));
