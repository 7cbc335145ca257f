// Compressed GLB: what `exportGLB` wrote, made small for the web with the field's own libraries
// (glTF-Transform and meshoptimizer's encoder), loaded only when a compressed export is asked for.
//
// - KHR_mesh_quantization: positions 14 bits per axis over each mesh's box (morph targets too,
//   which is what makes a UE1 vertex-animated character small), UVs in [0, 1] 12 bits, normals
//   8 bits, weights 16 (8 bits moved a 5-bone 0 A.D. cube by 1.5e-3 of its size);
// - EXT_meshopt_compression with meshopt's filters (octahedral normals, quaternions, exponents);
// - animation keys that a straight line (slerp for rotations) between their neighbours gives
//   within TOLERANCE are dropped (glTF-Transform `resample`): lossless within that tolerance;
// - textures as WebP (EXT_texture_webp) or kept; see compress-textures.js.
//
// The stated error of the result (tests/unit/compress.test.js holds it): skinned and morphed
// positions within POSE_ERROR of the model's size at any clip time, UVs within 1/4096.

import { Logger, PropertyType, WebIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS, EXTTextureWebP } from '@gltf-transform/extensions';
import { dedup, meshopt, resample } from '@gltf-transform/functions';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { MeshoptEncoder } from 'meshoptimizer/encoder';

// Imported by name, statically, in a module that is itself loaded only when a compressed export
// is asked for: the bundler keeps only these functions (glTF-Transform's texture functions pull
// in ndarray, which compiles code with `new Function`, refused by the site's CSP).

/** Keys dropped only when interpolation gives them back within this (glTF-Transform's default). */
export const TOLERANCE = 1e-4;
/** The largest position error of a compressed export, as a fraction of each mesh's box diagonal
 * (measured worst on the samples: 5.7e-4, 0 A.D.'s skeleton in its idle, whose flat skeleton
 * keys every bone's translation in model space, where meshopt's 12-bit exponent filter rounds). */
export const POSE_ERROR = 1 / 1000;
/** The largest UV error of a compressed export. */
export const UV_ERROR = 1 / 4096;
export const TEXTURE_CHOICES = ['webp', 'ktx2', 'keep'];
// ktx2-encoder's Basis Universal build (Embind) compiles its call wrappers with `new Function`,
// which the site's CSP refuses: KTX2 is the command line's (web/cli/compress.js) only.
const KTX2_UNAVAILABLE =
  'KTX2 textures: the Basis Universal encoder runs only in the command line (rigscope convert/export/page --textures ktx2); use webp or keep';

/** A channel that holds its node at its rest value throughout says nothing: three (and glTF)
 * leave a node at rest when no channel drives it. Runs after `resample`, which leaves such a
 * channel two keys. */
function dropRestChannels() {
  return (doc) => {
    for (const animation of doc.getRoot().listAnimations()) {
      for (const channel of animation.listChannels()) {
        const node = channel.getTargetNode();
        const path = channel.getTargetPath();
        const rest = { translation: node?.getTranslation(), rotation: node?.getRotation(), scale: node?.getScale() }[path];
        const output = channel.getSampler()?.getOutput();
        if (!rest || !output || !holds(output.getArray(), rest)) continue;
        const sampler = channel.getSampler();
        channel.dispose();
        if (!sampler.listParents().some((p) => p.propertyType === PropertyType.ANIMATION_CHANNEL)) sampler.dispose();
      }
      // A clip of nothing but rest channels still plays (the rest pose): keep its name with one channel.
    }
  };
}

function holds(values, rest) {
  for (let i = 0; i < values.length; i++) if (Math.abs(values[i] - rest[i % rest.length]) > TOLERANCE) return false;
  return true;
}

/** UVs outside [0, 1] stay floats (quantize leaves them); rounded to a 1/16384 grid, the low bits
 * of their mantissas are zeros, which meshopt's byte-wise delta coding makes almost nothing of. */
function snapFreeUVs() {
  const grid = 16384;
  return (doc) => {
    for (const accessor of new Set(uvAccessors(doc))) {
      const a = accessor.getArray();
      if (!(a instanceof Float32Array)) continue;
      let inside = true;
      for (let i = 0; i < a.length && inside; i++) inside = a[i] >= 0 && a[i] <= 1;
      if (inside) continue; // quantize makes these 12-bit integers
      for (let i = 0; i < a.length; i++) a[i] = Math.round(a[i] * grid) / grid;
    }
  };
}

function* uvAccessors(doc) {
  for (const mesh of doc.getRoot().listMeshes()) {
    for (const prim of mesh.listPrimitives()) {
      for (const semantic of prim.listSemantics()) if (semantic.startsWith('TEXCOORD_')) yield prim.getAttribute(semantic);
    }
  }
}

/**
 * @param {ArrayBuffer|Uint8Array} glb an uncompressed GLB, as `exportGLB` writes it
 * @param {{ textures?: 'webp'|'ktx2'|'keep', encodeImage?: Function, encodeKtx2?: Function }} options
 *   encodeImage: the WebP encoder (bytes, mimeType) → bytes|null, the browser's canvas when not
 *   given; encodeKtx2: a transform of the document's textures to KTX2 (the CLI's)
 * @returns {Promise<{ glb: ArrayBuffer, problems: string[] }>} the compressed GLB, and textures
 *   left as they were, and why
 */
export async function compressGLB(glb, { textures = 'webp', encodeImage, encodeKtx2 } = {}) {
  if (!TEXTURE_CHOICES.includes(textures)) throw new Error(`--textures ${textures}: expected one of ${TEXTURE_CHOICES.join(', ')}`);
  await Promise.all([MeshoptEncoder.ready, MeshoptDecoder.ready]);
  const io = new WebIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({
    'meshopt.encoder': MeshoptEncoder,
    'meshopt.decoder': MeshoptDecoder,
  });
  const doc = await io.readBinary(glb instanceof Uint8Array ? glb : new Uint8Array(glb));
  doc.setLogger(new Logger(Logger.Verbosity.ERROR));
  await doc.transform(
    dedup({ propertyTypes: [PropertyType.ACCESSOR, PropertyType.TEXTURE] }),
    resample({ tolerance: TOLERANCE }),
    dropRestChannels(),
    snapFreeUVs(),
    meshopt({ encoder: MeshoptEncoder, level: 'high', quantizeWeight: 16 }),
  );
  const problems = [];
  if (textures === 'ktx2' && !encodeKtx2) throw new Error(KTX2_UNAVAILABLE);
  if (textures === 'ktx2') problems.push(...(await encodeKtx2(doc)));
  if (textures === 'webp') {
    const { encodeWebP } = await import('./compress-textures.js');
    problems.push(...(await encodeWebP(doc, { WebP: EXTTextureWebP, encodeImage })));
  }
  const out = await io.writeBinary(doc);
  return { glb: out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength), problems };
}
