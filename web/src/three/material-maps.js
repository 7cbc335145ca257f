// A MeshStandardMaterial from an Unreal material's maps by role (see families/unreal-materials.js):
//
//   base      → map, sRGB, colour white
//   normal    → normalMap, linear. Unreal normal maps are DirectX-style (green = -V, "down" the
//               image). three's tangent frame without tangent attributes has +Y along increasing V,
//               which is "up" the image for textures uploaded with flipY (images, TGA, decoded RGBA):
//               normalScale.y = -1. DDS textures are not flipped on upload; their transform flips V
//               instead (repeat.y = -1), so their +Y already points down the image: normalScale.y = +1.
//   arm       → one linear texture as aoMap (R), roughnessMap (G) and metalnessMap (B), roughness =
//               metalness = 1, UV channel 0. glTF's occlusion and metallicRoughness textures have the
//               same channels, so the GLB export writes the texture as it is.
//   mra       → metallic, roughness, AO in R, G, B: a copy with R and B swapped, used as arm.
//   specular  → (only without arm/mra) Unreal's old specular maps hold reflectance, brighter = glossier.
//               The simplest correct approximation in a metal/roughness material is a dielectric
//               (metalness 0) whose roughness is 1 - specular: a copy holding that in G and 0 in B,
//               used as roughness and metalness map. The GLB then carries the same approximation.
//   emissive  → emissiveMap, sRGB, emissive colour white
//   opacity   → alphaMap (G), linear, transparent blend
//   mask      → alphaMap, alphaTest 0.5 — only when the material is alpha-tested (its own blend or the
//               sidecar's BlendMode is masked): a map merely called "mask" is usually channel-packed
//               (UE Viewer's Mask slot, "SpecularMasks"), and cutting a mesh by it would punch holes.
//
// MRA and specular copies need the pixels: DataTextures (TGA, decoded textures) directly, browser
// images through a 2D canvas; compressed textures are left out and listed as skipped.
import * as THREE from 'three';

const ROLES = ['base', 'normal', 'arm', 'mra', 'specular', 'emissive', 'opacity', 'mask'];

const SLOTS = ['map', 'normalMap', 'aoMap', 'roughnessMap', 'metalnessMap', 'emissiveMap', 'alphaMap'];
const VALUES = ['roughness', 'metalness', 'transparent', 'alphaTest'];
const OBJECTS = ['color', 'emissive', 'normalScale'];

// Material → { plain, full, baseOnly }. Not in userData: Material.copy and GLTFExporter serialise
// userData with JSON.stringify, which would turn textures into embedded image data.
const states = new WeakMap();

function snapshot(material) {
  const s = {};
  for (const k of [...SLOTS, ...VALUES]) if (k in material) s[k] = material[k];
  for (const k of OBJECTS) if (material[k]?.clone) s[k] = material[k].clone();
  return s;
}

function setState(material, state) {
  for (const [k, v] of Object.entries(state)) {
    if (!(k in material)) continue;
    if (OBJECTS.includes(k)) material[k].copy(v);
    else material[k] = v;
  }
  material.needsUpdate = true;
}

// Copies of a texture with another colour space (or converted pixels), made once per texture.
const derived = new WeakMap();

function derive(texture, key, make) {
  if (!derived.has(texture)) derived.set(texture, new Map());
  const cache = derived.get(texture);
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key);
}

function withColorSpace(texture, colorSpace) {
  if (texture.colorSpace === colorSpace && texture.channel === 0) return texture;
  return derive(texture, colorSpace, () => {
    const t = texture.clone();
    t.colorSpace = colorSpace;
    t.channel = 0;
    t.needsUpdate = true;
    return t;
  });
}

const colour = (t) => withColorSpace(t, THREE.SRGBColorSpace);
const data = (t) => withColorSpace(t, THREE.NoColorSpace);

function canvasOf(width, height) {
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(width, height);
  if (typeof document === 'undefined') return null;
  const c = document.createElement('canvas');
  c.width = width;
  c.height = height;
  return c;
}

/** RGBA bytes of a texture, or null when they cannot be read here (compressed, no canvas). */
function pixelsOf(texture) {
  if (texture.isCompressedTexture) return null;
  const image = texture.image;
  const width = image?.width,
    height = image?.height;
  if (!(width > 0 && height > 0)) return null;
  if (image.data) {
    const ok =
      (image.data instanceof Uint8Array || image.data instanceof Uint8ClampedArray) &&
      texture.format === THREE.RGBAFormat &&
      image.data.length >= width * height * 4;
    return ok ? { rgba: image.data, width, height, canvas: null } : null;
  }
  const canvas = canvasOf(width, height);
  if (!canvas) return null;
  try {
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    ctx.drawImage(image, 0, 0, width, height);
    return { rgba: ctx.getImageData(0, 0, width, height).data, width, height, canvas };
  } catch {
    return null;
  }
}

/** A linear copy of `texture` whose pixels went through `convert(src, dst, i)`, or null. */
function converted(texture, key, convert) {
  return derive(texture, key, () => {
    const px = pixelsOf(texture);
    if (!px) return null;
    const out = new Uint8ClampedArray(px.width * px.height * 4);
    for (let i = 0; i < out.length; i += 4) convert(px.rgba, out, i);
    const t = texture.clone();
    if (px.canvas) {
      px.canvas.getContext('2d').putImageData(new ImageData(out, px.width, px.height), 0, 0);
      t.source = new THREE.TextureSource(px.canvas);
    } else {
      t.source = new THREE.TextureSource({ data: new Uint8Array(out.buffer), width: px.width, height: px.height });
    }
    t.colorSpace = THREE.NoColorSpace;
    t.channel = 0;
    t.needsUpdate = true;
    return t;
  });
}

