// S3TC (DXT1/3/5) blocks to RGBA8, top row first, for exporting compressed textures as PNG.
// The GPU samples them directly in the viewer; only export needs their pixels.

function colours(block, o, out, dxt1) {
  const c0 = block[o] | (block[o + 1] << 8),
    c1 = block[o + 2] | (block[o + 3] << 8);
  const rgb = (c) => [(((c >> 11) & 31) * 255) / 31, (((c >> 5) & 63) * 255) / 63, ((c & 31) * 255) / 31];
  const a = rgb(c0),
    b = rgb(c1);
  const four = !dxt1 || c0 > c1;
  const p = [
    a,
    b,
    four ? a.map((v, i) => (2 * v + b[i]) / 3) : a.map((v, i) => (v + b[i]) / 2),
    four ? a.map((v, i) => (v + 2 * b[i]) / 3) : [0, 0, 0],
  ];
  for (let i = 0; i < 16; i++) {
    const idx = (block[o + 4 + (i >> 2)] >> ((i & 3) * 2)) & 3;
    out[i * 4] = p[idx][0];
    out[i * 4 + 1] = p[idx][1];
    out[i * 4 + 2] = p[idx][2];
    out[i * 4 + 3] = dxt1 && !four && idx === 3 ? 0 : 255;
  }
}

function alpha3(block, o, out) {
  for (let i = 0; i < 16; i++) out[i * 4 + 3] = ((block[o + (i >> 1)] >> ((i & 1) * 4)) & 15) * 17;
}

function alpha5(block, o, out) {
  const a0 = block[o],
    a1 = block[o + 1];
  const table = [a0, a1];
  for (let k = 1; k < (a0 > a1 ? 7 : 5); k++) table.push(a0 > a1 ? ((7 - k) * a0 + k * a1) / 7 : ((5 - k) * a0 + k * a1) / 5);
  if (a0 <= a1) table.push(0, 255);
  let bits = 0n;
  for (let k = 5; k >= 0; k--) bits = (bits << 8n) | BigInt(block[o + 2 + k]);
  for (let i = 0; i < 16; i++) out[i * 4 + 3] = table[Number((bits >> BigInt(3 * i)) & 7n)];
}

/** @param {'dxt1'|'dxt3'|'dxt5'} format @returns {Uint8Array} width × height RGBA8 */
export function decodeDxt(format, data, width, height) {
  const blockBytes = format === 'dxt1' ? 8 : 16;
  const bw = Math.max(1, Math.ceil(width / 4)),
    bh = Math.max(1, Math.ceil(height / 4));
  const out = new Uint8Array(width * height * 4);
  const px = new Uint8Array(64);
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      const o = (by * bw + bx) * blockBytes;
      if (o + blockBytes > data.length) return out;
      if (format === 'dxt1') colours(data, o, px, true);
      else {
        colours(data, o + 8, px, false);
        (format === 'dxt3' ? alpha3 : alpha5)(data, o, px);
      }
      for (let y = 0; y < 4; y++) {
        for (let x = 0; x < 4; x++) {
          const X = bx * 4 + x,
            Y = by * 4 + y;
          if (X < width && Y < height) out.set(px.subarray((y * 4 + x) * 4, (y * 4 + x) * 4 + 4), (Y * width + X) * 4);
        }
      }
    }
  }
  return out;
}
