// The decoder operations the worker exposes, and how a decoded result's buffers are collected
// for the transfer list (so they move to the main thread without a copy).
import { HELD_MISSING } from './held.js';

export const DECODER_OPS = new Set([
  'decodePsk',
  'decodePsa',
  'decodeScriptedPsk',
  'decodePmd',
  'decodePssa',
  'decodeUe1',
  'decodePcx',
  'decodePsg',
  'decodeImage',
  // UE1 packages (wasm/src/formats/upackage/upackage.h): the tables, then one export at a time.
  'listPackage',
  'decodePackageObject',
  // A mesh export and the textures of its package its slots name, in one call (BATCH_OPS).
  'decodePackageMesh',
  'detectFormat',
  'detectFormats',
]);

/**
 * Operations made of several module calls, answered in one worker round trip.
 * detectFormats(heads, lengths, sizes, names): every file's kind from its first bytes, the heads
 * packed one after another in one buffer (or a view of one), so a folder is detected in one call.
 */
const BATCH_OPS = {
  detectFormats(M, [heads, lengths, sizes, names]) {
    const packed = heads instanceof ArrayBuffer ? new Uint8Array(heads) : heads;
    let at = 0;
    return lengths.map((length, i) => {
      const head = packed.subarray(at, at + length);
      at += length;
      return M.detectFormat(head, sizes[i], names[i]);
    });
  },
  decodePackageMesh,
};

/**
 * The export indices of the textures a mesh's slots name in its own package (§11.5, as
 * families/upackage.js resolveMaterial finds them): by object path, else by name when the slot
 * names this package in another group. `table`: the package's name and its picture textures.
 * @param {{ materials: { textureNames: string[] }[] }} model
 * @param {{ name: string, paths: string[], indices: number[] }} table
 */
export function slotTextureIndices(model, table) {
  const byPath = new Map(table.paths.map((p, i) => [p.toLowerCase(), table.indices[i]]));
  const byName = new Map(table.paths.map((p, i) => [p.slice(p.lastIndexOf('.') + 1).toLowerCase(), table.indices[i]]));
  const out = new Set();
  for (const { textureNames } of model.materials ?? []) {
    const [path, name] = textureNames ?? [];
    if (!path?.includes('.')) continue;
    const exact = byPath.get(path.toLowerCase());
    const inPackage = path.slice(0, path.indexOf('.')).toLowerCase() === table.name.toLowerCase();
    const found = exact ?? (inPackage ? byName.get(String(name ?? '').toLowerCase()) : undefined);
    if (found !== undefined) out.add(found);
  }
  return [...out];
}

/**
 * decodePackageMesh(bytes, file, index, table): the mesh export `index` and, on it as
 * `slotTextures` ({ index, decoded }), the textures of the same package its slots name (table:
 * slotTextureIndices). One worker round trip where the mesh and each texture were one each, the
 * page waiting for the mesh before it asked for the textures. A texture the decoders refuse is
 * left out (asked for on its own, it says why); a trap in one ends the textures there, and the
 * instance is replaced after this call (`broken`).
 *
 * Of a package given in parts, the mesh answers what it lacks itself (its data, and its slot
 * textures' properties: a masked one is drawn through another program); a slot texture still
 * lacking bytes (its pixels, its palette) is left out, so the mesh is drawn without waiting for
 * them: what it lacks is on the mesh as `slotMissing` ([b0, e0, ...]), read from then on, and its
 * texture record decodes it when it is drawn (families/upackage.js).
 */
function decodePackageMesh(M, [bytes, file, index, table]) {
  if (isPackageParts(bytes))
    return withParts(M, bytes, (view, spans) => packageMesh(M, (at) => M.decodePackageObjectParts(view, file, at, spans), index, table));
  return packageMesh(M, (at) => M.decodePackageObject(...toWasmArgs([bytes, file, at])), index, table);
}

