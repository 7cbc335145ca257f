// Turns a set of dropped files into decoded items and report records. Formats are detected by
// content (or claimed by name for images and text); each family of the registry pairs its
// companions and names its decoder operation. Files are known by their path in the drop.
//
// Result: { models, animations, textures, texts, records }, where models and animations are the
// decoders' output plus `file` (path), `files` (every input path), `family` and `drop`; textures
// are records { id, path, key, guid?, decoded?, entry? }; texts are { path, entry } (actor XML and
// other text a family reads later); records are { kind, files, via?, reason, needs? }.
import { baseName, readText, textureKey } from './files.js';
import { claimByName, detectByHead, familyOfKind, requireFamilies, textKindsOf } from './registry.js';
import { slicer } from './tasks.js';
import { LFS_POINTER_MAX, lfsPointer } from './lfs.js';
import { formatBytes } from './limits.js';

const HEAD_BYTES = 65536;
/** Head reads in flight at once while a drop is detected. */
const HEAD_READS = 8;
/** At most this many files are read from one drop; the rest are listed once as refused. */
export const MAX_FILES_PER_DROP = 20000;

/** Why a file could not be read, in a sentence (browsers say NotReadableError, Node ENOENT…). */
function unreadable(err) {
  const why =
    err?.name === 'NotReadableError' || err?.name === 'NotFoundError'
      ? 'the browser could not read it (moved, deleted or too large to read)'
      : (err?.message ?? String(err));
  return `could not be read: ${why}`;
}

/**
 * The record of a Git LFS pointer (core/lfs.js) given in place of its file, or null: named for
 * what it is, whatever family its name or extension suggests, so nothing binds or decodes it.
 */
function pointerRecord(entry, head) {
  const pointer = head.byteLength < LFS_POINTER_MAX ? lfsPointer(new Uint8Array(head, 0, head.byteLength)) : null;
  if (!pointer) return null;
  const reason = `a Git LFS pointer: the repository keeps this file elsewhere (the file itself is ${formatBytes(pointer.size)}, sha256 ${pointer.oid.slice(0, 12)}…)`;
  return { kind: 'refused', files: [entry.path], reason, lfs: pointer };
}

/**
 * Files claimed by name (images, text sidecars) small enough to be Git LFS pointers, read whole
 * once: a pointer becomes its record, and any other keeps its bytes for its first read.
 */
async function pointersAmongClaimed(small, heads, records) {
  const pointers = new Set();
  const read = (entry) =>
    entry.readHead(LFS_POINTER_MAX).then(
      (head) => ({ head }),
      () => ({}), // unreadable: said when it is read for use
    );
  await inOrder(small, HEAD_READS, read, (entry, { head }) => {
    if (!head) return;
    const pointer = pointerRecord(entry, head);
    if (pointer) {
      records.push(pointer);
      pointers.add(entry);
    } else if (head.byteLength === entry.size) heads.set(entry, head);
  });
  return pointers;
}

/**
 * A small file whose head read was the whole file: its first read gives those bytes again instead
 * of reading the file a second time (each read is a round trip to the browser's file store), and
 * lets go of them; later reads read the file.
 */
function readOnce(entry, bytes) {
  let kept = bytes;
  return {
    ...entry,
    read: () => {
      if (!kept) return entry.read();
      const b = kept;
      kept = null;
      return Promise.resolve(b);
    },
  };
}

/** Bytes of file heads sent to the decoders in one call (a folder of ordinary size is one call). */
const HEADS_PER_CALL = 4 << 20;

/** Bytes of a head read that detection reads: a file already in memory gives itself whole as its head. */
const headLength = (head) => Math.min(head.byteLength, HEAD_BYTES);

/**
 * The heads of one detectFormats call, one after another in one buffer. A lone head goes to a
 * decoder that copies its input and never detaches it (Node's, a loader's in the browser:
 * `transfersInput` false) as a view of what detection reads: a loader's parse() then copies no
 * head out of the caller's bytes, and a large file given whole is not copied whole into the
 * decoder (5 MB for a 5 MB mesh) nor sent whole to a worker.
 */
