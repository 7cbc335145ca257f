// The decoder host for Node (package.json maps #decoder-host here under the "node" condition):
// no Worker, the WASM module runs synchronously in this thread. One module per host, loaded on
// the first call, so a loader that is never used costs nothing.
import { loadNodeDecoders } from './node.js';

export function createDecoderHost() {
  let host = null;
  let disposed = false;
  return {
    workerCount: 0,
    async call(op, args) {
      if (disposed) throw new Error('Decoder pool disposed');
      host ??= loadNodeDecoders();
      return (await host).call(op, args);
    },
    cancel() {},
    dispose() { disposed = true; host = null; },
    setWorkerLimit() { return this; },
    setDecoderPath() { return this; },
  };
}
