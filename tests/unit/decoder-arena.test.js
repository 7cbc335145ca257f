// A decode's typed arrays are views into few ArrayBuffers (the binding's arena, copyArrays in
// wasm/bindings/bindings.cpp): in a browser one up to 16 MB of arrays, and buffers of at most 16 MB
// (or one large array each) beyond, so the worker's reply transfers one buffer for most models; in
// Node buffers of at most 120 KiB, under glibc's mmap threshold (or one larger array each). Every
// view starts on its element size, and no two arrays share bytes.
import { describe, expect, it } from 'vitest';
import { collectTransferables, decoderServer } from '../../web/src/decoder/ops.js';
import { decode, decoder, fixture } from './helpers.js';

const CASES = [
  ['decodePsk', 'morph.psk', []],
  ['decodePsk', 'two_bone.psk', []],
  ['decodePsa', 'knight.psa', ['']],
  ['decodePmd', 'arm.pmd', []],
  ['decodePssa', 'arm_wave.psa', []],
  ['decodeUe1', 'flag_d.3d', []],
  ['decodePsg', 'box_textures.psg', []],
  ['decodeImage', 'image_dxt1_mips.dds', []],
];

const argsOf = (op, name, extra) =>
  op === 'decodeUe1'
    ? [fixture('flag_d.3d'), 'flag_d.3d', fixture('flag_a.3d'), 'flag_a.3d', new TextDecoder().decode(fixture('flag.uc')), 'flag.uc']
    : [fixture(name), name, ...extra];

/** What `fn` gives while the decoder cannot see Node's Buffer (as in a browser). */
async function withoutNodeBuffer(fn) {
  const { Buffer: nodeBuffer } = globalThis;
  globalThis.Buffer = undefined;
  try {
    return await fn();
  } finally {
    globalThis.Buffer = nodeBuffer;
  }
}

/** Every typed array of a model with where it was found, clip tracks apart (they share key times). */
function arraysOf(value, path = 'model', out = []) {
  if (ArrayBuffer.isView(value)) out.push({ path, view: value });
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (k !== 'tracks') arraysOf(v, `${path}.${k}`, out);
  }
  return out;
}