function packHeads(sent, decoder) {
  if (sent.length === 1 && decoder.transfersInput === false) {
    const { head } = sent[0];
    return new Uint8Array(head, 0, headLength(head));
  }
  const packed = new Uint8Array(sent.reduce((n, b) => n + headLength(b.head), 0));
  let at = 0;
  for (const { head } of sent) {
    packed.set(new Uint8Array(head, 0, headLength(head)), at);
    at += headLength(head);
  }
  return packed.buffer;
}

/**
 * Runs `work` over `items` with at most `width` at a time (reading the next file while others
 * decode), calling `done(item, result)` in the items' order so records come out the same way
 * every time. `work` never throws: it resolves to what `done` makes sense of.
 */
async function inOrder(items, width, work, done) {
  // Thousands of small reads and records cut into tasks: started and filed in one go, the reads'
  // answers arriving together held the page for hundreds of milliseconds.
  const pause = slicer();
  const running = new Array(items.length);
  let next = 0;
  const launch = () => {
    if (next >= items.length) return;
    const i = next++;
    running[i] = pause().then(() => work(items[i]));
    running[i].then(launch, launch); // `work` never throws; as finally(), without its two extra promises
  };
  for (let k = 0; k < width; k++) launch();
  for (let i = 0; i < items.length; i++) {
    const result = await running[i];
    await pause();
    await done(items[i], result);
  }
}

/**
 * Runs `work` over `items` as inOrder does, but calls `done(item, result)` as each finishes
 * (one at a time), so a quick job is filed while a long one started before it still runs.
 */
async function asFinished(items, width, work, done) {
  const pause = slicer();
  let next = 0;
  let filing = Promise.resolve();
  const finished = [];
  const launch = () => {
    if (next >= items.length) return;
    const i = next++;
    const ran = pause().then(() => work(items[i]));
    finished.push(
      ran.then((result) => {
        launch();
        filing = filing.then(async () => {
          await pause();
          await done(items[i], result);
        });
        return filing;
      }),
    );
  };
  for (let k = 0; k < width; k++) launch();
  // Every job launched is in `finished` before the one that launched it is filed.
  for (let k = 0; k < finished.length; k++) await finished[k];
}

/** Calls the decoders may run at once: one decoding and one read ahead per worker. */
const widthOf = (decoder) => 2 * Math.max(1, decoder.workerLimit ?? 1);

/**
 * A drop of more files than this shows a character planned from its first files alone, before the
 * heads of the rest are read (each read is a round trip to the browser's file store: a thousand
 * files take seconds). The whole drop is planned again once every file is known.
 */
export const FIRST_LOOK = 32;
/** Jobs of the first look tried, smallest first, for one that draws something (not a clip alone). */
const FIRST_LOOK_JOBS = 3;
/**
 * The rest of the heads wait at most this long for the first look to be drawn: read meanwhile,
 * they held the cores the decoder's start and the first drawing need (a 2,000-file drop's first
 * frame came 100 ms later).
 */
const FIRST_LOOK_HOLD_MS = 1500;

/**
 * Detects each entry's kind: claimed by name (images, text), else by its first bytes and size.
 * Heads are read a few at a time and sent together: one worker call per few megabytes of heads,
 * the first FIRST_LOOK heads in a call of their own, after which `onFirstLook` gets the items of
 * the files up to there (only when the drop has more). Resolves to every item, one per file.
 */
