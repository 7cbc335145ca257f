// Decoded textures (rgba8 from PCX, TGA, BMP; DXT blocks or rgba8 from PSG and DDS) and browser
// images to three.js textures, and the matching of textures to materials by name or GUID,
// case-insensitively. TGA, BMP and DDS decode in the worker (decodeImage); PNG, JPEG, GIF and
// WebP decode in the browser, after their header passed the same pixel cap.
import * as THREE from 'three';
import { textureKey } from '../core/files.js';
import { decodedTexture } from '../core/fileset.js';

/** The decoders' pixel cap (kMaxImagePixels in wasm/src/formats/image/pixel_cap.h), in pixels. */
export const MAX_IMAGE_PIXELS = 64_000_000;

const DXT = {
  dxt1: { format: THREE.RGBA_S3TC_DXT1_Format, blockBytes: 8 },
  dxt3: { format: THREE.RGBA_S3TC_DXT3_Format, blockBytes: 16 },
  dxt5: { format: THREE.RGBA_S3TC_DXT5_Format, blockBytes: 16 },
};

// Decoded UVs are (u, 1 - v), made for images that three flips on upload (flipY). Compressed
// texture blocks cannot be flipped on upload, so their texture transform flips V back instead.
// `used` is the part of the texture the image fills (below 1 when its blocks were padded).
function flipCompressed(tex, usedX = 1, usedY = 1) {
  tex.repeat.set(usedX, -usedY);
  tex.offset.set(0, usedY);
}

// Masked texels (PCX palette index 0) keep their key colour (often magenta), which filtering would
// bleed into the edges of masked triangles: make them black, as the engine's masked textures are.
function clearMaskedTexels(rgba) {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] === 0) rgba[i - 3] = rgba[i - 2] = rgba[i - 1] = 0;
  return rgba;
}

const blocks = (n) => Math.ceil(n / 4);

/**
 * A cube map's six faces (+X, −X, +Y, −Y, +Z, −Z, concatenated in each level) side by side in
 * one 2D level: a strip 6 faces wide, so it shows on a quad like any other texture. `rowBytes`
 * and `rows` describe one face: texel rows for rgba8, rows of 4×4 blocks for DXT.
 */
function cubeStrip(level, rowBytes, rows) {
  const face = rowBytes * rows;
  const out = new Uint8Array(level.byteLength);
  for (let r = 0; r < rows; r++) {
    for (let f = 0; f < 6; f++) out.set(level.subarray(f * face + r * rowBytes, f * face + (r + 1) * rowBytes), (r * 6 + f) * rowBytes);
  }
  return out;
}

/**
 * The mip levels WebGL can take for DXT blocks. WebGL 2 stores S3TC textures with texStorage2D,
 * which wants a base level in whole blocks (multiples of 4) and derives every level's size from it:
 * level l is max(1, base >> l), and its data must be exactly that many blocks. So the base is the
 * image padded to whole blocks (the transform shows only the image), and levels stop at the first
 * one whose decoded blocks differ from what the padded base implies (odd sizes such as 9 × 9:
 * level 1 is 4 × 4 texels, one block, where 12 × 12 gives 6 × 6, two).
 */
function dxtLevels(t, faces) {
  const { blockBytes } = DXT[t.format];
  const width = blocks(t.width) * 4 * faces,
    height = blocks(t.height) * 4;
  const levels = [];
  for (const [l, data] of t.mips.entries()) {
    const w = Math.max(1, width >> l),
      h = Math.max(1, height >> l);
    const faceW = Math.max(1, (blocks(t.width) * 4) >> l);
    if (blocks(w) * blocks(h) * blockBytes !== data.byteLength || (faces > 1 && blocks(w) !== blocks(faceW) * faces)) break;
    levels.push({ data: faces > 1 ? cubeStrip(data, blocks(faceW) * blockBytes, blocks(h)) : data, width: w, height: h });
  }
  return { levels, width, height };
}

/**
 * A decoded texture ({width, height, format, cube, mips}) as a three.js texture. Cube maps become
 * a strip of their six faces. `clearMasked`: blacken fully transparent texels (PCX masking);
 * images keep colour under alpha 0, as 0 A.D.'s player_trans textures need.
 */
