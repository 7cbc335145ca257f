import { describe, expect, it, vi } from 'vitest';
import { deflateSync } from 'fflate';
import {
  MAX_PACK_HEADER_BYTES,
  fromBase64Url,
  nameProblem,
  packName,
  packScene,
  packSceneAsync,
  toBase64Url,
  unpackScene,
  usedFiles,
} from '../../web/src/core/pack.js';
import { MAX_ZIP_BYTES, MAX_ZIP_ENTRIES } from '../../web/src/core/input.js';
import { HAVE_SAMPLES, SAMPLES, sample } from './helpers.js';

const text = (s) => new TextEncoder().encode(s);
/** Bytes that do not compress (xorshift32). */
function noise(n, seed = 1) {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 255;
  }
  return out;
}

/** A container written by hand, so a test can lie where packScene never would. */
function container(header, body = new Uint8Array(0), { magic = 'RSPK', headerLength, count } = {}) {
  const h = text(typeof header === 'string' ? header : JSON.stringify(header));
  const out = new Uint8Array(12 + h.length + body.length);
  out.set(text(magic), 0);
  new DataView(out.buffer).setUint32(4, count ?? header.files?.length ?? 0, true);
  new DataView(out.buffer).setUint32(8, headerLength ?? h.length, true);
  out.set(h, 12);
  out.set(body, 12 + h.length);
  return deflateSync(out);
}

describe('base64url', () => {
  it('round-trips every length and every byte value', () => {
    for (let n = 0; n < 70; n++) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 255);
      const s = toBase64Url(b);
      expect(s).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(fromBase64Url(s)).toEqual(b);
    }
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(fromBase64Url(toBase64Url(all))).toEqual(all);
  });
  it('matches RFC 4648 base64url and Node', () => {
    const b = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7919) & 255);
    expect(toBase64Url(b)).toBe(Buffer.from(b).toString('base64url'));
    expect(toBase64Url(text('\xfb\xff'))).toBe('w7vDvw');
  });
  it('accepts padding at the end only', () => {
    expect(fromBase64Url('YWI=')).toEqual(text('ab'));
    expect(() => fromBase64Url('YW=I')).toThrow(/character "=" at position 2/);
  });
  it('names the first bad character and its position', () => {
    expect(() => fromBase64Url('abc+def')).toThrow(/character "\+" at position 3/);
    expect(() => fromBase64Url('abcd\u0000')).toThrow(/U\+0000 at position 4/);
    expect(() => fromBase64Url('ab cd')).toThrow(/U\+0020 at position 2/);
  });
  it('says a length that cannot end a byte is cut off', () => {
    expect(() => fromBase64Url('abcde')).toThrow(/cut off/);
  });
});

describe('names', () => {
  it('keeps relative folders and refuses anything that climbs, hides or is absolute', () => {
    expect(nameProblem('psk/skSpiderLargeMesh.psk')).toBeNull();
    expect(nameProblem('mod.zip/art/a.dds')).toBeNull();
    expect(nameProblem('../etc/passwd')).toMatch(/"\.\."/);
    expect(nameProblem('a/./b')).toMatch(/"\."/);
    expect(nameProblem('/etc/passwd')).toMatch(/absolute/);
    expect(nameProblem('C:/x.psk')).toMatch(/drive/);
    expect(nameProblem('a\\b.psk')).toMatch(/backslash/);
    expect(nameProblem('a\u0007.psk')).toBe('has the control character U+0007 at position 1');
    expect(nameProblem('evil\u202Ekcp.psk')).toMatch(/U\+202E at position 4/);
    expect(nameProblem('')).toMatch(/empty/);
    expect(nameProblem('x'.repeat(2000))).toMatch(/2000 characters/);
  });
  it('packName makes any path packable', () => {
    expect(packName('C:\\mods\\..\\a\u0000b.psk')).toBe('mods/a_b.psk');
    expect(packName('/abs/./x.psa')).toBe('abs/x.psa');
    for (const p of ['../../x', '\u202e', 'a//b', 'D:', '']) expect(nameProblem(packName(p))).toBeNull();
  });
});

