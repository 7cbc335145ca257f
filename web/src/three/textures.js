// Decoded textures (rgba8 from PCX, DXT blocks from PSG) and browser images to three.js textures,
// and the matching of textures to materials by name or GUID, case-insensitively.
import * as THREE from 'three';
import { DDSLoader } from 'three/addons/loaders/DDSLoader.js';
import { TGALoader } from 'three/addons/loaders/TGALoader.js';
import { textureKey } from '../core/files.js';

const DXT = {
  dxt1: THREE.RGBA_S3TC_DXT1_Format,
  dxt3: THREE.RGBA_S3TC_DXT3_Format,
  dxt5: THREE.RGBA_S3TC_DXT5_Format,
};

// Decoded UVs are (u, 1 - v), made for images that three flips on upload (flipY). Compressed
// texture blocks cannot be flipped on upload, so their texture transform flips V back instead.
function flipCompressed(tex) {
  tex.repeat.set(1, -1);
  tex.offset.set(0, 1);
}

// Masked texels (PCX palette index 0) keep their key colour (often magenta), which filtering would
// bleed into the edges of masked triangles: make them black, as the engine's masked textures are.
function clearMaskedTexels(rgba) {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] === 0) rgba[i - 3] = rgba[i - 2] = rgba[i - 1] = 0;
  return rgba;
}

/** A decoded texture ({width, height, format, mips}) as a three.js texture. */
export function textureFromDecoded(t) {
  let tex;
  if (t.format === 'rgba8') {
    // Decoders emit rows top first, like an image file: flip as three does for images.
    tex = new THREE.DataTexture(clearMaskedTexels(t.mips[0]), t.width, t.height, THREE.RGBAFormat);
    tex.flipY = true;
    tex.generateMipmaps = true;
    tex.minFilter = THREE.LinearMipmapLinearFilter;
  } else if (DXT[t.format]) {
    const mipmaps = [];
    let w = t.width, h = t.height;
    for (const data of t.mips) {
      mipmaps.push({ data, width: w, height: h });
      w = Math.max(1, w >> 1);
      h = Math.max(1, h >> 1);
    }
    tex = new THREE.CompressedTexture(mipmaps, t.width, t.height, DXT[t.format]);
    tex.minFilter = mipmaps.length > 1 ? THREE.LinearMipmapLinearFilter : THREE.LinearFilter;
    flipCompressed(tex);
  } else {
    throw new Error(`texture ${t.name}: unsupported format ${t.format}`);
  }
  tex.name = t.name;
  tex.colorSpace = THREE.SRGBColorSpace;
  tex.wrapS = tex.wrapT = THREE.RepeatWrapping;
  tex.needsUpdate = true;
  return tex;
}

/** A browser-readable image file (PNG, JPEG, BMP, GIF, WebP), TGA or DDS entry as a texture. */
export async function textureFromEntry(entry) {
  const ext = entry.name.split('.').pop().toLowerCase();
  const buffer = await entry.read();
  let tex;
  if (ext === 'dds') {
    const dds = new DDSLoader().parse(buffer, true);
    tex = new THREE.CompressedTexture(dds.mipmaps, dds.width, dds.height, dds.format);
    tex.minFilter = dds.mipmapCount > 1 ? THREE.LinearMipmapLinearFilter : THREE.LinearFilter;
    flipCompressed(tex);
  } else if (ext === 'tga') {
    const data = new TGALoader().parse(buffer);
    tex = new THREE.DataTexture(data.data, data.width, data.height);
    tex.flipY = data.flipY;
    tex.generateMipmaps = true;
    tex.minFilter = THREE.LinearMipmapLinearFilter;
  } else {
    const bitmap = await createImageBitmap(new Blob([buffer]), { imageOrientation: 'flipY', premultiplyAlpha: 'none' });
    tex = new THREE.Texture(bitmap);
    tex.flipY = false; // already flipped by createImageBitmap
    // Colour and alpha kept apart: 0 A.D. player_trans textures keep their colour where alpha is 0.
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

/** Puts a texture on a material, keeping the material's blend settings. */
export function assignTexture(material, texture) {
  material.map = texture;
  material.color.set(0xffffff);
  material.needsUpdate = true;
}

/** The three.js texture of a file-set texture record, made once and kept on the record. */
export async function textureOfRecord(record) {
  record.texture ??= record.decoded ? textureFromDecoded(record.decoded) : await textureFromEntry(record.entry);
  return record.texture;
}
