// .rigscope bundles: a character in one file, for what a wiki upload, a forum attachment or a chat
// message carries in place of twenty files. No DOM and no three.js: pages, workers and Node.
//
// Format (fixed: other programs check it, e.g. a MediaWiki extension in PHP):
//   8-byte signature 89 52 53 42 0D 0A 1A 0A  ·  exactly the bytes packScene() returns (core/pack.js:
//   raw deflate of the RSPK container, the files the scene uses and the view state)
// The signature follows PNG's: a byte with the high bit set (a 7-bit transfer clears it), "RSB",
// CR LF (a text-mode transfer rewrites it), ^Z (stops DOS `type`), LF (LF → CR LF is caught too).
//
// Opening a bundle is opening a packed link: unpackScene within the zip budgets (core/limits.js),
// with its messages, each prefixed by the bundle's name. Bundles are found by content: a file named
// .rigscope must carry the signature, and any file whose name no family reads is looked at.
import { unpackScene } from './pack.js';
import { entryFromBytes, extension } from './files.js';
import { MAX_ZIP_BYTES, MAX_ZIP_ENTRIES } from './limits.js';
import { pageFileName } from './page.js';

/** @typedef {import('./files.js').FileEntry & { url?: string }} SourceEntry */
/**
 * A file from a bundle: it remembers the bundle (shared by the bundle's files) and its name inside.
 * @typedef {SourceEntry & { bundle?: { path: string, state: Record<string, unknown> }, nameInBundle?: string }} BundledEntry
 */

/** The first 8 bytes of every bundle. */
export const BUNDLE_SIGNATURE = Uint8Array.of(0x89, 0x52, 0x53, 0x42, 0x0d, 0x0a, 0x1a, 0x0a);
/** A bundle's file name extension (without the dot). */
export const BUNDLE_EXTENSION = 'rigscope';

/**
 * The bundle file for a packed scene.
 * @param {Uint8Array} payload what packScene() or packSceneAsync() returned
 * @returns {Uint8Array}
 */
export function bundleBytes(payload) {
  const out = new Uint8Array(BUNDLE_SIGNATURE.length + payload.length);
  out.set(BUNDLE_SIGNATURE, 0);
  out.set(payload, BUNDLE_SIGNATURE.length);
  return out;
}

/**
 * Whether these bytes (a file's head: 8 bytes are enough) start with the bundle signature.
 * @param {ArrayBuffer | Uint8Array} headBytes
 */
export function isBundle(headBytes) {
  const head = headBytes instanceof Uint8Array ? headBytes : new Uint8Array(headBytes);
  return head.length >= BUNDLE_SIGNATURE.length && BUNDLE_SIGNATURE.every((b, i) => head[i] === b);
}

/** A bundle's file name from a character's name ("Grunt" → "Grunt.rigscope"): no path, no reserved characters. */
export function bundleFileName(name) {
  return pageFileName(name, `.${BUNDLE_EXTENSION}`);
}

const hex = (bytes) => [...bytes].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
const printable = (bytes) => [...bytes].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');

/** What a head that is not a bundle's says about where it went wrong, or ''. */
function signatureHint(head) {
  const text = String.fromCharCode(...head.subarray(0, 4));
  if (head[0] === 0x89 && text.slice(1) === 'RSB')
    return ': its line ends were changed on the way (a text-mode transfer); send and save it as a binary file';
  if (head[0] === 0x09 && text.slice(1) === 'RSB') return ': a 7-bit transfer cleared its first byte; send and save it as a binary file';
  if (text === 'PK\x03\x04') return ' (it is a zip archive: rename it .zip)';
  if (/^\s*</.test(printable(head))) return ' (it is text or a web page, not the file itself: an error page saved in its place?)';
  return '';
}

/** The sentence for bytes that do not start with the signature. */
function signatureProblem(bytes) {
  if (!bytes.length) return 'it is not a Rigscope bundle: it is empty';
  const head = bytes.subarray(0, BUNDLE_SIGNATURE.length);
  const found = `${hex(head)} ("${printable(head)}")`;
  return `it is not a Rigscope bundle: its first bytes (offset 0) are ${found}, a bundle starts with ${hex(BUNDLE_SIGNATURE)}${signatureHint(head)}`;
}

/** An error naming the bundle; `problem` is the sentence without the name (for a record that names it already). */
function bundleError(name, problem, cause) {
  return Object.assign(new Error(`${name}: ${problem}`, { cause }), { problem });
}

