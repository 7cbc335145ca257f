// Bytes from outside become FileEntry lists: zip archives and .rigscope bundles (expanded) and
// URLs. Page-specific sources (drops, the file button) live in app/input.js and end here. What
// comes from outside is bounded: the fetch limits below are named here and the zip budgets in
// limits.js, all listed in docs/formats.md ("Limits"), and every refusal names the file and the
// limit it passed.
import { Inflate } from 'fflate';
import { entryFromBytes, extension } from './files.js';
import { RangedFile, entryFromParts } from './ranged.js';
import { nextTask, slicer } from './tasks.js';
import { MAX_ZIP_BYTES, MAX_ZIP_ENTRIES, formatBytes } from './limits.js';
import { bundleEntries, isBundleEntry } from './bundle.js';
import { lfsPointer } from './lfs.js';

// The zip budgets are named in limits.js (core/pack.js and core/bundle.js spend them too).
export { MAX_ZIP_BYTES, MAX_ZIP_ENTRIES, formatBytes };

/** Largest file opened from a link: 1 GiB, refused as soon as Content-Length or the bytes received pass it. */
export const MAX_FETCH_BYTES = 2 ** 30;
/** A link that sends nothing for 30 s is abandoned (a server that stalls). */
export const FETCH_STALL_MS = 30_000;
/** A link still downloading after 10 minutes is abandoned (a server that trickles forever). */
export const FETCH_TOTAL_MS = 600_000;
const LIMITS = {
  maxFetchBytes: MAX_FETCH_BYTES,
  stallMs: FETCH_STALL_MS,
  totalMs: FETCH_TOTAL_MS,
  maxZipEntries: MAX_ZIP_ENTRIES,
  maxZipBytes: MAX_ZIP_BYTES,
};

/** "10 minutes", "30 s": durations in messages. */
const formatDuration = (ms) => (ms >= 60000 ? `${+(ms / 60000).toFixed(1)} minutes` : `${+(ms / 1000).toFixed(1)} s`);

// ---- zip archives ---------------------------------------------------------------------------
// Read from the central directory (the end-of-central-directory record in the last 64 KiB, and its
// ZIP64 form), so every entry's sizes are known before anything is inflated.

const u16 = (b, at) => b[at] | (b[at + 1] << 8);
const u32 = (b, at) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
const u64 = (b, at) => u32(b, at) + u32(b, at + 4) * 2 ** 32;

function zipError(zip, what) {
  return new Error(`${zip}: ${what}`);
}

/** The end-of-central-directory record: entry count and where the directory starts. */
function endOfDirectory(b, zip) {
  for (let at = b.length - 22; at >= Math.max(0, b.length - 22 - 65535); at--) {
    if (u32(b, at) !== 0x06054b50) continue;
    let entries = u16(b, at + 10),
      offset = u32(b, at + 16);
    // ZIP64: a locator 20 bytes before points at the ZIP64 record with 64-bit counts.
    if (at >= 20 && u32(b, at - 20) === 0x07064b50) {
      const z = u64(b, at - 12);
      if (z + 56 <= b.length && u32(b, z) === 0x06064b50) ((entries = u64(b, z + 32)), (offset = u64(b, z + 48)));
    }
    return { entries, offset };
  }
  throw zipError(zip, 'not a zip archive (no end-of-central-directory record)');
}

/** The central directory's entries: name, method, flags, sizes, local header offset. */
function centralDirectory(b, zip, { entries, offset }) {
  const list = [];
  let at = offset;
  for (let i = 0; i < entries; i++) {
    if (at + 46 > b.length || u32(b, at) !== 0x02014b50) throw zipError(zip, `central directory entry ${i} at byte ${at} is damaged`);
    const flags = u16(b, at + 8),
      nameLength = u16(b, at + 28),
      extraLength = u16(b, at + 30);
    const e = { flags, method: u16(b, at + 10), compressedSize: u32(b, at + 20), size: u32(b, at + 24), localOffset: u32(b, at + 42) };
    const nameBytes = b.subarray(at + 46, at + 46 + nameLength);
    e.name = flags & 0x800 ? new TextDecoder().decode(nameBytes) : String.fromCharCode(...nameBytes);
    // ZIP64 extra field (0x0001): 64-bit values for the fields stored as 0xFFFFFFFF, in this order.
    for (let x = at + 46 + nameLength; x + 4 <= at + 46 + nameLength + extraLength; x += 4 + u16(b, x + 2)) {
      if (u16(b, x) !== 1) continue;
      let v = x + 4;
      for (const field of ['size', 'compressedSize', 'localOffset'])
        if (e[field] === 0xffffffff) {
          e[field] = u64(b, v);
          v += 8;
        }
    }
    list.push(e);
    at += 46 + nameLength + extraLength + u16(b, at + 32);
  }
  return list;
}