/** A PSK strip of `W` points and wedges (point i at (i, 0, 7) in the file, UV (0.5, 0.25)) and W - 2 faces. */
function stripPsk(W) {
  const chunk = (id, size, count) => {
    const h = new DataView(new ArrayBuffer(32 + size * count));
    for (let i = 0; i < id.length; i++) h.setUint8(i, id.charCodeAt(i));
    h.setInt32(20, 1999801, true);
    h.setInt32(24, size, true);
    h.setInt32(28, count, true);
    return h;
  };
  const head = chunk('ACTRHEAD', 0, 0);
  const points = chunk('PNTS0000', 12, W);
  const wedges = chunk('VTXW3200', 16, W);
  const faces = chunk('FACE3200', 18, W - 2);
  for (let i = 0; i < W; i++) {
    points.setFloat32(32 + 12 * i, i, true);
    points.setFloat32(32 + 12 * i + 8, 7, true);
    wedges.setUint32(32 + 16 * i, i, true);
    wedges.setFloat32(32 + 16 * i + 4, 0.5, true);
    wedges.setFloat32(32 + 16 * i + 8, 0.75, true);
  }
  for (let f = 0; f < W - 2; f++) {
    for (let k = 0; k < 3; k++) faces.setUint32(32 + 18 * f + 4 * k, f + k, true);
    faces.setUint32(32 + 18 * f + 14, 1, true);
  }
  const parts = [head, points, wedges, faces].map((d) => new Uint8Array(d.buffer));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

/** No two arrays of one buffer share bytes. */
function expectDisjoint(arrays) {
  const byStart = arrays.filter((a) => a.view.byteLength).sort((a, b) => a.view.byteOffset - b.view.byteOffset);
  for (const buffer of new Set(byStart.map((a) => a.view.buffer))) {
    const inBuffer = byStart.filter((a) => a.view.buffer === buffer);
    for (let i = 1; i < inBuffer.length; i++) {
      const prev = inBuffer[i - 1].view;
      expect(inBuffer[i].view.byteOffset, `${inBuffer[i].path} after ${inBuffer[i - 1].path}`).toBeGreaterThanOrEqual(
        prev.byteOffset + prev.byteLength,
      );
    }
  }
}

describe('one arena per decode', () => {
  for (const [op, name, extra] of CASES) {
    it(`${op} ${name}: one buffer, aligned views, no shared bytes`, async () => {
      const model = await decode(op, ...argsOf(op, name, extra));
      const buffers = [...collectTransferables(model)];
      expect(buffers).toHaveLength(1);
      const arrays = arraysOf(model);
      for (const { path, view } of arrays) expect(view.byteOffset % view.BYTES_PER_ELEMENT, path).toBe(0);
      expectDisjoint(arrays);
      // Node hands the arena out unzeroed (Buffer.allocUnsafeSlow): its bytes, padding included,
      // are those of the zeroed buffer a browser gets, never what the process freed before.
      const zeroed = await withoutNodeBuffer(() => decode(op, ...argsOf(op, name, extra)));
      const [zeroedBuffer] = collectTransferables(zeroed);
      expect(Buffer.from(buffers[0]).equals(Buffer.from(zeroedBuffer)), 'the same bytes as a zeroed arena').toBe(true);
      for (const clip of model.clips) {
        for (const t of clip.tracks) {
          for (const key of ['times', 'translation', 'rotation', 'scale']) {
            if (!t[key]) continue;
            expect(t[key].buffer).toBe(buffers[0]);
            expect(t[key].byteOffset % 4).toBe(0);
          }
        }
      }
    });
  }

  /** A strip model's buffers: each holding several arrays is at most `limit` bytes; its values as written. */
  function expectPacked(model, W, limit) {
    const buffers = [...collectTransferables(model)];
    const arrays = arraysOf(model);
    for (const buffer of buffers) {
      const inside = arrays.filter((a) => a.view.buffer === buffer);
      if (inside.length > 1) expect(buffer.byteLength).toBeLessThanOrEqual(limit);
    }
    expectDisjoint(arrays);
    const { positions, indices, uvs } = model.meshes[0];
    const v = W >> 2;
    expect(Array.from(positions.subarray(3 * v, 3 * v + 3))).toEqual([v, 7, -0]);
    expect(Array.from(indices.subarray(0, 6))).toEqual([0, 2, 1, 1, 3, 2]);
    expect(uvs[0][2 * (W - 1)]).toBe(0.5);
    return buffers;
  }

  it('a model past 16 MB of arrays uses buffers of at most 16 MB in a browser, 120 KiB in Node, or one per larger array', async () => {
    const W = 500_000; // positions, normals, UVs and indices: 6 + 6 + 4 + 6 MB
    const inNode = expectPacked(await decode('decodePsk', stripPsk(W), 'strip.psk'), W, 120 << 10);
    expect(inNode.length).toBeGreaterThan(1);
    const inBrowser = await withoutNodeBuffer(() => decode('decodePsk', stripPsk(W), 'strip.psk'));
    expect(expectPacked(inBrowser, W, 16 << 20).length).toBeGreaterThan(1);
  });

  it('a model of 0.2 MB of arrays is one buffer in a browser and buffers under 128 KiB in Node, with the same values', async () => {
    const W = 4000; // positions, normals and indices: 48 KB each, UVs 32 KB
    const inNode = await decode('decodePsk', stripPsk(W), 'strip.psk');
    const nodeBuffers = expectPacked(inNode, W, 120 << 10);
    expect(nodeBuffers.length).toBeGreaterThan(1);
    for (const buffer of nodeBuffers) expect(buffer.byteLength).toBeLessThan(128 << 10);
    const inBrowser = await withoutNodeBuffer(() => decode('decodePsk', stripPsk(W), 'strip.psk'));
    expect(expectPacked(inBrowser, W, 16 << 20)).toHaveLength(1);
    const [a, b] = [arraysOf(inNode), arraysOf(inBrowser)];
    expect(a.map((x) => x.path)).toEqual(b.map((x) => x.path));
    a.forEach((x, i) =>
      expect(
        Buffer.from(x.view.buffer, x.view.byteOffset, x.view.byteLength).equals(
          Buffer.from(b[i].view.buffer, b[i].view.byteOffset, b[i].view.byteLength),
        ),
        x.path,
      ).toBe(true),
    );
  });

  it("the worker's reply transfers the one buffer and carries the same values", async () => {
    const { module } = await decoder();
    const replies = [];
    const serve = decoderServer(
      async () => module,
      (reply, transfer) => replies.push({ reply, transfer }),
    );
    await serve({ id: 1, op: 'decodePsa', args: [fixture('knight.psa'), 'knight.psa', ''] });
    const direct = await decode('decodePsa', fixture('knight.psa'), 'knight.psa', '');
    const [{ reply, transfer }] = replies;
    expect(reply.ok).toBe(true);
    expect(transfer).toHaveLength(1);
    expect(transfer[0]).toBe(reply.result.clips[0].tracks[0].times.buffer);
    expect(reply.result.clips.map((c) => c.tracks.length)).toEqual(direct.clips.map((c) => c.tracks.length));
    const last = reply.result.clips.at(-1).tracks.at(-1);
    expect(Array.from(last.rotation)).toEqual(Array.from(direct.clips.at(-1).tracks.at(-1).rotation));
  });
});
