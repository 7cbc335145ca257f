// Turns a set of dropped files into decoded items and report records. Formats are detected by
// content (or claimed by name for images and text); each family of the registry pairs its
// companions and names its decoder operation. Files are known by their path in the drop.
//
// Result: { models, animations, textures, texts, records }, where models and animations are the
// decoders' output plus `file` (path), `files` (every input path), `family` and `drop`; textures
// are records { id, path, key, guid?, decoded?, entry? }; texts are { path, entry } (actor XML and
// other text a family reads later); records are { kind, files, via?, reason, needs? }.
import { baseName, readText, textureKey } from './files.js';
import { claimByName, familyOfKind, requireFamilies } from './registry.js';

const HEAD_BYTES = 65536;
/** Head reads in flight at once while a drop is detected. */
const HEAD_READS = 8;
/** At most this many files are read from one drop; the rest are listed once as refused. */
export const MAX_FILES_PER_DROP = 20000;

/** Why a file could not be read, in a sentence (browsers say NotReadableError, Node ENOENT…). */
function unreadable(err) {
  const why =
    err?.name === 'NotReadableError'
      ? 'the browser could not read it (moved, deleted or too large to read)'
      : (err?.message ?? String(err));
  return `could not be read: ${why}`;
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

/**
 * Runs `work` over `items` with at most `width` at a time (reading the next file while others
 * decode), calling `done(item, result)` in the items' order so records come out the same way
 * every time. `work` never throws: it resolves to what `done` makes sense of.
 */
async function inOrder(items, width, work, done) {
  const running = new Array(items.length);
  let next = 0;
  const launch = () => {
    if (next >= items.length) return;
    const i = next++;
    running[i] = work(items[i]);
    running[i].finally(launch);
  };
  for (let k = 0; k < width; k++) launch();
  for (let i = 0; i < items.length; i++) await done(items[i], await running[i]);
}

/** Calls the decoders may run at once: one decoding and one read ahead per worker. */
const widthOf = (decoder) => 2 * Math.max(1, decoder.workerLimit ?? 1);

/**
 * Detects each entry's kind: claimed by name (images, text), else by its first bytes and size.
 * Heads are read a few at a time and sent together: one worker call per few megabytes of heads.
 */
async function classify(entries, decoder, records, isCancelled, families) {
  const kinds = new Map(); // entry -> kind
  const heads = new Map(); // entry -> its whole bytes, when the head read was the whole file
  const unread = [];
  for (const entry of entries) {
    const claimed = claimByName(families, entry.name);
    if (claimed) kinds.set(entry, claimed);
    else if (entry.size === 0) records.push({ kind: 'unused', files: [entry.path], reason: 'the file is empty' });
    else unread.push(entry);
  }
  let batch = [];
  let batchBytes = 0;
  const calls = [];
  let failed = null; // a detect call that failed fails the drop, once every call has ended
  // Sends the heads gathered so far; not awaited, so the next heads are read meanwhile.
  const detect = () => {
    if (!batch.length) return;
    const sent = batch;
    const packed = new Uint8Array(batchBytes);
    let at = 0;
    for (const { head } of sent) {
      packed.set(new Uint8Array(head), at);
      at += head.byteLength;
    }
    batch = [];
    batchBytes = 0;
    const call = decoder.call('detectFormats', [
      packed.buffer,
      sent.map((b) => b.head.byteLength),
      sent.map((b) => b.entry.size),
      sent.map((b) => b.entry.name),
    ]);
    calls.push(
      call.then(
        (found) => sent.forEach(({ entry }, i) => kinds.set(entry, found[i])),
        (err) => (failed ??= err),
      ),
    );
  };
  const readHead = (entry) =>
    isCancelled()
      ? Promise.resolve({ cancelled: true })
      : entry.readHead(HEAD_BYTES).then(
          (head) => ({ head }),
          (error) => ({ error }),
        );
  await inOrder(unread, HEAD_READS, readHead, async (entry, r) => {
    if (r.cancelled) records.push({ kind: 'refused', files: [entry.path], reason: 'decoding was cancelled' });
    else if (r.error) records.push({ kind: 'refused', files: [entry.path], reason: unreadable(r.error) });
    else {
      if (batchBytes + r.head.byteLength > HEADS_PER_CALL) detect();
      batch.push({ entry, head: r.head });
      batchBytes += r.head.byteLength;
      if (r.head.byteLength === entry.size) heads.set(entry, r.head);
      // The first head goes at once: a worker that has not started yet starts while the rest are read.
      if (!calls.length) detect();
    }
  });
  detect();
  await Promise.all(calls);
  if (failed) throw failed;
  const out = [];
  for (const entry of entries) {
    const kind = kinds.get(entry);
    if (kind === undefined) continue;
    if (familyOfKind(families, kind)) out.push({ entry: heads.has(entry) ? readOnce(entry, heads.get(entry)) : entry, kind });
    // Notes, readmes and other files of a folder are not errors: they are listed as unused.
    else records.push({ kind: 'unused', files: [entry.path], reason: 'not a format Rigscope reads (detected by content, not extension)' });
  }
  return out;
}

/** Why a job's files could not be decoded, in a sentence. */
function refusal(err, entry) {
  if (err?.name === 'NotReadableError' || err?.name === 'NotFoundError') return unreadable(err);
  // Reading the bytes into memory failed (a file of gigabytes): say so with its size.
  if (err instanceof RangeError) return `${entry.name} is too large to read into memory (${entry.size} bytes)`;
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

/**
 * Decodes a whole file set.
 * @param {import('./files.js').FileEntry[]} entries
 * @param {{ call(op: string, args: any[]): Promise<any> }} decoder
 * @param {{ families: object[], onProgress?: Function, onDecoded?: Function, drop?: number, isCancelled?: () => boolean, maxFiles?: number }} options
 *   families: the family registry (web/src/families/): what each kind is and how it pairs
 *   onDecoded: called with each decode and the result so far, as it is filed (the page draws early)
 *   maxFiles: the cap of one drop in a page; a walk of a tree on disk (the CLI) passes Infinity
 */
export async function decodeFiles(
  entries,
  decoder,
  { families, onProgress, onDecoded, drop = 0, isCancelled = () => false, maxFiles = MAX_FILES_PER_DROP } = {},
) {
  requireFamilies(families, 'decodeFiles');
  const result = { models: [], animations: [], textures: [], texts: [], records: [] };
  const { records } = result;
  if (entries.length > maxFiles) {
    records.push({
      kind: 'refused',
      files: entries.slice(maxFiles).map((e) => e.path),
      reason: `over the limit of ${maxFiles} files in one drop`,
    });
    entries = entries.slice(0, maxFiles);
  }
  const items = await classify(entries, decoder, records, isCancelled, families);
  const byKind = (k) => items.filter((i) => i.kind === k);
  const text = (item) => readText(item.entry);
  let done = 0;
  const total = entries.length;
  const step = (item) => onProgress?.({ done: ++done, total, name: item.entry.name });

  for (const item of byKind('image')) {
    result.textures.push({
      id: item.entry.path,
      path: item.entry.path,
      name: item.entry.name,
      key: textureKey(item.entry.name),
      entry: item.entry,
      drop,
    });
  }
  // Text a family reads when the scene is assembled (actor XML, material sidecars).
  for (const kind of families.flatMap((f) => f.textKinds ?? [])) {
    for (const item of byKind(kind)) result.texts.push({ path: item.entry.path, name: item.entry.name, entry: item.entry, kind });
  }

  const jobs = [];
  for (const family of families) {
    const { jobs: planned, records: told } = await family.plan(byKind, { text });
    records.push(...told);
    jobs.push(...planned.map((job) => ({ ...job, family })));
  }
  const run = async (job) => {
    if (isCancelled()) return { reason: 'decoding was cancelled' };
    try {
      return { decoded: await decoder.call(job.op, await job.args()) };
    } catch (err) {
      return { reason: refusal(err, job.inputs[0].entry) };
    }
  };
  // Smallest first: textures and small models are ready soonest, so a page draws its first
  // character early, and the largest files finish side by side at the end. Each is filed as it
  // finishes (onDecoded sees the result grow), then the result is put in the families' order,
  // so it is the same whatever finished first.
  const bytes = (job) => job.inputs.reduce((n, i) => n + i.entry.size, 0);
  const bySize = jobs.map((_, i) => i).sort((a, b) => bytes(jobs[a]) - bytes(jobs[b]));
  const outcomes = new Array(jobs.length);
  const planned = { textures: result.textures.length, records: records.length };
  await inOrder(
    bySize,
    widthOf(decoder),
    (i) => run(jobs[i]),
    (i, ran) => {
      for (const input of jobs[i].inputs) step(input);
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
  return result;
}
