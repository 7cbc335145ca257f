// npm run bench: decoding speed and memory of every decoder on the same large inputs, WASM (Node)
// against native and against memcpy inside the same module, plus the viewer in headless Chromium
// (first frame of a 1M-wedge PSK + PSA, longest main-thread block) and gzipped bundle sizes.
// Prints a table with the targets and writes build/bench/results.json. Timings are medians.
//
// Environment: BENCH_RUNS (default 5), BENCH_NATIVE (directory holding bench_native and
// write_bench_inputs, default build/native), BENCH_WASM (default build/wasm), BENCH_SKIP_BROWSER=1,
// BENCH_ONLY=folder (only the sample folders against their largest models; BENCH_FOLDERS=psk,psg
// picks folders, BENCH_FOLDER_RUNS runs each, default 3), BENCH_ONLY=export (only
// `rigscope export` over a synthetic tree, scripts/bench-export.mjs), BENCH_SKIP_EXPORT=1,
// BENCH_ONLY=files (only the fixed cost per file of every sample model, scripts/bench-files.mjs),
// BENCH_ONLY=peer (only PSKLoader against a plain-JS PSK loader, scripts/bench-peer.mjs: its
// loader module named by BENCH_PEER_PSK, kept outside the repository; also in the full run),
// BENCH_ONLY=gpu (only the GPU process's time while each sample folder is dropped, from a
// Chromium trace, scripts/bench-gpu.mjs; BENCH_FOLDERS picks folders; also in the full run),
// BENCH_ONLY=scale (only the viewer at scale: a 2,000-file drop, memory, drop and Clear,
// scripts/bench-scale.mjs), BENCH_SKIP_SCALE=1, BENCH_ONLY=load (only the browser's PSK + PSA load;
// BENCH_LOAD_RUNS runs, default 3; BENCH_PROFILE=1 adds a CPU profile of each run, which slows it,
// and prints what ran in each busy stretch over 50 ms).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const benchDir = join(root, 'build/bench');
const nativeDir = join(root, process.env.BENCH_NATIVE ?? 'build/native');
const wasmDir = join(root, process.env.BENCH_WASM ?? 'build/wasm');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
// The site the folder measurement serves (BENCH_ONLY=folder builds it there): another directory
// under build/ lets two checkouts sharing one build/ measure side by side.
const FOLDER_SITE = process.env.BENCH_SITE ?? 'build/bench-site/';

const INPUTS = {
  psk: ['bench.psk'],
  psa: ['bench.psa'],
  psa_big: ['bench_big.psa'],
  ue1: ['bench_d.3d', 'bench_a.3d', 'bench.uc'],
  pmd: ['bench.pmd'],
  pssa: ['bench_pssa.psa'],
  psg: ['bench.psg'],
};
const LABEL = {
  psk: 'PSK 1M wedges, 250 bones',
  psa: 'PSA (3 seq, matches PSK)',
  psa_big: 'PSA 52.8 MB',
  ue1: 'UE1 800 fr x 2048 v',
  pmd: 'PMD v4 200k v',
  pssa: 'PSSA 100 b x 2000 fr',
  psg: 'PSG 500k v skinned',
};

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const mb = (bytes) => bytes / 1e6;
const log = (...a) => console.error('[bench]', ...a);

// BENCH_ONLY=export: just `rigscope export` over a synthetic tree of 2,000 files.
if (process.env.BENCH_ONLY === 'export') {
  const { exportBench } = await import('./bench-export.mjs');
  const r = exportBench();
  console.table(r.rows);
  console.table(r.targets.map((t) => ({ ...t, pass: t.pass ? 'pass' : 'MISS' })));
  process.exit(0);
}

// BENCH_ONLY=peer: just PSKLoader against the plain-JS peer loader named by BENCH_PEER_PSK.
if (process.env.BENCH_ONLY === 'peer') {
  const { peerBench, printPeerBench } = await import('./bench-peer.mjs');
  const r = await peerBench({ log });
  printPeerBench(r);
  if (!('skipped' in r)) console.table(r.targets.map((t) => ({ ...t, pass: t.pass ? 'pass' : 'MISS' })));
  process.exit(0);
}

// BENCH_ONLY=files: just the fixed cost per file (decode, then build) of every sample model.
if (process.env.BENCH_ONLY === 'files') {
  const { filesBench, printFilesBench } = await import('./bench-files.mjs');
  printFilesBench(await filesBench({ log }));
  process.exit(0);
}

