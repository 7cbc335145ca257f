// Image files as textures: TGA, BMP and DDS through the WASM decoder, the pixel cap read from
// browser image headers, and DXT levels shaped the way WebGL 2 stores them.
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { entryFromBytes } from '../../web/src/core/files.js';
import {
  MAX_IMAGE_PIXELS,
  UNTEXTURED_MAP,
  assignTexture,
  browserImageSize,
  checkImagePixels,
  removeTexture,
  textureFromDecoded,
  textureFromEntry,
} from '../../web/src/three/textures.js';
import { sharePrograms } from '../../web/src/three/shared-programs.js';
import { decoder, fixture } from './helpers.js';

// The write_image_fixtures picture: 8 × 8, left half red, right half blue, top row white,
// pixel (7, 7) (bottom right) with alpha 0 where the format has alpha.
const texel = (tex, x, y) => [...tex.image.data.subarray((y * tex.image.width + x) * 4, (y * tex.image.width + x) * 4 + 4)];

describe('TGA, BMP and DDS decode in the worker', () => {
  it('gives rgba8 textures, rows top first, colour kept under alpha 0', async () => {
    for (const name of ['image_rgba32_top.tga', 'image_mapped_rle.tga', 'image_32bit_v5.bmp', 'image_a8r8g8b8.dds']) {
      const tex = await textureFromEntry(entryFromBytes(name, fixture(name)), await decoder());
      expect(tex.isDataTexture, name).toBe(true);
      expect(tex.name).toBe(name);
      expect([tex.image.width, tex.image.height, tex.flipY]).toEqual([8, 8, true]);
      expect(texel(tex, 0, 0), name).toEqual([255, 255, 255, 255]);
      expect(texel(tex, 1, 3), name).toEqual([200, 30, 30, 255]);
      expect(texel(tex, 6, 5), name).toEqual([30, 30, 200, 255]);
      expect(texel(tex, 7, 7), name).toEqual([30, 30, 200, name.includes('mapped') ? 255 : 0]); // 24-bit colour map: no alpha
    }
  });

  it('passes DXT blocks and their mips through', async () => {
    const tex = await textureFromEntry(entryFromBytes('image_dxt1_mips.dds', fixture('image_dxt1_mips.dds')), await decoder());
    expect(tex.isCompressedTexture).toBe(true);
    expect(tex.format).toBe(THREE.RGBA_S3TC_DXT1_Format);
    expect(tex.mipmaps.map((m) => [m.width, m.height, m.data.byteLength])).toEqual([
      [8, 8, 32],
      [4, 4, 8],
      [2, 2, 8],
      [1, 1, 8],
    ]);
  });

  it("refuses a 16384² TGA with the decoder's message, naming the field and offset", async () => {
    const huge = new Uint8Array(18 + 64);
    huge[2] = 2;
    huge[16] = 24;
    huge.set([0, 0x40, 0, 0x40], 12);
    await expect(textureFromEntry(entryFromBytes('huge.tga', huge), await decoder())).rejects.toThrow(
      'TGA huge.tga: width 16384 × height 16384 at byte 12 is 268 Mpx, over the 64 Mpx limit',
    );
  });
});

