// Node host for the same WASM module (CLI, unit tests, the loaders in Node): the module is built
// for web/worker, so Node compiles the .wasm itself, once per process and file, and hands every
// instance the compiled WebAssembly.Module (worker_threads receive it too). A refused file
// rejects with its message; after a trap or abort (DecoderCrash) the instance is replaced before
// the next call, so one bad file never breaks the files after it. A held input (held.js: a UE1
// package, read by a call per object) is copied into the instance once and read there after that.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HELD_MISSING, HeldLedger, holdInput, isHeldInput } from './held.js';
import { brokenAfterCall, DECODER_OPS, DecoderCrash, heapKeeper, invoke, readBlobArgs } from './ops.js';
import { instanceOf, printErr } from './shared-module.js';

const wasmDir = new URL('../../../build/wasm/', import.meta.url);
/** The package's own decoders.wasm. */
export const DEFAULT_WASM_URL = new URL('decoders.wasm', wasmDir);

/**
 * The .wasm a decoder path names: a .wasm file, or a folder holding decoders.wasm (the browser's
 * setDecoderPath names a folder too). Paths are file paths (relative to the working directory)
 * or file: URLs.
 * @param {string | URL} [path]
 * @returns {URL}
 */
export function wasmUrlOf(path) {
  if (!path) return DEFAULT_WASM_URL;
  let url;
  if (path instanceof URL) url = path;
  else if (/^file:/i.test(path)) url = new URL(path);
  else url = pathToFileURL(isAbsolute(path) ? path : resolve(path));
  if (/\.wasm$/i.test(url.pathname)) return url;
  return new URL('decoders.wasm', url.href.endsWith('/') ? url : new URL(`${url.href}/`));
}

const compiled = new Map(); // href → Promise<WebAssembly.Module>

/**
 * The compiled decoder module of a .wasm, compiled once per process (a failed read or compile is
 * retried by the next call, with its reason in the message).
 * @param {string | URL} [path] see wasmUrlOf()
 * @returns {Promise<WebAssembly.Module>}
 */
export function compiledDecoders(path) {
  const url = wasmUrlOf(path);
  let module = compiled.get(url.href);
  if (!module) {
    module = (async () => {
      let bytes;
      try {
        bytes = await readFile(url);
      } catch (err) {
        throw new Error(
          `rigscope: cannot read the decoder module ${url.pathname}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`,
          { cause: err },
        );
      }
      try {
        return await WebAssembly.compile(bytes);
      } catch (err) {
        throw new Error(`rigscope: ${url.pathname} is not a usable WebAssembly decoder module: ${err.message}`, { cause: err });
      }
    })();
    compiled.set(url.href, module);
    module.catch(() => compiled.delete(url.href));
  }
  return module;
}

let glue = null;
const emscriptenGlue = () => (glue ??= import(new URL('decoders.mjs', wasmDir).href).then((m) => m.default));

/**
 * A fresh instance of a compiled module (no compile: Emscripten's instantiateWasm hook gets it).
 * A module that does not fit this package's glue (another build's .wasm) rejects in words.
 * @param {WebAssembly.Module} wasmModule
 */
export async function instantiateDecoders(wasmModule) {
  const createDecoders = await emscriptenGlue();
  return instanceOf(createDecoders, wasmModule, { printErr }).catch((err) => {
    throw new Error(`rigscope: the decoder module does not fit this package's decoders.mjs: ${err?.message ?? err}`, { cause: err });
  });
}

/**
 * One instance of the module, replaced after a crash: `run(op, args)` calls it synchronously,
 * `ready()` waits for a replacement under way. `onRestart` runs as an instance is dropped.
 * @param {WebAssembly.Module} wasmModule
 */