export function textureFromDecoded(t, { clearMasked = true } = {}) {
  let tex;
  const faces = t.cube ? 6 : 1;
  if (t.format === 'rgba8') {
    // Decoders emit rows top first, like an image file: flip as three does for images.
    const level = t.cube ? cubeStrip(t.mips[0], t.width * 4, t.height) : t.mips[0];
    tex = new THREE.DataTexture(clearMasked ? clearMaskedTexels(level) : level, t.width * faces, t.height, THREE.RGBAFormat);
    tex.flipY = true;
    tex.generateMipmaps = true;
    tex.minFilter = THREE.LinearMipmapLinearFilter;
  } else if (DXT[t.format]) {
    const { levels, width, height } = dxtLevels(t, faces);
    tex = new THREE.CompressedTexture(levels, width, height, DXT[t.format].format);
    tex.minFilter = levels.length > 1 ? THREE.LinearMipmapLinearFilter : THREE.LinearFilter;
    flipCompressed(tex, (t.width * faces) / width, t.height / height);
  } else {
    throw new Error(`texture ${t.name}: unsupported format ${t.format}`);
  }
  tex.name = t.name;
  tex.colorSpace = THREE.SRGBColorSpace;
  tex.wrapS = tex.wrapT = THREE.RepeatWrapping;
  tex.needsUpdate = true;
  return tex;
}

const u16be = (b, at) => (b[at] << 8) | b[at + 1];
const u32be = (b, at) => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
const u16le = (b, at) => b[at] | (b[at + 1] << 8);
const u24le = (b, at) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
const ascii = (b, at, n) => String.fromCharCode(...b.subarray(at, at + n));

// JPEG: the first start-of-frame segment (SOF0..SOF15 but DHT C4, JPG C8, DAC CC) holds the
// height and width after its length and precision.
function jpegSize(b) {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    } // fill byte
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { type: 'JPEG', width: u16be(b, at + 7), height: u16be(b, at + 5), at: at + 5 };
    }
    if (marker === 0xda) return null; // scan data before any frame header
    at += 2 + u16be(b, at + 2);
  }
  return null;
}

/**
 * The size a browser image declares in its header, before anything is decoded:
 * `{ type, width, height, at }` (`at`: byte offset of the first size field), or null when the
 * bytes are not PNG, JPEG, GIF or WebP.
 */
export function browserImageSize(bytes) {
  const b = bytes;
  if (b.length >= 24 && b[0] === 0x89 && ascii(b, 1, 3) === 'PNG')
    return { type: 'PNG', width: u32be(b, 16), height: u32be(b, 20), at: 16 };
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return jpegSize(b);
  if (b.length >= 10 && ascii(b, 0, 4) === 'GIF8') return { type: 'GIF', width: u16le(b, 6), height: u16le(b, 8), at: 6 };
  if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') {
    const chunk = ascii(b, 12, 4);
    if (chunk === 'VP8X') return { type: 'WebP', width: u24le(b, 24) + 1, height: u24le(b, 27) + 1, at: 24 };
    if (chunk === 'VP8L') {
      const bits = (b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24)) >>> 0;
      return { type: 'WebP', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, at: 21 };
    }
    if (chunk === 'VP8 ') return { type: 'WebP', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff, at: 26 };
  }
  return null;
}

/** Throws when a declared image size is over MAX_IMAGE_PIXELS (the decoders' message, word for word). */
export function checkImagePixels({ type, width, height, at }, name) {
  const pixels = width * height;
  if (pixels <= MAX_IMAGE_PIXELS) return;
  throw new Error(
    `${type} ${name}: width ${width} × height ${height} at byte ${at} is ${Math.round(pixels / 1e6)} Mpx, over the ${MAX_IMAGE_PIXELS / 1e6} Mpx limit`,
  );
}

/**
 * An image file entry as a texture. PNG, JPEG, GIF and WebP (known by their headers) are decoded by
 * the browser once their declared size passes the pixel cap; anything else goes to the decoder
 * worker (`decoder.call('decodeImage', …)`: TGA, BMP, DDS), off the main thread.
 */