/** decodePackageMesh with `decode(exportIndex)` one export's module call. */
function packageMesh(M, decode, index, table) {
  const model = decode(index);
  if (!model || typeof model.error === 'string' || model.missing || !table) return model;
  model.slotTextures = [];
  model.slotMissing = [];
  for (const at of slotTextureIndices(model, table)) {
    let decoded;
    try {
      decoded = decode(at);
    } catch {
      M[BROKEN] = true;
      break;
    }
    if (decoded?.missing) model.slotMissing.push(...decoded.missing);
    else if (decoded && typeof decoded.error !== 'string') model.slotTextures.push({ index: at, decoded });
  }
  return model;
}

/**
 * A package given in parts (core/ranged.js): `{ partsOf: size, spans: [b0, e0, b1, e1, ...],
 * chunks }`, chunk i holding the file's bytes from spans[2i] to spans[2i + 1]. The package's calls
 * on it go to the decoders' *Parts functions, which read those spans only and answer
 * `{ missing: [b0, e0, ...] }` with what else they need.
 */
export const isPackageParts = (a) =>
  a !== null &&
  typeof a === 'object' &&
  !ArrayBuffer.isView(a) &&
  Number.isSafeInteger(a.partsOf) &&
  a.partsOf >= 0 &&
  Array.isArray(a.spans) &&
  Array.isArray(a.chunks);

/**
 * `call(view, spans)` on the parts laid out at their offsets in the file's length of the module's
 * heap (the rest is never read: the decoders check every read against the spans).
 */
function withParts(M, parts, call) {
  const size = parts.partsOf;
  const at = M._malloc(size || 1);
  if (!at) return { error: `UPACKAGE: the package's ${size} bytes do not fit in the decoder's memory (limit ${DECODER_MEMORY_LIMIT})` };
  try {
    // Only a chunk that fills its span inside the file is laid out, and only its span is given.
    const spans = [];
    parts.chunks.forEach((chunk, i) => {
      const start = parts.spans[2 * i];
      const fits =
        Number.isInteger(start) && start >= 0 && chunk?.length === parts.spans[2 * i + 1] - start && start + chunk.length <= size;
      if (!fits) return;
      M.HEAPU8.set(chunk, at + start);
      spans.push(start, start + chunk.length);
    });
    return call(new Uint8Array(M.HEAPU8.buffer, at, size), spans);
  } finally {
    M._free(at);
  }
}

/** The package calls that take parts, each as its *Parts module call. */
const PARTS_OPS = {
  listPackage: (M, [parts, file]) => withParts(M, parts, (view, spans) => M.listPackageParts(view, file, spans)),
  decodePackageObject: (M, [parts, file, index]) =>
    withParts(M, parts, (view, spans) => M.decodePackageObjectParts(view, file, index, spans)),
};

/**
 * Marks a module instance a call left unsound though it answered (a trap in decodePackageMesh's
 * textures after its mesh): its host replaces it after the answer (brokenAfterCall).
 */
const BROKEN = Symbol('rigscope.broken');
export const brokenAfterCall = (M) => M?.[BROKEN] === true;

// The typed arrays of a decoded model are views into few ArrayBuffers (the binding's arena, see
// copyArrays in wasm/bindings/bindings.cpp): in a browser one for a model of up to 16 MB of
// arrays, so this set holds one buffer for most decodes; in Node one per 120 KiB of arrays.
export function collectTransferables(value, out = new Set()) {
  if (value && typeof value === 'object') {
    if (ArrayBuffer.isView(value)) out.add(value.buffer);
    else if (Array.isArray(value)) for (const v of value) collectTransferables(v, out);
    else for (const k in value) collectTransferables(value[k], out);
  }
  return out;
}

/**
 * Bytes in a module instance's heap from `at` (a streamed file, a held input). The decoders are
 * given a view made just before each module call: one made earlier is emptied when the heap grows
 * (a decode in between), and the binding reads a view of its own heap where it lies (bytesIn in
 * wasm/bindings/bindings.cpp), with no copy.
 */
