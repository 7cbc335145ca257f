// One decoder module through a long life of refused files, huge files and crashes (Node host).
// A refusal must leave nothing behind (no stack, no input copy, no partial model), so after
// 100,000 of them a good file decodes exactly as on a fresh module and the WASM memory has not
// grown; a trap or abort replaces the module and is reported as a sentence naming the file.
import { describe, expect, it } from 'vitest';
import { loadNodeDecoders } from '../../web/src/decoder/node.js';
import { crashCause, crashMessage } from '../../web/src/decoder/ops.js';
import { fixture } from './helpers.js';

const REFUSALS = 100_000;
const RAW_ENGINE_TEXT = /Aborted\(|memory access out of bounds|Invalid typed array length|RuntimeError/;

/** ActorX chunks of a file: { id, at, size, count, end }. */
function chunks(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = [];
  for (let at = 0; at + 32 <= bytes.length;) {
    const id = new TextDecoder().decode(bytes.subarray(at, at + 20)).replace(/\0.*$/s, '');
    const size = dv.getInt32(at + 24, true),
      count = dv.getInt32(at + 28, true);
    const end = at + 32 + size * count;
    out.push({ id, at, size, count, end });
    at = end;
  }
  return out;
}

/** two_bone.psa with its last ANIMKEYS record removed: refused after the skeleton is built. */
function psaOneKeyShort(psa) {
  const keys = chunks(psa).find((c) => c.id === 'ANIMKEYS');
  const out = new Uint8Array(psa.length - keys.size);
  out.set(psa.subarray(0, keys.end - keys.size));
  out.set(psa.subarray(keys.end), keys.end - keys.size);
  new DataView(out.buffer).setInt32(keys.at + 28, keys.count - 1, true);
  return out;
}

/** Files refused at different depths: the first chunk, the chunk scan, after the skeleton, a companion. */
function refusedCalls() {
  const psk = fixture('two_bone.psk');
  const pmd = fixture('arm.pmd');
  const faces = chunks(psk).find((c) => c.id === 'FACE0000');
  return [
    ['decodePsk', [new Uint8Array(64), 'zeros.psk']],
    ['decodePsk', [psk.subarray(0, faces.at + 40), 'cut.psk']],
    ['decodePsa', [psaOneKeyShort(fixture('two_bone.psa')), 'short.psa', '']],
    ['decodePmd', [pmd.subarray(0, pmd.length - 100), 'cut.pmd']],
    ['decodePssa', [fixture('arm_wave.psa').subarray(0, 200), 'cut_wave.psa']],
    ['decodeUe1', [fixture('flag_d.3d'), 'flag_d.3d', fixture('flag_a.3d').subarray(0, 3), 'flag_a.3d', '', '']],
    ['decodePsg', [fixture('skinned_box.psg').subarray(0, 1000), 'cut.psg']],
  ];
}

const goodCalls = () => [
  ['decodePsk', [fixture('two_bone.psk'), 'two_bone.psk']],
  ['decodePsa', [fixture('two_bone.psa'), 'two_bone.psa', '']],
  [
    'decodeUe1',
    [fixture('flag_d.3d'), 'flag_d.3d', fixture('flag_a.3d'), 'flag_a.3d', new TextDecoder().decode(fixture('flag.uc')), 'flag.uc'],
  ],
  ['decodePsg', [fixture('skinned_box.psg'), 'skinned_box.psg']],
];

const messageOf = (promise) =>
  promise.then(
    () => 'decoded',
    (err) => err.message,
  );

describe('decoder soak', () => {
  it(`survives ${REFUSALS.toLocaleString('en')} refused files and then decodes good ones exactly as a fresh module`, async () => {
    const d = await loadNodeDecoders();
    const calls = refusedCalls();
    // Every input really is refused, with the decoder's own sentence.
    for (const [op, args] of calls) {
      const message = await messageOf(d.call(op, args));
      expect(message).toMatch(/^(PSK|PSA|PMD|PSSA|UE1|PSG) \S+: .* \(at byte \d+\)$/);
    }
    const memoryBefore = d.module.HEAP8.length;
    let refused = 0;
    for (let i = 0; i < REFUSALS; i++) {
      const [op, args] = calls[i % calls.length];
      try {
        await d.call(op, args);
      } catch {
        refused++;
      }
    }
    const memoryAfter = d.module.HEAP8.length;
    console.info(`[soak] ${refused} refusals: WASM memory ${memoryBefore} bytes before, ${memoryAfter} after`);
    expect(refused).toBe(REFUSALS);
    expect(memoryAfter - memoryBefore).toBeLessThanOrEqual(1 << 20);

    const fresh = await loadNodeDecoders();
    for (const [op, args] of goodCalls()) {
      const soaked = await d.call(op, args);
      const reference = await fresh.call(op, args);
      expect(soaked.warnings).toEqual(reference.warnings);
      expect(soaked).toEqual(reference); // every typed array element by element
    }
  }, 300_000);

  it('refuses one huge file twice with the same sentence (the first copy is freed)', async () => {
    const d = await loadNodeDecoders();
    // Just over half of the 2 GiB limit: a copy left behind by the first call leaves no room for the second.
    const huge = new Uint8Array(1.01 * 2 ** 30);
    const first = await messageOf(d.call('decodePsk', [huge, 'huge.psk']));
    const second = await messageOf(d.call('decodePsk', [huge, 'huge.psk']));
    expect(first).toMatch(/^PSK huge\.psk: file does not start with an ACTRHEAD chunk/);
    expect(second).toBe(first);
  }, 120_000);

  it('refuses a file larger than the decoder memory with a sentence, without a crash', async () => {
    const d = await loadNodeDecoders();
    const instance = d.module.instance;
    const message = await messageOf(d.call('decodePsk', [new Uint8Array(2 ** 31 + 16), 'vast.psk']));
    expect(message).toBe(
      "rigscope: vast.psk: 2147483664 bytes do not fit in the decoder's memory (limit 2 GiB for the file and its model)",
    );
    expect(d.module.instance).toBe(instance);
  }, 120_000);

  it('replaces the module after it runs out of memory and names the file', async () => {
    const d = await loadNodeDecoders();
    const instance = d.module.instance;
    // A PSK of 0.75 GiB of wedges: the copy fits, the decoded wedges (36 bytes for every 16) do not.
    const wedges = Math.floor((0.75 * 2 ** 30) / 16);
    const bytes = new Uint8Array(4 * 32 + 12 + wedges * 16);
    const dv = new DataView(bytes.buffer);
    const header = (at, id, size, count) => {
      bytes.set(new TextEncoder().encode(id), at);
      dv.setInt32(at + 24, size, true);
      dv.setInt32(at + 28, count, true);
      return at + 32 + size * count;
    };
    let at = header(0, 'ACTRHEAD', 0, 0);
    at = header(at, 'PNTS0000', 12, 1);
    at = header(at, 'FACE0000', 12, 0);
    header(at, 'VTXW0000', 16, wedges);
    const message = await messageOf(d.call('decodePsk', [bytes, 'wedges.psk']));
    expect(message).toBe('rigscope: wedges.psk: the decoder ran out of memory (limit 2 GiB); the decoder was restarted');
    const good = await d.call('decodePsk', [fixture('two_bone.psk'), 'two_bone.psk']);
    expect(good.counts.points).toBe(6);
    expect(d.module.instance).not.toBe(instance);
  }, 120_000);

  it('replaces the module after an exception inside a call and names the file', async () => {
    const d = await loadNodeDecoders();
    const instance = d.module.instance;
    // A view whose buffer getter throws while the binding reads it: a JS exception through C++ frames.
    const hostile = {
      get buffer() {
        throw new Error('boom');
      },
      byteOffset: 0,
      byteLength: 8,
    };
    const message = await messageOf(d.call('decodePsk', [hostile, 'evil.psk']));
    expect(message).toBe('rigscope: evil.psk: the decoder stopped on an internal error; the decoder was restarted');
    expect((await d.call('decodePsk', [fixture('two_bone.psk'), 'two_bone.psk'])).counts.points).toBe(6);
    expect(d.module.instance).not.toBe(instance);
  });
});

describe('decoder crash messages', () => {
  const cases = [
    [
      new WebAssembly.RuntimeError('Aborted(). Build with -s ASSERTIONS=1 for more info.'),
      { outOfMemory: true },
      /ran out of memory \(limit 2 GiB\)/,
    ],
    [new WebAssembly.RuntimeError('memory access out of bounds'), {}, /invalid memory access/],
    [new RangeError('Invalid typed array length: 4294967295'), {}, /ran out of memory/],
    [new RangeError('Array buffer allocation failed'), {}, /ran out of memory/],
    [new RangeError('Maximum call stack size exceeded'), {}, /ran out of stack/],
    [new WebAssembly.RuntimeError('Aborted()'), {}, /stopped on an internal error/],
  ];
  for (const [err, module, cause] of cases) {
    it(`"${err.message}" becomes a sentence without the engine's text`, () => {
      expect(crashCause(err, module)).toMatch(cause);
      const message = crashMessage('decodeUe1', [null, 'a_d.3d', null, 'a_a.3d', '', ''], err, module);
      expect(message).toMatch(/^rigscope: a_d\.3d \+ a_a\.3d: the decoder .*; the decoder was restarted$/);
      expect(message).not.toMatch(RAW_ENGINE_TEXT);
    });
  }
});
