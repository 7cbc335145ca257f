// @ts-check
// Bytes a decoder keeps between calls. A UE1 package is read by many calls (its tables, then each
// mesh and texture), each of which took the whole file: a 4 MB package was copied and sent to a
// worker per call (16-60 ms each on a busy machine). Given as a HeldInput instead, its bytes go to
// a worker once, handed over, and stay in that worker's WASM memory under the input's id; later
// calls name the id (client.js), and the pool sends them to a worker that holds it (pool.js).
// Node's host keeps it in its instance the same way (node.js). What a decoder holds is let go when
// its input is released (Clear, an element gone, `releaseHeldInputs`), when the input itself is
// gone (FinalizationRegistry), or past a byte budget per decoder, least recently used first; a
// worker ended while holding one is given the bytes again by the next call naming it.

/**
 * Inputs smaller than this are sent with each call as before: copying them costs less than a
 * worker's bookkeeping, and a loader's small files keep being decoded on the page's thread
 * (direct.js, up to 512 KB).
 */
export const HOLD_MIN_BYTES = 512 * 1024;

/**
 * Bytes one decoder (a worker, Node's instance) holds at most; past it the least recently used go.
 * A worker's WASM memory stays at its peak, so this bounds what holding adds to each worker.
 */
export const HELD_BUDGET_BYTES = 64 * 1024 * 1024;

/** The error name a worker answers a call with when it does not hold an input the call names. */
export const HELD_MISSING = 'HeldInputMissing';

let nextId = 1;

/** Decoders keeping each input, by id: each has `letGo(id)`. */
const keepers = new Map();

// An input no one refers to any more (its file entry gone) is let go by every decoder keeping it.
const finalizer = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((id) => letGoEverywhere(id)) : null;

export class HeldInput {
  /**
   * @param {{ name: string, size: number, read: () => Promise<ArrayBuffer | Blob> }} source
   *   read: the bytes afresh, each time in a buffer of their own (a decoder takes them over), or
   *   the File itself (a worker reads it)
   */
  constructor({ name, size, read }) {
    this.id = nextId++;
    this.name = name;
    this.size = size;
    this.read = read;
    finalizer?.register(this, this.id);
  }
}

export const isHeldInput = (a) => a instanceof HeldInput;

/** A decoder now keeps input `id` (it is told to let go of it with `letGo(id)`). */
export function noteKept(id, keeper) {
  let set = keepers.get(id);
  if (!set) keepers.set(id, (set = new Set()));
  set.add(keeper);
}

/** A decoder no longer keeps input `id` (it let go, or its worker ended). */
export function noteLetGo(id, keeper) {
  const set = keepers.get(id);
  set?.delete(keeper);
  if (set && !set.size) keepers.delete(id);
}

function letGoEverywhere(id) {
  const set = keepers.get(id);
  keepers.delete(id);
  for (const keeper of set ?? []) keeper.letGo(id);
}

/** Every decoder keeping this input lets go of it; a later call naming it sends its bytes again. */
export function releaseHeld(input) {
  letGoEverywhere(input.id);
}

/** Decoders keeping an input now (tests, and what a page holds). */
export const keepersOf = (input) => keepers.get(input.id)?.size ?? 0;

/** The held input of each file entry (one per entry, so every call on its bytes names the same id). */
const byEntry = new WeakMap();

/**
 * The HeldInput of a file entry, made the first time: `read` gives its bytes afresh.
 * @param {{ name: string, size: number }} entry
 * @param {() => Promise<ArrayBuffer | Blob>} read
 */
export function heldInputOf(entry, read) {
  let input = byEntry.get(entry);
  if (!input) byEntry.set(entry, (input = new HeldInput({ name: entry.name, size: entry.size, read })));
  return input;
}

/**
 * What a decoder that holds inputs takes for a file (its `holdInput` method): the file's HeldInput
 * when it is large enough to be worth holding, else null (its bytes go with each call). The
 * families reach this through the decoder they are given, never by importing it.
 */