const wanted = (e) => !e.name.endsWith('/') && !/(^|\/)__MACOSX\//.test(e.name);

// Inflating runs on the main thread in slices (core/tasks.js), so the page keeps drawing.
// Deflate can expand 1,032 times, so the input fed at once follows the ratio seen so far: about
// 1 MiB of output per push (1 KiB of a bomb, 64 KiB of ordinary data).
const OUTPUT_PER_PUSH = 2 ** 20;
const MIN_PUSH = 1024,
  MAX_PUSH = 64 * 1024;

/**
 * One entry's bytes. Deflate is fed in small chunks and every output chunk is counted: an entry
 * that inflates past the size its directory declares is refused there, so a lying zip bomb never
 * allocates more than it declared (and the declared total is capped).
 */
async function inflateEntry(b, zip, e, pause) {
  if (e.flags & 1) throw zipError(zip, `${e.name} is encrypted; Rigscope reads only unencrypted zips`);
  const at = e.localOffset;
  if (at + 30 > b.length || u32(b, at) !== 0x04034b50) throw zipError(zip, `${e.name}: local header at byte ${at} is damaged`);
  const dataAt = at + 30 + u16(b, at + 26) + u16(b, at + 28);
  if (dataAt + e.compressedSize > b.length)
    throw zipError(zip, `${e.name}: ${e.compressedSize} bytes of data at byte ${dataAt} run past the end of the archive`);
  const packed = b.subarray(dataAt, dataAt + e.compressedSize);
  if (e.method === 0) {
    if (e.size !== e.compressedSize) throw zipError(zip, `${e.name} is stored with ${e.compressedSize} bytes but declares ${e.size}`);
    return packed.slice();
  }
  if (e.method !== 8)
    throw zipError(zip, `${e.name} uses compression method ${e.method}; Rigscope reads stored (0) and deflated (8) entries`);
  let out;
  try {
    out = new Uint8Array(e.size);
  } catch {
    throw zipError(zip, `${e.name}: no memory left for its ${formatBytes(e.size)}`);
  }
  let got = 0;
  let overflow = false;
  const inflater = new Inflate((chunk) => {
    if (overflow || got + chunk.length > out.length) {
      overflow = true;
      return;
    }
    out.set(chunk, got);
    got += chunk.length;
  });
  let fed = 0,
    push = MIN_PUSH;
  for (;;) {
    const piece = packed.subarray(fed, fed + push);
    fed += piece.length;
    const last = fed >= packed.length;
    const before = got;
    try {
      inflater.push(piece, last);
    } catch (err) {
      throw zipError(zip, `${e.name} is damaged (${err.message})`);
    }
    if (overflow) throw zipError(zip, `${e.name} inflates past the ${formatBytes(e.size)} its directory declares; refused (a zip bomb?)`);
    if (last) break;
    const ratio = Math.max(1, (got - before) / piece.length);
    push = Math.min(MAX_PUSH, Math.max(MIN_PUSH, Math.floor(OUTPUT_PER_PUSH / ratio)));
    await pause();
  }
  if (got !== e.size) throw zipError(zip, `${e.name} inflates to ${got} bytes, its directory declares ${e.size}`);
  return out;
}

/**
 * Replaces every .zip entry by its members (folders inside the zip keep their paths) and every
 * .rigscope bundle, given or inside a zip, by its files (core/bundle.js: found by content, named
 * as inside it; each remembers its bundle and view state). The zips and bundles of one call share
 * one budget of MAX_ZIP_ENTRIES entries and MAX_ZIP_BYTES inflated bytes. `limits` overrides the
 * limits (tests); `limits.onUnpack({ name, done, total })` follows a bundle's unpacking.
 */
