import { describe, expect, it } from 'vitest';
import { entryFromBlob, extension, stem, textureKey } from '../../web/src/core/files.js';

describe('file names', () => {
  it('derives texture keys without folders, extensions or 0 A.D. archive suffixes', () => {
    expect(textureKey('art/textures/skins/props/Barrel.png.cached.dds')).toBe('barrel');
    expect(textureKey('MODELS\\Bottle1.PCX')).toBe('bottle1');
    expect(textureKey('m_rifl.bmp')).toBe('m_rifl');
    expect(textureKey('Jtex1')).toBe('jtex1');
  });
  it('splits stems and extensions', () => {
    expect(stem('a/b/skSpider.PSA')).toBe('skSpider');
    expect(extension('x/Y.ZIP')).toBe('zip');
  });
});

describe('head reads of browser files', () => {
  /** A Blob that counts how often its size is asked (a round trip to the file store in a browser). */
  class CountingBlob extends Blob {
    sizeAsked = 0;
    get size() {
      this.sizeAsked++;
      return super.size;
    }
  }
  const bytes = (n) => Uint8Array.from({ length: n }, (_, i) => (i * 7) & 255);
  // Streams give chunks of their own size; many chunks must join into one head.
  const chunked = (n, chunk) =>
    new CountingBlob(Array.from({ length: Math.ceil(n / chunk) }, (_, k) => bytes(n).subarray(k * chunk, (k + 1) * chunk)));

  it('reads a short file whole as its head, and knows its size from it without asking', async () => {
    const blob = chunked(5000, 1000);
    const entry = entryFromBlob(blob, 'mod/a.psk');
    const head = new Uint8Array(await entry.readHead(65536));
    expect(head).toEqual(bytes(5000));
    expect(entry.size).toBe(5000);
    expect(blob.sizeAsked).toBe(0);
  });

  it("reads a long file's first bytes only, and asks its size once", async () => {
    const blob = new CountingBlob([bytes(300000)]);
    const entry = entryFromBlob(blob, 'mod/b.psk');
    const head = new Uint8Array(await entry.readHead(65536));
    expect(head).toEqual(bytes(300000).subarray(0, 65536));
    expect(head.buffer.byteLength).toBe(65536);
    expect([entry.size, entry.size]).toEqual([300000, 300000]);
    expect(blob.sizeAsked).toBe(1);
  });

  it('gives a head of exactly the bytes asked when chunks end past them', async () => {
    const entry = entryFromBlob(chunked(70000, 30000), 'c.psk');
    expect(new Uint8Array(await entry.readHead(65536))).toEqual(bytes(70000).subarray(0, 65536));
  });
});
