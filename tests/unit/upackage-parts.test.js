// UE1 packages read in parts (core/ranged.js; formats/upackage/upackage.h "Parts of a package"):
// a link to a package whose host answers ranges reads the file's head and tail, then only the
// objects shown, and decodes them exactly as the whole file does. The decoders never read a byte
// they were not given: what they lack, they name.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { assembleScene, decodeFiles, readsInParts } from '../../web/src/families/index.js';
import { decodedTexture } from '../../web/src/core/fileset.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { entriesFromUrls } from '../../web/src/core/input.js';
import { MAX_ROUNDS, RangedFile, entryFromParts } from '../../web/src/core/ranged.js';
import { decoder, HAVE_SAMPLES, SAMPLES, sampleServer } from './helpers.js';

const PKG = `${SAMPLES}upackage/`;
const SIEGE = 'SiegeIV_0032beta9.u';
const KB256 = 256 * 1024;

const siege = () => new Uint8Array(readFileSync(PKG + SIEGE));
/** Byte for byte (toEqual compares 4 MB element by element, for seconds). */
const sameBytes = (a, b) =>
  Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;

/**
 * The package given in parts (decoder/ops.js isPackageParts): the bytes of `spans` ([b0, e0, ...])
 * only. The decoders lay them out in a heap whose other bytes are whatever earlier calls left.
 */
const given = (bytes, spans) => ({
  partsOf: bytes.length,
  spans,
  chunks: spans.filter((_, i) => i % 2 === 0).map((start, i) => bytes.slice(start, spans[2 * i + 1])),
});

/**
 * Export `index` decoded from the parts `spans` of `bytes`, each call's missing spans given to the
 * next: what each round asked for, and the spans given at the end.
 */
function roundsOf(M, bytes, spans, index) {
  const rounds = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const answer = M.decodePackageObject(given(bytes, spans), SIEGE, index);
    if (!answer.missing) break;
    rounds.push(answer.missing);
    spans = [...spans, ...answer.missing];
  }
  return { rounds, spans };
}

/** Flat spans [b0, e0, ...] as [begin, end] pairs in file order. */
const pairs = (flat) => flat.flatMap((b, i) => (i % 2 ? [] : [[b, flat[i + 1]]])).sort((a, b) => a[0] - b[0]);

/** A package file read in parts from `bytes`, its reads counted (as a host answering ranges would). */
function rangedSiege(bytes, { wholeFrom = Infinity } = {}) {
  const reads = [];
  const read = async (start, end) => {
    reads.push([start, end]);
    return reads.length >= wholeFrom ? { whole: bytes.slice() } : { bytes: bytes.slice(start, end) };
  };
  const first = [
    { at: 0, bytes: bytes.slice(0, KB256) },
    { at: bytes.length - KB256, bytes: bytes.slice(-KB256) },
  ];
  return { reads, file: new RangedFile(bytes.length, first, read) };
}

/** A decoder whose calls are counted by op, and by whether they carried parts. */
async function counting(answer = null) {
  const d = await decoder();
  const calls = [];
  return {
    calls,
    holdInput: d.holdInput,
    transfersInput: d.transfersInput,
    call(op, args) {
      const parts = typeof args[0]?.partsOf === 'number';
      calls.push(parts ? `${op} in parts` : op);
      return (parts && answer?.(op, args)) || d.call(op, args);
    },
  };
}

