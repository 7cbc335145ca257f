// A consumer of the published package: `npm pack`, the tarball installed into a fresh app in a
// temporary folder (its own package.json, `three` at the version this repo uses), built with
// Vite, then a PSK + PSA pair loaded in Chromium through the loaders and through
// <rigscope-viewer>, and in plain Node through the same loaders.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { launch } from '../e2e/browser.js';

const root = new URL('../..', import.meta.url).pathname;
const here = new URL('./app/', import.meta.url).pathname;
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

let app, server, base, browser;

function sh(cmd, args, cwd) {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' } });
}

beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), 'rigscope-consumer-'));
  const [packed] = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', app], root));
  const three = JSON.parse(readFileSync(`${root}node_modules/three/package.json`, 'utf8')).version;
  writeFileSync(join(app, 'package.json'), JSON.stringify({
    name: 'rigscope-consumer', private: true, type: 'module',
    dependencies: { rigscope: `file:./${packed.filename}`, three },
  }, null, 2));
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], app);
  cpSync(here, app, { recursive: true });
  mkdirSync(join(app, 'public'));
  for (const f of ['two_bone.psk', 'two_bone.psa']) cpSync(`${root}build/fixtures/${f}`, join(app, 'public', f));
  // The repo's Vite builds the app; everything the app imports resolves from the app's own node_modules.
  sh(process.execPath, [`${root}node_modules/vite/bin/vite.js`, 'build', '--logLevel', 'error'], app);
  // The README's recipe for bundlers that do not bundle workers: the decoder in a folder of its own.
  sh(`${root}node_modules/.bin/esbuild`, ['node_modules/rigscope/web/src/decoder/worker.js', '--bundle', '--format=esm', '--log-level=error', '--outfile=dist/rigscope/worker.js'], app);
  cpSync(join(app, 'node_modules/rigscope/build/wasm/decoders.wasm'), join(app, 'dist/rigscope/decoders.wasm'));

  const dist = join(app, 'dist');
  server = createServer((req, res) => {
    const rel = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dist, rel);
    if (!existsSync(file) || statSync(file).isDirectory()) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  server?.close();
  if (app) rmSync(app, { recursive: true, force: true });
});

async function resultOf(path) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/${path}`);
  await page.waitForFunction(() => window.result, null, { timeout: 60000 });
  const result = await page.evaluate(() => window.result);
  const workers = page.workers().map((w) => new URL(w.url()).pathname);
  await page.close();
  return { result, errors, workers };
}

describe('the packed package in a fresh Vite app', () => {
  it('installs with three as a peer and only its own files', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/rigscope/package.json'), 'utf8'));
    expect(pkg.peerDependencies.three).toBeDefined();
    expect(pkg.dependencies?.three).toBeUndefined();
    expect(existsSync(join(app, 'node_modules/rigscope/build/wasm/decoders.wasm'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/rigscope/tests'))).toBe(false);
  });

  it('loads a PSK + PSA through the loaders in Chromium', async () => {
    const { result, errors } = await resultOf('index.html');
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({
      events: ['mesh', 'manager'], animations: ['Bend'], bound: ['Bend'],
      disposed: 'Decoder pool disposed', other: 'two_bone.psk',
    });
    expect(result.bend).toBeGreaterThan(0.5);
    expect(result.same).toBeLessThan(1e-5);
    expect(result.lit).toBeGreaterThan(200);
    expect(errors).toEqual([]);
  });

  it('shows the pair in <rigscope-viewer> at the clip and frame its attributes name', async () => {
    const { result, errors } = await resultOf('element.html');
    expect(result.error).toBeUndefined();
    expect(result.clips).toEqual(['Bend']);
    expect(result.snapshot.characters).toEqual([expect.objectContaining({ name: 'two_bone.psk', clip: 'Bend', frame: 2, playing: false })]);
    expect(result.pixels).toBeGreaterThan(300);
    expect(errors).toEqual([]);
  });

  it('setDecoderPath(): decodes with the worker.js and decoders.wasm of that folder', async () => {
    const { result, errors, workers } = await resultOf('decoder-path.html');
    expect(result).toEqual({ animations: ['Bend'] });
    expect(workers).toEqual(['/rigscope/worker.js']);
    expect(errors).toEqual([]);
  });

  it('runs the same loaders in plain Node, and exports the Node decoder host', () => {
    const out = JSON.parse(sh(process.execPath, ['node-check.mjs'], app));
    expect(out).toMatchObject({ animations: ['Bend'], bound: ['Bend'], detected: 'psk' });
    expect(out.bend).toBeGreaterThan(0.5);
  });
});