describe('packScene / unpackScene', () => {
  const state = { clip: 'Walk', frame: 12, camera: [1, 2, 3, 0, 0, 0], up: [-90, 0, 0], bg: '202020', skeleton: true };

  it('round-trips files (empty ones too) and the view state', async () => {
    const files = [
      { name: 'a/b.psk', bytes: Uint8Array.from({ length: 5000 }, (_, i) => i % 251) },
      { name: 'empty.txt', bytes: new Uint8Array(0) },
      { name: 'c.psa', bytes: text('hello') },
      { name: 'z.bin', bytes: new Uint8Array(0) },
    ];
    const back = await unpackScene(packScene({ files, state }));
    expect(back.state).toEqual(state);
    expect(back.files.map((f) => f.name)).toEqual(['a/b.psk', 'empty.txt', 'c.psa', 'z.bin']);
    back.files.forEach((f, i) => expect(f.bytes).toEqual(files[i].bytes));
  });

  it('round-trips through base64url as a link carries it', async () => {
    const files = [{ name: 'x.psk', bytes: text('x'.repeat(10000)) }];
    const link = toBase64Url(packScene({ files, state: {} }));
    expect(link.length).toBeLessThan(200);
    const back = await unpackScene(fromBase64Url(link));
    expect(back.files[0].bytes).toEqual(files[0].bytes);
  });

  it('sanitises names when packing and keeps two that collide apart', async () => {
    const back = await unpackScene(
      packScene({
        files: [
          { name: 'C:\\a.psk', bytes: text('1') },
          { name: '/a.psk', bytes: text('2') },
        ],
      }),
    );
    expect(back.files.map((f) => f.name)).toEqual(['a.psk', 'a (2).psk']);
  });

  it.skipIf(!HAVE_SAMPLES)('round-trips the smallest PSK character with its animation, and says how large it is', async () => {
    const files = [
      { name: 'psk/skSpiderLargeMesh.psk', bytes: sample('psk/skSpiderLargeMesh.psk') },
      { name: 'psk/skSpiderLargeAnims.psa', bytes: sample('psk/skSpiderLargeAnims.psa') },
    ];
    const packed = packScene({ files, state });
    const back = await unpackScene(packed);
    back.files.forEach((f, i) => expect(Buffer.compare(f.bytes, files[i].bytes)).toBe(0));
    // Real animation data does not compress to nothing: the pack is most of a megabyte.
    expect(packed.length).toBeGreaterThan(100_000);
    expect(packed.length).toBeLessThan(files[0].bytes.length + files[1].bytes.length);
    expect(SAMPLES).toBeTruthy();
  });

  it('packs in slices as packScene does, and stops early past maxBytes', async () => {
    const files = [
      { name: 'a.bin', bytes: noise(2_000_000) },
      { name: 'empty', bytes: new Uint8Array(0) },
      { name: 'b.txt', bytes: text('b'.repeat(300_000)) },
    ];
    const whole = await packSceneAsync({ files, state: { clip: 'x' } });
    expect(whole.files).toEqual([
      { name: 'a.bin', size: 2_000_000 },
      { name: 'empty', size: 0 },
      { name: 'b.txt', size: 300_000 },
    ]);
    const back = await unpackScene(whole.payload);
    expect(back.state).toEqual({ clip: 'x' });
    back.files.forEach((f, i) => expect(Buffer.compare(f.bytes, files[i].bytes)).toBe(0));
    expect(Math.abs(whole.payload.length - packScene({ files, state: { clip: 'x' } }).length)).toBeLessThan(1000);
    const cut = await packSceneAsync({ files }, { maxBytes: 100_000 });
    expect(cut.payload).toBeNull();
    expect(cut.read).toBeLessThan(cut.total);
  });

  it('reports progress and ends at the total', async () => {
    const files = [{ name: 'big.bin', bytes: noise(3_000_000) }];
    const seen = [];
    await unpackScene(packScene({ files }), { onProgress: (p) => seen.push(p) });
    expect(seen.at(-1)).toEqual({ done: 3_000_000, total: 3_000_000 });
  });
});

