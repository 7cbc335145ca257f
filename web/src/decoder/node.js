// Node host for the same WASM module (CLI and unit tests): the module is built for web/worker,
// so Node hands it the .wasm bytes directly instead of letting it fetch.
import { readFile } from 'node:fs/promises';
import { DECODER_OPS, toWasmArgs, unpackClips } from './ops.js';

const wasmDir = new URL('../../../build/wasm/', import.meta.url);

export async function loadNodeDecoders() {
  const { default: createDecoders } = await import(new URL('decoders.mjs', wasmDir).href);
  const wasmBinary = await readFile(new URL('decoders.wasm', wasmDir));
  const M = await createDecoders({ wasmBinary });
  // The same call(op, args) surface as the browser's DecoderClient.
  return {
    module: M,
    async call(op, args) {
      if (!DECODER_OPS.has(op)) throw new Error(`unknown decoder operation ${op}`);
      return unpackClips(M[op](...toWasmArgs(args)));
    },
    cancel() {},
  };
}