// BENCH_ONLY=package: just UE1 packages (tables read; a package's mesh on screen against its loose
// files; scripts/bench-package.mjs, BENCH_PACKAGE_RUNS, BENCH_PACKAGE_SCREEN_RUNS; built into BENCH_SITE). Also in
// the full run.
if (process.env.BENCH_ONLY === 'package') {
  execFileSync('npx', ['vite', 'build', '--outDir', join(root, FOLDER_SITE), '--emptyOutDir', '--logLevel', 'error'], {
    cwd: root,
    stdio: 'inherit',
  });
  const { packageBench, printPackageBench } = await import('./bench-package.mjs');
  printPackageBench(await packageBench({ site: FOLDER_SITE, log }));
  process.exit(0);
}

// BENCH_ONLY=folder: just the folder-against-largest-model measurement (a quick check of the viewer).
if (process.env.BENCH_ONLY === 'folder') {
  execFileSync('npx', ['vite', 'build', '--outDir', join(root, FOLDER_SITE), '--emptyOutDir', '--logLevel', 'error'], {
    cwd: root,
    stdio: 'inherit',
  });
  const folders = await folderBench();
  if (!folders) console.log('no ../shared/samples');
  for (const f of folders ?? []) console.log(folderLine(f));
  process.exit(0);
}

// BENCH_ONLY=gpu: just where the GPU process's time goes while each sample folder is dropped.
if (process.env.BENCH_ONLY === 'gpu') {
  execFileSync('npx', ['vite', 'build', '--outDir', join(root, 'build/bench-site'), '--emptyOutDir', '--logLevel', 'error'], {
    cwd: root,
    stdio: 'inherit',
  });
  const { gpuBench, printGpuBench } = await import('./bench-gpu.mjs');
  printGpuBench(await gpuBench({ log }));
  process.exit(0);
}

// BENCH_ONLY=scale: just the viewer at scale (a 2,000-file drop, memory after it, drop and Clear).
if (process.env.BENCH_ONLY === 'scale') {
  execFileSync('npx', ['vite', 'build', '--outDir', join(root, 'build/bench-site'), '--emptyOutDir', '--logLevel', 'error'], {
    cwd: root,
    stdio: 'inherit',
  });
  const { scaleBench, printScaleBench } = await import('./bench-scale.mjs');
  printScaleBench(await scaleBench());
  process.exit(0);
}

