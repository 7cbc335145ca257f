// A decode's typed arrays are views into one ArrayBuffer (the binding's arena): the worker's reply
// transfers one buffer, every view starts on its element size, and no two arrays share bytes.
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

/** Every typed array of a model with where it was found, clip tracks apart (they share key times). */
function arraysOf(value, path = 'model', out = []) {
  if (ArrayBuffer.isView(value)) out.push({ path, view: value });
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (k !== 'tracks') arraysOf(v, `${path}.${k}`, out);
  }
  return out;
}

describe('one arena per decode', () => {
  for (const [op, name, extra] of CASES) {
    it(`${op} ${name}: one buffer, aligned views, no shared bytes`, async () => {
      const model = await decode(op, ...argsOf(op, name, extra));
      const buffers = [...collectTransferables(model)];
      expect(buffers).toHaveLength(1);
      const arrays = arraysOf(model);
      for (const { path, view } of arrays) expect(view.byteOffset % view.BYTES_PER_ELEMENT, path).toBe(0);
      const byStart = arrays.filter((a) => a.view.byteLength).sort((a, b) => a.view.byteOffset - b.view.byteOffset);
      for (let i = 1; i < byStart.length; i++) {
        const prev = byStart[i - 1].view;
        expect(byStart[i].view.byteOffset, `${byStart[i].path} after ${byStart[i - 1].path}`).toBeGreaterThanOrEqual(
          prev.byteOffset + prev.byteLength,
        );
      }
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
