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

/** Detects each entry's kind: claimed by name (images, text), else by its first bytes and size. */
async function classify(entries, decoder, records, isCancelled, families) {
  const out = [];
  for (const entry of entries) {
    if (isCancelled()) {
      records.push({ kind: 'refused', files: [entry.path], reason: 'decoding was cancelled' });
      continue;
    }
    const claimed = claimByName(families, entry.name);
    if (claimed) {
      out.push({ entry, kind: claimed });
      continue;
    }
    if (entry.size === 0) {
      records.push({ kind: 'unused', files: [entry.path], reason: 'the file is empty' });
      continue;
    }
    let head;
    try {
      head = await entry.readHead(HEAD_BYTES);
    } catch (err) {
      records.push({ kind: 'refused', files: [entry.path], reason: unreadable(err) });
      continue;
    }
    const kind = await decoder.call('detectFormat', [head, entry.size, entry.name]);
    if (familyOfKind(families, kind)) out.push({ entry, kind });
    // Notes, readmes and other files of a folder are not errors: they are listed as unused.
    else records.push({ kind: 'unused', files: [entry.path], reason: 'not a format Rigscope reads (detected by content, not extension)' });
  }
  return out;
}

/**
 * Decodes a whole file set.
 * @param {import('./files.js').FileEntry[]} entries
 * @param {{ call(op: string, args: any[]): Promise<any> }} decoder
 * @param {{ families: object[], onProgress?: Function, drop?: number, isCancelled?: () => boolean, maxFiles?: number }} options
 *   families: the family registry (web/src/families/): what each kind is and how it pairs
 *   maxFiles: the cap of one drop in a page; a walk of a tree on disk (the CLI) passes Infinity
 */
export async function decodeFiles(
  entries,
  decoder,
  { families, onProgress, drop = 0, isCancelled = () => false, maxFiles = MAX_FILES_PER_DROP } = {},
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

  for (const family of families) {
    const { jobs, records: planned } = await family.plan(byKind, { text });
    records.push(...planned);
    for (const job of jobs) {
      const [primary] = job.inputs;
      if (isCancelled()) {
        records.push({ kind: 'refused', files: job.inputs.map((i) => i.entry.path), reason: 'decoding was cancelled' });
        continue;
      }
      let decoded;
      try {
        decoded = await decoder.call(job.op, await job.args());
      } catch (err) {
        const reason =
          err?.name === 'NotReadableError' || err?.name === 'NotFoundError'
            ? unreadable(err)
            : // Reading the bytes into memory failed (a file of gigabytes): say so with its size.
              err instanceof RangeError
              ? `${primary.entry.name} is too large to read into memory (${primary.entry.size} bytes)`
              : err.message;
        records.push({ kind: 'refused', files: job.inputs.map((i) => i.entry.path), reason });
        continue;
      } finally {
        for (const i of job.inputs) step(i);
      }
      Object.assign(decoded, {
        file: primary.entry.path,
        name: baseName(primary.entry.path),
        files: job.inputs.map((i) => i.entry.path),
        family: family.id,
        drop,
      });
      job.after?.(decoded);
      if (job.inputs.length > 1) records.push({ kind: 'paired', files: decoded.files, via: job.via });
      for (const t of decoded.textures ?? []) {
        const id = decoded.textures.length > 1 ? `${primary.entry.path}#${t.name}` : primary.entry.path;
        // A file of one texture is known by its file name; arenas of many by each texture's name.
        const name = decoded.textures.length === 1 && !t.guid ? primary.entry.name : t.name;
        result.textures.push({ id, path: primary.entry.path, name, key: t.guid ?? textureKey(t.name), guid: t.guid, decoded: t, drop });
      }
      if (decoded.meshes.length) result.models.push(decoded);
      else if (decoded.clips.length || decoded.skeleton) result.animations.push(decoded);
    }
  }
  return result;
}
