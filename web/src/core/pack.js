// The packed form: a scene's files and view state in one deflated container, carried by a link's
// fragment (`index.html#pack=…`, `embed.html#pack=…`), the element's `packed` attribute and the
// standalone page. No DOM and no three.js: it runs in pages, workers and Node.
//
// Container, before deflate (raw deflate, fflate):
//   "RSPK" · u32 LE file count · u32 LE header length · header (UTF-8 JSON { v: 1, state, files: [{ name, size }] })
//   · every file's bytes, in the header's order.
// One deflate stream over all files lets a mesh and its animations share a dictionary.
//
// Reading is hostile-input safe: the header is capped, the entry count and the declared total are
// checked against the zip budgets (core/limits.js) and against what the payload could possibly
// inflate to before anything is allocated, and every inflated byte is counted as it arrives, so a
// payload that inflates past its header stops there. Inflating yields every few milliseconds.
import { Deflate, Inflate, deflateSync } from 'fflate';
import { MAX_ZIP_BYTES, MAX_ZIP_ENTRIES, formatBytes } from './limits.js';
import { slicer } from './tasks.js';

const MAGIC = [0x52, 0x53, 0x50, 0x4b]; // "RSPK"
const VERSION = 1;
/** Names and state of a container: at most 4 MiB of JSON (20,000 names of 200 characters). */
export const MAX_PACK_HEADER_BYTES = 4 * 2 ** 20;
/** Longest name (a relative path) in a container. */
export const MAX_PACK_NAME = 1024;
/** Deflate cannot expand more than 1032:1; a header that declares more than this lies. */
const DEFLATE_MAX_RATIO = 1032;

// Input fed at once follows the ratio seen so far: about 256 KiB of output per push (64 bytes of a
// bomb, 64 KiB of ordinary data), so no one push blocks the page for long.
const OUTPUT_PER_PUSH = 256 * 1024;
const MIN_PUSH = 64,
  MAX_PUSH = 64 * 1024;
/** Bytes before the header: magic, file count, header length. */
const HEAD = 12;

// ---- base64url --------------------------------------------------------------------------------