// BENCH_ONLY=load: just the browser's PSK + PSA load (first frame, long tasks, marks, upload).
if (process.env.BENCH_ONLY === 'load') {
  execFileSync('npx', ['vite', 'build', '--outDir', join(root, 'build/bench-site'), '--emptyOutDir', '--logLevel', 'error'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (!['bench.psk', 'bench.psa'].every((f) => existsSync(join(benchDir, f)))) {
    mkdirSync(benchDir, { recursive: true });
    execFileSync(join(nativeDir, 'write_bench_inputs'), [benchDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const runs = Number(process.env.BENCH_LOAD_RUNS ?? 3);
  printLoadBench(await browserBench(join(root, 'build/bench-site'), { runs, profile: process.env.BENCH_PROFILE === '1' }));
  process.exit(0);
}

// ---- inputs ---------------------------------------------------------------------------------
mkdirSync(benchDir, { recursive: true });
const allFiles = Object.values(INPUTS).flat();
if (!allFiles.every((f) => existsSync(join(benchDir, f)))) {
  log('writing inputs into build/bench/');
  execFileSync(join(nativeDir, 'write_bench_inputs'), [benchDir], { stdio: ['ignore', 'ignore', 'inherit'] });
}
const bytesOf = Object.fromEntries(allFiles.map((f) => [f, readFileSync(join(benchDir, f))]));
const sizeOf = (key) => INPUTS[key].reduce((n, f) => n + bytesOf[f].length, 0);

// ---- native -----------------------------------------------------------------------------------
log('native decoders');
const native = JSON.parse(
  execFileSync(join(nativeDir, 'bench_native'), [benchDir, String(Math.max(RUNS, 5))], { encoding: 'utf8' }),
).inputs;

// ---- WASM in Node -----------------------------------------------------------------------------
const { default: createDecoders } = await import(join(wasmDir, 'decoders.mjs'));
const { unpackClips } = await import('../web/src/decoder/ops.js');
const wasmBinary = readFileSync(join(wasmDir, 'decoders.wasm'));
const u8 = (f) => new Uint8Array(bytesOf[f].buffer, bytesOf[f].byteOffset, bytesOf[f].length);
// Each call ends as the worker's does: with the packed clip tracks unpacked into the contract.
const CALLS = {
  psk: (M) => unpackClips(M.decodePsk(u8('bench.psk'), 'bench.psk')),
  psa: (M) => unpackClips(M.decodePsa(u8('bench.psa'), 'bench.psa', '')),
  psa_big: (M) => unpackClips(M.decodePsa(u8('bench_big.psa'), 'bench_big.psa', '')),
  ue1: (M) =>
    unpackClips(
      M.decodeUe1(u8('bench_d.3d'), 'bench_d.3d', u8('bench_a.3d'), 'bench_a.3d', bytesOf['bench.uc'].toString('latin1'), 'bench.uc'),
    ),
  pmd: (M) => unpackClips(M.decodePmd(u8('bench.pmd'), 'bench.pmd')),
  pssa: (M) => unpackClips(M.decodePssa(u8('bench_pssa.psa'), 'bench_pssa.psa')),
  psg: (M) => unpackClips(M.decodePsg(u8('bench.psg'), 'bench.psg')),
};
const heapBytes = (M) => (M.HEAP8 ?? M.wasmMemory?.buffer)?.length ?? M.HEAP8.byteLength;

// memcpy of the same bytes inside the module: (copyBytes(x, 1 + R) - copyBytes(x, 1)) / R removes
// the copy into the heap and the allocation from the per-copy figure.
function memcpyMs(M, data) {
  const R = Math.max(8, Math.ceil(4e8 / data.length)),
    per = [];
  for (let i = 0; i < 3; i++) {
    let t = performance.now();
    M.copyBytes(data, 1);
    const one = performance.now() - t;
    t = performance.now();
    M.copyBytes(data, 1 + R);
    const many = performance.now() - t;
    per.push(Math.max(0, (many - one) / R));
  }
  return median(per);
}

// The copy out's own limit: a fresh JS ArrayBuffer of the result's size filled from the heap by one
// set(). Every decode's result must land in new JS memory (it is transferred and kept), and the
// first write to fresh pages costs far more than memcpy into memory already touched (the memcpy
// line): on this machine's virtual machine 10-100x.
function freshCopyMs(M, bytes) {
  const heap = M.HEAPU8.subarray(0, Math.min(bytes, M.HEAPU8.length)),
    per = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    new Uint8Array(heap.length).set(heap);
    per.push(performance.now() - t);
  }
  return median(per);
}

// Bytes of every typed array a decode returns: what the model is worth once it left WASM.
function outputBytes(v, seen = new Set()) {
  if (!v || typeof v !== 'object' || seen.has(v)) return 0;
  seen.add(v);
  if (ArrayBuffer.isView(v)) return v.byteLength;
  return Object.values(v).reduce((n, x) => n + outputBytes(x, seen), 0);
}

const wasm = {};
for (const key of Object.keys(INPUTS)) {
  log(`wasm ${key}`);
  const M = await createDecoders({ wasmBinary }); // fresh instance: memory peaks are per input
  const before = heapBytes(M);
  let t = performance.now();
  const first = CALLS[key](M);
  const firstMs = performance.now() - t;
  const peak = heapBytes(M);
  const times = [],
    split = { inMs: [], decodeMs: [], outMs: [] };
  for (let i = 0; i < RUNS; i++) {
    t = performance.now();
    CALLS[key](M);
    times.push(performance.now() - t);
    const last = M.lastTimings?.();
    if (last) for (const k of Object.keys(split)) split[k].push(last[k]);
  }
  const concat = INPUTS[key].length === 1 ? u8(INPUTS[key][0]) : Buffer.concat(INPUTS[key].map((f) => bytesOf[f]));
  wasm[key] = {
    bytes: sizeOf(key),
    decodeMs: median(times),
    firstMs,
    memcpyMs: memcpyMs(M, concat),
    heapBefore: before,
    heapPeak: peak,
    heapGrowth: peak - before,
    warnings: first.warnings,
    counts: first.counts,
    outputBytes: outputBytes(first),
    freshCopyMs: freshCopyMs(M, outputBytes(first)),
    // Inside the call: input copied in, the C++ decoder, the JS result built (medians; the rest of
    // decodeMs is Embind's call and unpackClips).
    split: Object.fromEntries(Object.entries(split).map(([k, v]) => [k, v.length ? median(v) : NaN])),
  };
}

// ---- browser ----------------------------------------------------------------------------------
let browser = null;
if (process.env.BENCH_SKIP_BROWSER !== '1') {
  log(`vite build -> ${FOLDER_SITE}`);
  const site = join(root, FOLDER_SITE);
  execFileSync('npx', ['vite', 'build', '--outDir', site, '--emptyOutDir', '--logLevel', 'error'], { cwd: root, stdio: 'inherit' });
  browser = await browserBench(site);
  browser.gzip = gzipSizes(site);
  browser.folder = await folderBench();
  browser.gpu = await (await import('./bench-gpu.mjs')).gpuBench({ log });
}

/** Every file under `dir`, depth first. */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/**
 * Each whole sample folder against its largest model alone (same page, same run): to its first
 * frame, and to all in place: every character of the drop drawn at its final scene place (not
 * gliding there, no mesh still uploading), timed at the frame after the first render that shows that,
 * after the drop's last assembly. A folder must cost little more than its heaviest model, measured
 * the same way. Needs ../shared/samples. A family's model files by name; a UE1 mesh takes its
 * `_a.3d` along (it draws nothing without).
 */
async function folderBench() {
  const SAMPLE_FOLDERS = {
    psk: (f) => /\.pskx?$/i.test(f),
    zeroad: (f) => /\.pmd$/i.test(f),
    vertex3d: (f) => /_d\.3d$/i.test(f),
    psg: (f) => /\.psg$/i.test(f) && !/texture/i.test(f),
  };
  const sets = Object.entries(SAMPLE_FOLDERS)
    .filter(([name]) => existsSync(join(root, '../shared/samples', name)))
    .filter(([name]) => !process.env.BENCH_FOLDERS || process.env.BENCH_FOLDERS.split(',').includes(name))
    .map(([name, isModel]) => {
      const files = walk(join(root, '../shared/samples', name));
      const largest = files.filter(isModel).reduce((a, f) => (statSync(f).size > statSync(a).size ? f : a));
      const companion = largest.replace(/_d\.3d$/i, '_a.3d');
      const model = companion !== largest && existsSync(companion) ? [largest, companion] : [largest];
      return { name, files, largest, model };
    });
  if (!sets.length) return null;
  const { startServer } = await import('../tests/e2e/server.js');
  const { launchChromium } = await import('../web/cli/chromium.js');
  const { server, url } = await startServer(0, { site: FOLDER_SITE });
  const b = await launchChromium();
  const once = async (paths) => {
    const page = await b.newPage({ viewport: { width: 960, height: 640 } });
    await page.addInitScript(() => {
      window.__longtasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longtasks.push(e);
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`${url}/?demo=0`);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
    await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      // First frame: the first character is on screen (the frame after the first render that
      // draws one). In place: after the drop's last assembly, a render with every character in
      // the view, at its scene offset (not on its way there) and no mesh uploading; on screen at
      // the next frame (the camera may still glide to its framing). A later assembly starts the wait again.
      const B = (window.__bench = { t0: performance.now(), tFrame: 0, tInPlace: 0, assembled: 0, waiting: false });
      const atPlace = (c) => !c.scene?.offset || c.root.position.toArray().every((v, k) => Math.abs(v - c.scene.offset[k]) < 1e-6);
      const inPlace = () =>
        B.assembled > 0 &&
        app.characters.length > 0 &&
        !viewer.uploads.pending &&
        app.characters.every((c) => viewer.characters.includes(c) && atPlace(c));
      const assemble = app._assemble.bind(app);
      app._assemble = async (...args) => {
        B.assembled = 0;
        B.tInPlace = 0;
        const r = await assemble(...args);
        B.assembled = performance.now();
        viewer.requestRender(); // a still scene draws only on change: one more render to see it in place
        return r;
      };
      const render = viewer.render.bind(viewer);
      viewer.render = () => {
        render();
        if (!B.tFrame && viewer.characters.length && viewer.renderer.info.render.triangles > 0)
          requestAnimationFrame(() => {
            B.tFrame ||= performance.now();
          });
        if (!B.tInPlace && !B.waiting && inPlace()) {
          B.waiting = true;
          const since = B.assembled;
          requestAnimationFrame(() => {
            B.waiting = false;
            if (B.assembled === since && inPlace()) B.tInPlace = performance.now();
            else viewer.requestRender(); // an assembly ended meanwhile: see it in a render of its own
          });
        }
      };
    });
    await page.setInputFiles('#file-input', paths);
    await page
      .waitForFunction(() => window.__bench.tFrame > 0 && window.__rigscope.app.loads > 0 && window.__bench.tInPlace > 0, null, {
        timeout: 60000,
        polling: 50,
      })
      .catch(async (err) => {
        const state = await page.evaluate(() => {
          const { app, viewer } = window.__rigscope;
          const c = app.characters.map((x) => [x.name, viewer.characters.includes(x), x.root.position.toArray(), x.scene?.offset]);
          return { bench: window.__bench, loads: app.loads, glides: viewer.glides.active, pending: viewer.uploads.pending, characters: c };
        });
        throw new Error(`${paths.length} files never all in place: ${JSON.stringify(state)}`, { cause: err });
      });
    await page.waitForTimeout(100); // a long task that ended the load is reported after it
    const ms = await page.evaluate(() => {
      const B = window.__bench;
      const tasks = window.__longtasks.filter((t) => t.startTime + t.duration >= B.t0 && t.startTime <= B.tInPlace);
      return { first: B.tFrame - B.t0, inPlace: B.tInPlace - B.t0, longest: tasks.reduce((m, t) => Math.max(m, t.duration), 0) };
    });
    await page.close();
    return ms;
  };
  const runs = Number(process.env.BENCH_FOLDER_RUNS ?? 3);
  const results = [];
  try {
    for (const set of sets) {
      const folder = [],
        largest = [];
      for (let run = 0; run < runs; run++) {
        log(`chromium: samples/${set.name} folder against its largest model, run ${run + 1}/${runs}`);
        largest.push(await once(set.model));
        folder.push(await once(set.files));
      }
      const mid = (list, k) => median(list.map((r) => r[k]));
      results.push({
        name: set.name,
        files: set.files.length,
        largest: set.largest.split('/').pop(),
        folderMs: mid(folder, 'first'),
        largestMs: mid(largest, 'first'),
        wholeMs: mid(folder, 'inPlace'),
        largestInPlaceMs: mid(largest, 'inPlace'),
        // Per run, so a ratio compares a folder with the largest model loaded just before it.
        inPlaceRatios: folder.map((r, i) => r.inPlace / largest[i].inPlace),
        longestTaskMs: Math.max(...folder.map((r) => r.longest)),
      });
    }
  } finally {
    await b.close();
    server.close();
  }
  return results;
}

/** A folder's line: first frame, all in place against its largest model alone, the 1.5x target. */
function folderLine(f) {
  const ratio = f.wholeMs / f.largestInPlaceMs;
  return (
    `samples/${f.name} (${f.files} files): first frame ${f.folderMs.toFixed(0)} ms (${f.largest} alone ${f.largestMs.toFixed(0)} ms, ` +
    `${(f.folderMs / f.largestMs).toFixed(2)}x); all in place ${f.wholeMs.toFixed(0)} ms against ${f.largestInPlaceMs.toFixed(0)} ms alone = ` +
    `${ratio.toFixed(2)}x (runs ${f.inPlaceRatios.map((r) => r.toFixed(2)).join(', ')}) target 1.5x: ${ratio <= 1.5 ? 'PASS' : 'MISS'}; ` +
    `longest task ${f.longestTaskMs.toFixed(0)} ms: ${f.longestTaskMs <= 50 ? 'PASS' : 'MISS'}`
  );
}

async function browserBench(site, { runs: count = 3, profile = false } = {}) {
  const { startServer } = await import('../tests/e2e/server.js');
  const { launchChromium } = await import('../web/cli/chromium.js');
  const { server, url } = await startServer(0, { site: 'build/bench-site/' });
  const b = await launchChromium();
  const runs = [];
  try {
    for (let run = 0; run < count; run++) {
      log(`chromium: PSK + PSA load, run ${run + 1}/${count}`);
      const page = await b.newPage({ viewport: { width: 960, height: 640 } });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.addInitScript(() => {
        window.__longtasks = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__longtasks.push({ start: e.startTime, duration: e.duration });
        }).observe({ type: 'longtask', buffered: true });
      });
      await page.goto(`${url}/?demo=0`);
      await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
      // Instrument: when decodes resolve, how long building, framing and the first render take.
      await page.evaluate(() => {
        const { app, viewer } = window.__rigscope;
        const B = (window.__bench = { marks: [], t0: 0, tRender: 0, tFrame: 0, renderMs: 0 });
        const mark = (name, extra = {}) => B.marks.push({ name, t: performance.now(), ...extra });
        const call = app.decoder.call.bind(app.decoder);
        app.decoder.call = async (op, args, o) => {
          const r = await call(op, args, o);
          mark(`decoded ${op}`, { workerMs: r?.decodeMs });
          return r;
        };
        const add = viewer.add.bind(viewer);
        viewer.add = (c) => {
          mark('character built');
          const t = performance.now();
          add(c);
          mark('viewer.add', { ms: performance.now() - t });
        };
        const frameAll = viewer.frameAll.bind(viewer);
        viewer.frameAll = () => {
          const t = performance.now();
          frameAll();
          mark('frameAll', { ms: performance.now() - t });
        };
        const render = viewer.render.bind(viewer);
        viewer.render = () => {
          const t = performance.now();
          render();
          if (!B.tRender && B.t0 && app.characters.length && viewer.renderer.info.render.triangles > 0) {
            B.tRender = performance.now();
            B.renderMs = B.tRender - t;
            mark('first render with the mesh', { ms: B.renderMs });
            // The frame is on screen when the next frame starts.
            requestAnimationFrame(() => {
              B.tFrame = performance.now();
              mark('next frame');
            });
          }
        };
        // A resize during the load costs a new drawing buffer (a wait for the GPU process).
        const resize = viewer.resize.bind(viewer);
        viewer.resize = () => {
          const t = performance.now();
          resize();
          mark(`resize ${viewer.container.clientWidth}x${viewer.container.clientHeight}`, { ms: performance.now() - t });
        };
        viewer.uploads.trace = [];
        window.__longtasks.length = 0;
        B.t0 = performance.now();
      });
      const cdp = profile ? await page.context().newCDPSession(page) : null;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
        await cdp.send('Profiler.start');
      }
      await page.setInputFiles('#file-input', [join(benchDir, 'bench.psk'), join(benchDir, 'bench.psa')]);
      await page.waitForFunction(() => window.__bench.tFrame > 0, null, { timeout: 180000, polling: 50 });
      await page.waitForTimeout(300); // let a long task that ended the load be reported
      const cpu = cdp ? (await cdp.send('Profiler.stop')).profile : null;
      const r = await page.evaluate(() => {
        const B = window.__bench;
        const tasks = window.__longtasks.filter((t) => t.start + t.duration >= B.t0 && t.start <= B.tFrame);
        return {
          firstFrameMs: B.tFrame - B.t0,
          firstRenderCallMs: B.renderMs,
          longestTaskMs: tasks.reduce((m, t) => Math.max(m, t.duration), 0),
          longTasks: tasks.map((t) => ({ at: Math.round(t.start - B.t0), ms: Math.round(t.duration) })),
          marks: B.marks.map((m) => ({ ...m, t: Math.round(m.t - B.t0) })),
          characters: window.__rigscope.app.characters.length,
          clips: window.__rigscope.clipNames().length,
          upload: { ...window.__rigscope.viewer.uploads.stats },
          // Each frame that sent slices: ms after t0, MB sent, ms its slices took, the slowest slice, frames it waited for the GPU process.
          uploadFrames: (window.__rigscope.viewer.uploads.trace ?? []).map((f) => [
            Math.round(f.at - B.t0),
            +(f.bytes / 1048576).toFixed(2),
            +f.ms.toFixed(1),
            +f.slowest.toFixed(1),
            f.waited,
          ]),
        };
      });
      if (cpu) r.busy = (await import('./bench-scale.mjs')).busyStretches(cpu, 50, 12);
      r.pixels = (await page.evaluate(() => window.__rigscope.pixels())).count;
      r.errors = errors;
      runs.push(r);
      await page.close();
    }
  } finally {
    await b.close();
    server.close();
  }
  const pick = runs.map((r) => r.firstFrameMs);
  const mid = runs[pick.indexOf(median(pick))] ?? runs[0];
  return { runs, firstFrameMs: median(pick), longestTaskMs: median(runs.map((r) => r.longestTaskMs)), median: mid };
}

