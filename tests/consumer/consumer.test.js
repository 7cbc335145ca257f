// A consumer of the published package: `npm pack`, the tarball installed into a fresh app in a
// temporary folder (its own package.json, `three` at the version this repo uses), then the same
// app pages built or served by each bundler exactly as the README shows — a Vite build, the Vite
// dev server, webpack 5 and esbuild — and opened in Chromium: a PSK + PSA pair through the loaders
// and one model of every other family, each drawn, and one <rigscope-viewer> per family. Plain
// Node runs the same loaders (in this thread and in worker_threads). Each app is built once; the
// bundlers run from this repository's devDependencies (no network beyond the npm cache).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { launch } from '../e2e/browser.js';

const root = new URL('../..', import.meta.url).pathname;
const here = new URL('./app/', import.meta.url).pathname;
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
/** Every family's fixture the pages load (made by the project's writers). */
const FIXTURES = [
  'two_bone.psk',
  'two_bone.psa',
  'arm.pmd',
  'arm_wave.psa',
  'flag_d.3d',
  'flag_a.3d',
  'flag.uc',
  'flag.pcx',
  'skinned_box.psg',
  'box_textures.psg',
];
const PAGES = ['index.html', 'element.html'];

let app, browser, devServer;
const servers = [];
/** Where each bundler's app is served. */
const bases = {};

function sh(cmd, args, cwd) {
  return execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' },
  });
}

/** `sh` without holding the thread: several builds run side by side. Rejects with the command's stderr. */
function shAsync(cmd, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

/** A static server of one folder (what any web host does with a build). */
async function serve(dir) {
  const server = createServer((req, res) => {
    const rel = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, rel);
    if (!existsSync(file) || statSync(file).isDirectory()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  servers.push(server);
  return `http://127.0.0.1:${server.address().port}`;
}

/** The app's pages and fixtures copied into a build's output folder. */
function copyPages(out, rewrite = (html) => html) {
  for (const page of PAGES) writeFileSync(join(out, page), rewrite(readFileSync(join(app, page), 'utf8')));
  for (const f of FIXTURES) cpSync(join(app, 'public', f), join(out, f));
}

/** `vite` in the app folder, on a free port, until it answers. */
async function startViteDev() {
  const probe = createServer();
  await new Promise((ok) => probe.listen(0, '127.0.0.1', ok));
  const port = probe.address().port;
  await new Promise((ok) => probe.close(ok));
  devServer = spawn(
    process.execPath,
    [`${root}node_modules/vite/bin/vite.js`, '--port', String(port), '--strictPort', '--host', '127.0.0.1', '--logLevel', 'error'],
    { cwd: app, stdio: 'ignore' },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; tries < 600; tries++) {
    if (
      await fetch(`${base}/index.html`).then(
        (r) => r.ok,
        () => false,
      )
    ) {
      bases['vite dev'] = base;
      return;
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error('the Vite dev server did not answer');
}

beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), 'rigscope-consumer-'));
  // Under build.sh's lock: a rebuild in progress would pack a .wasm and its glue from two builds.
  const [packed] = JSON.parse(sh('flock', [`${root}build/.build.lock`, 'npm', 'pack', '--json', '--pack-destination', app], root));
  const three = JSON.parse(readFileSync(`${root}node_modules/three/package.json`, 'utf8')).version;
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'rigscope-consumer',
        private: true,
        type: 'module',
        dependencies: { rigscope: `file:./${packed.filename}`, three },
      },
      null,
      2,
    ),
  );
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], app);
  cpSync(here, app, { recursive: true });
  mkdirSync(join(app, 'public'));
  for (const f of FIXTURES) cpSync(`${root}build/fixtures/${f}`, join(app, 'public', f));

  // The bundlers are independent: each builds its own output folder at the same time as the others.
  await Promise.all([viteBuild(), webpackBuild(), esbuildBuild(), startViteDev(), launch().then((b) => (browser = b))]);
});

/** Vite build: `vite build`, nothing else; plus the README's decoder folder for setDecoderPath() (decoder-path.html). */
async function viteBuild() {
  await shAsync(process.execPath, [`${root}node_modules/vite/bin/vite.js`, 'build', '--logLevel', 'error'], app);
  await esbuildWorker('dist/rigscope/worker.js');
  cpSync(join(app, 'node_modules/rigscope/build/wasm/decoders.wasm'), join(app, 'dist/rigscope/decoders.wasm'));
  bases['vite build'] = await serve(join(app, 'dist'));
}