describe.skipIf(!HAVE_SAMPLES)('the decoders on a package given in parts', () => {
  it('name the tables they lack, as far as their entries could reach, and list it as the whole file once given them', async () => {
    const M = (await decoder()).module;
    const bytes = siege();
    // Nothing given: the header first.
    expect(M.listPackage(given(bytes, []), SIEGE)).toEqual({ missing: [0, 65536] });
    // The first 256 KB: the header and the 4,900 names; the import table (1,492 entries of at
    // most 19 bytes from byte 3,975,175) and the export table (7,531 of at most 33 bytes from
    // byte 3,988,297, cut at the file's end) are missing.
    const head = [0, KB256];
    const answer = M.listPackage(given(bytes, head), SIEGE);
    expect(answer).toEqual({ missing: [3975175, 3975175 + 1492 * 19, 3988297, 4114609] });
    const spans = [...head, ...answer.missing];
    expect(M.listPackage(given(bytes, spans), SIEGE)).toEqual(M.listPackage(bytes, SIEGE));
  });

  it("name an object's whole range, then the properties of the textures its slots name; a texture, its palette; then decode as from the whole file", async () => {
    const M = (await decoder()).module;
    const bytes = siege();
    const listing = M.listPackage(bytes, SIEGE);
    const mesh = listing.meshes.find((e) => e.name === 'sg_GL1st');
    const { rounds, spans } = roundsOf(M, bytes, [0, KB256, bytes.length - KB256, bytes.length], mesh.index);
    // The mesh's data; then the first kilobyte of each of its three skins, where their properties
    // lie (bMasked is read from each), not their pixels: the mesh is drawn without waiting for them.
    expect(rounds[0]).toEqual([mesh.serialOffset, mesh.serialOffset + mesh.serialSize]);
    const skins = listing.textures.filter((e) => /^Jsg_GL1st\d$/.test(e.name));
    expect(skins).toHaveLength(3);
    expect([...rounds[1]].sort((a, b) => a - b)).toEqual(
      skins.flatMap((e) => [e.serialOffset, e.serialOffset + 1024]).sort((a, b) => a - b),
    );
    expect(rounds).toHaveLength(2);
    expect(M.decodePackageObject(given(bytes, spans), SIEGE, mesh.index)).toEqual(M.decodePackageObject(bytes, SIEGE, mesh.index));
    // A skin whose properties came with the mesh asks for its whole range and, in the same
    // round, its palette's (which those properties name), whole: one round, not two.
    const skin = skins[0];
    const { rounds: texRounds, spans: texSpans } = roundsOf(M, bytes, spans, skin.index);
    const palettePath = M.decodePackageObject(bytes, SIEGE, skin.index).info.palette;
    const palette = listing.textures.find((e) => e.path === palettePath);
    expect(texRounds).toHaveLength(1);
    expect(pairs(texRounds[0])).toEqual(pairs([skin, palette].flatMap((e) => [e.serialOffset, e.serialOffset + e.serialSize])));
    // Without its properties (its head not read), the skin asks for its own range only.
    expect(roundsOf(M, bytes, [0, KB256, bytes.length - KB256, bytes.length], skin.index).rounds[0]).toEqual([
      skin.serialOffset,
      skin.serialOffset + skin.serialSize,
    ]);
    expect(M.decodePackageObject(given(bytes, texSpans), SIEGE, skin.index)).toEqual(M.decodePackageObject(bytes, SIEGE, skin.index));
    // Spans outside the file or upside down are left out, never read.
    const wrong = {
      partsOf: bytes.length,
      spans: [-5, 10, 20, 10, 0, 1e12],
      chunks: [new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)],
    };
    expect(M.listPackage(wrong, SIEGE)).toEqual({ missing: [0, 65536] });
  });
});

