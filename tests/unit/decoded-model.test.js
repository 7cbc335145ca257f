// What crosses from the WASM decoders to JavaScript, pinned value for value: every sample file of
// every family (PSK, PSA, PMD, PSSA, UE1 with its PCX textures, PSG, BMP) decoded through the file
// set as the page, CLI and loaders decode it, each model reduced to a digest of its whole shape:
// key order, every string, every number (-0 and NaN included) and every typed array (its type,
// length and bytes). decoded-models.txt was written by the binding that built the result with one
// Embind call per property; the binding that returns the result in one call must give the same.
//
// A deliberate change of a decoder's output is recorded with
//   RIGSCOPE_UPDATE_DECODED=1 npx vitest run --config vite.config.ts tests/unit/decoded-model.test.js
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeFiles } from '../../web/src/families/index.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { decoder, HAVE_SAMPLES, joinBytes, pskChunk, SAMPLES } from './helpers.js';

const REFERENCE = new URL('./reference/decoded-models.txt', import.meta.url).pathname;

/** FNV-1a of a typed array's bytes, as 8 hex digits. */
function hashBytes(view) {
  const b = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** A model as text: plain values as JSON in key order, typed arrays by type, length and bytes. */
function shapeOf(model) {
  return JSON.stringify(model, (key, value) => {
    if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${value.length})#${hashBytes(value)}`;
    if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0)))
      return `number:${Object.is(value, -0) ? '-0' : value}`;
    return value;
  });
}

/** FNV-1a of a string's UTF-16 code units, as 8 hex digits (the reference stays short). */
function hashText(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** Latin-1 bytes of `text` into a fixed name field. */
const putName = (v, at, text) => [...text].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)));

/**
 * A PSK whose names hold what text in JSON must escape or cannot hold as it is: quotes, back
 * slashes, control bytes, cp1252 bytes (not UTF-8) in a short and a long name, and a point of NaN
 * and one of -0, so every string and number takes each way across.
 */
function awkwardPsk() {
  const names = ['quote " and \\ back', 'tab\there\u0001', 'R\xe9sum\xe9', 'Ca\xf1\xf3n de la m\xe1quina \xab\xbb', '\u007f\x80\xff'];
  const parts = [
    pskChunk('ACTRHEAD', 0, 0),
    pskChunk('PNTS0000', 12, 3, (v, at, i) =>
      [
        [0, -0, 1],
        [NaN, 2, 3],
        [4, 5, -0],
      ][i].forEach((x, k) => v.setFloat32(at + 4 * k, x, true)),
    ),
    pskChunk('VTXW0000', 16, 3, (v, at, i) => v.setUint32(at, i, true)),
    pskChunk('FACE0000', 12, 1, (v, at) => [0, 1, 2].forEach((w, k) => v.setUint16(at + 2 * k, w, true))),
    pskChunk('MATT0000', 88, names.length, (v, at, i) => putName(v, at, names[i])),
    pskChunk('REFSKELT', 120, 2, (v, at, i) => {
      putName(v, at, names[names.length - 1 - i]);
      v.setFloat32(at + 88, 1, true);
    }),
    pskChunk('RAWWEIGHTS', 12, 3, (v, at, i) => {
      v.setFloat32(at, 1, true);
      v.setUint32(at + 4, i, true);
    }),
  ];
  return joinBytes(parts);
}

/** A sample as the file set sees it, named from the samples folder: a model keeps its file's name,
 * so an absolute path (another on every machine) must not reach the digests. */
const sampleEntry = (path) => entryFromBytes(relative(SAMPLES, path), readFileSync(path));

const walk = (dir) => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));

/** Every sample folder's decodes (models, animations, decoded textures) and its pictures, by file. */
async function decodedSamples() {
  const d = await decoder();
  const lines = [];
  const folders = readdirSync(SAMPLES).filter((n) => statSync(join(SAMPLES, n)).isDirectory());
  for (const folder of folders.sort()) {
    const files = walk(join(SAMPLES, folder)).sort();
    const result = await decodeFiles(files.map(sampleEntry), d, { maxFiles: Infinity });
    if (folder === 'psk')
      lines.push(`awkward.psk ${hashText(shapeOf(await d.call('decodePsk', [awkwardPsk(), 'awkward \\"\x01\xe9.psk'])))}`);
    for (const m of [...result.models, ...result.animations]) lines.push(`${m.file} ${hashText(shapeOf(m))}`);
    for (const t of result.textures.filter((t) => t.decoded)) lines.push(`${t.id} texture ${hashText(shapeOf(t.decoded))}`);
    for (const f of files.filter((f) => /\.(bmp|pcx)$/i.test(f))) {
      const op = /\.pcx$/i.test(f) ? 'decodePcx' : 'decodeImage';
      const model = await d.call(op, [readFileSync(f), relative(SAMPLES, f), ...(op === 'decodePcx' ? [true] : [])]);
      lines.push(`${relative(SAMPLES, f)} ${op} ${hashText(shapeOf(model))}`);
    }
  }
  return lines.sort();
}

describe('the decoded model crossing from WASM', () => {
  it.skipIf(!HAVE_SAMPLES)(
    'every family sample decodes to the same keys, strings, numbers and arrays as recorded',
    async () => {
      const lines = await decodedSamples();
      if (process.env.RIGSCOPE_UPDATE_DECODED || !existsSync(REFERENCE)) writeFileSync(REFERENCE, `${lines.join('\n')}\n`);
      const recorded = readFileSync(REFERENCE, 'utf8').trim().split('\n');
      expect(lines.length).toBeGreaterThan(40);
      // The lines that differ first, so a failure's first line names the files.
      const unlike = lines.filter((line) => !recorded.includes(line));
      expect(unlike.join(', '), `${unlike.length} decoded unlike the record`).toBe('');
      expect(lines).toEqual(recorded);
    },
    120_000,
  );

  it.skipIf(!HAVE_SAMPLES)("a PSK's model has the contract's keys in order and arrays of the contract's types", async () => {
    const d = await decoder();
    const model = await d.call('decodePsk', [readFileSync(SAMPLES + 'psk/Suzanne.psk'), 'Suzanne.psk']);
    expect(Object.keys(model)).toEqual([
      'format',
      'name',
      'bindBy',
      'warnings',
      'counts',
      'info',
      'meshes',
      'materials',
      'skeleton',
      'clips',
      'attachments',
      'textures',
    ]);
    const [mesh] = model.meshes;
    expect(Object.keys(mesh)).toEqual([
      'name',
      'bounds',
      'positions',
      'normals',
      'uvs',
      'indices',
      'groups',
      'skinIndex',
      'skinWeight',
      'morphs',
    ]);
    expect(mesh.positions).toBeInstanceOf(Float32Array);
    expect(mesh.indices).toBeInstanceOf(Uint32Array);
    expect(mesh.skinIndex).toBeInstanceOf(Uint16Array);
    expect(model.skeleton.parents).toBeInstanceOf(Int32Array);
    expect(model.counts).toMatchObject({ points: 507, wedges: 555, faces: 968, bones: 1 });
    expect(mesh.groups).toEqual([{ start: 0, count: 968 * 3, material: 0 }]);
    expect(mesh.bounds.min).toHaveLength(3);
    expect(typeof mesh.bounds.radius).toBe('number');
  });
});