export async function expandZips(entries, limits = {}) {
  const { maxZipEntries, maxZipBytes, onUnpack } = { ...LIMITS, ...limits };
  const out = [];
  const budget = { entries: 0, bytes: 0 };
  const pause = slicer();
  const bundleOrFile = async (entry) =>
    (await isBundleEntry(entry))
      ? bundleEntries(entry, { budget, maxZipEntries, maxZipBytes, onProgress: onUnpack && ((p) => onUnpack({ name: entry.name, ...p })) })
      : [entry];
  for (const zipEntry of entries) {
    if (zipEntry.refusal) {
      out.push(zipEntry); // a file that never arrived: refused with its reason by the decode stage
      continue;
    }
    if (extension(zipEntry.name) !== 'zip') {
      out.push(...(await bundleOrFile(zipEntry)));
      continue;
    }
    const zip = zipEntry.name;
    const b = new Uint8Array(await zipEntry.read());
    // A Git LFS pointer in place of the zip stays a file: the decode stage names it (core/lfs.js).
    if (lfsPointer(b)) {
      out.push({ ...zipEntry, ...entryFromBytes(zipEntry.path ?? zip, b) });
      continue;
    }
    const end = endOfDirectory(b, zip);
    budget.entries += end.entries;
    if (budget.entries > maxZipEntries) {
      throw zipError(
        zip,
        `${end.entries.toLocaleString('en')} entries${budget.entries > end.entries ? ` (${budget.entries.toLocaleString('en')} with the zips before it)` : ''}, over the limit of ${maxZipEntries.toLocaleString('en')} entries per drop`,
      );
    }
    const members = centralDirectory(b, zip, end).filter(wanted);
    const declared = members.reduce((n, e) => n + e.size, 0);
    budget.bytes += declared;
    if (budget.bytes > maxZipBytes) {
      throw zipError(
        zip,
        `its entries declare ${formatBytes(declared)} when inflated${budget.bytes > declared ? ` (${formatBytes(budget.bytes)} with the zips before it)` : ''}, over the ${formatBytes(maxZipBytes)} limit per drop`,
      );
    }
    // A zip's members came from the zip's URL, if it had one.
    for (const e of members)
      out.push(...(await bundleOrFile({ ...entryFromBytes(`${zip}/${e.name}`, await inflateEntry(b, zip, e, pause)), url: zipEntry.url })));
  }
  return out;
}

// ---- links ------------------------------------------------------------------------------------

/**
 * Collects the page's Content-Security-Policy refusals while `run` fetches, so a blocked fetch is
 * blamed on the policy and not on the other site (both reject fetch() with the same TypeError).
 */
async function blockedByPolicy(url, run) {
  const blocked = [];
  const listen = (e) => blocked.push(e.blockedURI);
  globalThis.document?.addEventListener('securitypolicyviolation', listen);
  try {
    return await run();
  } catch (err) {
    await nextTask(); // the violation event is queued as a task of its own
    const origin = new URL(url).origin;
    if (blocked.some((b) => b === url || b === origin || url.startsWith(b))) err.policy = true;
    throw err;
  } finally {
    globalThis.document?.removeEventListener('securitypolicyviolation', listen);
  }
}

// Watches one download: aborts after `stallMs` without data or `totalMs` in all, and says which.
function watchdog(limits) {
  const controller = new AbortController();
  let reason = null;
  const stop = (why) => {
    reason ??= why;
    controller.abort();
  };
  const total = setTimeout(() => stop(`still downloading after ${formatDuration(limits.totalMs)}`), limits.totalMs);
  let stall;
  const progress = () => {
    clearTimeout(stall);
    stall = setTimeout(() => stop(`no data arrived for ${formatDuration(limits.stallMs)}`), limits.stallMs);
  };
  progress();
  return {
    signal: controller.signal,
    progress,
    get reason() {
      return reason;
    },
    abort: stop,
    done() {
      clearTimeout(total);
      clearTimeout(stall);
    },
  };
}

/** One URL's bytes, within the byte cap and the time limits. */
async function fetchBytes(url, onProgress, limits) {
  return (await fetchBody(url, onProgress, limits)).bytes;
}

/**
 * One URL's answer and its body's bytes, within the byte cap and the time limits; `headers` go
 * with the request (a Range). `limits.signal` ends it when no longer needed, and
 * `limits.onResponse(response)` hears its status and headers before its body is read.
 */
