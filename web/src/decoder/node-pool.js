// The decoder host for Node (package.json maps #decoder-host here under the "node" condition).
// The .wasm is compiled once per process (node.js). By default decodes run synchronously in this
// thread on one instance shared by every loader of the process, so a new loader costs nothing;
// setWorkerLimit(n) moves this host's decodes to a pool of n worker_threads (the same DecoderPool
// as the browser's, with threads in place of Web Workers), each instantiating the compiled module.
import { Worker } from 'node:worker_threads';
import { DecoderPool } from './pool.js';
import { holdInput } from './held.js';
import { compiledDecoders, decoderHost, wasmUrlOf } from './node.js';

const syncHosts = new Map(); // wasm href → Promise of the shared synchronous host
const readySyncHosts = new Map(); // wasm href → that host, once made

function sharedSyncHost(decoderPath) {
  const { href } = wasmUrlOf(decoderPath);
  let host = syncHosts.get(href);
  if (!host) {
    host = compiledDecoders(decoderPath).then(decoderHost);
    syncHosts.set(href, host);
    host.then(
      (made) => readySyncHosts.set(href, made),
      () => syncHosts.delete(href),
    );
  }
  return host;
}

/** The shared synchronous host when it is made: a call then need not wait a turn for it. */
const readySyncHost = (decoderPath) => readySyncHosts.get(wasmUrlOf(decoderPath).href);

/**
 * A worker_threads Worker with the Web Worker surface DecoderClient uses (onmessage, onerror,
 * postMessage, terminate). It keeps the process alive only while a call is in flight.
 */
export class ThreadWorker {
  constructor(wasmModule) {
    this.onmessage = null;
    this.onerror = null;
    this.inFlight = 0;
    this.terminated = false;
    this.thread = new Worker(new URL('./node-worker.js', import.meta.url), { workerData: { module: wasmModule } });
    this.thread.unref();
    this.thread.on('message', (data) => {
      this._settled();
      this.onmessage?.({ data });
    });
    this.thread.on('error', (error) => {
      this.inFlight = 0;
      this.onerror?.({ message: error.message, error, preventDefault() {} });
    });
    // A thread that ends without an error event (killed, process.exit in a decoder) fails its calls too.
    this.thread.on('exit', (code) => {
      if (this.inFlight > 0 && !this.terminated)
        this.onerror?.({ message: `the decoder thread exited with code ${code}`, preventDefault() {} });
    });
  }

  postMessage(message, transfer) {
    if (this.inFlight++ === 0) this.thread.ref();
    this.thread.postMessage(message, transfer);
  }

  _settled() {
    if (--this.inFlight === 0) this.thread.unref();
  }

  terminate() {
    this.terminated = true;
    this.thread.terminate();
  }
}

/**
 * A loader's host: a class, so that a new loader's host is one small object (made per loader, it
 * was a dozen closures and an object literal with getters, the slowest kind to make).
 */
class NodeDecoderHost {
  /** @type {number | undefined} */
  #limit;
  /** @type {string | URL | undefined} */
  #path;
  #pool = null; // Promise of this host's DecoderPool of threads, once a worker limit is set
  #started = null; // that pool, once made
  #disposed = false;

  constructor({ workerLimit, decoderPath } = {}) {
    this.#limit = workerLimit === undefined ? undefined : Math.max(1, workerLimit | 0);
    this.#path = decoderPath || undefined;
  }

  /**
   * Whether a call detaches the ArrayBuffers it is given: threads take them by transfer; the
   * synchronous host copies them into the module and leaves them as they were.
   */
  get transfersInput() {
    return this.#limit !== undefined;
  }

  /** A call may name a HeldInput in place of bytes (held.js): both the instance and the threads keep it. */
  get holdsInputs() {
    return true;
  }

  /** The input a call takes for a file: held when large enough (held.js holdInput), else null. */
  holdInput(entry, read) {
    return holdInput(entry, read);
  }

  /** worker_threads started so far (0 while decoding synchronously). */
  get workerCount() {
    return this.#started?.workerCount ?? 0;
  }

  #refuseIfDisposed() {
    if (this.#disposed) throw Object.assign(new Error('Decoder pool disposed'), { name: 'DecoderDisposedError' });
  }

  #threads() {
    this.#pool ??= compiledDecoders(this.#path).then((wasmModule) => {
      const pool = new DecoderPool({ workerLimit: this.#limit, createWorker: () => new ThreadWorker(wasmModule), workersCompile: false });
      this.#started = pool;
      return pool;
    });
    return this.#pool;
  }

  async call(op, args) {
    this.#refuseIfDisposed();
    const path = this.#path;
    const host = this.#limit === undefined ? (readySyncHost(path) ?? (await sharedSyncHost(path))) : await this.#threads();
    this.#refuseIfDisposed();
    return host.call(op, args);
  }

  cancel(reason) {
    this.#started?.cancel(reason);
  }

  dispose() {
    this.#disposed = true;
    this.#started?.dispose();
  }

  setWorkerLimit(n) {
    this.#limit = Math.max(1, n | 0);
    this.#started?.setWorkerLimit(this.#limit);
    return this;
  }

  setDecoderPath(p) {
    this.#path = p || undefined;
    // Threads already started end; the next call starts threads on the new path's module.
    this.#started?.dispose();
    this.#pool = this.#started = null;
    return this;
  }
}

/**
 * @param {{ workerLimit?: number, decoderPath?: string | URL }} [options]
 *   workerLimit: decode in that many worker_threads (none: synchronously in this thread);
 *   decoderPath: another decoders.wasm, or a folder holding one.
 */
export function createDecoderHost(options = {}) {
  return new NodeDecoderHost(options);
}