/** Every run of the PSK + PSA load: first frame, longest task, marks, long tasks, upload counts. */
function printLoadBench(b) {
  for (const [i, r] of b.runs.entries()) {
    console.log(
      `run ${i + 1}: first frame ${r.firstFrameMs.toFixed(0)} ms, longest task ${r.longestTaskMs.toFixed(0)} ms, ${r.pixels} pixels drawn, errors ${JSON.stringify(r.errors)}`,
    );
    console.log(
      '  marks:',
      r.marks
        .map(
          (m) =>
            `${m.name} @${m.t}${m.ms !== undefined ? ` (${Math.round(m.ms)} ms)` : ''}${m.workerMs !== undefined ? ` (worker ${Math.round(m.workerMs)} ms)` : ''}`,
        )
        .join('; '),
    );
    console.log('  long tasks:', JSON.stringify(r.longTasks));
    console.log('  upload:', JSON.stringify(r.upload));
    console.log('  upload frames [at, MB, ms, slowest slice ms, frames waited]:', JSON.stringify(r.uploadFrames));
    for (const x of r.busy ?? [])
      console.log(`  busy @${x.at} ${x.ms} ms\n    self: ${x.self.join('; ')}\n    incl: ${x.inclusive.join('; ')}`);
  }
  console.log(
    `median of ${b.runs.length}: first frame ${b.firstFrameMs.toFixed(0)} ms, longest main-thread block ${b.longestTaskMs.toFixed(0)} ms`,
  );
}