async function classify(entries, decoder, records, isCancelled, families, onFirstLook) {
  const { kinds, unread, small } = claimedKinds(entries, families, records);
  const heads = new Map(); // entry -> its whole bytes, when the head read was the whole file
  if (small.length) for (const pointer of await pointersAmongClaimed(small, heads, records)) kinds.delete(pointer);
  // One item per file, shared by the first look and the whole plan: a kept head is given once.
  const items = new Map();
  const itemOf = (entry) => {
    const kind = kinds.get(entry);
    if (kind === undefined || !familyOfKind(families, kind)) return null;
    if (!items.has(entry)) items.set(entry, { entry: heads.has(entry) ? readOnce(entry, heads.get(entry)) : entry, kind });
    return items.get(entry);
  };
  const lookEnd = unread.length > FIRST_LOOK && onFirstLook ? entries.indexOf(unread[FIRST_LOOK - 1]) + 1 : 0;
  const detect = headBatches(decoder, kinds);
  let read = 0;
  let held = null; // the first look, which the next reads wait for
  const readHead = async (entry) => {
    if (held) await held;
    if (isCancelled()) return { cancelled: true };
    return entry.readHead(HEAD_BYTES).then(
      (head) => ({ head }),
      (error) => ({ error }),
    );
  };
  await inOrder(unread, HEAD_READS, readHead, async (entry, r) => {
    read++;
    sortHead(entry, r, { families, records, heads, kinds, detect });
    if (read === FIRST_LOOK && lookEnd) {
      detect.send();
      const look = Promise.all(detect.calls).then(
        () => detect.failed || onFirstLook(entries.slice(0, lookEnd).map(itemOf).filter(Boolean)),
      );
      held = Promise.race([look, new Promise((resolve) => setTimeout(resolve, FIRST_LOOK_HOLD_MS))]).then(() => (held = null));
    }
  });
  detect.send();
  // Files whose tags JavaScript knows leave no call to wait for.
  if (detect.calls.length) await Promise.all(detect.calls);
  if (detect.failed) throw detect.failed;
  const out = [];
  for (const entry of entries) {
    const item = itemOf(entry);
    if (item) out.push(item);
    // Notes, readmes and other files of a folder are not errors: they are listed as unused.
    else if (kinds.has(entry))
      records.push({ kind: 'unused', files: [entry.path], reason: 'not a format Rigscope reads (detected by content, not extension)' });
  }
  return out;
}

/**
 * Kinds claimed by name (entry -> kind); the entries left to read a head of (`unread`), and the
 * claimed ones small enough to be a Git LFS pointer (`small`). An entry that never arrived (a
 * repository file whose download failed) says why.
 */
function claimedKinds(entries, families, records) {
  const kinds = new Map();
  const unread = [];
  const small = [];
  for (const entry of entries) {
    if (entry.refusal) {
      records.push({ kind: 'refused', files: [entry.path], reason: entry.refusal });
      continue;
    }
    const claimed = claimByName(families, entry.name);
    if (claimed) kinds.set(entry, claimed);
    else unread.push(entry);
    if (claimed && entry.size < LFS_POINTER_MAX) small.push(entry);
  }
  return { kinds, unread, small };
}

/**
 * Heads gathered for the decoders' detectFormats: `add` sends the batch first when the head would
 * take it past HEADS_PER_CALL, `send` sends it, not awaited, so the next heads are read meanwhile.
 * `calls` are the calls sent; `failed`, a call that failed (it fails the drop once every call has ended).
 */
function headBatches(decoder, kinds) {
  const b = { batch: [], bytes: 0, calls: [], failed: null };
  b.send = () => {
    if (!b.batch.length) return;
    const sent = b.batch;
    b.batch = [];
    b.bytes = 0;
    const call = decoder
      .call('detectFormats', [
        packHeads(sent, decoder),
        sent.map((x) => headLength(x.head)),
        sent.map((x) => x.entry.size),
        sent.map((x) => x.entry.name),
      ])
      .then(
        (found) => sent.forEach(({ entry }, i) => kinds.set(entry, found[i])),
        (err) => (b.failed ??= err),
      );
    b.calls.push(call);
  };
  b.add = (entry, head) => {
    if (b.bytes + headLength(head) > HEADS_PER_CALL) b.send();
    b.batch.push({ entry, head });
    b.bytes += headLength(head);
  };
  return b;
}

/**
 * One head read: a record for a file that could not be read, is empty or is a Git LFS pointer;
 * its kind when a family knows it by a tag in JavaScript (UE1 packages, without the decoders);
 * else it goes to the decoders' detection. A head that is the whole file is kept.
 */
