// @ts-check
// A pool of decoder workers with the DecoderClient's call(op, args) surface. Each three.js loader
// owns one (dispose() ends only its own workers, as DRACOLoader's does); the <rigscope-viewer>
// elements of a page share one. Workers start on demand, up to the limit, and each call goes to
// the worker with the fewest bytes still to decode; a call naming a held input (held.js) goes to
// a worker that holds it, unless all of those are busy and another is free.
import { bundledWorkerModule, DecoderClient } from './client.js';
import { heldIdOf, holdInput, isHeldInput } from './held.js';

/**
 * Workers a pool starts at most unless told otherwise: one per core, so a folder decodes on all of
 * them (the main thread mostly waits meanwhile), and no more than 4: each holds a WASM memory.
 */
export const DEFAULT_WORKER_LIMIT = Math.max(1, Math.min(4, globalThis.navigator?.hardwareConcurrency ?? 2));

const isBlob = (a) => typeof Blob !== 'undefined' && a instanceof Blob;

const bytesOf = (args) =>
  args.reduce(
    (n, a) => n + (a instanceof ArrayBuffer || ArrayBuffer.isView(a) ? a.byteLength : isBlob(a) ? a.size : isHeldInput(a) ? a.size : 0),
    0,
  );

/** An argument as a worker is given it when its caller keeps its own: bytes in a buffer of their own. */
const copyForWorker = (a) =>
  a instanceof ArrayBuffer ? a.slice(0) : ArrayBuffer.isView(a) ? new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice().buffer : a;

/**
 * A module worker from a URL. A worker script on another origin cannot be started directly (a
 * page that loads rigscope-viewer.js from the Rigscope site): a same-origin blob module imports
 * it instead, which needs only that CORS allows the import.
 */
export function workerFromUrl(url) {
  const href = new URL(url, globalThis.location?.href).href;
  if (!globalThis.location || new URL(href).origin === location.origin) return new Worker(href, { type: 'module' });
  const blob = new Blob([`import ${JSON.stringify(href)};\n`], { type: 'text/javascript' });
  const blobUrl = URL.createObjectURL(blob);
  try {
    return new Worker(blobUrl, { type: 'module' });
  } finally {
    // The worker has its script once it is created; the blob is not needed after that.
    setTimeout(() => URL.revokeObjectURL(blobUrl), 30000);
  }
}

/**
 * Started workers that no pool holds, oldest first, each with its worker script
 * (DecoderPool._spareKey): a pool leaves its idle workers here and the next pool of that script
 * takes one, so a new loader per file starts no worker and no module instance after the first.
 * At most SPARE_LIMIT wait (each holds a WASM memory); past that the oldest ends. Pools given their
 * own createWorker (Node's threads, the standalone page) keep to their own workers.
 */
const spare = []; // { key, client }
const SPARE_LIMIT = DEFAULT_WORKER_LIMIT;

/** A spare worker of this script, the last one left, or null. */
function takeSpare(key) {
  for (let i = spare.length - 1; i >= 0; i--) if (spare[i].key === key) return spare.splice(i, 1)[0].client;
  return null;
}

function leaveSpare(key, client) {
  spare.push({ key, client });
  if (spare.length > SPARE_LIMIT) spare.shift().client.dispose();
}

export class DecoderPool {
  /**
   * @param {{ workerLimit?: number, decoderPath?: string, workerUrl?: string, createWorker?: () => Worker, workersCompile?: boolean, lendIdle?: boolean, direct?: { offer(module: WebAssembly.Module): void, answer(op: string, args: any[], bytes: number): Promise<any> | null } | null }} [options]
   *   decoderPath: a folder holding `worker.js` (a bundled decoder worker) and `decoders.wasm`;
   *   workerUrl: the worker script itself. Without either, the worker bundled with this module.
   *   workersCompile: false when each worker is given the compiled module (Node's threads);
   *   lendIdle: a worker that has nothing left to decode goes back to the spare ones at once (a
   *   loader's pool: a loader never disposed then holds no worker once its file is decoded);
   *   direct: answers small calls on the page's thread (a loader's pool: direct.js's pageThread,
   *   offered the module the bundled worker compiled); only with the bundled worker, whose module
   *   fits this build's glue
   */
  constructor({
    workerLimit = DEFAULT_WORKER_LIMIT,
    decoderPath = '',
    workerUrl = '',
    createWorker,
    workersCompile = true,
    lendIdle = false,
    direct = null,
  } = {}) {
    this.lendIdle = lendIdle;
    this.direct = direct;
    this.workersCompile = workersCompile;
    this.workerLimit = Math.max(1, workerLimit | 0);
    this.decoderPath = decoderPath;
    this.workerUrl = workerUrl;
    this._createWorker = createWorker;
    this._slots = []; // { client, key: its worker script (_spareKey), bytes, calls, started: answered a call }
    this.disposed = false;
    this._ending = false; // endIdleWorkers asked for: busy workers end as they finish
  }

