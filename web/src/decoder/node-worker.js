// A worker_threads decoder (node-pool.js starts them): the process's compiled WebAssembly.Module
// arrives in workerData, so a worker instantiates and never compiles. Answers {id, op, args} as
// the browser's worker.js does; after a trap or abort the instance is replaced for the next call.
import { parentPort, workerData } from 'node:worker_threads';
import { instantiateDecoders } from './node.js';
import { DecoderCrash, collectTransferables, invoke } from './ops.js';

let decoders = null;  // Promise of the module instance

function instance() {
  decoders ??= instantiateDecoders(workerData.module).catch((err) => {
    decoders = null;
    throw err;
  });
  return decoders;
}

parentPort.on('message', async ({ id, op, args }) => {
  try {
    const M = await instance();
    const started = performance.now();
    const result = invoke(M, op, args);
    const ms = performance.now() - started;
    parentPort.postMessage({ id, ok: true, result, ms }, [...collectTransferables(result)]);
  } catch (err) {
    if (err instanceof DecoderCrash) decoders = null;
    parentPort.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});
