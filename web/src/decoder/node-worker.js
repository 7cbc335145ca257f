// A worker_threads decoder (node-pool.js starts them): the process's compiled WebAssembly.Module
// arrives in workerData, so a worker instantiates and never compiles. Answers {id, op, args} as
// the browser's worker.js does (ops.js's decoderServer).
import { parentPort, workerData } from 'node:worker_threads';
import { instantiateDecoders } from './node.js';
import { decoderServer } from './ops.js';

const serve = decoderServer(
  () => instantiateDecoders(workerData.module),
  (reply, transfer) => parentPort.postMessage(reply, transfer),
);
parentPort.on('message', serve);