  setWorkerLimit(n) {
    this.workerLimit = Math.max(1, n | 0);
    return this;
  }

  setDecoderPath(path) {
    this.decoderPath = path;
    return this;
  }

  /** Workers started so far. */
  get workerCount() {
    return this._slots.length;
  }

  /** Calls still running in any worker. */
  get pending() {
    return this._slots.reduce((n, s) => n + s.calls, 0);
  }

  /** A call may name a HeldInput in place of bytes (held.js). */
  get holdsInputs() {
    return true;
  }

  /** The input a call takes for a file: held when large enough (held.js holdInput), else null. */
  holdInput(entry, read) {
    return holdInput(entry, read);
  }

  /** Workers of this pool holding a held input now (tests, and what a page holds). */
  holdersOf(input) {
    return this._slots.filter((s) => s.client.holds(input.id)).length;
  }

  /** Bytes of held inputs this pool's workers hold now, as far as the page knows (held.js). */
  get heldBytes() {
    return this._slots.reduce((n, s) => n + s.client.heldBytes, 0);
  }

  /** What each of this pool's workers says it holds: the ids of its held inputs (tests). */
  heldByWorkers() {
    return Promise.all(this._slots.map((s) => s.client.heldByWorker()));
  }

  /** Held inputs' bytes and messages this pool's workers were sent (held.js; tests count them). */
  get sent() {
    const out = { heldBytes: 0, heldInputs: 0, messages: 0 };
    for (const s of this._slots) for (const k of Object.keys(out)) out[k] += s.client.sent[k];
    return out;
  }

  call(op, args) {
    if (this.disposed) return Promise.reject(Object.assign(new Error('Decoder pool disposed'), { name: 'DecoderDisposedError' }));
    const held = heldIdOf(args);
    const direct = this._direct();
    if (direct && held === undefined) {
      this._offerModule(direct);
      const answered = args.some(isBlob) ? null : direct.answer(op, args, bytesOf(args));
      if (answered) return answered;
    }
    this._ending = false;
    const slot = this._pick(held);
    // What crosses to the worker: a held input's bytes only when that worker does not hold it yet.
    const cost = held !== undefined && slot.client.holds(held) ? bytesOf(args.filter((a) => !isHeldInput(a))) : bytesOf(args);
    slot.bytes += cost;
    slot.calls++;
    const done = () => {
      slot.bytes -= cost;
      slot.calls--;
      slot.started = true;
      if (direct) this._offerModule(direct);
      if (slot.calls > 0) return;
      if (this._ending) this._end(slot);
      else if (this.lendIdle && slot.key) this._release(slot);
    };
    // A loader's caller keeps its buffers (transfersInput): the worker is given copies, moved (of
    // a view, its bytes alone: posted as it is, a view takes its whole buffer along).
    // A held input's bytes are cloned rather than handed over, for the same reason.
    const sent = this._direct() ? args.map(copyForWorker) : args;
    return slot.client.call(op, sent, { transferHeld: !this._direct() }).finally(done);
  }

  /**
   * Whether a call detaches the ArrayBuffers it is given. A pool that decodes small files on the
   * page's thread never does (the decoder copies its input into its memory), so a loader reads
   * its caller's bytes where they lie instead of copying them first.
   */
  get transfersInput() {
    return !this._direct();
  }

  /** Once the bundled worker has compiled the module, the page makes its own instance of it. */
  _offerModule(direct) {
    const module = bundledWorkerModule();
    if (module) direct.offer(module);
  }

  /** The page-thread decoder, when this pool has one and runs the bundled worker (the glue fits only its module). */
  _direct() {
    return this.direct && this._spareKey() === 'bundled' ? this.direct : null;
  }

  /**
   * Starts a worker and its WASM module ahead of the first call, as DRACOLoader.preload() does: a
   * drop starts it while its files are read. Nothing when a worker runs.
   */
  warm() {
    if (this._slots.length || this.disposed) return;
    this.call('detectFormats', [new ArrayBuffer(0), [], [], []]).catch(() => {});
  }