function sortHead(entry, r, { families, records, heads, kinds, detect }) {
  let pointer;
  if (r.cancelled) records.push({ kind: 'refused', files: [entry.path], reason: 'decoding was cancelled' });
  else if (r.error) records.push({ kind: 'refused', files: [entry.path], reason: unreadable(r.error) });
  else if (!r.head.byteLength) records.push({ kind: 'unused', files: [entry.path], reason: 'the file is empty' });
  else if ((pointer = pointerRecord(entry, r.head))) records.push(pointer);
  else {
    if (r.head.byteLength === entry.size) heads.set(entry, r.head);
    const known = detectByHead(families, new Uint8Array(r.head, 0, headLength(r.head)), entry);
    if (known) kinds.set(entry, known);
    else detect.add(entry, r.head);
  }
}

/** Why a job's files could not be decoded, in a sentence. */
function refusal(err, entry) {
  if (err?.name === 'NotReadableError' || err?.name === 'NotFoundError') return unreadable(err);
  // Reading the bytes into memory failed (a file of gigabytes): say so with its size.
  // (A RangeError from a decoder worker arrives as an Error of that name.)
  if (err?.name === 'RangeError') return `${entry.name} is too large to read into memory (${entry.size} bytes)`;
  return err.message;
}

/** What one job gives the result: its decode named after its files, with its textures and records, or why it was refused. */
function outcome(job, { decoded, reason }, drop) {
  const [primary] = job.inputs;
  const files = job.inputs.map((i) => i.entry.path);
  if (!decoded) return { records: [{ kind: 'refused', files, reason }], textures: [] };
  Object.assign(decoded, { file: primary.entry.path, name: baseName(primary.entry.path), files, family: job.family.id, drop });
  job.after?.(decoded);
  const textures = (decoded.textures ?? []).map((t) => {
    const id = decoded.textures.length > 1 ? `${primary.entry.path}#${t.name}` : primary.entry.path;
    // A file of one texture is known by its file name; arenas of many by each texture's name.
    const name = decoded.textures.length === 1 && !t.guid ? primary.entry.name : t.name;
    return { id, path: primary.entry.path, name, key: t.guid ?? textureKey(t.name), guid: t.guid, decoded: t, drop };
  });
  const records = job.inputs.length > 1 ? [{ kind: 'paired', files, via: job.via }] : [];
  return { decoded, textures, records };
}

/** Files a job's outcome into the result. */
function file(result, { decoded, textures, records }) {
  result.records.push(...records);
  result.textures.push(...textures);
  if (!decoded) return;
  if (decoded.meshes.length) result.models.push(decoded);
  else if (decoded.clips.length || decoded.skeleton) result.animations.push(decoded);
}

/** Bytes a job reads (or decodes, for one object of a container: `job.bytes`): jobs run smallest first. */
const bytes = (job) => job.bytes ?? job.inputs.reduce((n, i) => n + i.entry.size, 0);

/** What items give a result without decoding: image files as texture records, text a family reads later. */
function collect(items, drop, families) {
  const out = { models: [], animations: [], textures: [], texts: [], records: [], containers: [] };
  for (const item of items) {
    if (item.kind === 'image')
      out.textures.push({
        id: item.entry.path,
        path: item.entry.path,
        name: item.entry.name,
        key: textureKey(item.entry.name),
        entry: item.entry,
        drop,
      });
  }
  // Text a family reads when the scene is assembled (actor XML, material sidecars).
  for (const kind of textKindsOf(families)) {
    for (const item of items)
      if (item.kind === kind) out.texts.push({ path: item.entry.path, name: item.entry.name, entry: item.entry, kind });
  }
  return out;
}