function gzipSizes(site) {
  const assets = join(site, 'assets');
  const files = readdirSync(assets);
  const gz = (names) => names.reduce((n, f) => n + gzipSync(readFileSync(join(assets, f)), { level: 9 }).length, 0);
  const html = readFileSync(join(site, 'index.html'), 'utf8');
  const pageJs = [...html.matchAll(/(?:src|href)="\.\/assets\/([^"]+\.js)"/g)].map((m) => m[1]);
  return {
    wasm: gz(files.filter((f) => f.endsWith('.wasm'))),
    worker: gz(files.filter((f) => /^worker.*\.js$/.test(f))),
    page: gz([...new Set(pageJs)]),
    pageFiles: [...new Set(pageJs)],
  };
}

// ---- table ------------------------------------------------------------------------------------
const rows = [];
const targets = [];
const fmt = (x, d = 1) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(d));
for (const key of Object.keys(INPUTS)) {
  const w = wasm[key],
    n = native[key];
  const mbs = (ms) => mb(w.bytes) / (ms / 1000);
  rows.push({
    input: LABEL[key],
    MB: fmt(mb(w.bytes), 1),
    'wasm MB/s': fmt(mbs(w.decodeMs), 0),
    'native MB/s': fmt(n.decodeMBps, 0),
    'memcpy MB/s': fmt(mbs(w.memcpyMs), 0),
    'wasm/native': fmt(w.decodeMs / n.decodeMs, 2),
    'decode/memcpy': fmt(w.decodeMs / w.memcpyMs, 1),
    'peak mem/input': fmt(w.heapGrowth / w.bytes, 2),
    'peak mem/output': fmt(w.heapGrowth / w.outputBytes, 2),
    'C++ in WASM/native': fmt(w.split.decodeMs / n.decodeMs, 2),
    'in+out/memcpy': fmt((w.split.inMs + w.split.outMs) / w.memcpyMs, 1),
    'C++ in WASM/memcpy': fmt(w.split.decodeMs / w.memcpyMs, 1),
    'out/fresh JS copy': fmt(w.split.outMs / w.freshCopyMs, 2),
  });
  w.nativeMs = n.decodeMs;
  w.ratioNative = w.decodeMs / n.decodeMs;
  w.ratioMemcpy = w.decodeMs / w.memcpyMs;
  w.peakRatio = w.heapGrowth / w.bytes;
  targets.push({ target: `${key}: WASM <= 1.5x native`, value: `${fmt(w.ratioNative, 2)}x`, pass: w.ratioNative <= 1.5 });
  targets.push({ target: `${key}: peak WASM memory <= 3x input`, value: `${fmt(w.peakRatio, 2)}x`, pass: w.peakRatio <= 3 });
}
targets.push({
  target: 'UE1: peak WASM memory <= 3x its output',
  value: `${fmt(wasm.ue1.heapGrowth / wasm.ue1.outputBytes, 2)}x`,
  pass: wasm.ue1.heapGrowth / wasm.ue1.outputBytes <= 3,
});
targets.push({ target: 'PSA (52.8 MB) <= 3x memcpy', value: `${fmt(wasm.psa_big.ratioMemcpy, 2)}x`, pass: wasm.psa_big.ratioMemcpy <= 3 });
targets.push({
  target: 'PSK incl. normals + weight limiting <= 6x memcpy',
  value: `${fmt(wasm.psk.ratioMemcpy, 2)}x`,
  pass: wasm.psk.ratioMemcpy <= 6,
});
if (browser) {
  // The first large decode in Chromium's worker against the first in Node (both a fresh module):
  // V8 starts WebAssembly in its baseline tier, and a call already running is not moved to the
  // optimised code, so one long first call runs on baseline code in the page.
  const pskMark = browser.median.marks.find((m) => /decoded decodePsk/.test(m.name));
  if (pskMark?.workerMs) {
    browser.firstPskRatio = pskMark.workerMs / wasm.psk.firstMs;
    targets.push({
      target: 'info: Chromium first PSK decode / Node first',
      value: `${fmt(pskMark.workerMs, 0)} / ${fmt(wasm.psk.firstMs, 0)} ms = ${fmt(browser.firstPskRatio, 2)}x`,
      pass: true,
    });
  }
  targets.push({
    target: 'no main-thread block over 50 ms (PSK + PSA load)',
    value: `${fmt(browser.longestTaskMs, 0)} ms`,
    pass: browser.longestTaskMs <= 50,
  });
  targets.push({
    target: 'first frame of PSK + PSA <= 2 s',
    value: `${fmt(browser.firstFrameMs, 0)} ms`,
    pass: browser.firstFrameMs <= 2000,
  });
  targets.push({ target: '.wasm < 150 KB gzipped', value: `${fmt(browser.gzip.wasm / 1024, 1)} KB`, pass: browser.gzip.wasm < 150 * 1024 });
  for (const f of browser.folder ?? []) {
    const ratio = f.folderMs / f.largestMs;
    targets.push({
      target: `samples/${f.name} folder (${f.files} files) to first frame <= 1.5x its largest model (${f.largest})`,
      value: `${fmt(f.folderMs, 0)} / ${fmt(f.largestMs, 0)} ms = ${fmt(ratio, 2)}x`,
      pass: ratio <= 1.5,
    });
    targets.push({
      target: `samples/${f.name} folder, every character in place <= 1.5x its largest model in place alone`,
      value: `${fmt(f.wholeMs, 0)} / ${fmt(f.largestInPlaceMs, 0)} ms = ${fmt(f.wholeMs / f.largestInPlaceMs, 2)}x`,
      pass: f.wholeMs / f.largestInPlaceMs <= 1.5,
    });
  }
}

