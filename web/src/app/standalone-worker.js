// The standalone page's decoder worker. The page has no files beside it to fetch (it opens from
// file://, where module workers and fetch() are refused), so this worker is started from a Blob
// of its own bundled source, and its first message is the WASM binary, handed to Emscripten as
// `wasmBinary`. After that it answers {id, op, args} requests as the site's worker does.
import createDecoders from '../../../build/wasm/decoders.mjs';
import { DecoderCrash, collectTransferables, invoke } from '../decoder/ops.js';

let wasmBinary = null;
let decoders = null; // Promise of the module instance

function instance() {
  decoders ??= createDecoders({ wasmBinary }).catch((err) => {
    decoders = null;
    throw err;
  });
  return decoders;
}

self.onmessage = async (event) => {
  if (event.data?.wasmBinary) {
    wasmBinary = new Uint8Array(event.data.wasmBinary);
    return;
  }
  const { id, op, args } = event.data;
  try {
    const M = await instance();
    const started = performance.now();
    const result = invoke(M, op, args);
    const ms = performance.now() - started;
    self.postMessage({ id, ok: true, result, ms }, [...collectTransferables(result)]);
  } catch (err) {
    // After a trap the instance is dropped; the next request gets a fresh one (wasmBinary is kept).
    if (err instanceof DecoderCrash) decoders = null;
    self.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