export async function textureFromEntry(entry, decoder) {
  const buffer = await entry.read();
  const declared = browserImageSize(new Uint8Array(buffer));
  let tex;
  if (declared) {
    checkImagePixels(declared, entry.name);
    let bitmap;
    try {
      bitmap = await createImageBitmap(new Blob([buffer]), { imageOrientation: 'flipY', premultiplyAlpha: 'none' });
    } catch (err) {
      throw new Error(`${declared.type} ${entry.name}: the browser could not decode it (${err.message})`, { cause: err });
    }
    tex = new THREE.Texture(bitmap);
    tex.flipY = false; // already flipped by createImageBitmap
    // Colour and alpha kept apart: 0 A.D. player_trans textures keep their colour where alpha is 0.
  } else {
    const model = await decoder.call('decodeImage', [buffer, entry.name]);
    tex = textureFromDecoded(model.textures[0], { clearMasked: false });
  }
  tex.name = entry.name;
  tex.colorSpace = THREE.SRGBColorSpace;
  tex.wrapS = tex.wrapT = THREE.RepeatWrapping;
  tex.needsUpdate = true;
  return tex;
}

/**
 * Finds the texture for a material: by GUID (PSG), then by any of its texture names, compared
 * as textureKey (no folder, no extension, lower case).
 * @param {{guid?: string, textureNames: string[]}} source the decoded material
 * @param {Map<string, object>} library key -> texture record
 */
export function findTexture(source, library) {
  if (source.guid && library.has(source.guid)) return library.get(source.guid);
  for (const n of source.textureNames ?? []) {
    const hit = library.get(textureKey(n));
    if (hit) return hit;
  }
  return null;
}

/**
 * One white texel, the map the viewer draws an untextured material with: its colour times white is
 * its colour, and its shader program is the one its textured kind uses. Software GL (no
 * KHR_parallel_shader_compile) links and first draws each program one at a time (0.05-0.4 s each
 * on a busy machine), and a folder of textured and untextured parts needed both kinds of each. It
 * is no picture of the model: the GLB export writes textures from the scene, never maps.
 */
export const UNTEXTURED_MAP = new THREE.DataTexture(new Uint8Array([255, 255, 255, 255]), 1, 1, THREE.RGBAFormat);
UNTEXTURED_MAP.name = 'untextured';
UNTEXTURED_MAP.userData.untextured = true;
UNTEXTURED_MAP.needsUpdate = true;

/**
 * Materials of a viewer that shares programs (three/shared-programs.js): without a texture they
 * draw the white texel, also when they lose one (removeTexture). The loaders' never do.
 */
const drawsWhite = new WeakSet();

/** Gives a lit or unlit mesh material without a texture the untextured white texel; true if it did. */
export function drawUntexturedWhite(material) {
  if (!(material.isMeshStandardMaterial || material.isMeshBasicMaterial)) return false;
  drawsWhite.add(material);
  if (material.map) return false;
  material.map = UNTEXTURED_MAP;
  material.needsUpdate = true;
  return true;
}

/** Each textured material's colour and map before its first texture (removeTexture goes back to them). */
const untextured = new WeakMap();

/** Puts a texture on a material, keeping the material's blend settings. */
export function assignTexture(material, texture) {
  if (!untextured.has(material)) untextured.set(material, { colour: material.color.clone(), map: material.map });
  material.map = texture;
  material.color.set(0xffffff);
  material.needsUpdate = true;
}

/**
 * Takes a material's texture away (a scene that no longer gives it one: what was drawn early, from
 * part of a drop, chose a texture the whole drop does not): the map (none, or the untextured white
 * texel) and colour from before its first.
 */
export function removeTexture(material) {
  const before = untextured.get(material);
  if (before) {
    material.map = before.map;
    material.color.copy(before.colour);
  } else if (material.map !== UNTEXTURED_MAP) material.map = null;
  // Textured before its program was first shared (a drop's first look): back to the white texel
  // at once, not drawn without a map (another program, linked inside a frame) until the next
  // compile shares it again.
  if (!material.map && drawsWhite.has(material)) material.map = UNTEXTURED_MAP;
  material.needsUpdate = true;
}

/** Textures being made, by record: materials that share a texture wait for the same one. */
const making = new WeakMap();

/**
 * The three.js texture of a file-set texture record, made once and kept on the record. `decoder`
 * (a DecoderClient or the Node host) decodes TGA, BMP and DDS files. Many may be asked for at
 * once: each record is read and decoded once, whoever asks.
 */
export function textureOfRecord(record, decoder) {
  if (record.texture) return Promise.resolve(record.texture);
  let made = making.get(record);
  if (!made) {
    made = (async () =>
      record.decoded || record.load
        ? textureFromDecoded(await decodedTexture(record, decoder))
        : await textureFromEntry(record.entry, decoder))();
    made.then(
      (texture) => {
        record.texture = texture;
        making.delete(record);
      },
      () => making.delete(record),
    );
    making.set(record, made);
  }
  return made;
}