async function fetchBody(url, onProgress, limits, headers = undefined) {
  const cap = limits.maxFetchBytes;
  const watch = watchdog(limits);
  limits.signal?.addEventListener('abort', () => watch.abort('it was no longer needed'));
  const failed = (what) => Object.assign(new Error(`Could not fetch ${url}: ${what}`), { what });
  try {
    let response;
    try {
      // A three.js loader's request headers and credentials (three/loaders.js) go with its requests.
      const request = {
        mode: /** @type {RequestMode} */ ('cors'),
        signal: watch.signal,
        headers: { ...limits.requestHeaders, ...headers },
      };
      if (limits.withCredentials) request.credentials = /** @type {RequestCredentials} */ ('include');
      response = await blockedByPolicy(url, () => fetch(url, request));
    } catch (err) {
      if (watch.reason) throw failed(watch.reason);
      if (err.policy) throw failed("blocked by this page's security policy (Content-Security-Policy connect-src)");
      throw failed('the server did not allow this page to read it (CORS), or it is unreachable');
    }
    if (!response.ok) throw failed(`HTTP ${response.status}`);
    limits.onResponse?.(response);
    const total = Number(response.headers.get('content-length')) || 0;
    const overCap = `over the ${formatBytes(cap)} limit for files opened from a link`;
    if (total > cap) {
      watch.abort('too large');
      throw failed(`it is ${formatBytes(total)}, ${overCap}`);
    }
    const reader = response.body.getReader();
    const chunks = [];
    let got = 0;
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (err) {
        throw failed(watch.reason ?? `the download broke off (${err.message})`);
      }
      if (step.done) break;
      watch.progress();
      got += step.value.length;
      if (got > cap) {
        watch.abort('too large');
        reader.cancel().catch(() => {});
        throw failed(`more than ${formatBytes(cap)} arrived, ${overCap}`);
      }
      chunks.push(step.value);
      onProgress?.({ url, got, total });
    }
    const bytes = new Uint8Array(got);
    let o = 0;
    for (const c of chunks) {
      bytes.set(c, o);
      o += c.length;
    }
    return { response, bytes };
  } finally {
    watch.done();
  }
}

/**
 * One part of a URL (`range`: a Range header's value), within the fetch limits: `{ bytes, start,
 * size }` with its place and the file's size from the host's Content-Range; `{ bytes, size, whole:
 * true }` when the host sent the whole file instead (it ignores Range: 200); null when the host
 * answered a part it does not name or that does not add up.
 */
async function fetchPart(url, range, limits, onProgress) {
  const { response, bytes } = await fetchBody(url, onProgress, limits, { Range: range });
  if (response.status !== 206) return { bytes, size: bytes.length, whole: true };
  const named = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
  if (!named) return null;
  const [first, last, size] = named.slice(1).map(Number);
  return bytes.length === last - first + 1 && last < size ? { bytes, start: first, size } : null;
}

/**
 * Bytes `start` to `end` (exclusive) of a URL, within the fetch limits: `{ bytes, size }`, or
 * `{ bytes, size, whole: true }` when the host sent the whole file instead (it ignores Range, or
 * answered another part than the one asked for: then the file is fetched whole).
 */
export async function fetchRange(url, start, end, limits = {}, onProgress = undefined) {
  const all = { ...LIMITS, ...limits, signal: undefined };
  const part = await fetchPart(url, `bytes=${start}-${end - 1}`, all, onProgress);
  if (part && (part.whole || part.start === start)) return part;
  const whole = (await fetchBody(url, onProgress, all)).bytes;
  return { bytes: whole, size: whole.length, whole: true };
}

/**
 * A link's file as an entry read in parts (core/ranged.js) when its host answers ranges and the
 * file is larger than its first parts (`first`: the family's `partsFirst`, the bytes its tables
 * need from the head and the tail of the file, asked for side by side); else its bytes, as any
 * link's.
 */
async function entryInParts(url, path, onProgress, limits, first) {
  // A host that ignores Range sends the whole file to the head's request: the tail's is ended then.
  const tailNotNeeded = new AbortController();
  const onResponse = (response) => response.status !== 206 && tailNotNeeded.abort();
  const [head, tail] = await Promise.all([
    fetchRange(url, 0, first.head, { ...limits, onResponse }, onProgress),
    first.tail ? fetchPart(url, `bytes=-${first.tail}`, { ...LIMITS, ...limits, signal: tailNotNeeded.signal }).catch(() => null) : null,
  ]);
  if (head.whole || head.size <= head.bytes.length) return entryFromBytes(path, head.bytes);
  // The size the host names is what the decoder lays the parts out in: within the byte cap, as a
  // whole file's Content-Length is.
  const cap = limits.maxFetchBytes ?? MAX_FETCH_BYTES;
  if (head.size > cap) {
    const what = `it is ${formatBytes(head.size)}, over the ${formatBytes(cap)} limit for files opened from a link`;
    throw Object.assign(new Error(`Could not fetch ${url}: ${what}`), { what });
  }
  const read = async (start, end) => {
    const part = await fetchRange(url, start, end, limits);
    return part.whole ? { whole: part.bytes } : { bytes: part.bytes };
  };
  const parts = [{ at: 0, bytes: head.bytes }];
  if (tail && !tail.whole && tail.size === head.size) parts.push({ at: tail.start, bytes: tail.bytes });
  return entryFromParts(path, new RangedFile(head.size, parts, read));
}