describe('hostile payloads', () => {
  const good = packScene({ files: [{ name: 'a.psk', bytes: Uint8Array.from({ length: 40000 }, (_, i) => (i * 31) & 255) }], state: {} });

  it('an empty payload', async () => {
    await expect(unpackScene(new Uint8Array(0))).rejects.toThrow(/empty/);
  });
  it('bytes that are not deflate', async () => {
    await expect(unpackScene(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x12]))).rejects.toThrow(/deflate data is damaged|cut off/);
  });
  it('deflate that is not a Rigscope container', async () => {
    await expect(unpackScene(deflateSync(text('PK\x03\x04 hello world')))).rejects.toThrow(/not a Rigscope packed scene/);
  });
  it('a truncated payload, at every cut', async () => {
    for (const cut of [1, 5, 20, Math.floor(good.length / 2), good.length - 1]) {
      await expect(unpackScene(good.subarray(0, cut)), `cut at ${cut}`).rejects.toThrow(/cut off|ends (before|inside) its header|damaged/);
    }
  });
  it('a header that is not JSON, of another version, or with no file list', async () => {
    await expect(unpackScene(container('{nope'))).rejects.toThrow(/header \(bytes 12–17\) is not JSON/);
    await expect(unpackScene(container({ v: 9, files: [] }))).rejects.toThrow(/version 9/);
    await expect(unpackScene(container({ v: 1 }))).rejects.toThrow(/no file list/);
    await expect(unpackScene(container({ v: 1, files: [], state: [1] }))).rejects.toThrow(/view state/);
  });
  it('a header length past the header cap', async () => {
    await expect(unpackScene(container({ v: 1, files: [] }, undefined, { headerLength: MAX_PACK_HEADER_BYTES + 1 }))).rejects.toThrow(
      /header declares 4,194,305 bytes, over the 4 MiB/,
    );
  });
  it('more files than the zip budget', async () => {
    const files = Array.from({ length: 1000 }, (_, i) => ({ name: `f${i}`, size: 1 }));
    await expect(unpackScene(container({ v: 1, files }, new Uint8Array(1000)), { maxEntries: 999 })).rejects.toThrow(
      /1,000 files, over the limit of 999/,
    );
    const many = Array.from({ length: MAX_ZIP_ENTRIES + 1 }, (_, i) => ({ name: `${i}`, size: 0 }));
    await expect(unpackScene(container({ v: 1, files: many }))).rejects.toThrow(/20,001 files, over the limit of 20,000/);
  });
  it('a file count past the budget is refused before the header is read, and a count that lies too', async () => {
    await expect(unpackScene(container('not even JSON', undefined, { count: 20_001 }))).rejects.toThrow(
      /20,001 files, over the limit of 20,000/,
    );
    await expect(unpackScene(container({ v: 1, files: [{ name: 'a', size: 1 }] }, text('x'), { count: 2 }))).rejects.toThrow(
      /lists 1 files, its count says 2/,
    );
  });
  it('a thousand tiny files within the budget open', async () => {
    const files = Array.from({ length: 1000 }, (_, i) => ({ name: `t/${i}.psk`, bytes: Uint8Array.of(i & 255) }));
    const back = await unpackScene(packScene({ files }));
    expect(back.files).toHaveLength(1000);
    expect(back.files[999]).toEqual({ name: 't/999.psk', bytes: Uint8Array.of(999 & 255) });
  });
  it('declared sizes past the byte budget, or past what the payload can hold', async () => {
    await expect(unpackScene(container({ v: 1, files: [{ name: 'a', size: MAX_ZIP_BYTES + 1 }] }))).rejects.toThrow(
      /declare 2,147,483,649 bytes, over the 2 GiB limit/,
    );
    await expect(unpackScene(container({ v: 1, files: [{ name: 'a', size: 100 }] }), { maxBytes: 99 })).rejects.toThrow(
      /declare 100 bytes, over the 99 bytes limit/,
    );
    // 1 GiB declared in a payload of a few dozen bytes: refused before anything is allocated.
    await expect(unpackScene(container({ v: 1, files: [{ name: 'a', size: 2 ** 30 }] }))).rejects.toThrow(
      /more than .* of deflate can hold/,
    );
    await expect(unpackScene(container({ v: 1, files: [{ name: 'a', size: -1 }] }))).rejects.toThrow(/not a byte count/);
  });
  it('a payload that inflates past its header (a bomb) stops there', async () => {
    // Declares 10 bytes, carries 50 MB of zeros.
    const bomb = container({ v: 1, files: [{ name: 'a', size: 10 }] }, new Uint8Array(50_000_000));
    expect(bomb.length).toBeLessThan(100_000);
    await expect(unpackScene(bomb)).rejects.toThrow(/inflates past the 10 bytes its header declares/);
  });
  it('a payload shorter than its header declares', async () => {
    await expect(
      unpackScene(
        container(
          {
            v: 1,
            files: [
              { name: 'a.psk', size: 10 },
              { name: 'b', size: 5 },
            ],
          },
          text('0123456789ab'),
        ),
      ),
    ).rejects.toThrow(/cut off: b has 2 bytes of its 5 bytes/);
  });
  it('names with paths or control characters, and duplicates', async () => {
    for (const [name, why] of [
      ['../x.psk', /"\.\."/],
      ['/etc/passwd', /absolute/],
      ['a\u0000.psk', /U\+0000/],
      ['a\\b', /backslash/],
      [7, /empty/],
    ]) {
      await expect(unpackScene(container({ v: 1, files: [{ name, size: 1 }] }, text('x')))).rejects.toThrow(why);
    }
    await expect(
      unpackScene(
        container(
          {
            v: 1,
            files: [
              { name: 'a', size: 1 },
              { name: 'a', size: 1 },
            ],
          },
          text('xy'),
        ),
      ),
    ).rejects.toThrow(/appears twice/);
  });
  it('yields while inflating a large payload (the page keeps drawing)', async () => {
    const files = [{ name: 'big.bin', bytes: noise(8_000_000) }];
    const payload = packScene({ files });
    // The clock is the test's: each reading is 1 ms on, so a slice's 12 ms pass after a few
    // pushes on any machine. At each break the page queues a task; it must run before the next
    // slice of inflating does.
    let clock = 0;
    const reading = vi.spyOn(performance, 'now').mockImplementation(() => ++clock);
    let breaks = 0,
      pageTasks = 0;
    const onProgress = () => {
      expect(pageTasks).toBe(breaks);
      breaks++;
      setTimeout(() => pageTasks++, 0);
    };
    try {
      await unpackScene(payload, { onProgress });
    } finally {
      reading.mockRestore();
    }
    expect(breaks).toBeGreaterThanOrEqual(8);
  });
});

