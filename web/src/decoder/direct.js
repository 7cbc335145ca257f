// @ts-check
// Small decodes on the page's own thread, for the three.js loaders. A call to a decoder worker is
// a round trip between threads, two per file (detectFormats, then the decode): in Chromium
// 0.5-2 ms each, and a new loader per 0.03-0.1 MB PSK took 1-4 ms where its decode takes
// 0.1-0.3 ms, slower than a plain-JS loader on the page's thread. A call on inputs up to
// DIRECT_MAX_BYTES is answered here once the page has its own instance, made from the module the
// page's first bundled worker compiled (shared-module.js): no second fetch or compile. Larger
// inputs, the viewer page's drops and <rigscope-viewer>'s go to workers as before.
import { brokenAfterCall, DecoderCrash, invoke } from './ops.js';
import { instanceOf, printErr } from './shared-module.js';

/**
 * Largest input decoded on the page's thread, in bytes: a 0.5 MB mesh decodes in about 1 ms here,
 * well inside a frame; past that, a worker's round trip is small against the decode it frees the
 * page from.
 */
export const DIRECT_MAX_BYTES = 512 * 1024;

/** The instance, once made. */
let M = null;
/** Its making, while under way. */
let starting = null;
/** The compiled module instances are made from (a fresh one after a trap). */
let compiled = null;
/** Set when an instance could not be made: the page's thread is then not used again. */
let refused = false;

/**
 * An instance of `module` with this package's glue (the same build as its bundled worker's).
 * @param {WebAssembly.Module} module
 */
async function instantiate(module) {
  const { default: createDecoders } = await import('../../../build/wasm/decoders.mjs');
  return instanceOf(createDecoders, module, { printErr });
}

/**
 * Starts making the page's instance from a module compiled by this package's bundled worker.
 * Calls go to workers until it is made.
 * @param {WebAssembly.Module} module
 */
function startDirect(module) {
  compiled ??= module;
  if (M || starting || refused) return;
  starting = instantiate(compiled).then(
    (instance) => {
      M = instance;
    },
    () => {
      refused = true;
    },
  );
  starting.finally(() => (starting = null));
}

/** Resolves once the instance under way is made (or could not be); at once when none is. */
export const directStarted = () => starting ?? Promise.resolve();

/**
 * One decoder call on the page's instance, answered as a worker's (with `decodeMs`). After a trap
 * the instance is dropped and a fresh one made for the calls after it.
 * @param {string} op
 * @param {any[]} args
 */
function callDirect(op, args) {
  const started = performance.now();
  try {
    const result = invoke(M, op, args);
    if (result && typeof result === 'object' && !Array.isArray(result)) result.decodeMs = performance.now() - started;
    if (brokenAfterCall(M)) {
      M = null;
      startDirect(compiled);
    }
    return Promise.resolve(result);
  } catch (err) {
    if (err instanceof DecoderCrash) {
      M = null;
      startDirect(compiled);
    }
    return Promise.reject(err);
  }
}

/**
 * What a loader's pool asks (pool.js, option `direct`): `offer` the module its bundled worker
 * compiled, and `answer` a call here when the instance is made and the input is small (else null:
 * a worker takes it).
 */
export const pageThread = {
  offer: startDirect,
  answer(/** @type {string} */ op, /** @type {any[]} */ args, /** @type {number} */ bytes) {
    return M !== null && bytes <= DIRECT_MAX_BYTES ? callDirect(op, args) : null;
  },
};