const mraAsArm = (t) =>
  converted(t, 'mra', (s, d, i) => {
    d[i] = s[i + 2];
    d[i + 1] = s[i + 1];
    d[i + 2] = s[i];
    d[i + 3] = 255;
  });
const specularAsRoughness = (t) =>
  converted(t, 'specular', (s, d, i) => {
    d[i] = 255;
    d[i + 1] = 255 - Math.round((s[i] + s[i + 1] + s[i + 2]) / 3);
    d[i + 2] = 0;
    d[i + 3] = 255;
  });

function fullState(plain, t, masked, skip) {
  const s = { ...plain };
  if (t.base) Object.assign(s, { map: colour(t.base), color: new THREE.Color(1, 1, 1) });
  if (t.normal) Object.assign(s, { normalMap: data(t.normal), normalScale: new THREE.Vector2(1, t.normal.repeat.y < 0 ? 1 : -1) });
  let packed = t.arm ? data(t.arm) : null;
  if (!packed && t.mra) packed = mraAsArm(t.mra) ?? skip('mra', 'its pixels cannot be read here (compressed texture)');
  else if (t.mra) skip('mra', 'the ARM map is used');
  if (packed) Object.assign(s, { aoMap: packed, roughnessMap: packed, metalnessMap: packed, roughness: 1, metalness: 1 });
  if (t.specular && packed) skip('specular', 'the packed AO/roughness/metallic map is used');
  else if (t.specular) {
    const gloss = specularAsRoughness(t.specular) ?? skip('specular', 'its pixels cannot be read here (compressed texture)');
    if (gloss) Object.assign(s, { roughnessMap: gloss, metalnessMap: gloss, roughness: 1, metalness: 0 });
  }
  if (t.emissive) Object.assign(s, { emissiveMap: colour(t.emissive), emissive: new THREE.Color(1, 1, 1) });
  if (t.opacity) Object.assign(s, { alphaMap: data(t.opacity), transparent: true });
  if (t.mask && t.opacity) skip('mask', 'the opacity map is used');
  else if (t.mask && masked) Object.assign(s, { alphaMap: data(t.mask), alphaTest: 0.5 });
  else if (t.mask) skip('mask', 'the material is not alpha-tested');
  return s;
}

/**
 * Puts an Unreal material's maps on a three.js material (MeshStandardMaterial; a MeshBasicMaterial
 * takes the slots it has). Applying again replaces the maps; the material's own settings are kept to
 * return to (setBaseColourOnly).
 * @param {THREE.Material} material
 * @param {{ base?, normal?, arm?, mra?, specular?, emissive?, opacity?, mask? }} maps by role
 * @param {(value: any) => THREE.Texture | Promise<THREE.Texture>} [textureOf] a map value to its texture
 * @param {{ blend?: string|null }} [options] the sidecar's blend mode ('masked' enables the mask map)
 * @returns {Promise<THREE.Material>} with userData.materialMaps = { roles, baseColourOnly, skipped }
 */
export async function applyMaterialMaps(material, maps, textureOf = (t) => t, { blend = null } = {}) {
  const entry = states.get(material) ?? { plain: snapshot(material), baseOnly: false };
  const textures = {};
  const skipped = [];
  const skip = (role, reason) => {
    skipped.push({ role, reason });
    return null;
  };
  for (const role of ROLES) {
    if (!maps?.[role]) continue;
    try {
      const t = await textureOf(maps[role]);
      if (t?.isTexture) textures[role] = t;
      else skip(role, 'no texture');
    } catch (e) {
      skip(role, `the texture failed to load: ${e.message}`);
    }
  }
  const masked = blend === 'masked' || entry.plain.alphaTest > 0;
  entry.full = fullState(entry.plain, textures, masked, skip);
  states.set(material, entry);
  setState(material, entry.baseOnly ? baseState(entry) : entry.full);
  const skippedRoles = new Set(skipped.map((s) => s.role));
  material.userData.materialMaps = {
    roles: ROLES.filter((r) => textures[r] && !skippedRoles.has(r)),
    baseColourOnly: entry.baseOnly,
    skipped,
  };
  return material;
}

/**
 * Takes away what applyMaterialMaps put on a material: its own settings as they were before the
 * first time. False for a material it never configured.
 */
export function clearMaterialMaps(material) {
  const entry = states.get(material);
  if (!entry) return false;
  setState(material, entry.plain);
  states.delete(material);
  delete material.userData.materialMaps;
  return true;
}

const baseState = (entry) => ({ ...entry.plain, map: entry.full.map, color: entry.full.color });

/**
 * Shows only the base colour map (no normal, packed, emissive or alpha maps; the material's own
 * roughness and metalness) when `on`, the full maps otherwise. Returns false for a material that
 * applyMaterialMaps never configured.
 */
export function setBaseColourOnly(material, on) {
  const entry = states.get(material);
  if (!entry) return false;
  entry.baseOnly = !!on;
  setState(material, entry.baseOnly ? baseState(entry) : entry.full);
  if (material.userData.materialMaps) material.userData.materialMaps.baseColourOnly = entry.baseOnly;
  return true;
}