// `rigscope export` over a synthetic tree (files/s with one and every core, memory, linearity).
let exportResult = null;
if (!process.env.BENCH_SKIP_EXPORT) {
  const { exportBench } = await import('./bench-export.mjs');
  exportResult = exportBench();
  targets.push(...exportResult.targets);
}

// The viewer at scale: a 2,000-file drop, memory after it, drop and Clear (scripts/bench-scale.mjs).
let scaleResult = null;
if (browser && !process.env.BENCH_SKIP_SCALE) {
  const { scaleBench } = await import('./bench-scale.mjs');
  scaleResult = await scaleBench();
  targets.push(...scaleResult.targets);
}

// Fixed cost per file: decode, then build, for every sample model; PSKLoader end to end.
const { filesBench, printFilesBench } = await import('./bench-files.mjs');
log('fixed cost per file (sample models)');
const filesResult = await filesBench({ log });
targets.push(...(filesResult?.targets ?? []));

// PSKLoader against the plain-JS peer (scripts/bench-peer.mjs; says so when BENCH_PEER_PSK is not set).
const { peerBench, printPeerBench } = await import('./bench-peer.mjs');
log('PSKLoader against the plain-JS peer');
const peerResult = await peerBench({ log });
if (!('skipped' in peerResult)) targets.push(...peerResult.targets);