/** A link's entry: its bytes, or a file read in parts when a family reads files of its name so (`limits.readsInParts`). */
function linkEntry(url, path, bytes, onProgress, limits) {
  if (bytes) return entryFromBytes(path, bytes);
  const first = limits.readsInParts?.(path);
  if (first) return entryInParts(url, path, onProgress, limits, first);
  return fetchBytes(url, onProgress, limits).then((b) => entryFromBytes(path, b));
}

function nameOfUrl(url) {
  const last = new URL(url).pathname.split('/').pop() || 'download';
  try {
    return decodeURIComponent(last);
  } catch {
    return last; // a malformed %-escape stays as written
  }
}

/** A download that failed as an entry the decode stage refuses, naming the host's answer. */
function fetchRefusal(item) {
  if (!item.err) return item;
  const path = item.path ?? nameOfUrl(item.url);
  const refuse = () => Promise.reject(item.err);
  const reason = `could not be fetched: ${item.err.what ?? item.err.message}`;
  return { name: path.split('/').pop(), path, size: 0, url: item.url, refusal: reason, read: refuse, readHead: refuse };
}

/**
 * Downloads at once while a link's files are fetched: one after another, a folder of 94 files paid
 * 94 round trips before its first file could be decoded. Six is what browsers open to one host
 * over HTTP/1.1.
 */
export const FETCHES_AT_ONCE = 6;

/**
 * Fetches absolute URLs, each within MAX_FETCH_BYTES, FETCH_STALL_MS and FETCH_TOTAL_MS, a few at
 * once (FETCHES_AT_ONCE), in the URLs' order; a failure says which limit, or whether the page's
 * policy or the other site refused, of the first URL in order that failed (no new download starts
 * after a failure). `onProgress({ url, got, total, done, count })`: a download's bytes, and how many
 * of the `count` files are in. `limits` overrides the limits (tests); `limits.isCancelled()` stops
 * starting downloads (Cancel). A URL may be `{ url, path, bytes? }` to name its entry (and give
 * its bytes when they were read before).
 *
 * `limits.readsInParts(path)` (the families' registry: families/index.js readsInParts): for files
 * of such a name, the parts to read first (`{ head, tail }` bytes); they are read in parts where
 * the host answers ranges (entryInParts), and the rest as it is needed.
 *
 * `limits.eachOnItsOwn` (a repository folder's files): a file that cannot be fetched does not stop
 * the others; it becomes an entry that says why (`refusal`, refused by the decode stage with the
 * rest of the report), unless every file failed, or Cancel was pressed: then the first failure is
 * thrown.
 */
export async function entriesFromUrls(urls, onProgress, limits = {}) {
  const all = { ...LIMITS, ...limits };
  const out = new Array(urls.length);
  const count = urls.length;
  let next = 0,
    done = 0,
    failed = false;
  const report = (p) => onProgress?.({ ...p, done, count });
  const fetchNext = async () => {
    while (next < count && !failed) {
      const i = next++;
      // An item is a URL, or { url, path } when the URL does not end in the file's name (a
      // repository's raw-file API, core/repo.js).
      // `bytes`: already read (a repository's script read while its companions were looked for).
      const { url, path, bytes } = typeof urls[i] === 'string' ? { url: urls[i] } : urls[i];
      try {
        if (all.isCancelled?.()) throw new Error('Fetching was cancelled; files already loaded stay');
        // Each entry remembers its URL, so a link to the view can name the file again.
        out[i] = { ...(await linkEntry(url, path ?? nameOfUrl(url), bytes, report, all)), url };
      } catch (err) {
        failed = !all.eachOnItsOwn || !!all.isCancelled?.();
        out[i] = { err, url, path };
      }
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCHES_AT_ONCE, count) }, fetchNext));
  const failures = out.filter((e) => e?.err);
  if (failures.length && (failed || failures.length === count)) throw failures[0].err;
  return expandZips(out.map(fetchRefusal), all);
}
