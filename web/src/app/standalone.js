// The standalone page's player (the file *Save page* and `rigscope page` write): the embed
// player's one <rigscope-viewer>, fed from tags inside the page itself, so the file opens from
// disk (file://) with no network and from any static host alike.
//   #rigscope-wasm     the decoders' WASM, deflated, base64
//   #rigscope-decoder  the decoder worker's bundled source (standalone-worker.js)
//   #rigscope-pack     the scene: core/pack.js's packed form, base64url (appended per page)
// Module workers and fetch() are refused from file:// (origin null), so the worker starts from a
// Blob of its inline source and gets the WASM binary as its first message. The pack is unpacked by
// the element within the same budgets as a packed link; a bad one ends in the element's message.
import { inflateSync } from 'fflate';
import '../element/index.js';
import { configureSharedPool } from '../decoder/pool.js';
import { exposePlayer } from './player-hook.js';
import { titleCharacter } from '../core/page.js';

const $ = (id) => document.getElementById(id);

let wasm = null;
let workerUrl = null;

/** The decoders' WASM, inflated once; each worker gets its own copy. */
function wasmBinary() {
  if (!wasm) {
    const binary = atob($('rigscope-wasm').textContent.trim());
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    wasm = inflateSync(bytes);
  }
  return wasm;
}

/** A classic worker from the page's own decoder source (a Blob URL works from file://). */
function decoderWorker() {
  workerUrl ??= URL.createObjectURL(new Blob([$('rigscope-decoder').textContent], { type: 'text/javascript' }));
  const worker = new Worker(workerUrl, { name: 'rigscope-decoder' });
  worker.postMessage({ wasmBinary: wasmBinary().slice().buffer });
  return worker;
}

function start() {
  configureSharedPool({ createWorker: decoderWorker });
  const player = $('player');
  const errors = $('errors');
  const ready = exposePlayer(player);
  player.addEventListener('load', () => {
    // Titled after the character the page opens on (core/layout.js chooseHero), not the first file read.
    const name = titleCharacter(player.app.characters)?.name;
    if (name) document.title = `${name} — Rigscope`;
    ready();
  });
  player.addEventListener('error', ready);
  const packed = $('rigscope-pack')?.textContent.trim();
  if (!packed) {
    errors.append(
      Object.assign(document.createElement('p'), {
        textContent:
          'This page carries no scene: it is the Rigscope page template without files (Save page or `rigscope page` write the files into it).',
      }),
    );
    ready();
    return;
  }
  player.setAttribute('packed', packed);
}

// The pack is appended after this script, so it is read once the whole document is parsed.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