describe.skipIf(!HAVE_SAMPLES)('a package file read in parts', () => {
  it('shows one mesh in one call after its head and tail and three reads, then reads the skins it left out with their palettes, one call each, as the whole file shows them', async () => {
    const bytes = siege();
    const { reads, file } = rangedSiege(bytes);
    const d = await counting();
    const parts = await decodeFiles([entryFromParts(SIEGE, file)], d, { objects: ['sg_GL1st'] });
    const whole = await decodeFiles([entryFromBytes(SIEGE, bytes)], await decoder(), { objects: ['sg_GL1st'] });
    expect(parts.models.map((m) => m.name)).toEqual(['sg_GL1st']);
    expect(parts.models[0]).toEqual(whole.models[0]);
    // The listing in one call; the mesh's data read before its call (the listing says where it
    // lies), beside the heads of the textures named after it (its skins: Jsg_GL1st1, 2 and 4),
    // so its one call finds what it needs.
    expect(d.calls).toEqual(['listPackage in parts', 'decodePackageMesh in parts']);
    const mesh = parts.models[0];
    expect(reads.slice(0, 3)).toContainEqual([2314145, 2314145 + 87281]);
    // The skins its call left out (Jsg_GL1st1 and 4) are read from then on, pixels and palette
    // (named by the properties the call read) together: one round before they are drawn.
    const { module: M } = await decoder();
    const listing = M.listPackage(bytes, SIEGE);
    const exportAt = (path) => listing.textures.find((e) => e.path === path);
    const lacking = ['Jsg_GL1st1', 'Jsg_GL1st4'].flatMap((name) => {
      const skin = exportAt(`SiegeIV_0032beta9.Skins.${name}`);
      const palette = exportAt(M.decodePackageObject(bytes, SIEGE, skin.index).info.palette);
      return [skin, palette].flatMap((e) => [e.serialOffset, e.serialOffset + e.serialSize]);
    });
    const covered = (spans, [b, e]) => spans.some(([rb, re]) => rb <= b && e <= re);
    expect(pairs(lacking).every((span) => covered(reads.slice(3), span))).toBe(true);
    expect(reads.length).toBeLessThanOrEqual(3 + 4);
    // Nothing else: the head and tail, the mesh, the skins' heads, two skins and their palettes.
    const spanBytes = (flat) => pairs(flat).reduce((n, [b, e]) => n + e - b, 0);
    expect(file.bytesRead).toBe(2 * KB256 + spanBytes(reads.flat()));
    expect(file.bytesRead).toBeLessThan(bytes.length / 5);
    // Its skins' pixels and palette may still be on their way: their records say so, and a drawing
    // made while the load goes on does not wait for them (three/scene-objects.js).
    const [a, b] = await Promise.all([assembleScene(parts), assembleScene(whole)]);
    const skins = (scene) => scene.characters[0].materials.map((m) => m.texture).filter(Boolean);
    expect(skins(a).map((t) => t.object)).toEqual(skins(b).map((t) => t.object));
    // Jsg_GL1st2 (3.6 KB) lies whole within the heads read beside the mesh, its palette too: it
    // came with the mesh's call.
    const awaiting = (scene) => Object.fromEntries(skins(scene).map((t) => [t.name, t.awaitsFetch()]));
    expect(awaiting(a)).toEqual({ Jsg_GL1st1: true, Jsg_GL1st2: false, Jsg_GL1st4: true });
    expect(Object.values(awaiting(b))).toEqual([false, false, false]);
    // Drawn, each is decoded in one call, as the whole file's.
    const callsBefore = d.calls.length;
    const pictures = await Promise.all(skins(a).map((t) => decodedTexture(t, d)));
    expect(d.calls.slice(callsBefore)).toEqual(['decodePackageObject in parts', 'decodePackageObject in parts']);
    const expected = await Promise.all(skins(b).map((t) => decodedTexture(t, d)));
    expect(pictures).toEqual(expected);
    expect(Object.values(awaiting(a))).toEqual([false, false, false]);
    expect(file.bytesRead).toBeLessThan(bytes.length / 5);
    expect(file.whole).toBeNull();
    expect(mesh.info.object).toBe('SiegeIV_0032beta9.sg_GL1st');
  });

  it('shows every mesh from under a third of the file, and reads the rest when a round would leave under a quarter unread', async () => {
    const bytes = siege();
    // Every mesh of the package (the viewer's folder of them): its 17 meshes, their skins and
    // palettes, 1.2 MB of 4.1.
    const many = rangedSiege(bytes);
    const all = await decodeFiles([entryFromParts(SIEGE, many.file)], await decoder());
    expect(all.models).toHaveLength(17);
    expect(many.file.bytesRead).toBeLessThan(bytes.length / 3);
    expect(many.file.whole).toBeNull();
    // A round that would leave a quarter of the file unread reads its parts.
    const most = rangedSiege(bytes);
    await most.file.readMissing([KB256, KB256 + 1000, 2e6, 3e6]);
    expect(most.reads).toEqual([
      [KB256, KB256 + 1000],
      [2e6, 3e6],
    ]);
    // One that would leave less: the rest instead, the gap between the head and the tail read
    // once (the parts already read are not read again).
    const rest = rangedSiege(bytes);
    await rest.file.readMissing([KB256, KB256 + 1000, 1e6, 3.7e6]);
    expect(rest.reads).toEqual([[KB256, bytes.length - KB256]]);
    expect(sameBytes(await rest.file.whole, bytes)).toBe(true);
    await rest.file.readMissing([KB256, KB256 + 1000]);
    expect(rest.reads).toHaveLength(1);
    // Parts read since the head and tail are kept as they are: only the gaps between them are read.
    await most.file.readMissing([1e6, 3.7e6]);
    expect(most.reads.slice(2)).toEqual([
      [KB256 + 1000, 2e6],
      [3e6, bytes.length - KB256],
    ]);
    expect(sameBytes(await most.file.whole, bytes)).toBe(true);
    // A host that answers the second part with the whole file.
    const host = rangedSiege(bytes, { wholeFrom: 2 });
    const one = await decodeFiles([entryFromParts(SIEGE, host.file)], await decoder(), { objects: ['sg_GL1st'] });
    expect(one.models.map((m) => m.name)).toEqual(['sg_GL1st']);
    expect(sameBytes(await host.file.whole, bytes)).toBe(true);
  });

  it(`is read whole after ${MAX_ROUNDS} rounds of a call that keeps asking`, async () => {
    const bytes = siege();
    const { file } = rangedSiege(bytes);
    // A decoder that asks again for bytes it was given, whatever it is given in parts.
    const d = await counting((op) => (op === 'listPackage' ? { missing: [10, 20] } : null));
    const decoded = await decodeFiles([entryFromParts(SIEGE, file)], d, { objects: ['sg_GL1st'] });
    expect(d.calls.filter((c) => c === 'listPackage in parts')).toHaveLength(MAX_ROUNDS);
    expect(d.calls).toContain('listPackage');
    expect(decoded.models.map((m) => m.name)).toEqual(['sg_GL1st']);
    expect(sameBytes(await file.whole, bytes)).toBe(true);
  });
});

