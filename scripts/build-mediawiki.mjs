#!/usr/bin/env node
// Copies the built player into the MediaWiki extension, so integrations/mediawiki/Rigscope/ is a
// complete extension folder: rigscope-viewer.js and every file it reaches (its chunks, the decoder
// worker and the .wasm), at the same relative paths, under resources/player/ (gitignored).
//
//   node scripts/build-mediawiki.mjs [SITE_DIR] [--out DIR]
//
// SITE_DIR is a `vite build` output (dist/ by default). Run by `npm run build` after vite build,
// and by the e2e test with its own site.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The files `entry` reaches inside `site`: every asset whose name appears in a reached script. */
export function playerFiles(site, entry = 'rigscope-viewer.js') {
  const assets = readdirSync(join(site, 'assets')).filter((f) => statSync(join(site, 'assets', f)).isFile());
  const reached = new Set([entry]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift();
    if (!/\.m?js$/.test(file)) continue;
    const text = readFileSync(join(site, file), 'utf8');
    for (const asset of assets) {
      const path = `assets/${asset}`;
      if (!reached.has(path) && text.includes(asset)) {
        reached.add(path);
        queue.push(path);
      }
    }
  }
  return [...reached].sort();
}

export function buildMediaWiki(site = join(root, 'dist'), out = join(root, 'integrations/mediawiki/Rigscope/resources/player')) {
  if (!existsSync(join(site, 'rigscope-viewer.js'))) throw new Error(`${site}: no rigscope-viewer.js (run vite build first)`);
  const files = playerFiles(site);
  if (!files.some((f) => f.endsWith('.wasm'))) throw new Error(`${site}: the player reaches no .wasm; is the build complete?`);
  rmSync(out, { recursive: true, force: true });
  for (const f of files) {
    mkdirSync(dirname(join(out, f)), { recursive: true });
    cpSync(join(site, f), join(out, f));
  }
  return { out, files, bytes: files.reduce((n, f) => n + statSync(join(out, f)).size, 0) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--out');
  const out = at >= 0 ? resolve(args.splice(at, 2)[1]) : undefined;
  const { files, bytes } = buildMediaWiki(args[0] ? resolve(args[0]) : undefined, out);
  console.log(
    `mediawiki: ${files.length} player files (${(bytes / 1024).toFixed(0)} KiB) in ${relative(root, out ?? join(root, 'integrations/mediawiki/Rigscope/resources/player'))}`,
  );
}