describe('DXT levels as WebGL 2 takes them', () => {
  // Block b of face f at level l holds the bytes [l, f, b, ...] so every move shows.
  function decodedDxt1(width, height, levels, faces = 1) {
    const mips = [];
    for (let l = 0; l < levels; l++) {
      const w = Math.max(1, width >> l),
        h = Math.max(1, height >> l);
      const n = Math.ceil(w / 4) * Math.ceil(h / 4);
      const data = new Uint8Array(n * 8 * faces);
      for (let f = 0; f < faces; f++) for (let b = 0; b < n; b++) data.set([l, f, b], (f * n + b) * 8);
      mips.push(data);
    }
    return { name: 't', format: 'dxt1', width, height, cube: faces === 6, mips };
  }
  const tags = (data) => Array.from({ length: data.byteLength / 8 }, (_, i) => `${data[i * 8 + 1]}:${data[i * 8 + 2]}`);

  it('keeps every level of a whole-block image at its own size', () => {
    const tex = textureFromDecoded(decodedDxt1(64, 16, 7));
    expect(tex.mipmaps.map((m) => `${m.width}x${m.height}`)).toEqual(['64x16', '32x8', '16x4', '8x2', '4x1', '2x1', '1x1']);
    expect([tex.repeat.x, tex.repeat.y, tex.offset.y]).toEqual([1, -1, 1]);
  });

  it('pads an odd-sized base to whole blocks and shows only the image', () => {
    const tex = textureFromDecoded(decodedDxt1(6, 10, 4));
    expect(tex.mipmaps.map((m) => `${m.width}x${m.height}:${m.data.byteLength}`)).toEqual(['8x12:48', '4x6:16', '2x3:8', '1x1:8']);
    expect(tex.repeat.x).toBeCloseTo(6 / 8);
    expect(tex.repeat.y).toBeCloseTo(-10 / 12);
    expect(tex.offset.y).toBeCloseTo(10 / 12);
    // 9 × 9: level 1 is 4 × 4 texels (one block) where the padded 12 × 12 implies 6 × 6 (four).
    expect(textureFromDecoded(decodedDxt1(9, 9, 4)).mipmaps.map((m) => m.width)).toEqual([12]);
  });

  it('lays the six faces of a cube map side by side, block row by block row', () => {
    const tex = textureFromDecoded(decodedDxt1(8, 8, 4, 6));
    expect([tex.image.width, tex.image.height]).toEqual([48, 8]);
    // 48 × 8, 24 × 4; then 12 × 2 would be 3 blocks wide where the faces need 6: the chain stops.
    expect(tex.mipmaps.map((m) => `${m.width}x${m.height}`)).toEqual(['48x8', '24x4']);
    expect(tags(tex.mipmaps[0].data)).toEqual([
      '0:0',
      '0:1',
      '1:0',
      '1:1',
      '2:0',
      '2:1',
      '3:0',
      '3:1',
      '4:0',
      '4:1',
      '5:0',
      '5:1',
      '0:2',
      '0:3',
      '1:2',
      '1:3',
      '2:2',
      '2:3',
      '3:2',
      '3:3',
      '4:2',
      '4:3',
      '5:2',
      '5:3',
    ]);
    expect(tags(tex.mipmaps[1].data)).toEqual(['0:0', '1:0', '2:0', '3:0', '4:0', '5:0']);
  });

  it('lays rgba8 cube faces side by side too', () => {
    const face = (f) => new Uint8Array(2 * 2 * 4).fill(f * 10);
    const mips = [new Uint8Array([...face(0), ...face(1), ...face(2), ...face(3), ...face(4), ...face(5)])];
    const tex = textureFromDecoded({ name: 'c', format: 'rgba8', width: 2, height: 2, cube: true, mips });
    expect([tex.image.width, tex.image.height]).toEqual([12, 2]);
    expect(Array.from({ length: 12 }, (_, x) => tex.image.data[x * 4])).toEqual([0, 0, 10, 10, 20, 20, 30, 30, 40, 40, 50, 50]);
  });
});