  /** Stops what is decoding in this pool only; its pending calls reject with `reason`. */
  cancel(reason = 'Decoding was cancelled') {
    for (const s of this._slots) s.client.cancel(reason);
  }

  /**
   * Ends the workers that have nothing to decode (the page's last <rigscope-viewer> went away);
   * the next call starts one again. Workers still decoding end when their last call does, unless
   * a call comes first.
   */
  endIdleWorkers() {
    for (const s of this._slots.filter((x) => x.calls === 0)) this._end(s);
    // Whether a dropped decode ends before or after the element that asked for it depends on the
    // machine: its worker ends either way.
    this._ending = this._slots.length > 0;
  }

  /** Takes a worker out of this pool and ends it. */
  _end(slot) {
    this._slots = this._slots.filter((s) => s !== slot);
    slot.client.dispose();
  }

  /** Ends the workers still decoding; idle ones wait for the next pool of their script (see `spare`). */
  dispose() {
    this.disposed = true;
    for (const s of [...this._slots]) this._release(s);
    this._slots = [];
  }

  /** Takes a worker out of this pool: idle and started, it waits among the spare ones; else it ends. */
  _release(slot) {
    this._slots = this._slots.filter((s) => s !== slot);
    if (slot.key && slot.calls === 0 && slot.started) leaveSpare(slot.key, slot.client);
    else slot.client.dispose();
  }

  /**
   * The worker for a call: an idle one (one that holds the call's held input first), else a new
   * one while the limit allows, else the least loaded (of those holding the input, when some do:
   * waiting for one costs less than sending the bytes again).
   * @param {number} [held] the id of the held input the call names
   */
  _pick(held) {
    const holds = (s) => held !== undefined && s.client.holds(held);
    const idle = this._slots.filter((s) => s.calls === 0);
    if (idle.length) return idle.find(holds) ?? idle[0];
    // The first worker compiles the module and hands it to the page; workers started after it has
    // answered instantiate that module instead of compiling it again, side by side, on the same cores.
    const starting = this.workersCompile && this._slots.some((s) => !s.started);
    if (!starting && this._slots.length < this.workerLimit) {
      const key = this._spareKey();
      const kept = key ? takeSpare(key) : null;
      const client = kept ?? new DecoderClient({ createWorker: this._workerFactory() });
      const slot = { client, key, bytes: 0, calls: 0, started: !!kept };
      this._slots.push(slot);
      return slot;
    }
    const holders = this._slots.filter(holds);
    return (holders.length ? holders : this._slots).reduce((a, b) =>
      b.bytes < a.bytes || (b.bytes === a.bytes && b.calls < a.calls) ? b : a,
    );
  }

  /** The worker script's URL: workerUrl, worker.js in decoderPath, or '' for the bundled one. */
  _workerScript() {
    if (this.workerUrl) return this.workerUrl;
    return this.decoderPath ? new URL('worker.js', new URL(this.decoderPath, globalThis.location?.href)).href : '';
  }

  /** The worker script this pool's workers run, by which spare workers are shared; null for a createWorker of its own. */
  _spareKey() {
    return this._createWorker ? null : this._workerScript() || 'bundled';
  }

  _workerFactory() {
    if (this._createWorker) return this._createWorker;
    const url = this._workerScript();
    // Undefined: DecoderClient's own `new Worker(new URL('./worker.js', import.meta.url))`, which
    // bundlers (Vite, webpack 5, Parcel) find and bundle with its .wasm.
    return url ? () => workerFromUrl(url) : undefined;
  }
}

let shared = null;

/** One pool for every <rigscope-viewer> of the page. */
export function sharedPool() {
  shared ??= new DecoderPool();
  return shared;
}

/**
 * Options for the page's pool (rigscope-viewer.js names its worker; the standalone page makes
 * its own from inline source with createWorker). Workers already started keep theirs; the next
 * ones follow.
 * @param {{ workerLimit?: number, decoderPath?: string, workerUrl?: string, createWorker?: () => Worker }} [options]
 */
export function configureSharedPool({ workerLimit, decoderPath, workerUrl, createWorker } = {}) {
  const pool = sharedPool();
  if (workerLimit !== undefined) pool.setWorkerLimit(workerLimit);
  if (decoderPath !== undefined) pool.decoderPath = decoderPath;
  if (workerUrl !== undefined) pool.workerUrl = workerUrl;
  if (createWorker !== undefined) pool._createWorker = createWorker;
}