/** Bytes as base64url without padding (RFC 4648 §5): safe in a URL fragment and an attribute. */
export function toBase64Url(bytes) {
  const parts = [];
  // Slices of a multiple of 3 bytes encode independently; strings stay small for btoa.
  for (let i = 0; i < bytes.length; i += 3 * 8192) {
    const slice = bytes.subarray(i, i + 3 * 8192);
    parts.push(btoa(String.fromCharCode.apply(null, slice)));
  }
  return parts.join('').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** base64url (padding optional) to bytes; throws naming the first character that is not base64url. */
export function fromBase64Url(text) {
  const s = String(text);
  const bad = s.search(/[^A-Za-z0-9_-]/);
  // Padding is allowed only at the very end.
  const body = bad >= 0 && /^=+$/.test(s.slice(bad)) && s.length % 4 === 0 ? s.slice(0, bad) : s;
  const badAt = body.search(/[^A-Za-z0-9_-]/);
  if (badAt >= 0) {
    const c = body.codePointAt(badAt);
    const shown = c >= 0x21 && c <= 0x7e ? `"${String.fromCodePoint(c)}"` : `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
    throw new Error(`the packed data is not base64url: character ${shown} at position ${badAt} (only A–Z, a–z, 0–9, - and _ are used)`);
  }
  if (body.length % 4 === 1)
    throw new Error(
      `the packed data is cut off: ${body.length} base64url characters cannot end a whole byte (a link shortened on its way?)`,
    );
  const binary = atob(body.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

// ---- names ------------------------------------------------------------------------------------

// Control characters, and the characters that change how text around them displays (bidi
// controls and other format characters, line and paragraph separators).
const CONTROL = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * Why a name cannot be a packed file's name, or null. Names are relative paths with '/' between
 * folders (two files of one name in different folders stay apart); absolute paths, drive letters,
 * backslashes, '.' and '..' and control characters are refused.
 */
export function nameProblem(name) {
  if (typeof name !== 'string' || name.length === 0) return 'is empty';
  if (name.length > MAX_PACK_NAME) return `is ${name.length} characters long, over ${MAX_PACK_NAME}`;
  const m = CONTROL.exec(name);
  if (m) return `has the control character U+${m[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')} at position ${m.index}`;
  if (name.includes('\\')) return 'has a backslash (a Windows path)';
  if (name.startsWith('/')) return 'is an absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'starts with a drive letter';
  if (name.split('/').some((s) => s === '' || s === '.' || s === '..')) return 'has an empty, "." or ".." folder in its path';
  return null;
}

/** A file's path made into a packable name: folders joined by '/', nothing that climbs or hides. */
export function packName(path) {
  const parts = String(path)
    .replace(/\\/g, '/')
    .split('/')
    .map((s) => s.replace(new RegExp(CONTROL.source, 'gu'), '_'))
    .filter((s) => s !== '' && s !== '.' && s !== '..');
  if (parts.length && /^[A-Za-z]:$/.test(parts[0])) parts.shift();
  return (parts.join('/') || 'file').slice(-MAX_PACK_NAME);
}

// ---- packing ----------------------------------------------------------------------------------

const u32le = (n) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];

/** The container before deflate: magic, header length, header, then every file's bytes. */
function container({ files, state = {} }) {
  const seen = new Set();
  const listed = files.map((f) => {
    let name = packName(f.name);
    // Two paths that become one name (C:\a.psk and /a.psk) stay apart.
    for (let k = 2; seen.has(name); k++) name = packName(f.name).replace(/(\.[^./]*)?$/, ` (${k})$1`);
    seen.add(name);
    return { name, size: f.bytes.length };
  });
  const header = new TextEncoder().encode(JSON.stringify({ v: VERSION, state, files: listed }));
  const parts = [Uint8Array.from([...MAGIC, ...u32le(listed.length), ...u32le(header.length)]), header, ...files.map((f) => f.bytes)];
  return { parts, listed };
}

// Level 6: level 9 saves about 0.1% on real meshes and animations and takes three times as long.
const LEVEL = 6;
const PACK_SLICE = 256 * 1024;

/**
 * Packs files and view state into one deflated container.
 * @param {{ files: { name: string, bytes: Uint8Array }[], state?: object }} scene
 * @returns {Uint8Array}
 */
export function packScene(scene) {
  const { parts } = container(scene);
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return deflateSync(all, { level: LEVEL });
}

/**
 * packScene in slices that yield to the page, stopping as soon as the output passes `maxBytes`
 * (a set too large for a link is not compressed to the end to say so).
 * @param {{ files: { name: string, bytes: Uint8Array }[], state?: object }} scene
 * @param {{ maxBytes?: number, onProgress?: (p: { done: number, total: number }) => void }} [options]
 * @returns {Promise<{ payload: Uint8Array | null, files: { name: string, size: number }[], read: number, total: number }>}
 *   payload null when it passed maxBytes after `read` of `total` input bytes
 */
export async function packSceneAsync(scene, { maxBytes = Infinity, onProgress } = {}) {
  const { parts, listed } = container(scene);
  const total = parts.reduce((n, p) => n + p.length, 0);
  const chunks = [];
  let size = 0,
    read = 0;
  const pause = slicer(() => onProgress?.({ done: read, total }));
  const deflater = new Deflate({ level: LEVEL }, (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  const pieces = [];
  for (const p of parts) for (let at = 0; at < p.length; at += PACK_SLICE) pieces.push(p.subarray(at, at + PACK_SLICE));
  for (let k = 0; k < pieces.length; k++) {
    read += pieces[k].length;
    deflater.push(pieces[k], k === pieces.length - 1);
    if (size > maxBytes) return { payload: null, files: listed, read, total };
    await pause();
  }
  const payload = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    payload.set(c, at);
    at += c.length;
  }
  return { payload, files: listed, read, total };
}

// ---- unpacking --------------------------------------------------------------------------------

const packError = (what) => new Error(`Packed scene: ${what}`);
/** 20001 → "20,001" (not toLocaleString: a page's first Intl call takes a tenth of a second). */
const thousands = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const exact = (n) => `${thousands(n)} bytes`;

/** The header's files and state, checked against the limits before anything is allocated. */
function readHeader(bytes, payloadLength, { maxEntries, maxBytes }) {
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw packError(`its header (bytes ${HEAD}–${HEAD + bytes.length}) is not JSON (${err.message})`);
  }
  if (!header || typeof header !== 'object' || header.v !== VERSION) {
    throw packError(`its header is version ${JSON.stringify(header?.v)}; this Rigscope reads version ${VERSION}`);
  }
  const { files, state = {} } = header;
  if (!Array.isArray(files)) throw packError('its header has no file list');
  if (!state || typeof state !== 'object' || Array.isArray(state)) throw packError("its header's view state is not an object");
  if (files.length > maxEntries) throw packError(`it holds ${thousands(files.length)} files, over the limit of ${thousands(maxEntries)}`);
  const names = new Set();
  let declared = 0;
  files.forEach((f, i) => {
    const name = f?.name;
    const why = nameProblem(name);
    if (why)
      throw packError(
        `file ${i + 1}'s name ${typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : ''} ${why}; nothing was opened`,
      );
    if (names.has(name)) throw packError(`file ${i + 1}'s name "${name}" appears twice; nothing was opened`);
    names.add(name);
    if (!Number.isSafeInteger(f.size) || f.size < 0) throw packError(`${name}: its size ${JSON.stringify(f.size)} is not a byte count`);
    declared += f.size;
  });
  if (declared > maxBytes) throw packError(`its files declare ${exact(declared)}, over the ${formatBytes(maxBytes)} limit`);
  // Deflate cannot expand more than 1032:1: a header that declares more than the payload can
  // hold lies, and nothing of that size is allocated.
  const possible = payloadLength * DEFLATE_MAX_RATIO;
  if (declared + HEAD + bytes.length > possible)
    throw packError(`its files declare ${formatBytes(declared)}, more than ${formatBytes(payloadLength)} of deflate can hold; refused`);
  return { files, state };
}

/**
 * A container's bytes as they inflate, taken in container order: its fixed head (magic, file
 * count, header length), its header (readHeader), then each file's bytes. The first thing wrong is
 * kept in `problem` and nothing more is taken; a byte past the declared end is a problem.
 */
class Unpacker {
  constructor(payloadLength, limits) {
    this.payloadLength = payloadLength;
    this.limits = limits;
    this.head = new Uint8Array(HEAD);
    this.headGot = 0;
    this.count = 0;
    this.headerBytes = null;
    this.headerGot = 0;
    this.list = null;
    this.out = null;
    this.index = 0;
    this.fileGot = 0;
    this.total = 0;
    this.done = 0;
    this.problem = null;
  }

  /** Bytes taken so far, of the head, the header and the files. */
  get taken() {
    return this.done + this.headerGot + this.headGot;
  }

  take(chunk) {
    let at = 0;
    while (at < chunk.length && !this.problem) {
      if (this.headGot < HEAD) at = this.takeHead(chunk, at);
      else if (!this.list) at = this.takeHeader(chunk, at);
      else at = this.takeFiles(chunk, at);
    }
  }

  takeHead(chunk, at) {
    const n = Math.min(HEAD - this.headGot, chunk.length - at);
    this.head.set(chunk.subarray(at, at + n), this.headGot);
    this.headGot += n;
    if (this.headGot === HEAD) this.problem = this.readHead();
    return at + n;
  }

  /** The head's magic, count and header length checked; the problem, or null. */
  readHead() {
    const head = this.head;
    if (MAGIC.some((b, i) => head[i] !== b)) return packError('it is not a Rigscope packed scene (its first bytes are not "RSPK")');
    const u32 = (at) => (head[at] | (head[at + 1] << 8) | (head[at + 2] << 16) | (head[at + 3] << 24)) >>> 0;
    // The count comes first, so a thousand-fold list is refused before its names are read.
    this.count = u32(4);
    const { maxEntries } = this.limits;
    if (this.count > maxEntries) return packError(`it holds ${thousands(this.count)} files, over the limit of ${thousands(maxEntries)}`);
    const length = u32(8);
    if (length > MAX_PACK_HEADER_BYTES)
      return packError(`its header declares ${exact(length)}, over the ${formatBytes(MAX_PACK_HEADER_BYTES)} limit`);
    this.headerBytes = new Uint8Array(length);
    return null;
  }

  takeHeader(chunk, at) {
    const n = Math.min(this.headerBytes.length - this.headerGot, chunk.length - at);
    this.headerBytes.set(chunk.subarray(at, at + n), this.headerGot);
    this.headerGot += n;
    if (this.headerGot === this.headerBytes.length) {
      try {
        const h = readHeader(this.headerBytes, this.payloadLength, this.limits);
        if (h.files.length !== this.count) throw packError(`its header lists ${h.files.length} files, its count says ${this.count}`);
        this.list = h.files;
        this.out = { state: h.state, files: [] };
        this.total = this.list.reduce((sum, f) => sum + f.size, 0);
      } catch (err) {
        this.problem = err;
      }
    }
    return at + n;
  }

  /** Empty files listed next are added as they come: they take no bytes. */
  addEmptyFiles() {
    const { list, out } = this;
    while (this.index < list.length && out.files.length === this.index && list[this.index].size === 0)
      out.files.push({ name: list[this.index++].name, bytes: new Uint8Array(0) });
  }

  takeFiles(chunk, at) {
    const { list, out } = this;
    this.addEmptyFiles();
    if (this.index >= list.length) {
      this.problem = packError(`it inflates past the ${formatBytes(this.total)} its header declares; refused`);
      return at;
    }
    if (out.files.length === this.index) out.files.push({ name: list[this.index].name, bytes: new Uint8Array(list[this.index].size) });
    const target = out.files[this.index].bytes;
    const n = Math.min(target.length - this.fileGot, chunk.length - at);
    target.set(chunk.subarray(at, at + n), this.fileGot);
    this.fileGot += n;
    this.done += n;
    if (this.fileGot === target.length) {
      this.index++;
      this.fileGot = 0;
    }
    return at + n;
  }

  /** Once the payload is all in: the files, or why the container ends too soon. */
  finish() {
    const { list, out } = this;
    if (!list)
      throw packError(
        this.headGot < HEAD
          ? 'it ends before its header'
          : `it ends inside its header (${this.headerGot} of ${this.headerBytes.length} bytes)`,
      );
    while (this.index < list.length && list[this.index].size === 0)
      out.files.push({ name: list[this.index++].name, bytes: new Uint8Array(0) });
    if (this.index < list.length)
      throw packError(
        `it is cut off: ${list[this.index].name} has ${formatBytes(this.fileGot)} of its ${formatBytes(list[this.index].size)} (${formatBytes(this.done)} of ${formatBytes(this.total)} in all)`,
      );
    return out;
  }
}

/**
 * The payload inflated into `unpacker` in pushes sized by the ratio so far, a task at a time:
 * what any push may inflate to is bounded, so a deflate bomb is refused before it is in memory.
 */
async function inflateInPushes(payload, unpacker, onProgress) {
  const inflater = new Inflate((chunk) => {
    if (!unpacker.problem) unpacker.take(chunk);
  });
  let fed = 0,
    push = MIN_PUSH;
  const pause = slicer(() => onProgress?.({ done: unpacker.done, total: unpacker.total }));
  for (;;) {
    const piece = payload.subarray(fed, fed + push);
    fed += piece.length;
    const last = fed >= payload.length;
    const before = unpacker.taken;
    try {
      inflater.push(piece, last);
    } catch (err) {
      throw unpacker.problem ?? inflateError(err, payload, fed, unpacker);
    }
    if (unpacker.problem) throw unpacker.problem;
    if (last) break;
    // A push that gave nothing yet (a Huffman table still arriving) says nothing of the ratio:
    // the next push grows at most fourfold, so a bomb's first blocks never arrive in one go.
    const ratio = Math.max(1, (unpacker.taken - before) / piece.length);
    push = Math.min(MAX_PUSH, push * 4, Math.max(MIN_PUSH, Math.floor(OUTPUT_PER_PUSH / ratio)));
    await pause();
  }
}

/** fflate's error in words: the payload cut off (a shortened link), or damaged near `fed`. */
function inflateError(err, payload, fed, { done, total }) {
  return packError(
    /unexpected EOF/i.test(err.message)
      ? `it is cut off after ${formatBytes(payload.length)} (${formatBytes(done)} of ${total ? formatBytes(total) : 'its'} files inflated): the link was shortened on its way`
      : `its deflate data is damaged near byte ${fed} (${err.message})`,
  );
}

/**
 * Unpacks a container made by packScene.
 * @param {Uint8Array} payload
 * @param {{ maxEntries?: number, maxBytes?: number, onProgress?: (p: { done: number, total: number }) => void }} [limits]
 * @returns {Promise<{ files: { name: string, bytes: Uint8Array }[], state: object }>}
 */
export async function unpackScene(payload, limits = {}) {
  const { maxEntries = MAX_ZIP_ENTRIES, maxBytes = MAX_ZIP_BYTES, onProgress } = limits;
  if (!(payload instanceof Uint8Array) || payload.length === 0) throw packError('it is empty');
  const unpacker = new Unpacker(payload.length, { maxEntries, maxBytes });
  await inflateInPushes(payload, unpacker, onProgress);
  const out = unpacker.finish();
  onProgress?.({ done: unpacker.done, total: unpacker.total });
  return out;
}

// ---- which files a scene uses -----------------------------------------------------------------

/** Every file path the assembled scene shows: models and their companions, animations, textures, actors. */
function scenePaths(scene) {
  const paths = new Set();
  const character = (c) => {
    if (c.actor) paths.add(c.actor);
    for (const m of c.models) for (const f of m.files ?? [m.file]) paths.add(f);
    for (const a of c.animations) for (const f of a.anim?.files ?? [a.file]) paths.add(f);
    for (const m of c.materials) {
      if (m.texture) paths.add(m.texture.path);
      for (const t of Object.values(m.maps ?? {})) if (t) paths.add(t.path);
    }
    for (const p of c.props) character(p.character);
  };
  for (const c of scene.characters) character(c);
  for (const b of scene.boards) for (const t of b.textures) paths.add(t.path);
  return paths;
}

/**
 * The entries the scene uses: those it shows, and those it read without a complaint (0 A.D.
 * actor templates, material sidecars); files the report lists as unused, refused, unbound or
 * missing a companion are left out unless the scene shows them.
 * @template {{ path: string }} T
 * @param {{ characters: object[], boards: object[], records: object[] }} scene
 * @param {T[]} entries
 * @returns {T[]}
 */
export function usedFiles(scene, entries) {
  if (!scene) return [];
  const shown = scenePaths(scene);
  const left = new Set();
  for (const r of scene.records) {
    if (['unused', 'refused', 'unbound', 'missing'].includes(r.kind)) for (const f of r.files) left.add(f);
  }
  return entries.filter((e) => shown.has(e.path) || !left.has(e.path));
}