// UE1 packages: tables read, a package's mesh on screen against its loose files (scripts/bench-package.mjs).
const packageResult = browser ? await (await import('./bench-package.mjs')).packageBench({ log }) : null;
targets.push(...(packageResult?.targets ?? []));

console.log('\nDecoding (same bytes, one run; MB = 1e6 bytes, medians)');
console.table(rows);
console.log('Targets');
console.table(targets.map((t) => ({ ...t, pass: t.pass ? 'pass' : 'MISS' })));
if (browser) {
  const g = browser.gzip;
  console.log(`gzipped: .wasm ${fmt(g.wasm / 1024)} KB, worker ${fmt(g.worker / 1024)} KB, page ${fmt(g.page / 1024)} KB`);
  console.log(
    `browser (median of ${browser.runs.length}): first frame ${fmt(browser.firstFrameMs, 0)} ms, longest main-thread block ${fmt(browser.longestTaskMs, 0)} ms`,
  );
  console.log(
    '  marks (ms after the files were chosen):',
    browser.median.marks
      .map(
        (m) =>
          `${m.name} @${m.t}${m.ms !== undefined ? ` (${Math.round(m.ms)} ms)` : ''}${m.workerMs !== undefined ? ` (worker ${Math.round(m.workerMs)} ms)` : ''}`,
      )
      .join('; '),
  );
  console.log('  long tasks:', JSON.stringify(browser.median.longTasks));
  (await import('./bench-gpu.mjs')).printGpuBench(browser.gpu);
}

if (exportResult) {
  console.log('rigscope export over a synthetic tree');
  console.table(exportResult.rows);
}
printFilesBench(filesResult, { targets: false });
printPeerBench(peerResult);
if (scaleResult) (await import('./bench-scale.mjs')).printScaleBench(scaleResult, { targets: false });
if (packageResult) (await import('./bench-package.mjs')).printPackageBench(packageResult);

const results = {
  date: new Date().toISOString(),
  cores: (await import('node:os')).cpus().length,
  runs: RUNS,
  rows,
  targets,
  wasm,
  native,
  browser,
  export: exportResult?.raw,
  files: filesResult?.raw,
  peer: 'skipped' in peerResult ? { skipped: peerResult.skipped } : peerResult.raw,
  scale: scaleResult?.raw,
  package: packageResult,
};
writeFileSync(join(benchDir, 'results.json'), JSON.stringify(results, null, 2));
console.log(`\nwrote ${join('build/bench', 'results.json')}`);
