// Hostile input through the WASM module itself: every truncation of a fixture gives an Error (or a
// model with warnings), and the module keeps working afterwards.
import { describe, expect, it } from 'vitest';
import { decoder, fixture } from './helpers.js';

const CASES = [
  ['decodePsk', 'two_bone.psk', []],
  ['decodePsa', 'two_bone.psa', ['']],
  ['decodePmd', 'arm.pmd', []],
  ['decodePssa', 'arm_wave.psa', []],
  ['decodePsg', 'skinned_box.psg', []],
  ['decodePcx', 'flag.pcx', [true]],
];

describe('hostile input in WASM', () => {
  for (const [op, name, extra] of CASES) {
    it(`${op}: every truncation of ${name} fails cleanly`, async () => {
      const d = await decoder();
      const bytes = fixture(name);
      // A cut file either fails with an Error naming it, or decodes with a warning; only cuts that
      // fall exactly between records or chunks may look like a complete, shorter file.
      let silent = 0;
      for (let n = 0; n < bytes.length; n++) {
        try {
          const m = d.module[op](bytes.subarray(0, n), name, ...extra);
          if (m.warnings.length === 0) silent++;
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          expect(err.message).toContain(name);
        }
      }
      expect(silent).toBeLessThanOrEqual(16);
      // Still usable: the whole file decodes.
      expect(d.module[op](bytes, name, ...extra).format).toBeTruthy();
    });
  }

  it('decodeUe1: truncated data and animation files fail cleanly', async () => {
    const d = await decoder();
    const data = fixture('flag_d.3d');
    const anim = fixture('flag_a.3d');
    for (let n = 0; n < data.length; n += 3) {
      expect(() => d.module.decodeUe1(data.subarray(0, n), 'flag_d.3d', anim, 'flag_a.3d', '', '')).toThrow(/flag_d\.3d|flag_a\.3d/);
    }
    for (let n = 0; n < anim.length; n += 7) {
      try {
        d.module.decodeUe1(data, 'flag_d.3d', anim.subarray(0, n), 'flag_a.3d', '', '');
      } catch (err) {
        expect(err.message).toMatch(/flag_/);
      }
    }
  });

  it('refuses absurd counts without allocating them', async () => {
    const d = await decoder();
    const bytes = new Uint8Array(fixture('two_bone.psk'));
    // Patch every chunk's DataCount to 0x7fffffff.
    for (let o = 0; o + 32 <= bytes.length;) {
      const dv = new DataView(bytes.buffer, bytes.byteOffset);
      const size = dv.getInt32(o + 24, true),
        count = dv.getInt32(o + 28, true);
      dv.setInt32(o + 28, 0x7fffffff, true);
      o += 32 + size * count;
    }
    const heapBefore = d.module.HEAP8.length;
    expect(() => d.module.decodePsk(bytes, 'absurd.psk')).toThrow(/PSK absurd\.psk: .*(declares|remain|truncat)/i);
    expect(d.module.HEAP8.length).toBeLessThanOrEqual(Math.max(heapBefore, 64 << 20));
  });
});