/** webpack 5: `webpack` with the app's entries and output (webpack.config.js), classic scripts. */
async function webpackBuild() {
  await shAsync(process.execPath, [`${root}node_modules/webpack-cli/bin/cli.js`], app);
  copyPages(join(app, 'dist-webpack'), (html) => html.replace(/<script type="module" src=/g, '<script defer src='));
  bases['webpack 5'] = await serve(join(app, 'dist-webpack'));
}

/** esbuild: the app bundled, plus the README's two lines: the decoder worker and its .wasm beside it. */
async function esbuildBuild() {
  await shAsync(
    `${root}node_modules/.bin/esbuild`,
    ['loaders.js', 'element.js', '--bundle', '--format=esm', '--log-level=error', '--outdir=dist-esbuild'],
    app,
  );
  await esbuildWorker('dist-esbuild/worker.js');
  cpSync(join(app, 'node_modules/rigscope/build/wasm/decoders.wasm'), join(app, 'dist-esbuild/decoders.wasm'));
  copyPages(join(app, 'dist-esbuild'));
  bases.esbuild = await serve(join(app, 'dist-esbuild'));
}

/** The package's decoder worker bundled on its own, as the README shows. */
const esbuildWorker = (outfile) =>
  shAsync(
    `${root}node_modules/.bin/esbuild`,
    ['node_modules/rigscope/web/src/decoder/worker.js', '--bundle', '--format=esm', '--log-level=error', `--outfile=${outfile}`],
    app,
  );

afterAll(async () => {
  await browser?.close();
  for (const s of servers) s.close();
  devServer?.kill();
  if (app) rmSync(app, { recursive: true, force: true });
});

/**
 * Requests each running decoder worker answers from now on, counted in the worker: its page's
 * `window.more()` then loads more small files, and the counts are read.
 */
async function workerRequestsDuring(page, run) {
  const count = () =>
    Promise.all(
      page.workers().map((w) =>
        w.evaluate(() => {
          if (self.__requests === undefined) {
            const serve = self.onmessage;
            self.__requests = 0;
            self.onmessage = (e) => {
              if (e.data?.id) self.__requests++;
              return serve.call(self, e);
            };
          }
          return self.__requests;
        }),
      ),
    );
  const before = (await count()).reduce((a, b) => a + b, 0);
  const value = await page.evaluate(run);
  return { value, requests: (await count()).reduce((a, b) => a + b, 0) - before };
}

async function resultOf(base, path, { more = false } = {}) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/GPU stall|favicon|ReadPixels/.test(m.text())) errors.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
  });
  // Fetches of the decoder module, by the page or its workers: a worker that was given the
  // compiled module by the page fetches and compiles nothing.
  let wasmFetches = 0,
    workersStarted = 0;
  page.on('worker', () => workersStarted++);
  page.on('request', (r) => {
    if (/\.wasm$/.test(new URL(r.url()).pathname)) wasmFetches++;
  });
  await page.goto(`${base}/${path}`);
  await page.waitForFunction(() => window.result, null, { timeout: 90000 });
  const result = await page.evaluate(() => window.result);
  const workers = page.workers().map((w) => w.url());
  const started = workersStarted;
  const later = more ? { ...(await workerRequestsDuring(page, () => window.more())), workersStarted: workersStarted - started } : null;
  await page.close();
  // A failed favicon fetch is logged without its URL; anything else that failed is named above.
  return {
    result,
    errors: errors.filter((e) => !/^Failed to load resource/.test(e)),
    workers,
    wasmFetches,
    workersStarted: started,
    later,
  };
}

