// File entries: whatever the user gave (File, fetched bytes, zip member) behind one small surface.
// Names are compared case-insensitively, without folders, as modders' files rarely agree on case.

/**
 * readHead(n): at least the file's first n bytes (a file already in memory may give itself whole).
 * @typedef {{ name: string, path: string, size: number, read: () => Promise<ArrayBuffer>, readHead: (n: number) => Promise<ArrayBuffer> }} FileEntry
 */

/**
 * Files larger than this go to a decoder worker as the File itself, which reads it there
 * (decoderInput): read on the page, 64 MB hold its main thread for hundreds of milliseconds.
 */
export const HAND_OVER_BYTES = 1 << 20;

/** What a decoder call takes for an entry's bytes: a large browser file as it is, else its bytes. */
export function decoderInput(entry) {
  return entry.blob && entry.size > HAND_OVER_BYTES ? Promise.resolve(entry.blob) : entry.read();
}

export function entryFromBlob(blob, path = blob.name) {
  let size = -1;
  return {
    name: baseName(path),
    path,
    blob,
    // Asked when needed, and once: each time a File's size is asked is a round trip to the
    // browser's file store (0.25 ms a file here), so a drop of thousands of files would wait
    // seconds before its first read. A file read whole by its head read knows its size from it.
    get size() {
      if (size < 0) size = blob.size;
      return size;
    },
    read: () => blob.arrayBuffer(),
    readHead: async (n) => {
      const { bytes, whole } = await streamHead(blob, n);
      if (whole) size = bytes.byteLength;
      return bytes;
    },
  };
}

/**
 * The first `n` bytes of a blob (all of it when shorter, then `whole`), read as a stream: neither
 * slice() nor the size is asked, each a round trip to the browser's file store (a sliced head
 * costs the page's main thread 0.9 ms a file, a streamed one 0.2 ms).
 */
async function streamHead(blob, n) {
  const reader = blob.stream().getReader();
  const chunks = [];
  let got = 0;
  try {
    while (got < n) {
      const { done, value } = await reader.read();
      if (done) return { bytes: joined(chunks, got), whole: true };
      chunks.push(value);
      got += value.byteLength;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return { bytes: joined(chunks, n), whole: false };
}

/** The first `n` bytes of `chunks` in an ArrayBuffer of their own. */
function joined(chunks, n) {
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, n - at);
    out.set(part, at);
    at += part.byteLength;
    if (at === n) break;
  }
  return out.buffer;
}

export function entryFromBytes(path, bytes) {
  // A plain Uint8Array view: Node's Buffer.slice() would share memory (and small Buffers live
  // inside a larger pool), while Uint8Array.prototype.slice copies exactly these bytes.
  const u8 = ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
  return {
    name: baseName(path),
    path,
    size: u8.byteLength,
    // Every read is a fresh copy: decoding transfers (detaches) what it is given.
    read: async () => u8.slice().buffer,
    readHead: async (n) => u8.slice(0, n).buffer,
  };
}

// Characters that change how text around them displays or that show nothing: bidirectional
// controls (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C) and the other format characters
// (category Cf), line and paragraph separators, control characters other than tab and newline.
// The joiners U+200C/U+200D stay: Persian and Indic names, and emoji sequences, need them.
const INVISIBLE = /(?![\u200c\u200d])[\p{Cf}\p{Zl}\p{Zp}\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;

/**
 * A file name (or any text naming files) as it may be shown: invisible and direction-changing
 * characters written out, so `evil\u202Ekcp.exe.psk` shows as `evil⟪U+202E⟫kcp.exe.psk` and
 * not as "evilksp.exe.pck".
 */
export function displayName(name) {
  return String(name).replace(INVISIBLE, (c) => `⟪U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟫`);
}

/**
 * Whether a file's head opens with `tag` (one byte a character). A family knows its tagged kinds
 * in JavaScript by this, as the decoders' detectFormat reads the same tags first: a loader's one
 * file then needs no detection call (its copy of the head into the decoder and back, 40-60 us of
 * a 0.1 MB mesh's load).
 * @param {Uint8Array} head
 * @param {string} tag
 */
export function opensWith(head, tag) {
  if (head.length < tag.length) return false;
  for (let i = 0; i < tag.length; i++) if (head[i] !== tag.charCodeAt(i)) return false;
  return true;
}

export function baseName(path) {
  return path.split(/[\\/]/).pop();
}

export function stem(name) {
  const n = baseName(name);
  const dot = n.lastIndexOf('.');
  return dot > 0 ? n.slice(0, dot) : n;
}

export function extension(name) {
  const n = baseName(name);
  const dot = n.lastIndexOf('.');
  return dot > 0 ? n.slice(dot + 1).toLowerCase() : '';
}

// Keys already made: the scene's rules try the same names for every material of a game, at every
// assembly of a drop (Unreal's suffix conventions try a hundred a material). At most KEYS_KEPT.
const keys = new Map();
const KEYS_KEPT = 8192;

/**
 * The name a texture is known by: lower case, no folder, no extension, and without 0 A.D.'s
 * archive suffixes (`X.png.cached.dds` is `x`).
 */
export function textureKey(name) {
  let key = keys.get(name);
  if (key === undefined) {
    if (keys.size >= KEYS_KEPT) keys.clear();
    keys.set(name, (key = keyOf(name)));
  }
  return key;
}

function keyOf(name) {
  let n = baseName(name).toLowerCase();
  n = n.replace(/\.cached\.[a-z0-9]+$/, '');
  for (;;) {
    const m = n.match(/^(.*)\.(png|jpe?g|bmp|tga|dds|pcx|gif|webp|utx|dae)$/);
    if (!m) break;
    n = m[1];
  }
  return n;
}

export const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'bmp', 'gif', 'webp', 'tga', 'dds']);

export async function readText(entry) {
  return new TextDecoder('utf-8').decode(await entry.read());
}