describe('usedFiles', () => {
  const entries = ['m.psk', 'a.psa', 'readme.txt', 'bad.psk', 'lone.psa', 'tex.dds', 'actor.xml', 'lonely_a.3d'].map((path) => ({ path }));
  it('keeps what the scene shows or read, leaves out unused, refused, unbound and lone files', () => {
    const model = { file: 'm.psk', files: ['m.psk'] };
    const scene = {
      characters: [
        {
          actor: 'actor.xml',
          models: [model],
          animations: [{ file: 'a.psa', anim: { files: ['a.psa'] } }],
          materials: [{ texture: { path: 'tex.dds' } }],
          props: [],
        },
      ],
      boards: [],
      records: [
        { kind: 'unused', files: ['readme.txt'] },
        { kind: 'refused', files: ['bad.psk'] },
        { kind: 'unbound', files: ['lone.psa'] },
        { kind: 'missing', files: ['lonely_a.3d'] },
        // An actor that misses a texture is still shown: it stays.
        { kind: 'missing', files: ['actor.xml'] },
      ],
    };
    expect(usedFiles(scene, entries).map((e) => e.path)).toEqual(['m.psk', 'a.psa', 'tex.dds', 'actor.xml']);
    expect(usedFiles(null, entries)).toEqual([]);
  });
});
