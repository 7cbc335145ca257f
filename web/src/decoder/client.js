// Promise client for the decoder worker. Decoding runs off the page's thread (the loaders' small
// files aside, direct.js), so the page stays responsive; a decode that runs too long can be
// cancelled (the worker is replaced). The worker replaces its own WASM instance after a trap;
// should the worker itself die, the calls it held reject with a sentence naming their files and
// the next call starts a new worker.
import { crashCause, fileOfCall } from './ops.js';
import { prebundledWorker } from './optimized-deps.js';
import { keepCompiledModule, offerCompiledModule } from './shared-module.js';

/** @type {WebAssembly.Module | null} the module the bundled worker compiled, once one has */
let bundledModule = null;

/** The module this package's bundled worker compiled (one build: its glue fits), or null before. */
export const bundledWorkerModule = () => bundledModule;

export class DecoderClient {
  constructor({ createWorker } = {}) {
    // Bundlers find this worker and its .wasm; Vite's dev pre-bundling needs the relay (optimized-deps.js).
    this._createWorker =
      createWorker ?? (() => prebundledWorker(import.meta.url) ?? new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
    this._worker = null;
    this._pending = new Map();
    this._nextId = 1;
    this._bundled = !createWorker;
  }

  /** Calls a decoder op. ArrayBuffer arguments are transferred (the caller's copy is detached). */
  call(op, args, { transfer = true } = {}) {
    const worker = this._ensureWorker();
    const id = this._nextId++;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject, op, file: fileOfCall(op, args) });
      const transferList = transfer ? args.filter((a) => a instanceof ArrayBuffer) : [];
      worker.postMessage({ id, op, args }, transferList);
    });
  }

  get busy() {
    return this._pending.size > 0;
  }

  /** Stops whatever is decoding; pending calls reject with a "cancelled" error. */
  cancel(reason = 'Decoding was cancelled') {
    if (!this._worker) return;
    this._worker.terminate();
    this._worker = null;
    for (const { reject } of this._pending.values()) reject(new Error(reason));
    this._pending.clear();
  }

  dispose() {
    this.cancel('Decoder disposed');
  }

  _ensureWorker() {
    if (this._worker) return this._worker;
    const worker = this._createWorker();
    // The module an earlier worker compiled: this one instantiates it, never compiles (shared-module.js).
    offerCompiledModule(worker);
    worker.onmessage = (e) => {
      if (keepCompiledModule(e.data)) {
        if (this._bundled) bundledModule ??= e.data.wasmModule;
        return;
      }
      const { id, ok, result, error, name, ms } = e.data;
      const p = this._pending.get(id);
      if (!p) return;
      this._pending.delete(id);
      if (ok) {
        if (result && typeof result === 'object' && !Array.isArray(result)) result.decodeMs = ms;
        p.resolve(result);
      } else p.reject(namedError(error, name));
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      const cause = crashCause(e);
      for (const { reject, file } of this._pending.values()) {
        reject(new Error(`rigscope: ${file}: ${cause}; the decoder was restarted`));
      }
      this._pending.clear();
      this._worker?.terminate();
      this._worker = null;
    };
    this._worker = worker;
    return worker;
  }
}

/** The worker's error with its name (a file it could not read says NotReadableError, as on the page). */
function namedError(message, name) {
  const err = new Error(message);
  if (name && name !== 'Error') err.name = name;
  return err;
}

let shared = null;
/** One decoder worker for the whole page (loaders share it, as three's loaders share a pool). */
export function sharedDecoder() {
  shared ??= new DecoderClient();
  return shared;
}
