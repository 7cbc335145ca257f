// Fixed costs per file (issue #20): for every sample model (PSK/PSKX, PMD, UE1 _d.3d + _a.3d,
// PSG) in Node, the WASM decode against building its three.js objects (what a loader does after
// the decode: scene assembly, Character, Group), and PSKLoader end to end on the samples' smallest
// PSK, one loader reused and a new loader per file, against its decode plus one copy of its arrays.
// The decode column shows how much of it is the binding building the JS result (Embind objects).
// Needs ../shared/samples (read in place). scripts/bench.mjs calls filesBench(); BENCH_ONLY=files
// runs only this. Timings are medians of BENCH_FILE_RUNS (default 21) after two warm-up runs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const samplesDir = join(root, '../shared/samples');

export const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/** Every file under `dir`, in folder order. */
export function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** The .uc of a UE1 package that imports this mesh (its #exec lines scale and name sequences). */
function scriptOf(dataPath, files) {
  const base = basename(dataPath).replace(/_d\.3d$/i, '');
  const pkg = dirname(dirname(dataPath));
  const importing = new RegExp(`\\b${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_d\\.3d\\b`, 'i');
  return files.find((f) => f.startsWith(pkg) && /\.uc$/i.test(f) && importing.test(readFileSync(f, 'latin1')));
}

/** Every sample model with the files it is loaded with and the loader that reads it. */
function sampleModels() {
  const files = walk(samplesDir).sort();
  const models = [];
  for (const f of files) {
    if (/\.pskx?$/i.test(f)) models.push({ family: 'PSK', loader: 'PSKLoader', files: [f] });
    else if (/\.pmd$/i.test(f)) models.push({ family: 'PMD', loader: 'PMDLoader', files: [f] });
    else if (/\.psg$/i.test(f)) models.push({ family: 'PSG', loader: 'PSGLoader', files: [f] });
    else if (/_d\.3d$/i.test(f)) {
      const anim = f.replace(/_d\.3d$/i, '_a.3d');
      if (!existsSync(anim)) continue;
      const script = scriptOf(f, files);
      models.push({ family: 'UE1', loader: 'UE1Loader', files: script ? [f, anim, script] : [f, anim] });
    }
  }
  for (const m of models) {
    m.name = m.files[0].slice(samplesDir.length + 1);
    m.bytes = m.files.reduce((n, f) => n + statSync(f).size, 0);
    m.data = Object.fromEntries(m.files.map((f) => [basename(f), new Uint8Array(readFileSync(f))]));
  }
  return models;
}

/** Every typed array of a decoded model, once each. */
function arraysOf(v, out = new Set()) {
  if (!v || typeof v !== 'object' || out.has(v)) return out;
  if (ArrayBuffer.isView(v)) return out.add(v);
  if (Array.isArray(v)) for (const x of v) arraysOf(x, out);
  else for (const k of Object.keys(v)) arraysOf(v[k], out);
  return out;
}

/**
 * What constructing a Group's three.js objects alone costs (each Object3D, geometry and material
 * made empty, in the same numbers): the floor of building it, whatever the builders do.
 */
function constructorsOf(group) {
  const makers = [];
  const materials = new Set();
  group.traverse((o) => {
    makers.push(o.constructor);
    if (o.geometry) makers.push(o.geometry.constructor);
    for (const m of [o.material ?? []].flat()) materials.add(m);
  });
  for (const m of materials) makers.push(m.constructor);
  return () => {
    for (const Make of makers) new Make();
  };
}

/**
 * @param {{ runs?: number, log?: (...a: any[]) => void }} [options]
 * @returns {Promise<null | { rows: object[], targets: { target: string, value: string, pass: boolean }[], raw: object }>}
 */
export async function filesBench({ runs = Number(process.env.BENCH_FILE_RUNS ?? 21), log = () => {} } = {}) {
  if (!existsSync(samplesDir)) return null;
  const { loadNodeDecoders } = await import('../web/src/decoder/node.js');
  const { decodeFiles } = await import('../web/src/families/index.js');
  const { entryFromBytes } = await import('../web/src/core/files.js');
  const loaders = await import('../web/src/three/loaders.js');
  const host = await loadNodeDecoders();

  // The decode is the decoder operation itself (detection by first bytes is not counted); of it,
  // the binding's building of the JS result (Embind objects and the copy out, lastTimings().outMs)
  // is kept apart: on a small model it is a fixed cost of its own.
  let decodeMs = 0,
    resultMs = 0;
  const timed = {
    transfersInput: host.transfersInput,
    async call(op, args) {
      const t = performance.now();
      const r = await host.call(op, args);
      if (!/^detectFormat/.test(op)) {
        decodeMs += performance.now() - t;
        resultMs += host.module.instance.lastTimings().outMs;
      }
      return r;
    },
  };
  const entriesOf = (m) => Object.entries(m.data).map(([name, bytes]) => entryFromBytes(name, bytes));
  const warm = 2;

  const rows = [];
  const perModel = [];
  const models = sampleModels();
  // Every model decoded and built once before any is timed: the first ones measured would
  // otherwise carry V8's compiling of the decoders' glue, the builders and three.js.
  log('files: warming up over every model');
  for (const m of models) {
    const decoded = await decodeFiles(entriesOf(m), timed);
    const found = decoded.models.find((x) => x.file === basename(m.files[0]));
    if (found) await new loaders[m.loader]().setDecoder(timed)._result(decoded, found, timed);
  }
  for (const m of models) {
    log(`files: ${m.name}`);
    const loader = new loaders[m.loader]().setDecoder(timed);
    const decodes = [],
      results = [],
      builds = [],
      floors = [];
    let counts = null,
      construct = null,
      empty = false;
    for (let i = 0; i < warm + runs; i++) {
      decodeMs = 0;
      resultMs = 0;
      const decoded = await decodeFiles(entriesOf(m), timed);
      const found = decoded.models.find((x) => x.file === basename(m.files[0]));
      if (!found) {
        // A texture arena (PSG) decodes to textures only: nothing to build.
        empty = true;
        break;
      }
      let t = performance.now();
      const group = await loader._result(decoded, found, timed);
      const buildMs = performance.now() - t;
      construct ??= constructorsOf(group);
      // Four times over, so that one collection does not stand for the whole floor.
      t = performance.now();
      for (let k = 0; k < 4; k++) construct();
      const floorMs = (performance.now() - t) / 4;
      if (i >= warm) {
        decodes.push(decodeMs);
        results.push(resultMs);
        builds.push(buildMs);
        floors.push(floorMs);
      }
      counts = found.counts;
    }
    if (empty) continue;
    const r = { ...m, decodeMs: median(decodes), resultMs: median(results), buildMs: median(builds), floorMs: median(floors), counts };
    delete r.data;
    perModel.push(r);
    rows.push({
      model: m.name,
      KB: (m.bytes / 1024).toFixed(1),
      bones: counts?.bones ?? 0,
      'decode ms': r.decodeMs.toFixed(2),
      'of it JS result ms': r.resultMs.toFixed(2),
      'build ms': r.buildMs.toFixed(2),
      'build/decode': (r.buildMs / r.decodeMs).toFixed(2),
      'three.js constructors ms': r.floorMs.toFixed(2),
    });
  }

  const targets = [];
  for (const family of ['PSK', 'PMD', 'UE1', 'PSG']) {
    const list = perModel.filter((r) => r.family === family);
    if (!list.length) continue;
    const worst = list.reduce((a, b) => (b.buildMs / b.decodeMs > a.buildMs / a.decodeMs ? b : a));
    const over = list.filter((r) => r.buildMs > r.decodeMs);
    const target = `${family}: build <= decode for every sample model (${list.length})`;
    // What bounds a miss: the share of the build that is three.js's own constructors.
    const value = `${over.length} over; worst ${basename(worst.name)} ${worst.buildMs.toFixed(2)} / ${worst.decodeMs.toFixed(2)} ms = ${(worst.buildMs / worst.decodeMs).toFixed(2)}x (three.js constructors alone ${worst.floorMs.toFixed(2)} ms)`;
    // PSG is measured (the issue names PSK, PMD and UE1 for this target).
    targets.push({ target: family === 'PSG' ? `info: ${target}` : target, value, pass: family === 'PSG' || !over.length });
  }

  // PSKLoader end to end on the smallest PSK, reused and new, against decode + one copy of its arrays.
  const psks = perModel.filter((r) => r.family === 'PSK');
  const smallest = psks.reduce((a, b) => (b.bytes < a.bytes ? b : a), psks[0]);
  let loader = null;
  if (smallest) {
    log(`files: PSKLoader end to end on ${smallest.name}`);
    const bytes = new Uint8Array(readFileSync(smallest.files[0]));
    const name = basename(smallest.files[0]);
    const model = await host.call('decodePsk', [bytes, name]);
    const arrays = [...arraysOf(model)];
    // Interleaved, so that the machine's load falls on all four alike.
    const decodes = [],
      copies = [],
      reused = [],
      fresh = [];
    const one = new loaders.PSKLoader();
    for (let i = 0; i < warm + 2 * runs; i++) {
      let t = performance.now();
      await host.call('decodePsk', [bytes, name]);
      const decodeOnce = performance.now() - t;
      t = performance.now();
      for (const a of arrays) a.slice();
      const copyOnce = performance.now() - t;
      t = performance.now();
      await one.parseAsync(bytes, name);
      const reusedOnce = performance.now() - t;
      t = performance.now();
      const l = new loaders.PSKLoader();
      await l.parseAsync(bytes, name);
      l.dispose();
      const freshOnce = performance.now() - t;
      if (i < warm) continue;
      decodes.push(decodeOnce);
      copies.push(copyOnce);
      reused.push(reusedOnce);
      fresh.push(freshOnce);
    }
    one.dispose();
    const decode = median(decodes),
      copy = median(copies);
    const limit = 2 * decode + copy;
    loader = {
      file: smallest.name,
      decodeMs: decode,
      copyMs: copy,
      arrayBytes: arrays.reduce((n, a) => n + a.byteLength, 0),
      reusedMs: median(reused),
      newMs: median(fresh),
      limitMs: limit,
    };
    for (const [how, ms] of [
      ['one loader reused', loader.reusedMs],
      ['a new loader per file', loader.newMs],
    ])
      targets.push({
        target: `PSKLoader end to end on ${basename(smallest.name)} (${how}) <= 2x decode + one copy of its arrays`,
        value: `${ms.toFixed(2)} / (2 x ${decode.toFixed(2)} + ${copy.toFixed(3)}) ms = ${(ms / limit).toFixed(2)}x`,
        pass: ms <= limit,
      });
  }
  return { rows, targets, raw: { models: perModel, loader, runs } };
}

/** Prints what filesBench() measured (bench.mjs prints its targets with the others). */
export function printFilesBench(r, { targets = true } = {}) {
  if (!r) {
    console.log('fixed cost per file: no ../shared/samples');
    return;
  }
  console.log(`Fixed cost per file: every sample model in Node (medians of ${r.raw.runs})`);
  console.table(r.rows);
  const l = r.raw.loader;
  if (l)
    console.log(
      `PSKLoader on ${l.file}: reused ${l.reusedMs.toFixed(2)} ms, new loader ${l.newMs.toFixed(2)} ms; decode ${l.decodeMs.toFixed(2)} ms, one copy of its ${l.arrayBytes} bytes of arrays ${l.copyMs.toFixed(3)} ms`,
    );
  if (targets) console.table(r.targets.map((t) => ({ ...t, pass: t.pass ? 'pass' : 'MISS' })));
}

if (import.meta.url === `file://${process.argv[1]}`) printFilesBench(await filesBench({ log: (...a) => console.error('[bench]', ...a) }));
