// Module worker: loads the WASM decoders once and answers {id, op, args} requests. It never
// imports three.js; results are plain objects of typed arrays, transferred back.
import createDecoders from '../../../build/wasm/decoders.mjs';
import { DECODER_OPS, collectTransferables, toWasmArgs, unpackClips } from './ops.js';

let decoders = null;

self.onmessage = async (event) => {
  const { id, op, args } = event.data;
  try {
    if (!DECODER_OPS.has(op)) throw new Error(`unknown decoder operation ${op}`);
    decoders ??= createDecoders();
    const M = await decoders;
    const started = performance.now();
    const result = unpackClips(M[op](...toWasmArgs(args)));
    const ms = performance.now() - started;
    self.postMessage({ id, ok: true, result, ms }, [...collectTransferables(result)]);
  } catch (err) {
    self.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