export function holdInput(entry, read) {
  return entry.size >= HOLD_MIN_BYTES ? heldInputOf(entry, read) : null;
}

/** Lets go of what decoders hold of these entries (a drop cleared, an element's files replaced or gone). */
export function releaseHeldInputs(entries) {
  for (const entry of entries) {
    const input = byEntry.get(entry);
    if (input) releaseHeld(input);
  }
}

/**
 * Ids to let go of so that what `kept` holds fits `budget`, least recently used first, never
 * `keep` (the input just added: one larger than the budget is held alone).
 * @param {Map<number, { size: number, used: number }>} kept
 */
export function overBudget(kept, budget, keep) {
  let total = 0;
  for (const k of kept.values()) total += k.size;
  const out = [];
  for (const [id, k] of [...kept].sort((a, b) => a[1].used - b[1].used)) {
    if (total <= budget) break;
    if (id === keep) continue;
    out.push(id);
    total -= k.size;
  }
  return out;
}

/**
 * What one decoder (a worker as its client sees it, Node's instance) holds, on the side that sends
 * the calls: which inputs, their sizes, when each was last named. `keeper` is told nothing here;
 * it is what noteKept records (its `letGo(id)` ends in `forget`).
 */
export class HeldLedger {
  constructor(keeper, budget = HELD_BUDGET_BYTES) {
    this.keeper = keeper;
    this.budget = budget;
    /** @type {Map<number, { size: number, used: number, ready: Promise<void>, done: () => void }>} */
    this.kept = new Map();
    this.clock = 0;
  }

  holds(id) {
    return this.kept.has(id);
  }

  /** Bytes held in all. */
  get bytes() {
    let n = 0;
    for (const k of this.kept.values()) n += k.size;
    return n;
  }

  /**
   * A call's arguments as the decoder is sent them: its HeldInput as `{ held: id }`, with
   * `bytes` (read now) the first time, and `release`, the ids to let go of first to stay within
   * the budget. `sent()` is called once the message is posted: a call naming an input whose bytes
   * another call carries waits for that one to be posted, so the bytes arrive first. One held
   * input per call (two calls each carrying one and naming the other would wait on each other).
   * @param {any[]} args
   */
  async refs(args) {
    const held = args.filter(isHeldInput);
    if (held.length > 1) throw new Error('rigscope: a decoder call names at most one held input');
    const input = held[0];
    let k = this.kept.get(input.id);
    const carried = !k;
    if (k) k.used = ++this.clock;
    else {
      let done = () => {};
      /** @type {Promise<void>} */
      const ready = new Promise((resolve) => (done = () => resolve()));
      k = { size: input.size, used: ++this.clock, ready, done };
      this.kept.set(input.id, k);
      noteKept(input.id, this.keeper);
    }
    const release = carried ? overBudget(this.kept, this.budget, input.id) : [];
    for (const id of release) this.forget(id);
    const ref = { held: input.id };
    const mine = k;
    if (carried) {
      try {
        ref.bytes = await input.read();
      } catch (err) {
        this.forget(input.id);
        mine.done();
        throw err;
      }
    } else await mine.ready;
    return { args: args.map((a) => (a === input ? ref : a)), release, sent: carried ? mine.done : () => {} };
  }

  /** The decoder no longer holds `id` (let go of, or found missing): the next call naming it sends its bytes. */
  forget(id) {
    const k = this.kept.get(id);
    if (!k) return;
    this.kept.delete(id);
    k.done();
    noteLetGo(id, this.keeper);
  }

  /** The decoder is gone with all it held. */
  clear() {
    for (const id of [...this.kept.keys()]) this.forget(id);
  }
}

/** The id a call's arguments name, when one of them is a held input. */
export const heldIdOf = (args) => args.find(isHeldInput)?.id;
