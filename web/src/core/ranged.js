// A file behind a link, read in parts (HTTP Range requests) for a family whose decoders read only
// what they need: a UE1 package's tables, then the objects shown (formats/upackage/upackage.h,
// "Parts of a package"). A 4 MB package embedded for one mesh reads a few hundred kilobytes, not
// the whole file; a view that needs most of it reads the rest at once.
import { baseName } from './files.js';

/** Parts closer than this are read as one: a request costs more than the bytes between. */
const JOIN_GAP = 16 * 1024;
/** Once the parts would pass this share of the file, the whole file is read instead. */
const WHOLE_SHARE = 0.5;
/**
 * Rounds of parts one decoder call may ask for before its file is read whole. A package's mesh
 * needs four (the mesh, the textures its slots name, their palettes); the tables, one or two.
 */
export const MAX_ROUNDS = 8;

/** Flat spans [b0, e0, b1, e1, ...] as pairs, each neighbour within JOIN_GAP joined, sorted. */
function joinedSpans(flat, size) {
  const pairs = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const start = Math.max(0, flat[i]);
    const end = Math.min(size, flat[i + 1]);
    if (start < end) pairs.push([start, end]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const p of pairs) {
    const last = out.at(-1);
    if (last && p[0] <= last[1] + JOIN_GAP) last[1] = Math.max(last[1], p[1]);
    else out.push(p);
  }
  return out;
}

export class RangedFile {
  /**
   * @param {number} size the file's size (the host's Content-Range)
   * @param {{ at: number, bytes: Uint8Array }[]} parts the parts read first, its head first
   * @param {(start: number, end: number) => Promise<{ bytes?: Uint8Array, whole?: Uint8Array }>} read
   *   bytes start..end of the file (`whole`: the host sent the whole file instead)
   */
  constructor(size, parts, read) {
    this.size = size;
    this.first = parts[0].bytes;
    /** @type {{ at: number, bytes: Uint8Array }[]} */
    this.parts = [...parts];
    this.read = read;
    /** @type {{ start: number, end: number, done: Promise<void> }[]} */
    this.reading = [];
    /** @type {Promise<Uint8Array> | null} the whole file, once asked for */
    this.whole = null;
  }

  /** Bytes read or being read, in all. */
  get bytesRead() {
    let n = 0;
    for (const p of this.parts) n += p.bytes.length;
    for (const r of this.reading) n += r.end - r.start;
    return n;
  }

  /** Whether every byte of [start, end) is read or being read. */
  covers(start, end) {
    const spans = [...this.parts.map((p) => [p.at, p.at + p.bytes.length]), ...this.reading.map((r) => [r.start, r.end])];
    spans.sort((a, b) => a[0] - b[0]);
    let at = start;
    for (const [b, e] of spans) if (b <= at && e > at) at = e;
    return at >= end;
  }

  /** The parts as a decoder call takes them (decoder/ops.js isPackageParts). */
  input() {
    return {
      partsOf: this.size,
      spans: this.parts.flatMap((p) => [p.at, p.at + p.bytes.length]),
      chunks: this.parts.map((p) => p.bytes),
    };
  }

  /**
   * Reads the spans a decoder call said it lacks ([b0, e0, ...]): those not read or being read,
   * neighbours joined, side by side; the whole file instead when the parts would be most of it.
   */
  async readMissing(flat) {
    const wanted = joinedSpans(flat, this.size).filter(([b, e]) => !this.covers(b, e));
    const more = wanted.reduce((n, [b, e]) => n + e - b, 0);
    if (this.whole || this.bytesRead + more > this.size * WHOLE_SHARE) {
      await this.readWhole();
      return;
    }
    const started = wanted.map(([start, end]) => this.readPart(start, end));
    await Promise.all([...started, ...this.reading.map((r) => r.done)]);
  }

  /** One part read and kept; a host that sends the whole file instead makes the file whole. */
  readPart(start, end) {
    const entry = { start, end, done: Promise.resolve() };
    entry.done = this.read(start, end)
      .then((got) => {
        if (got.whole) this.whole ??= Promise.resolve(got.whole);
        else this.parts.push({ at: start, bytes: got.bytes ?? new Uint8Array(0) });
      })
      .finally(() => this.reading.splice(this.reading.indexOf(entry), 1));
    this.reading.push(entry);
    return entry.done;
  }

  /** The whole file, read once (its parts are let go then). */
  readWhole() {
    this.whole ??= this.read(0, this.size).then((got) => {
      const bytes = got.whole ?? got.bytes;
      if (!bytes) throw new Error('rigscope: the host sent nothing for the whole file');
      this.parts = [];
      return bytes;
    });
    return this.whole;
  }
}

/**
 * A file entry (core/files.js FileEntry) for a file read in parts: `ranged` is its RangedFile;
 * read() gives the whole file (read once), readHead(n) its first part when that is enough.
 * @param {string} path
 * @param {RangedFile} file
 */
export function entryFromParts(path, file) {
  const whole = async () => (await file.readWhole()).slice().buffer;
  return {
    name: baseName(path),
    path,
    size: file.size,
    ranged: file,
    // Every read is a fresh copy, as entryFromBytes gives: decoding transfers what it is given.
    read: whole,
    readHead: async (n) => (n <= file.first.length ? file.first.slice(0, n).buffer : (await whole()).slice(0, n)),
  };
}
