// Module worker: loads the WASM decoders once and answers {id, op, args} requests (ops.js's
// decoderServer). It never imports three.js; results are plain objects of typed arrays,
// transferred back.
import createDecoders from '../../../build/wasm/decoders.mjs';
import { decoderServer } from './ops.js';
import { sharedModuleStart } from './shared-module.js';

const post = (reply, transfer) => self.postMessage(reply, transfer);
// Instantiates the module the page got from an earlier worker, or compiles and shares it (shared-module.js).
const decoders = sharedModuleStart(createDecoders, post);
const serve = decoderServer(decoders.start, post);
self.onmessage = (event) => decoders.receive(event.data) || serve(event.data);
