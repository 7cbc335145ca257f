// Module worker: loads the WASM decoders once and answers {id, op, args} requests. It never
// imports three.js; results are plain objects of typed arrays, transferred back. A refused file
// comes back as its message; after a trap or abort the module instance is dropped and the next
// request gets a fresh one, so one bad file never breaks the files after it.
import createDecoders from '../../../build/wasm/decoders.mjs';
import { DecoderCrash, collectTransferables, invoke } from './ops.js';

let decoders = null;  // Promise of the module instance

function instance() {
  decoders ??= createDecoders().catch((err) => {
    decoders = null;  // a failed start (network, memory) is retried by the next request
    throw err;
  });
  return decoders;
}

self.onmessage = async (event) => {
  const { id, op, args } = event.data;
  try {
    const M = await instance();
    const started = performance.now();
    const result = invoke(M, op, args);
    const ms = performance.now() - started;
    self.postMessage({ id, ok: true, result, ms }, [...collectTransferables(result)]);
  } catch (err) {
    if (err instanceof DecoderCrash) decoders = null;
    self.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