/**
 * A bundle's files and view state, within the packed link's limits (core/pack.js unpackScene).
 * Throws a sentence that names the bundle, what is wrong and where: `Grunt.rigscope: Packed
 * scene: it is cut off …`.
 * @param {Uint8Array} bytes the whole file
 * @param {{ name?: string, maxEntries?: number, maxBytes?: number, onProgress?: (p: { done: number, total: number }) => void }} [limits]
 *   name: the bundle's file name, in messages
 * @returns {Promise<{ files: { name: string, bytes: Uint8Array }[], state: Record<string, unknown> }>}
 */
export async function readBundle(bytes, { name = 'bundle', ...limits } = {}) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (!isBundle(u8)) throw bundleError(name, signatureProblem(u8));
  try {
    return await unpackScene(u8.subarray(BUNDLE_SIGNATURE.length), limits);
  } catch (err) {
    // unpackScene speaks of links; a bundle is a file that was uploaded, attached or downloaded.
    const problem = String(err.message).replace(
      'the link was shortened on its way',
      'the file was cut short on its way (an upload or download that stopped?)',
    );
    throw bundleError(name, problem, err);
  }
}

// Which other names are looked at for the signature: a bundle that a chat host or a browser saved
// as download.bin, .dat or without an extension. Only these: a game folder holds thousands of files
// no family reads (.u, .utx, .uax, .int, readmes), and each would cost a read before the drop starts.
const RENAMED_BUNDLES = new Set(['', 'bin', 'dat']);

/**
 * Whether an entry is to be opened as a bundle: it is named .rigscope (then it must be one, and
 * readBundle says why not), or it has a renamed bundle's name and starts with the signature.
 * @param {import('./files.js').FileEntry} entry
 */
export async function isBundleEntry(entry) {
  const ext = extension(entry.name);
  if (ext === BUNDLE_EXTENSION) return true;
  if (!RENAMED_BUNDLES.has(ext)) return false;
  try {
    return isBundle(await entry.readHead(BUNDLE_SIGNATURE.length));
  } catch {
    return false; // unreadable: the decode stage names it
  }
}

/**
 * The file entries inside a bundle entry. Each remembers its bundle (`bundle: { path, state }`,
 * shared by the bundle's files), its name inside it (`nameInBundle`) and the bundle's URL, if it
 * was fetched. `budget` ({ entries, bytes }, spent here) is the drop's, shared with its zips.
 * @param {SourceEntry} entry
 * @param {{ prefix?: boolean, budget?: { entries: number, bytes: number }, maxZipEntries?: number, maxZipBytes?: number,
 *   onProgress?: (p: { done: number, total: number }) => void }} [options]
 *   prefix: paths are `<bundle path>/<name inside>` (the command line, whose records name both);
 *   else the names inside as they are (the page: a bundle opens as its files did)
 * @returns {Promise<BundledEntry[]>}
 */
export async function bundleEntries(entry, options = {}) {
  const { prefix = false, budget = { entries: 0, bytes: 0 }, maxZipEntries = MAX_ZIP_ENTRIES, maxZipBytes = MAX_ZIP_BYTES } = options;
  const bytes = new Uint8Array(await entry.read());
  const { files, state } = await readBundle(bytes, {
    name: entry.path,
    maxEntries: Math.max(0, maxZipEntries - budget.entries),
    maxBytes: Math.max(0, maxZipBytes - budget.bytes),
    onProgress: options.onProgress,
  });
  budget.entries += files.length;
  budget.bytes += files.reduce((n, f) => n + f.bytes.length, 0);
  const bundle = { path: entry.path, state };
  return files.map((f) => ({
    ...entryFromBytes(prefix ? `${entry.path}/${f.name}` : f.name, f.bytes),
    url: entry.url,
    bundle,
    nameInBundle: f.name,
  }));
}

/**
 * Every bundle among the entries replaced by its files, in place; the bundles share one budget.
 * Throws on the first bundle that cannot be opened (as a bad zip ends a drop).
 * @param {SourceEntry[]} entries
 * @param {Parameters<typeof bundleEntries>[1]} [options]
 * @returns {Promise<BundledEntry[]>}
 */
export async function expandBundles(entries, options = {}) {
  const budget = options.budget ?? { entries: 0, bytes: 0 };
  /** @type {BundledEntry[]} */
  const out = [];
  for (const e of entries) {
    if (await isBundleEntry(e)) out.push(...(await bundleEntries(e, { ...options, budget })));
    else out.push(e);
  }
  return out;
}

/**
 * The bundles the entries came from, in order, each once: `{ path, state }`.
 * @param {BundledEntry[]} entries
 * @returns {{ path: string, state: Record<string, unknown> }[]}
 */
export function bundlesOf(entries) {
  const seen = new Set();
  for (const e of entries) if (e.bundle) seen.add(e.bundle);
  return [...seen];
}
