// Module worker: loads the WASM decoders once and answers {id, op, args} requests (ops.js's
// decoderServer). It never imports three.js; results are plain objects of typed arrays,
// transferred back.
import createDecoders from '../../../build/wasm/decoders.mjs';
import { decoderServer } from './ops.js';

const serve = decoderServer(
  () => createDecoders(),
  (reply, transfer) => self.postMessage(reply, transfer),
);
self.onmessage = (event) => serve(event.data);
