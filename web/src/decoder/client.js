// Promise client for the decoder worker. Decoding runs off the page's thread (the loaders' small
// files aside, direct.js), so the page stays responsive; a decode that runs too long can be
// cancelled (the worker is replaced). The worker replaces its own WASM instance after a trap;
// should the worker itself die, the calls it held reject with a sentence naming their files and
// the next call starts a new worker. An input given as a HeldInput (held.js) is sent to the worker
// once and named by its id after that.
import { HELD_MISSING, HeldLedger, holdInput, isHeldInput } from './held.js';
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
    /** What the current worker holds (held.js); it lets go of what it is told to. */
    this._held = new HeldLedger(this);
    /** Counts the workers started: a call that read bytes while its worker ended starts again. */
    this._generation = 0;
    /** Held inputs' bytes sent, and messages posted, in this client's life (tests count them). */
    this.sent = { heldBytes: 0, heldInputs: 0, messages: 0 };
  }

  /** A call may name a HeldInput in place of bytes (held.js). */
  get holdsInputs() {
    return true;
  }

  /** The input a call takes for a file: held when large enough (held.js holdInput), else null. */
  holdInput(entry, read) {
    return holdInput(entry, read);
  }

  /**
   * Calls a decoder op. ArrayBuffer arguments are transferred (the caller's copy is detached), and
   * so are a held input's bytes unless `transferHeld` is false (its reader gives the caller's own).
   */
  call(op, args, { transfer = true, transferHeld = transfer } = {}) {
    if (args.some(isHeldInput)) return this._callHeld(op, args, transfer, transferHeld);
    return this._post(op, args, transfer ? args.filter((a) => a instanceof ArrayBuffer) : []);
  }

  _post(op, args, transferList) {
    const worker = this._ensureWorker();
    const id = this._nextId++;
    this.sent.messages++;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject, op, file: fileOfCall(op, args) });
      worker.postMessage({ id, op, args }, transferList);
    });
  }

  /** Whether this client's worker holds input `id` (or is being sent it). */
  holds(id) {
    return this._held.holds(id);
  }

  /** Bytes this client's worker holds (or is being sent) in all. */
  get heldBytes() {
    return this._held.bytes;
  }

  /**
   * A call naming a held input: its bytes go along (handed over) the first time this worker is
   * given it, else its id alone. A worker that no longer holds it (ended and started again, its
   * instance replaced after a trap) says so, and the call is sent once more with the bytes.
   */
  async _callHeld(op, args, transfer, transferHeld) {
    for (let attempt = 0; ; attempt++) {
      this._ensureWorker();
      const generation = this._generation;
      const { args: sent, release, sent: posted } = await this._held.refs(args);
      const ref = sent.find((a) => a?.held !== undefined && !ArrayBuffer.isView(a));
      if (generation !== this._generation && attempt < 2) {
        // The worker the bytes were read for ended meanwhile: the new one is sent them.
        posted();
        this._held.forget(ref.held);
        continue;
      }
      if (release.length) this._post('releaseHeld', [release], []).catch(() => {});
      if (ref.bytes !== undefined) {
        this.sent.heldInputs++;
        this.sent.heldBytes += ref.bytes.size ?? ref.bytes.byteLength;
      }
      const transferList = transfer ? sent.filter((a) => a instanceof ArrayBuffer) : [];
      if (transferHeld && ref.bytes instanceof ArrayBuffer) transferList.push(ref.bytes);
      const answer = this._post(op, sent, transferList);
      posted();
      try {
        return await answer;
      } catch (err) {
        if (err?.name !== HELD_MISSING || attempt > 0) throw err;
        this._held.forget(ref.held);
      }
    }
  }

  /** The ids of the inputs the worker itself holds now, as it answers (none without a worker). */
  async heldByWorker() {
    return this._worker ? this._post('releaseHeld', [[]], []) : [];
  }

  /** Lets go of a held input: the worker gives its room back (held.js releaseHeld calls this). */
  letGo(id) {
    if (!this._held.holds(id)) return;
    this._held.forget(id);
    if (this._worker) this._post('releaseHeld', [[id]], []).catch(() => {});
  }

  get busy() {
    return this._pending.size > 0;
  }

  /** Stops whatever is decoding; pending calls reject with a "cancelled" error. */
  cancel(reason = 'Decoding was cancelled') {
    if (!this._worker) return;
    this._worker.terminate();
    this._worker = null;
    this._held.clear();
    for (const { reject } of this._pending.values()) reject(new Error(reason));
    this._pending.clear();
  }

  dispose() {
    this.cancel('Decoder disposed');
  }

  _ensureWorker() {
    if (this._worker) return this._worker;
    const worker = this._createWorker();
    this._generation++;
    this._held.clear();
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
      this._held.clear();
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
