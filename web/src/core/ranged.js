// A file behind a link, read in parts (HTTP Range requests) for a family whose decoders read only
// what they need: a UE1 package's tables, then the objects shown (formats/upackage/upackage.h,
// "Parts of a package"). A 4 MB package embedded for one mesh reads a few hundred kilobytes, not
// the whole file; a view that needs most of it reads the rest at once.
import { baseName } from './files.js';

/** Parts closer than this are read as one: a request costs more than the bytes between. */
const JOIN_GAP = 16 * 1024;
/**
 * Once a round would leave less than this share of the file unread, the rest is read instead: a
 * few requests for what is left cost less than the rounds its last objects would take.
 */
const REST_SHARE = 0.25;
/** The rest is read as at most this many ranges (the gaps between the parts); else whole. */
const REST_RANGES = 4;
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
   * neighbours joined, side by side; the rest of the file instead when little would be left.
   */
  async readMissing(flat) {
    const { wanted, leavesLittle } = this.plan(flat);
    if (this.whole || leavesLittle) {
      await this.readWhole();
      return;
    }
    const started = wanted.map(([start, end]) => this.readPart(start, end));
    // Reads begun before (another call's, a guess) are waited for too; one that failed is asked
    // for again by the next call, which lacks its bytes.
    await Promise.all([...started, ...this.reading.map((r) => r.done.catch(() => {}))]);
  }

  /**
   * Starts reading spans a decoder call is expected to ask for ([b0, e0, ...]), without waiting:
   * a guess. Only parts: a guess never makes the file read whole. A failed guess is forgotten
   * (the call asks for what it lacks, and it is read then).
   */
  readAhead(flat) {
    const { wanted, leavesLittle } = this.plan(flat);
    if (this.whole || leavesLittle) return;
    for (const [start, end] of wanted) this.readPart(start, end).catch(() => {});
  }

  /**
   * Of spans asked for ([b0, e0, ...]): those not read or being read, neighbours joined, and
   * whether reading them would leave less than REST_SHARE of the file unread.
   */
  plan(flat) {
    const wanted = joinedSpans(flat, this.size).filter(([b, e]) => !this.covers(b, e));
    const more = wanted.reduce((n, [b, e]) => n + e - b, 0);
    return { wanted, leavesLittle: this.size - this.bytesRead - more < this.size * REST_SHARE };
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

  /** The whole file, read once: the parts and what lies between them (the parts are let go then). */
  readWhole() {
    this.whole ??= this.readRest().then((bytes) => {
      this.parts = [];
      return bytes;
    });
    return this.whole;
  }

  /**
   * The file's bytes: the parts read so far, and the gaps between them read side by side (a few
   * ranges: the middle of a package whose head and tail are read), or the file in one read.
   */
  async readRest() {
    await Promise.all(this.reading.map((r) => r.done.catch(() => {})));
    const gaps = this.gaps();
    if (!this.parts.length || gaps.length > REST_RANGES) return wholeOf(await this.read(0, this.size));
    const got = await Promise.all(gaps.map(([start, end]) => this.read(start, end)));
    const sent = got.find((g) => g.whole);
    if (sent) return wholeOf(sent);
    // A gap the host answered short of what was asked: the file in one read instead.
    if (got.some((g, i) => g.bytes?.length !== gaps[i][1] - gaps[i][0])) return wholeOf(await this.read(0, this.size));
    const bytes = new Uint8Array(this.size);
    for (const p of this.parts) bytes.set(p.bytes.subarray(0, Math.max(0, this.size - p.at)), p.at);
    gaps.forEach(([start], i) => bytes.set(got[i].bytes, start));
    return bytes;
  }

  /** The spans of the file no part holds, neighbours within JOIN_GAP joined. */
  gaps() {
    const held = this.parts.map((p) => [p.at, p.at + p.bytes.length]).sort((a, b) => a[0] - b[0]);
    const flat = [];
    let at = 0;
    for (const [b, e] of held) {
      if (b > at) flat.push(at, b);
      at = Math.max(at, e);
    }
    if (at < this.size) flat.push(at, this.size);
    return joinedSpans(flat, this.size);
  }
}

/** The bytes of a whole-file read (a host that sent the whole file, or a range of all of it). */
function wholeOf(got) {
  const bytes = got.whole ?? got.bytes;
  if (!bytes) throw new Error('rigscope: the host sent nothing for the whole file');
  return bytes;
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
