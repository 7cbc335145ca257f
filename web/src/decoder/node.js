// Node host for the same WASM module (CLI and unit tests): the module is built for web/worker,
// so Node hands it the .wasm bytes directly instead of letting it fetch. A refused file rejects
// with its message; after a trap or abort (DecoderCrash) the instance is replaced before the next
// call, so one bad file never breaks the files after it.
import { readFile } from 'node:fs/promises';
import { DECODER_OPS, DecoderCrash, invoke } from './ops.js';

const wasmDir = new URL('../../../build/wasm/', import.meta.url);

export async function loadNodeDecoders() {
  const { default: createDecoders } = await import(new URL('decoders.mjs', wasmDir).href);
  const wasmBinary = await readFile(new URL('decoders.wasm', wasmDir));
  // The module prints "Aborted()" to stderr as it traps; the call reports its own sentence instead.
  const printErr = (text) => { if (!/^Aborted\(/.test(text)) console.warn(text); };
  const instantiate = () => createDecoders({ wasmBinary, printErr });
  let M = await instantiate();
  let restarting = null;

  function restart() {
    M = null;
    restarting = instantiate().then(
      (fresh) => { M = fresh; restarting = null; },
      (err) => { restarting = null; throw err; },
    );
    restarting.catch(() => {});  // reported by the next call, which starts again
  }

  function run(op, args) {
    if (!M) throw new Error('rigscope: the decoder is restarting; try again');
    try {
      return invoke(M, op, args);
    } catch (err) {
      if (err instanceof DecoderCrash) restart();
      throw err;
    }
  }

  // Synchronous calls on the current instance, throwing like call() (tests use it directly).
  const module = {
    get HEAP8() { return M?.HEAP8; },
    get instance() { return M; },
  };
  for (const op of DECODER_OPS) module[op] = (...args) => run(op, args);

  // The same call(op, args) surface as the browser's DecoderClient.
  return {
    module,
    async call(op, args) {
      if (!M && !restarting) restart();
      if (restarting) await restarting;
      return run(op, args);
    },
    cancel() {},
  };
}