/**
 * Decodes a whole file set.
 * @param {import('./files.js').FileEntry[]} entries
 * @param {{ call(op: string, args: any[]): Promise<any> }} decoder
 * @param {{ families: object[], onProgress?: Function, onDecoded?: Function, drop?: number, isCancelled?: () => boolean, maxFiles?: number }} options
 *   families: the family registry (web/src/families/): what each kind is and how it pairs
 *   onDecoded: called with each decode and the result so far, as it is filed (the page draws early);
 *     the promise it may return for the first look's model holds the reading of the other files
 *     until it is drawn (at most FIRST_LOOK_HOLD_MS)
 *   maxFiles: the cap of one drop in a page; a walk of a tree on disk (the CLI) passes Infinity
 *   objects: names of the objects of containers (UE1 packages) to decode: their names or object
 *     paths, case-insensitive (`rigscope convert --mesh`); every object when absent
 */
export async function decodeFiles(
  entries,
  decoder,
  { families, onProgress, onDecoded, drop = 0, isCancelled = () => false, maxFiles = MAX_FILES_PER_DROP, objects } = {},
) {
  requireFamilies(families, 'decodeFiles');
  const result = { models: [], animations: [], textures: [], texts: [], records: [], containers: [] };
  const { records } = result;
  entries = capFiles(entries, maxFiles, records);
  const text = (item) => readText(item.entry);
  // A container's tables (a UE1 package's) are read when it is planned: what it holds says which jobs to plan.
  const call = (op, args) => decoder.call(op, args);
  const run = async (job) => {
    if (isCancelled()) return { reason: 'decoding was cancelled' };
    try {
      // A family that reads its files in JavaScript (glTF) gives `decode` instead of a worker op.
      return { decoded: job.decode ? await job.decode(decoder) : await decoder.call(job.op, await job.args()) };
    } catch (err) {
      // The decoder was disposed (a loader's dispose()): the load ends, no file is at fault.
      if (err?.name === 'DecoderDisposedError') throw err;
      return { reason: refusal(err, job.inputs[0].entry) };
    }
  };
  // `found` (the whole plan's) gathers what families give without a job: texture records decoded
  // when first used (`load(decoder)`), and what each container holds (`containers`).
  const plan = async (items, told, found = null) => {
    const byKind = (k) => items.filter((i) => i.kind === k);
    const kinds = new Set(items.map((i) => i.kind));
    const jobs = [];
    for (const family of families) {
      // A family plans from files of its own kinds (reading another's only beside one of its own:
      // UE1 a .psk its .uc imports): without any it has nothing to plan, and is not asked (a
      // loader's one file was planned by all seven, each an async call).
      if (!family.kinds.some((k) => kinds.has(k))) continue;
      const planned = await family.plan(byKind, { text, call, objects, decoder });
      told.push(...planned.records);
      jobs.push(...planned.jobs.map((job) => ({ ...job, family })));
      if (!found) continue;
      for (const t of planned.textures ?? []) found.textures.push({ ...t, drop });
      for (const c of planned.containers ?? []) found.containers.push({ ...c, family: family.id, drop });
    }
    return jobs;
  };
  const look = firstLooker({ plan, run, drop, families, onDecoded });

  // The worker starts while the heads are read (a pool that has none running).
  decoder.warm?.();
  const items = await classify(entries, decoder, records, isCancelled, families, onDecoded && look.run);
  const collected = collect(items, drop, families);
  result.textures.push(...collected.textures);
  result.texts.push(...collected.texts);
  const jobs = await plan(items, records, result);
  await runPlan(jobs, { decoder, look, result, drop, onDecoded, onProgress, total: entries.length });
  return result;
}

/** The entries of one drop up to `maxFiles`; those past it are recorded as refused. */
function capFiles(entries, maxFiles, records) {
  if (entries.length <= maxFiles) return entries;
  records.push({
    kind: 'refused',
    files: entries.slice(maxFiles).map((e) => e.path),
    reason: `over the limit of ${maxFiles} files in one drop`,
  });
  return entries.slice(0, maxFiles);
}

/** Two jobs are the same when they run the same op on the same items. */
const sameJob = (a, b) => a.op === b.op && a.inputs.length === b.inputs.length && a.inputs.every((input, i) => input === b.inputs[i]);