async function restartingInstance(wasmModule, onRestart) {
  const instantiate = () => instantiateDecoders(wasmModule);
  let M = await instantiate();
  let restarting = null;

  function restart() {
    M = null;
    onRestart();
    restarting = instantiate().then(
      (fresh) => {
        M = fresh;
        restarting = null;
      },
      (err) => {
        restarting = null;
        throw err;
      },
    );
    restarting.catch(() => {}); // reported by the next call, which starts again
  }

  function run(op, args) {
    if (!M) throw new Error('rigscope: the decoder is restarting; try again');
    try {
      const result = invoke(M, op, args);
      if (brokenAfterCall(M)) restart();
      return result;
    } catch (err) {
      if (err instanceof DecoderCrash) restart();
      throw err;
    }
  }

  const ready = async () => {
    if (!M && !restarting) restart();
    if (restarting) await restarting;
  };
  return {
    run,
    ready,
    get current() {
      return M;
    },
  };
}

/**
 * Calls naming a held input: its bytes read and copied into the instance the first time, else
 * found there; an instance that lost them (a restart) is sent them once more.
 */
function heldCaller({ ledger, heap, sentCounts, instance }) {
  return async function callHeld(op, args) {
    for (let attempt = 0; ; attempt++) {
      const { args: refs, release, sent } = await ledger.refs(args);
      heap.release(release);
      const ref = refs.find((a) => a?.held !== undefined);
      if (ref.bytes !== undefined) {
        sentCounts.heldInputs++;
        sentCounts.heldBytes += ref.bytes.size ?? ref.bytes.byteLength;
      }
      let taken;
      try {
        await instance.ready();
        const taking = heap.take(instance.current, refs);
        sent(); // the bytes are registered: calls waiting for them go on
        taken = await taking;
      } catch (err) {
        sent();
        if (err?.name !== HELD_MISSING || attempt > 0) throw err;
        ledger.forget(ref.held);
        continue;
      }
      try {
        return instance.run(op, taken.args);
      } finally {
        taken.done();
      }
    }
  };
}

/**
 * Synchronous calls on one instance, replaced after a crash, behind the call(op, args) surface.
 * @param {WebAssembly.Module} wasmModule
 */
export async function decoderHost(wasmModule) {
  // Held inputs, in the instance's heap: what is held (ledger) and the bytes themselves (heap).
  const heap = heapKeeper();
  const keeper = {
    letGo(id) {
      ledger.forget(id);
      heap.release([id]);
    },
  };
  const ledger = new HeldLedger(keeper);
  /** Held inputs read into the instance so far (tests count them). */
  const sentCounts = { heldInputs: 0, heldBytes: 0 };
  const instance = await restartingInstance(wasmModule, () => ledger.clear());
  const { run, ready } = instance;
  const callHeld = heldCaller({ ledger, heap, sentCounts, instance });

  // Synchronous calls on the current instance, throwing like call() (tests use it directly).
  const module = {
    get HEAP8() {
      return instance.current?.HEAP8;
    },
    get instance() {
      return instance.current;
    },
  };
  for (const op of DECODER_OPS) module[op] = (...args) => run(op, args);

  // The same call(op, args) surface as the browser's DecoderClient.
  return {
    module,
    /** A call copies its input into the module; the caller's buffers stay as they were. */
    transfersInput: false,
    /** A call may name a HeldInput in place of bytes (held.js). */
    holdsInputs: true,
    /** The input a call takes for a file: held when large enough (held.js holdInput), else null. */
    holdInput,
    /** Whether the instance holds input `id` now. */
    holds: (id) => ledger.holds(id),
    sent: sentCounts,
    async call(op, args) {
      // Awaited only when there is something to wait for (a Blob to read, an instance to start):
      // each await of a settled value was a turn of every call.
      let bytes = readBlobArgs(args);
      if (bytes instanceof Promise) bytes = await bytes;
      if (!instance.current) await ready();
      return bytes.some(isHeldInput) ? callHeld(op, bytes) : run(op, bytes);
    },
    cancel() {},
  };
}

/**
 * A decoder host of its own (a new instance of the process's compiled module).
 * @param {{ wasmPath?: string | URL }} [options] wasmPath: another decoders.wasm (see wasmUrlOf())
 */
export async function loadNodeDecoders({ wasmPath } = {}) {
  return decoderHost(await compiledDecoders(wasmPath));
}
