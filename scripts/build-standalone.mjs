#!/usr/bin/env node
// Builds the standalone page's template: one HTML file holding the player (the element, bundled
// as one classic script), the decoder worker's source and the WASM (deflated, base64). *Save
// page* (fetched from the site as rigscope-page.html) and `rigscope page` (read from
// build/standalone/) append one <script id="rigscope-pack"> with the scene to it.
//
//   node scripts/build-standalone.mjs      writes build/standalone/rigscope-page.html, prints its size
//
// Everything is inline because a page opened from file:// may fetch nothing; the scripts are
// classic (IIFE) because module scripts and workers are refused there.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { deflateSync } from 'fflate';
import { build } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
export const TEMPLATE_PATH = `${root}build/standalone/rigscope-page.html`;
/** The GLB reader (families/gltf-model.js: glTF-Transform, meshopt's decoder) as one classic
 * script, which `rigscope page --compress` adds to the pages that carry a compressed GLB: the
 * template itself does not grow by it for pages of game files. */
export const GLB_READER_PATH = `${root}build/standalone/rigscope-glb-reader.js`;
/** The same reader as one ES module, which the glTF family imports (families/gltf.js): bundled
 * here so that an app bundling Rigscope never meets glTF-Transform's `import("node:fs")` (its
 * NodeIO, never used by the reader), which webpack and esbuild refuse for the browser. */
export const GLB_READER_MODULE_PATH = `${root}build/gltf/gltf-model.js`;

// The site's decoder client names its module worker (new Worker(new URL('./worker.js', …))); the
// standalone page gives the pool its own worker, so that default is left out of the bundle (Vite
// would otherwise inline a second copy of the worker and its WASM).
const DEFAULT_WORKER = "new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })";
// With wasmBinary given Emscripten never reads its .wasm; the file reference is dropped too.
const WASM_URL = 'new URL("decoders.wasm",import.meta.url).toString()';
// The glTF family loads its reader when a GLB is opened; in the page it is the script
// GLB_READER_PATH, present only in pages that carry a GLB.
const GLB_READER = "import('../../../build/gltf/gltf-model.js')";
const GLB_READER_GLOBAL =
  "(globalThis.RigscopeGlbReader ? Promise.resolve(globalThis.RigscopeGlbReader) : Promise.reject(new Error('this page has no GLB reader (rigscope page --compress writes pages that do)')))";

function dropFileReferences({ reader = false } = {}) {
  return {
    name: 'rigscope-standalone-inline',
    enforce: 'pre',
    transform(code, id) {
      const swap = (from, to) => {
        if (!code.includes(from))
          throw new Error(`build-standalone: ${id} no longer contains ${from}; update scripts/build-standalone.mjs`);
        return code.replace(from, to);
      };
      if (id.endsWith('/families/gltf.js') && !reader) return swap(GLB_READER, GLB_READER_GLOBAL);
      if (id.endsWith('/decoder/client.js'))
        return swap(DEFAULT_WORKER, "(() => { throw new Error('the standalone page starts its own decoder worker'); })()");
      // A classic worker has no import.meta; its own location serves Emscripten's script directory.
      if (id.endsWith('/build/wasm/decoders.mjs'))
        return swap(WASM_URL, '"decoders.wasm"').replaceAll('import.meta.url', 'self.location.href');
      return null;
    },
  };
}

/** One entry bundled as a single minified classic script (or ES module, `format: 'es'`). */
async function bundle(entry, name, { reader = false, format = 'iife' } = {}) {
  const out = await build({
    configFile: false,
    root,
    logLevel: 'error',
    plugins: [dropFileReferences({ reader })],
    // glTF-Transform imports ndarray-pixels for what the reader never does (its code needs eval).
    resolve: { alias: [{ find: /^ndarray-pixels$/, replacement: `${root}web/src/three/no-pixels.js` }] },
    build: {
      write: false,
      target: 'es2022',
      minify: true,
      lib: { entry: `${root}${entry}`, formats: [format], name },
      rollupOptions: { output: { inlineDynamicImports: true } },
    },
  });
  const chunks = (Array.isArray(out) ? out : [out]).flatMap((o) => o.output).filter((c) => c.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`build-standalone: ${entry} bundled into ${chunks.length} chunks, not one`);
  return chunks[0].code;
}

/**
 * Script text inside <script>: the HTML parser ends a script at "</script" and treats "<!--" as
 * special, so both are escaped (inside JS strings and regexps "\/" and "\!" mean the same).
 */
function scriptSafe(code) {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

export async function buildStandaloneTemplate() {
  const [player, worker, wasm, css] = await Promise.all([
    bundle('web/src/app/standalone.js', 'RigscopePage'),
    bundle('web/src/app/standalone-worker.js', 'RigscopeDecoder'),
    readFile(`${root}build/wasm/decoders.wasm`),
    readFile(`${root}web/src/app/embed.css`, 'utf8'),
  ]);
  const wasmText = Buffer.from(deflateSync(wasm, { level: 9 })).toString('base64');
  // No network at all: the page's scripts, styles, images and worker are inline or blob:.
  const csp =
    "default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval' blob:; worker-src blob:; style-src 'unsafe-inline'; img-src blob: data:; connect-src blob: data:";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="generator" content="Rigscope standalone page">
<title>Rigscope</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 16 16%22%3E%3Ccircle cx=%228%22 cy=%228%22 r=%227%22 fill=%22%236aa8ff%22/%3E%3C/svg%3E">
<style>${css}</style>
</head>
<body>
<rigscope-viewer id="player" controls="full"></rigscope-viewer>
<div id="errors" role="alert"></div>
<script type="application/octet-stream" id="rigscope-wasm">${wasmText}</script>
<script type="text/plain" id="rigscope-decoder">${scriptSafe(worker)}</script>
<script>${scriptSafe(player)}</script>
`;
}

/** The GLB reader script's text, ready to sit inside a <script> of the page. */
export async function buildGlbReader() {
  return scriptSafe(await bundle('web/src/families/gltf-model.js', 'RigscopeGlbReader', { reader: true }));
}

/** The GLB reader as the ES module families/gltf.js imports; throws if a Node built-in is left in it. */
export async function buildGlbReaderModule() {
  const code = await bundle('web/src/families/gltf-model.js', 'RigscopeGlbReader', { reader: true, format: 'es' });
  if (/\bimport\(\s*["']node:/.test(code)) throw new Error('build-standalone: the GLB reader module still imports a Node built-in');
  return code;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [html, reader, readerModule] = await Promise.all([buildStandaloneTemplate(), buildGlbReader(), buildGlbReaderModule()]);
  await mkdir(`${root}build/standalone`, { recursive: true });
  await mkdir(`${root}build/gltf`, { recursive: true });
  await writeFile(TEMPLATE_PATH, html);
  await writeFile(GLB_READER_PATH, reader);
  await writeFile(GLB_READER_MODULE_PATH, readerModule);
  const gz = gzipSync(html, { level: 9 }).length;
  console.log(`standalone page template: ${html.length} bytes, ${gz} gzipped; GLB reader (page --compress only): ${reader.length} bytes`);
}