export class HeapBytes {
  constructor(M, at, size) {
    this.M = M;
    this.at = at;
    this.size = size;
    this.users = 1; // its holder; each call using it adds one while it runs
  }

  view() {
    return new Uint8Array(this.M.HEAPU8.buffer, this.at, this.size);
  }

  use() {
    this.users++;
    return this;
  }

  /** One user fewer; the last gives the room back (only to the instance that is still in use: a dropped one goes whole). */
  drop() {
    if (--this.users > 0) return;
    try {
      this.M._free(this.at);
    } catch {
      // An aborted instance frees nothing: it is dropped whole.
    }
  }
}

// Arguments cross the worker boundary as ArrayBuffers; Embind's std::string takes a Uint8Array.
export function toWasmArgs(args) {
  return args.map((a) => (a instanceof ArrayBuffer ? new Uint8Array(a) : a instanceof HeapBytes ? a.view() : a));
}

/**
 * Clips arrive from the binding with their tracks packed in one array (see writePackedTracks in
 * wasm/bindings/bindings.cpp); this gives them back the contract's `tracks` as views into it
 * (views of the result's one ArrayBuffer, no copies).
 */
export function unpackClips(model) {
  for (const clip of model?.clips ?? []) {
    const packed = clip.packedTracks;
    if (!packed) continue;
    const { layout, data } = packed;
    const tracks = [];
    for (let i = 0; i < layout.length; i += 6) {
      const bone = layout[i],
        keys = layout[i + 1],
        times = layout[i + 2],
        t = layout[i + 3],
        r = layout[i + 4],
        s = layout[i + 5];
      const track = { bone, times: data.subarray(times, times + keys) };
      if (t >= 0) track.translation = data.subarray(t, t + keys * 3);
      if (r >= 0) track.rotation = data.subarray(r, r + keys * 4);
      if (s >= 0) track.scale = data.subarray(s, s + keys * 3);
      tracks.push(track);
    }
    clip.tracks = tracks;
    delete clip.packedTracks;
  }
  return model;
}

/** The decoder module's memory limit (-sMAXIMUM_MEMORY in CMakeLists.txt), for messages. */
export const DECODER_MEMORY_LIMIT = '2 GiB';

/** The file(s) a decoder call is about, as messages name them. */
export function fileOfCall(op, args) {
  if (op === 'decodeUe1') return [args[1], args[3]].filter(Boolean).join(' + ') || 'a UE1 mesh';
  if (op === 'detectFormats') return `${args[3]?.length ?? 0} files`;
  if (op === 'decodePackageObject' || op === 'decodePackageMesh') return `${args[1] || 'a package'} (export ${args[2]})`;
  const file = op === 'detectFormat' ? args[2] : args[1];
  return typeof file === 'string' && file ? file : 'a file';
}

/**
 * The module trapped or aborted during a call (out of memory, or a bug): its state can no longer
 * be trusted, so the host replaces the instance and reports this sentence instead of the raw
 * engine message ("Aborted()", "memory access out of bounds", ...).
 */
export class DecoderCrash extends Error {
  constructor(message, cause) {
    super(message, { cause });
    this.name = 'DecoderCrash';
  }
}

const OUT_OF_MEMORY = /out of memory|\bOOM\b|allocation failed|invalid (typed )?array (buffer )?length|cannot enlarge memory|array buffer/i;

/** Why the module stopped, in words, from the thrown value and the module's own out-of-memory flag. */
export function crashCause(err, module) {
  const text = String(err?.message ?? err ?? '');
  if (module?.outOfMemory || OUT_OF_MEMORY.test(text)) return `the decoder ran out of memory (limit ${DECODER_MEMORY_LIMIT})`;
  if (/call stack|stack overflow/i.test(text)) return 'the decoder ran out of stack';
  if (/out of bounds|unreachable|null function|signature mismatch|divide by zero|integer overflow/i.test(text)) {
    return 'the decoder stopped on an invalid memory access (a decoder bug)';
  }
  return 'the decoder stopped on an internal error';
}

