// @ts-check
// One compiled decoder module for every worker of a page. The first worker compiles the .wasm
// (Emscripten's glue finds and fetches it wherever the bundler put it) and posts the compiled
// WebAssembly.Module to the page; the page (DecoderClient) gives it to every worker it starts
// after that, which instantiates it without fetching or compiling again. So a new loader, whose
// pool starts workers of its own, costs a worker and an instance, never a compile; and a worker
// whose instance trapped starts a fresh one from the module it already has.
//
// A module is shared only between workers of the same build: each is known by the URL of this
// file inside its worker (the worker script a bundler made, or the package's file), so a pool
// with another decoder path never gets a module its glue does not fit.
//
// Node's worker_threads get the process's module in workerData instead (node-pool.js).

/**
 * An instance of a compiled module through Emscripten's glue, with no fetch or compile (its
 * instantiateWasm hook): a worker's from the page's module, the page's own (direct.js), Node's.
 * A module the glue does not fit rejects, never hangs.
 * @param {(options: object) => Promise<any>} createDecoders the Emscripten module factory
 * @param {WebAssembly.Module} module
 * @param {object} [options] more Emscripten options
 */
export function instanceOf(createDecoders, module, options = {}) {
  return new Promise((resolve, reject) => {
    createDecoders({
      ...options,
      instantiateWasm(/** @type {any} */ imports, /** @type {Function} */ receive) {
        WebAssembly.instantiate(module, imports)
          .then((instance) => receive(instance, module))
          .catch(reject);
        return {};
      },
    }).then(resolve, reject);
  });
}

/** The module prints "Aborted()" as it traps; the call reports its own sentence instead. */
export const printErr = (/** @type {string} */ text) => {
  if (!/^Aborted\(/.test(text)) console.warn(text);
};

/** Page side: worker build (its copy of this file's URL) → the module one of its workers compiled. */
const pageModules = new Map();

/** Gives a new worker the page's compiled modules (its first message, before any request), once there are any. */
export function offerCompiledModule(worker) {
  if (pageModules.size) worker.postMessage({ wasmModules: [...pageModules] });
}

/**
 * Keeps the module a worker compiled. True when the message was that module (not a reply).
 * @param {any} data a message from a decoder worker
 */
export function keepCompiledModule(data) {
  if (!(data?.wasmModule instanceof WebAssembly.Module) || typeof data.wasmKey !== 'string') return false;
  if (!pageModules.has(data.wasmKey)) pageModules.set(data.wasmKey, data.wasmModule);
  return true;
}

/**
 * Worker side: how a worker starts its module instance. `start()` instantiates the module the
 * page gave (`receive`), or else lets Emscripten compile the .wasm and posts the compiled module
 * to the page. A given module that cannot be instantiated is dropped and the .wasm compiled.
 * @param {(options: object) => Promise<any>} createDecoders the Emscripten module factory
 * @param {(message: any) => void} post posts to the page
 * @param {object} [options] more Emscripten options (tests pass `wasmBinary`)
 */
export function sharedModuleStart(createDecoders, post, options = {}) {
  /** @type {WebAssembly.Module | null} */
  let module = null;

  const fromModule = (/** @type {WebAssembly.Module} */ given) => instanceOf(createDecoders, given, options);

  async function compileAndShare() {
    // The glue keeps no handle on the module it compiled: catch it on its way out of instantiate
    // (instantiateStreaming, or instantiate of the bytes when streaming is refused).
    const W = /** @type {any} */ (WebAssembly);
    const { instantiate, instantiateStreaming } = W;
    let compiled = null;
    const keep = (result) => {
      if (result?.module instanceof WebAssembly.Module) compiled ??= result.module;
      return result;
    };
    W.instantiate = (...args) => instantiate.apply(WebAssembly, args).then(keep);
    if (instantiateStreaming) W.instantiateStreaming = (...args) => instantiateStreaming.apply(WebAssembly, args).then(keep);
    let M;
    try {
      M = await createDecoders(options);
    } finally {
      W.instantiate = instantiate;
      W.instantiateStreaming = instantiateStreaming;
    }
    if (compiled) {
      module = compiled;
      post({ wasmModule: compiled, wasmKey: import.meta.url });
    }
    return M;
  }

  return {
    /** The module instance a decoder server runs on (ops.js decoderServer's `start`). */
    start() {
      if (!module) return compileAndShare();
      return fromModule(module).catch(() => {
        module = null;
        return compileAndShare();
      });
    },
    /**
     * Takes the page's compiled module of this worker's build; true when the message was the
     * page's modules (not a request).
     * @param {any} data a message from the page
     */
    receive(data) {
      if (!Array.isArray(data?.wasmModules)) return false;
      const mine = data.wasmModules.find(([key, m]) => key === import.meta.url && m instanceof WebAssembly.Module);
      module ??= mine?.[1] ?? null;
      return true;
    },
  };
}