/**
 * The first look: `look.run(items)` plans the first files, runs the smallest few jobs until one
 * draws a mesh and gives it to onDecoded. Its decodes are kept (`looked`: { job, ran }) and
 * `look.reuse(job)` gives the whole plan's same job from them; `filing` is set once the whole
 * plan's decodes are being filed (the first look has had its turn), `shown` is what it drew.
 */
function firstLooker({ plan, run, drop, families, onDecoded }) {
  const look = { looked: [], shown: null, filing: false };
  look.reuse = (job) => look.looked.find((l) => sameJob(l.job, job))?.ran ?? run(job);
  look.run = async (items) => {
    try {
      const jobs = (await plan(items, [])).sort((a, b) => bytes(a) - bytes(b));
      for (const job of jobs.slice(0, FIRST_LOOK_JOBS)) {
        const ran = run(job);
        look.looked.push({ job, ran });
        const { decoded, reason } = await ran;
        if (look.filing) return;
        if (!decoded?.meshes.length) continue;
        const partial = collect(items, drop, families);
        look.shown = { job, outcome: outcome(job, { decoded, reason }, drop) };
        file(partial, look.shown.outcome);
        await onDecoded(decoded, partial);
        return;
      }
    } catch {
      // Only a first look: the whole plan reports what went wrong.
    }
  };
  return look;
}

/**
 * Runs the whole plan's jobs and files their outcomes into `result`. The largest job (larger than
 * any other) first, then the others smallest first: the largest decodes on one worker while the
 * rest go through the others (started last, it was the drop's last decode, alone), and textures
 * and small models are ready soonest, so a page draws its first character early. Each is filed as
 * it finishes (onDecoded sees the result grow), then the result is put in the families' order, so
 * it is the same whatever finished first.
 */
async function runPlan(jobs, { decoder, look, result, drop, onDecoded, onProgress, total }) {
  const { records } = result;
  let done = 0;
  const step = (item) => onProgress?.({ done: ++done, total, name: item.entry.name });
  const bySize = jobs.map((_, i) => i).sort((a, b) => bytes(jobs[a]) - bytes(jobs[b]));
  const [largest, runnerUp] = bySize.slice(-2).reverse();
  if (bySize.length > 2 && bytes(jobs[largest]) > bytes(jobs[runnerUp])) bySize.unshift(bySize.pop());
  const outcomes = new Array(jobs.length);
  const planned = { textures: result.textures.length, records: records.length };
  // What the first look drew stays in the result so far (the page keeps drawing it) when the whole
  // plan has the same job; it is filed once.
  const { shown } = look;
  const kept = shown ? jobs.findIndex((job) => sameJob(job, shown.job)) : -1;
  if (kept >= 0) file(result, (outcomes[kept] = shown.outcome));
  await asFinished(
    bySize,
    widthOf(decoder),
    (i) => look.reuse(jobs[i]),
    (i, ran) => {
      look.filing = true;
      for (const input of jobs[i].inputs) step(input);
      if (i === kept) return;
      outcomes[i] = outcome(jobs[i], ran, drop);
      file(result, outcomes[i]);
      if (ran.decoded) onDecoded?.(ran.decoded, result);
    },
  );
  result.models = [];
  result.animations = [];
  result.textures.length = planned.textures;
  records.length = planned.records;
  for (const o of outcomes) file(result, o);
}

/**
 * The decoded picture of a texture record: its own, or, for a record a family decodes when it is
 * first used (`load(decoder)`: a texture inside a package), decoded now and kept on the record.
 * Null for an image file (read from its entry by whoever draws it).
 */
export async function decodedTexture(record, decoder) {
  if (record.decoded) return record.decoded;
  if (!record.load) return null;
  if (!decoder) throw new Error(`${record.name}: no decoder to read this texture with`);
  // Kept on the record as the load ends, before another call can find it neither loading nor decoded.
  record.loading ??= record
    .load(decoder)
    .then((decoded) => (record.decoded = decoded))
    .finally(() => (record.loading = null));
  return record.loading;
}