export function crashMessage(op, args, err, module) {
  return `rigscope: ${fileOfCall(op, args)}: ${crashCause(err, module)}; the decoder was restarted`;
}

/**
 * One decoder call on module instance `M`: the model (clips unpacked), or a JS Error with the
 * decoder's message when the file was refused (the binding returns `{ error }`), or a
 * DecoderCrash when the module itself failed.
 */
export function invoke(M, op, args) {
  if (!DECODER_OPS.has(op)) throw new Error(`unknown decoder operation ${op}`);
  let result;
  try {
    if (PARTS_OPS[op] && isPackageParts(args[0])) result = PARTS_OPS[op](M, args);
    else result = BATCH_OPS[op] ? BATCH_OPS[op](M, args) : M[op](...toWasmArgs(args));
  } catch (err) {
    throw new DecoderCrash(crashMessage(op, args, err, M), err);
  }
  if (result && typeof result === 'object' && typeof result.error === 'string') throw new Error(result.error);
  return unpackClips(result);
}

const isBlob = (a) => typeof Blob !== 'undefined' && a instanceof Blob;

/**
 * Arguments with each Blob read into its bytes: a large File comes to the worker as it is and is
 * read here, off the page's main thread (core/files.js decoderInput). A read that fails keeps its
 * error's name (NotReadableError, RangeError) across to the page, which words it (core/fileset.js).
 */
export function readBlobArgs(args) {
  if (!args.some(isBlob)) return args;
  return Promise.all(args.map((a) => (isBlob(a) ? a.arrayBuffer() : a)));
}

/**
 * A Blob streamed straight into module M's heap (HeapBytes), which the decoder reads where it lies.
 * Read whole into a buffer of its own first, a 64 MB file was written twice into fresh memory,
 * whose first writes cost more than the reads. Resolves to its bytes as an ArrayBuffer instead
 * when the heap has no room (the decoder then refuses the file by its size).
 */
async function streamIntoHeap(M, blob) {
  const size = blob.size;
  const at = M._malloc(size || 1);
  if (!at) return blob.arrayBuffer();
  try {
    let got = 0;
    for await (const chunk of blob.stream()) {
      if (got + chunk.length > size) throw new Error(`${blob.name ?? 'the file'} grew while it was read`);
      M.HEAPU8.set(chunk, at + got); // HEAPU8 anew each time: another call may have grown the heap
      got += chunk.length;
    }
    if (got !== size) throw new Error(`${blob.name ?? 'the file'} shrank while it was read`);
  } catch (err) {
    M._free(at);
    throw err;
  }
  return new HeapBytes(M, at, size);
}

/** An ArrayBuffer (or view) copied into module M's heap once (a held input), or its own bytes when the heap has no room. */
function copyIntoHeap(M, bytes) {
  const u8 = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = M._malloc(u8.byteLength || 1);
  if (!at) return u8;
  M.HEAPU8.set(u8, at);
  return new HeapBytes(M, at, u8.byteLength);
}

/**
 * Arguments with each Blob in module M's heap (streamIntoHeap), and `free()` to give the room back
 * once the call has returned.
 */
async function blobsIntoHeap(M, args) {
  const held = [];
  const free = () => held.forEach((b) => b.drop());
  if (!args.some(isBlob)) return { args, free };
  try {
    const out = [];
    for (const a of args) {
      const r = isBlob(a) ? await streamIntoHeap(M, a) : a;
      if (r instanceof HeapBytes) held.push(r);
      out.push(r);
    }
    return { args: out, free };
  } catch (err) {
    free();
    throw err;
  }
}

const isHeldRef = (a) => a !== null && typeof a === 'object' && !ArrayBuffer.isView(a) && typeof a.held === 'number';

/**
 * The inputs one decoder host holds (held.js) in its module instance's heap, by id. The side that
 * sends the calls decides what is held (HeldLedger: what to send, what to let go); a call naming
 * an input not held here (never sent, let go, or the instance replaced since) fails with
 * HELD_MISSING, and its sender sends the bytes again.
 */