describe.skipIf(!HAVE_SAMPLES)('links to packages', () => {
  const { served, url: siteUrl } = sampleServer();
  const url = () => `${siteUrl('')}/samples/upackage/${SIEGE}`;
  const bytesServed = () => served.reduce((n, s) => n + s.bytes, 0);

  it('read the head and tail side by side where the host answers ranges, then the objects shown', async () => {
    served.length = 0;
    const [entry] = await entriesFromUrls([url()], null, { readsInParts });
    expect(entry.size).toBe(4114609);
    expect(entry.ranged.size).toBe(4114609);
    expect(served.map((s) => s.range).sort()).toEqual(['bytes=-262144', 'bytes=0-262143']);
    const decoded = await decodeFiles([entry], await decoder(), { objects: ['sg_GL1st'] });
    expect(decoded.models.map((m) => m.name)).toEqual(['sg_GL1st']);
    // The mesh beside its skins' heads: three parts; then the skins its call left out, each with
    // its palette (read from then on: they are drawn next).
    expect(served.length).toBeGreaterThanOrEqual(5);
    await Promise.all(entry.ranged.reading.map((r) => r.done));
    expect(served.length).toBeGreaterThan(5);
    expect(served.length).toBeLessThanOrEqual(5 + 4);
    expect(bytesServed()).toBeLessThan(4114609 / 4);
    // A file whose name no family reads in parts, or a small one, is read whole as before.
    served.length = 0;
    const [psk] = await entriesFromUrls([`${siteUrl('')}/samples/upackage/sources/C4.psk`], null, { readsInParts });
    expect([psk.size, psk.ranged, served.map((s) => s.range)]).toEqual([23392, undefined, [null]]);
    served.length = 0;
    const [small] = await entriesFromUrls([`${siteUrl('')}/samples/upackage/Beam.utx`], null, { readsInParts });
    expect([small.size, small.ranged]).toEqual([9262, undefined]);
  });

  it('refuse a host that names a size past the byte cap, as a whole file past it is refused', async () => {
    // A hostile host: 100 bytes, said to be the first of 5 GB.
    const liar = createServer((req, res) => {
      res.writeHead(206, { 'Content-Range': 'bytes 0-99/5000000000', 'Content-Length': 100 });
      res.end(Buffer.alloc(100, 1));
    });
    await new Promise((ok) => liar.listen(0, '127.0.0.1', ok));
    const at = `http://127.0.0.1:${liar.address().port}/Big.u`;
    try {
      await expect(entriesFromUrls([at], null, { readsInParts })).rejects.toThrow(
        `Could not fetch ${at}: it is 4.7 GiB, over the 1 GiB limit for files opened from a link`,
      );
    } finally {
      liar.close();
    }
  });

  it('are read whole, once, from a host that ignores ranges', async () => {
    served.length = 0;
    const [entry] = await entriesFromUrls([`${url()}?whole`], null, { readsInParts });
    expect([entry.size, entry.ranged]).toEqual([4114609, undefined]);
    expect(sameBytes(new Uint8Array(await entry.read()), siege())).toBe(true);
    // The tail's request is ended as soon as the head's answer shows the whole file coming.
    await expect.poll(() => served.length).toBe(2);
    expect(served.filter((s) => s.bytes === 4114609)).toHaveLength(2);
  });
});
