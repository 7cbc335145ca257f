// The standalone page's decoder worker. The page has no files beside it to fetch (it opens from
// file://, where module workers and fetch() are refused), so this worker is started from a Blob
// of its own bundled source, and its first message is the WASM binary, handed to Emscripten as
// `wasmBinary`. After that it answers {id, op, args} requests as the site's worker does.
import createDecoders from '../../../build/wasm/decoders.mjs';
import { decoderServer } from '../decoder/ops.js';

let wasmBinary = null;
const serve = decoderServer(
  () => createDecoders({ wasmBinary }),
  (reply, transfer) => self.postMessage(reply, transfer),
);

self.onmessage = (event) => {
  if (event.data?.wasmBinary) {
    wasmBinary = new Uint8Array(event.data.wasmBinary);
    return;
  }
  serve(event.data);
};