export function heapKeeper() {
  let owner = null; // the instance whose heap holds them
  const kept = new Map(); // id -> Promise<HeapBytes | Uint8Array>
  const forInstance = (M) => {
    if (owner === M) return;
    kept.clear(); // their heap went with the instance
    owner = M;
  };
  const missing = (id) =>
    Object.assign(new Error(`rigscope: the decoder no longer holds input ${id}; it is sent again`), { name: HELD_MISSING });
  const keep = (M, bytes) => (isBlob(bytes) ? streamIntoHeap(M, bytes) : Promise.resolve(copyIntoHeap(M, bytes)));
  return {
    /**
     * Args with each held reference as its bytes (taken in when the reference carries them), and
     * `done()` once the call has returned. Bytes that arrive are registered before anything is
     * awaited, so a call naming them that arrives next finds them.
     */
    async take(M, args) {
      forInstance(M);
      for (const a of args) {
        if (!isHeldRef(a) || a.bytes === undefined) continue;
        const was = kept.get(a.held);
        const taken = keep(M, a.bytes).then((b) => (b instanceof ArrayBuffer ? new Uint8Array(b) : b));
        taken.catch(() => kept.get(a.held) === taken && kept.delete(a.held));
        kept.set(a.held, taken);
        was?.then(
          (b) => b instanceof HeapBytes && b.drop(),
          () => {},
        );
      }
      const used = [];
      const out = [];
      for (const a of args) {
        if (!isHeldRef(a)) {
          out.push(a);
          continue;
        }
        const k = kept.get(a.held);
        if (!k) throw missing(a.held);
        const b = await k;
        if (owner !== M) throw missing(a.held);
        if (b instanceof HeapBytes) used.push(b.use());
        out.push(b);
      }
      return { args: out, done: () => used.forEach((b) => b.drop()) };
    },
    /** Lets go of these inputs (their room is given back once no call uses them). */
    release(ids) {
      for (const id of ids) {
        const k = kept.get(id);
        kept.delete(id);
        k?.then(
          (b) => b instanceof HeapBytes && owner === b.M && b.drop(),
          () => {},
        );
      }
    },
    /** Ids held now (tests). */
    get ids() {
      return [...kept.keys()];
    },
  };
}

/**
 * The request loop every decoder worker runs (the site's, the standalone page's, Node's threads):
 * one module instance started on first use by `start()`, each {id, op, args} answered with
 * `post(reply, transfer)`. A failed start is retried by the next request; after a trap or abort
 * the instance is dropped and the next request gets a fresh one, so one bad file never breaks
 * the files after it.
 * @returns {(request: { id: number, op: string, args: any[] }) => Promise<void>}
 */
export function decoderServer(start, post) {
  let decoders = null; // Promise of the module instance
  const instance = () => {
    decoders ??= start().catch((err) => {
      decoders = null;
      throw err;
    });
    return decoders;
  };
  const held = heapKeeper();
  return async ({ id, op, args }) => {
    try {
      // What the page no longer needs held here (held.js); answered like a call, with nothing.
      if (op === 'releaseHeld') {
        held.release(args[0]);
        post({ id, ok: true, result: held.ids });
        return;
      }
      const M = await instance();
      const taken = await held.take(M, args);
      const input = await blobsIntoHeap(M, taken.args);
      const started = performance.now();
      let result;
      try {
        result = invoke(M, op, input.args);
      } finally {
        try {
          input.free();
          taken.done();
        } catch {
          // An aborted instance frees nothing: it is dropped whole.
        }
      }
      const ms = performance.now() - started;
      if (brokenAfterCall(M)) decoders = null;
      post({ id, ok: true, result, ms }, [...collectTransferables(result)]);
    } catch (err) {
      if (err instanceof DecoderCrash) decoders = null;
      post({ id, ok: false, error: err instanceof Error ? err.message : String(err), name: err?.name });
    }
  };
}
