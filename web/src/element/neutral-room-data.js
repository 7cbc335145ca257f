// The neutral room's prefiltered levels as neutral-room.js keeps them (scripts/neutral-room.mjs
// writes it): for each kept level, for each cube face (three's order, +X -X +Y -Y +Z -Z), its
// texels row by row as GL stores them, each 4 RGBE bytes (Radiance's shared exponent: 3 mantissas
// and the exponent + 128). RGBE keeps a texel to 1/256 of its brightest channel, under a colour
// level of the lit pictures, in a quarter of the bytes of half floats.

/**
 * Levels kept: the ones materials of roughness 0.37 and more sample (three maps roughness r to
 * level 5·r·(2 − r) of a 256-pixel PMREM's six). The models' own materials are 0.75.
 */
export const KEPT_LEVELS = [3, 4, 5];

/** Faces' texels of one level, one after another. */
const levelTexels = (size, level) => 6 * (size >> level) ** 2;

/** RGBE bytes of the kept levels of a cube of `size` pixels a face. */
const keptBytes = (size) => KEPT_LEVELS.reduce((n, l) => n + levelTexels(size, l) * 4, 0);

/**
 * RGBE bytes of the kept levels.
 * @param {{ size: number, faces: Record<number, number[][]> }} room level -> 6 faces of linear RGBA floats
 */
export function encodeRgbe({ size, faces }) {
  const out = new Uint8Array(keptBytes(size));
  let at = 0;
  for (const level of KEPT_LEVELS)
    for (const face of faces[level])
      for (let i = 0; i < face.length; i += 4, at += 4) {
        const brightest = Math.max(face[i], face[i + 1], face[i + 2]);
        if (!(brightest > 1e-30)) continue; // black, and anything not a positive number
        const exponent = Math.floor(Math.log2(brightest)) + 1; // brightest / 2^exponent in [0.5, 1)
        const scale = 256 / 2 ** exponent;
        for (let c = 0; c < 3; c++) out[at + c] = Math.min(255, Math.floor(Math.max(0, face[i + c]) * scale));
        out[at + 3] = exponent + 128;
      }
  return out;
}

/**
 * Every level of the room's cube as half floats (RGBA, alpha 1), from its kept levels: a level
 * sharper than the first kept one repeats that level's texels (nearest), so materials smoother
 * than roughness 0.37 show the room as blurred as 0.37 does.
 * @param {{ size: number, levels: number, rgbe: string }} room neutral-room.js's NEUTRAL_ROOM
 * @param {(bytes: Uint8Array) => Uint8Array} inflate fflate's inflateSync
 * @param {(value: number) => number} toHalf three's DataUtils.toHalfFloat
 * @returns {Uint16Array[][]} level -> 6 faces
 */
export function neutralRoomLevels({ size, levels, rgbe }, inflate, toHalf) {
  const text = atob(rgbe);
  const packed = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) packed[i] = text.charCodeAt(i);
  const bytes = inflate(packed);
  const expected = keptBytes(size);
  if (bytes.length !== expected) throw new Error(`neutral room: ${bytes.length} bytes, expected ${expected}`);
  // A half float per exponent and mantissa byte would be 65,536 values; the decoded floats are few.
  const halfOf = new Map();
  const half = (v) => {
    let h = halfOf.get(v);
    if (h === undefined) halfOf.set(v, (h = toHalf(v)));
    return h;
  };
  const ONE = toHalf(1);
  const out = new Array(levels);
  let at = 0;
  for (const level of KEPT_LEVELS) {
    const side = size >> level;
    out[level] = [];
    for (let f = 0; f < 6; f++) {
      const face = new Uint16Array(side * side * 4);
      for (let i = 0; i < face.length; i += 4, at += 4) {
        const e = bytes[at + 3];
        const scale = e ? 2 ** (e - 128) / 256 : 0;
        for (let c = 0; c < 3; c++) face[i + c] = half(e ? (bytes[at + c] + 0.5) * scale : 0);
        face[i + 3] = ONE;
      }
      out[level].push(face);
    }
  }
  const first = KEPT_LEVELS[0];
  for (let level = first - 1; level >= 0; level--) out[level] = out[first].map((face) => upsampled(face, size >> first, size >> level));
  return out;
}

/** A face of `from` pixels a side at `to` pixels a side, each texel its nearest source texel's. */
function upsampled(face, from, to) {
  // A texel's four half floats are one 64-bit word: a row is made by filling words, then repeated.
  const source = new BigUint64Array(face.buffer, face.byteOffset, from * from);
  const out = new BigUint64Array(to * to);
  const k = to / from;
  for (let y = 0; y < from; y++) {
    const row = y * k * to;
    for (let x = 0; x < from; x++) out.fill(source[y * from + x], row + x * k, row + (x + 1) * k);
    for (let r = 1; r < k; r++) out.copyWithin(row + r * to, row, row + to);
  }
  return new Uint16Array(out.buffer);
}

/**
 * The room as three's PMREM cube texture (a cube of half floats with its own six levels, which
 * three's shaders pick from by roughness).
 * @param {typeof import('three')} THREE
 * @param {{ size: number, levels: number, rgbe: string }} room neutral-room.js's NEUTRAL_ROOM
 * @param {(bytes: Uint8Array) => Uint8Array} inflate fflate's inflateSync
 */
export function neutralRoomTexture(THREE, room, inflate) {
  const { size } = room;
  const levels = neutralRoomLevels(room, inflate, THREE.DataUtils.toHalfFloat);
  const faces = [0, 1, 2, 3, 4, 5].map((f) => ({
    width: size,
    height: size,
    mipmaps: levels.map((level, l) => ({ data: level[f], width: size >> l, height: size >> l })),
  }));
  const texture = new THREE.CompressedCubeTexture(faces, THREE.RGBAFormat, THREE.HalfFloatType);
  texture.isPMREMTexture = true;
  // Its texels are as PMREMGenerator's render target held them: three samples a cube texture of
  // images mirrored in x, one it rendered itself as it is.
  texture.isRenderTargetTexture = true;
  texture.name = 'PMREM';
  texture.colorSpace = THREE.LinearSRGBColorSpace;
  texture.minFilter = THREE.LinearMipmapLinearFilter;
  texture.magFilter = THREE.LinearFilter;
  texture.needsUpdate = true;
  return texture;
}