describe('the packed package', () => {
  it('installs with three as a peer and only its own files', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/rigscope/package.json'), 'utf8'));
    expect(pkg.peerDependencies.three).toBeDefined();
    expect(pkg.dependencies?.three).toBeUndefined();
    expect(existsSync(join(app, 'node_modules/rigscope/build/wasm/decoders.wasm'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/rigscope/tests'))).toBe(false);
    expect(readFileSync(join(app, 'vite.config.mjs'), 'utf8')).not.toMatch(/optimizeDeps|rigscope/);
  });
});

/** Where each bundler's decoder worker comes from: its own worker chunk, Vite dev's relay (optimized-deps.js), the README's file. */
const WORKERS = {
  'vite build': /^http:\/\/[^/]+\/assets\/worker-[\w-]+\.js$/,
  'vite dev': /^blob:/,
  'webpack 5': /^http:\/\/[^/]+\/[\w-]+\.js$/,
  esbuild: /^http:\/\/[^/]+\/worker\.js$/,
};

describe.each(Object.keys(WORKERS))('in a fresh %s app, in Chromium', (bundler) => {
  it('loads a PSK + PSA through the loaders, and a model of every other family, each drawn', async () => {
    const { result, errors, workers, wasmFetches, workersStarted, later } = await resultOf(bases[bundler], 'index.html', { more: true });
    expect(result.error).toBeUndefined();
    // Nine loaders, one after another and two at once: each lends its workers back once idle, so
    // the next takes one instead of starting its own (fewer workers than loaders). The first
    // worker compiles the module; the page makes an instance of that module (no second fetch)
    // and decodes small files itself from then on.
    expect(workersStarted).toBeGreaterThan(0);
    expect(workersStarted).toBeLessThan(9);
    expect(wasmFetches).toBe(1);
    expect(later).toEqual({
      value: { names: ['two_bone.psk', 'two_bone.psk', 'two_bone.psk'], bytes: expect.any(Number) },
      requests: 0,
      workersStarted: 0,
    });
    expect(result).toMatchObject({
      events: ['mesh', 'manager'],
      animations: ['Bend'],
      bound: ['Bend'],
      disposed: 'Decoder pool disposed',
      other: 'two_bone.psk',
    });
    expect(result.bend).toBeGreaterThan(0.5);
    expect(result.same).toBeLessThan(1e-5);
    expect(result.lit).toBeGreaterThan(200);
    expect(result.families).toMatchObject({
      zeroad: { name: 'arm.pmd', animations: ['arm_wave'], bound: ['arm_wave'], meshes: [['SkinnedMesh', 112]] },
      ue1: { name: 'flag_d.3d', animations: ['Still', 'Wave'], meshes: [['Mesh', 45]] },
      psg: { name: 'skinned_box.psg', animations: [], meshes: [['SkinnedMesh', 24]], textured: 1 },
    });
    for (const family of Object.values(result.families)) expect(family.lit).toBeGreaterThan(200);
    expect(workers.length).toBeGreaterThan(0);
    for (const url of workers) expect(url).toMatch(WORKERS[bundler]);
    expect(errors).toEqual([]);
  });

  it('shows every family in <rigscope-viewer> at the clip and frame its attributes name', async () => {
    const { result, errors } = await resultOf(bases[bundler], 'element.html');
    const character = (id) => result[id].snapshot?.characters;
    for (const id of ['unreal', 'zeroad', 'ue1', 'psg']) expect(result[id].error, id).toBeUndefined();
    expect(result.unreal.clips).toEqual(['Bend']);
    expect(character('unreal')).toEqual([expect.objectContaining({ name: 'two_bone.psk', clip: 'Bend', frame: 2, playing: false })]);
    expect(character('zeroad')).toEqual([expect.objectContaining({ name: 'arm.pmd', clip: 'arm_wave', frame: 3, playing: false })]);
    expect(character('ue1')).toEqual([expect.objectContaining({ name: 'flag_d.3d', clip: 'Wave', frame: 1, playing: false })]);
    expect(character('psg')).toEqual([expect.objectContaining({ name: 'skinned_box.psg', clip: null })]);
    for (const id of ['unreal', 'zeroad', 'ue1', 'psg']) expect(result[id].pixels, id).toBeGreaterThan(300);
    expect(errors).toEqual([]);
  });
});

describe('the packed package, beyond the bundlers', () => {
  it('setDecoderPath(): decodes with the worker.js and decoders.wasm of that folder', async () => {
    const { result, errors, workers } = await resultOf(bases['vite build'], 'decoder-path.html');
    expect(result).toEqual({ animations: ['Bend'] });
    expect(workers.map((w) => new URL(w).pathname)).toEqual(['/rigscope/worker.js']);
    expect(errors).toEqual([]);
  });

  it("in Vite dev, the decoder runs from the package's own worker.js (pre-bundled, not excluded)", async () => {
    const metadata = JSON.parse(readFileSync(join(app, 'node_modules/.vite/deps/_metadata.json'), 'utf8'));
    expect(Object.keys(metadata.optimized)).toEqual(expect.arrayContaining(['rigscope', 'rigscope/viewer']));
    const worker = await fetch(`${bases['vite dev']}/node_modules/rigscope/web/src/decoder/worker.js`);
    expect(worker.ok).toBe(true);
  });

  it('runs the same loaders in plain Node, in this thread and in worker_threads, and exports the Node decoder host', () => {
    const out = JSON.parse(sh(process.execPath, ['node-check.mjs'], app));
    expect(out).toMatchObject({ animations: ['Bend'], bound: ['Bend'], detected: 'psk', sameInThreads: 1, threadedAnimations: ['Bend'] });
    expect(out.threads).toBeGreaterThan(0);
    expect(out.bend).toBeGreaterThan(0.5);
  });
});