describe('browser image headers and the pixel cap', () => {
  const png = (w, h) => {
    const b = new Uint8Array(33);
    b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    new DataView(b.buffer).setUint32(16, w);
    new DataView(b.buffer).setUint32(20, h);
    return b;
  };
  // SOI, an APP0 segment of 16 bytes, then SOF2 (progressive): length, precision, height, width.
  const jpeg = (w, h) =>
    new Uint8Array([
      0xff,
      0xd8,
      0xff,
      0xe0,
      0,
      16,
      ...new Array(14).fill(0),
      0xff,
      0xc2,
      0,
      11,
      8,
      h >> 8,
      h & 255,
      w >> 8,
      w & 255,
      3,
      0,
      0,
    ]);
  const gif = (w, h) => new Uint8Array([...'GIF89a'].map((c) => c.charCodeAt(0)).concat([w & 255, w >> 8, h & 255, h >> 8, 0, 0, 0]));
  const webp = (chunk, body) => {
    const b = new Uint8Array(40);
    b.set(
      [...'RIFF'].map((c) => c.charCodeAt(0)),
      0,
    );
    b.set(
      [...`WEBP${chunk}`].map((c) => c.charCodeAt(0)),
      8,
    );
    b.set(body, 20);
    return b;
  };

  it('reads the declared size of PNG, JPEG, GIF and WebP', () => {
    expect(browserImageSize(png(640, 480))).toEqual({ type: 'PNG', width: 640, height: 480, at: 16 });
    expect(browserImageSize(jpeg(1024, 768))).toEqual({ type: 'JPEG', width: 1024, height: 768, at: 25 });
    expect(browserImageSize(gif(300, 200))).toEqual({ type: 'GIF', width: 300, height: 200, at: 6 });
    // VP8X (data at 20): flags, 3 reserved bytes, then 24-bit width − 1 and height − 1.
    expect(browserImageSize(webp('VP8X', [0, 0, 0, 0, 0x3f, 0x1f, 0, 0xff, 0x0f, 0]))).toEqual({
      type: 'WebP',
      width: 8000,
      height: 4096,
      at: 24,
    });
    // VP8L: signature 0x2f at 20, then 14 bits width − 1 and 14 bits height − 1.
    const w = 16384 - 1,
      h = 100 - 1,
      bits = w | (h << 14);
    expect(browserImageSize(webp('VP8L', [0x2f, bits & 255, (bits >> 8) & 255, (bits >> 16) & 255, bits >>> 24]))).toEqual({
      type: 'WebP',
      width: 16384,
      height: 100,
      at: 21,
    });
    // VP8: 3-byte frame tag at 20, start code 9d 01 2a, then 14-bit width and height.
    expect(browserImageSize(webp('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01]))).toEqual({
      type: 'WebP',
      width: 640,
      height: 480,
      at: 26,
    });
    expect(browserImageSize(fixture('image_rgb24.tga'))).toBe(null);
  });

  it('refuses what declares more than 64 Mpx before the browser decodes it', async () => {
    expect(MAX_IMAGE_PIXELS).toBe(64e6);
    expect(() => checkImagePixels({ type: 'PNG', width: 8000, height: 8000, at: 16 }, 'ok.png')).not.toThrow();
    await expect(textureFromEntry(entryFromBytes('huge.png', png(16384, 16384)), null)).rejects.toThrow(
      'PNG huge.png: width 16384 × height 16384 at byte 16 is 268 Mpx, over the 64 Mpx limit',
    );
    await expect(textureFromEntry(entryFromBytes('huge.jpg', jpeg(65535, 65535)), null)).rejects.toThrow(
      'JPEG huge.jpg: width 65535 × height 65535 at byte 25 is 4295 Mpx, over the 64 Mpx limit',
    );
    await expect(textureFromEntry(entryFromBytes('huge.gif', gif(65535, 2000)), null)).rejects.toThrow(/GIF huge\.gif: .* 131 Mpx/);
  });
});

describe('a texture taken away', () => {
  const texture = new THREE.Texture();
  it('leaves a viewer material that shares programs on the white texel, and a loader material on no map', () => {
    // Textured before its program was first shared (a drop's first look), then shared.
    const viewer = new THREE.MeshStandardMaterial();
    assignTexture(viewer, texture);
    sharePrograms([viewer]);
    expect(viewer.map).toBe(texture);
    removeTexture(viewer);
    expect(viewer.map).toBe(UNTEXTURED_MAP);
    // The loaders never share programs: their materials go back to no map.
    const loader = new THREE.MeshStandardMaterial();
    assignTexture(loader, texture);
    removeTexture(loader);
    expect(loader.map).toBeNull();
  });
});
