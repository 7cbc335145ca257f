// A PNG writer for RGBA8 pixels (GLB export of decoded textures, posters, in Node and the browser
// alike): one IDAT of zlib (fflate) over rows with filter 0. Rows are given top first, as PNG stores
// them; pixels read back from WebGL come bottom first (flipRows) and premultiplied (unpremultiply).
import { zlibSync } from 'fflate';

const CRC_TABLE = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes, start, end) {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out, 4, 8 + data.length));
  return out;
}

/** @returns {Uint8Array} a PNG of `width` × `height` RGBA8 pixels */
export function encodePng(rgba, width, height) {
  if (!(width > 0 && height > 0) || rgba.length < width * height * 4) {
    throw new Error(`PNG: ${width}x${height} pixels need ${width * height * 4} bytes, ${rgba.length} given`);
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, filter set 0, no interlace
  const stride = width * 4;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', zlibSync(raw, { level: 6 })),
    chunk('IEND', new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** WebGL counts rows from the bottom; pictures count from the top. Flips `rows` in place. */
export function flipRows(rows, width, height) {
  const stride = width * 4;
  const line = new Uint8Array(stride);
  for (let top = 0, bottom = height - 1; top < bottom; top++, bottom--) {
    line.set(rows.subarray(top * stride, top * stride + stride));
    rows.copyWithin(top * stride, bottom * stride, bottom * stride + stride);
    rows.set(line, bottom * stride);
  }
  return rows;
}

/**
 * Straight alpha from premultiplied RGBA8, in place: a canvas's pixels are premultiplied (an edge
 * antialiased over a clear background is darker by its cover), PNG's are not.
 */
export function unpremultiply(rgba) {
  for (let o = 0; o < rgba.length; o += 4) {
    const a = rgba[o + 3];
    if (a === 255 || a === 0) continue;
    for (let c = o; c < o + 3; c++) rgba[c] = Math.min(255, Math.round((rgba[c] * 255) / a));
  }
  return rgba;
}
