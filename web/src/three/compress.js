// Compressed GLB: what `exportGLB` wrote, made small for the web with the field's own libraries
// (glTF-Transform and meshoptimizer's encoder), loaded only when a compressed export is asked for.
//
// - what nothing reads goes: UV sets no texture of the primitive's material samples (as
//   gltfpack does; a material given a texture, by the files or by hand in the viewer, keeps its
//   UVs), and vertices identical in every attribute are welded into one (glTF-Transform `weld`);
// - KHR_mesh_quantization: positions on the coarsest grid of 11 to 14 bits over each mesh's box
//   that keeps every vertex within GRID_ERROR of its primitive's size (morph targets on the same
//   grid, which is what makes a UE1 vertex-animated character small), stored as plain integers
//   (glTF-Transform's normalized 14 bits repeat the top bits in the bottom ones, which meshopt's
//   delta coding pays for); UVs in [0, 1] 12 bits, normals 8 bits, weights 12 bits in 16 (8
//   bits moved a 5-bone 0 A.D. cube by 1.5e-3 of its size), 8 where every weight is 0 or 1 (exact);
// - EXT_meshopt_compression with meshopt's filters (octahedral normals, quaternions, exponents),
//   vertices reordered for meshopt (glTF-Transform `reorder`), rotation keys in 12 bits;
// - animation keys that a straight line (slerp for rotations) between their neighbours gives
//   within TOLERANCE are dropped (glTF-Transform `resample`), unless that keeps more than
//   DENSE_SHARE of a channel's keys: then all of them stay and share the clip's one time array;
// - positions on a lattice (UE1: the file's integers times MESHMAP SCALE) as its integers when it
//   is no finer than that grid (exact; compress-lattice.js);
// - UE1 vertex animation (morph targets named frame_N): frames no clip shows go, the weights clips
//   sparse, the targets of a mesh in one stream over one vertex set in motion order
//   (compress-frames.js);
// - the JSON written compactly (numbers as short as their float32 value allows, defaults left
//   out), names kept: joints, clips, morph targets and meshes read back as they were;
// - textures as WebP (EXT_texture_webp) or kept; see compress-textures.js.
//
// The stated error of the result (tests/unit/compress.test.js holds it): skinned and morphed
// positions within POSE_ERROR of the model's size at any clip time, UVs within 1/4096.

import { Logger, PropertyType, WebIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS, EXTTextureWebP } from '@gltf-transform/extensions';
import { dedup, listTextureInfoByMaterial, meshopt, resample, weld } from '@gltf-transform/functions';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { fromQuantized, toLattice } from './compress-lattice.js';
import { dropUnplayedFrames, isFrameMesh, sparseFrameWeights, takeFrameTargets, writeFrameTargets } from './compress-frames.js';

// Imported by name, statically, in a module that is itself loaded only when a compressed export
// is asked for: the bundler keeps only these functions (glTF-Transform's texture functions pull
// in ndarray, which compiles code with `new Function`, refused by the site's CSP).

/** Keys dropped only when interpolation gives them back within this (glTF-Transform's default). */
export const TOLERANCE = 1e-4;
/** The largest position error of a compressed export, as a fraction of each mesh's box diagonal
 * (measured worst on the samples: 7.8e-4, 0 A.D.'s skeleton in its idle, whose flat skeleton
 * keys every bone's translation in model space, where meshopt's 12-bit exponent filter rounds,
 * on an 11-bit position grid). */
export const POSE_ERROR = 1 / 1000;
/** The largest rest-position error the position grid may add, as a fraction of each
 * primitive's box diagonal: the rest of POSE_ERROR is the animation's. */
export const GRID_ERROR = 4e-4;
/** Bits per axis the position grid may take, over each mesh's largest extent. */
const GRID_BITS = [11, 14];
/** Bits of each rotation key's components (gltfpack's default, its -ar 12). */
const ROTATION_BITS = 12;
/** A channel whose resampling keeps more than this share of its keys keeps them all. */
export const DENSE_SHARE = 1 / 6;
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

/** UV sets no texture of the primitive's material reads: three and glTF never sample them. A UE1
 * frame mesh keeps a set another of its primitives reads: its primitives share one vertex set
 * again (compress-frames.js), where that primitive's few UVs cost less than an accessor a frame. */
function dropUnreadUVs() {
  const readsOf = (prim) => {
    const material = prim.getMaterial();
    return material ? listTextureInfoByMaterial(material).map((info) => `TEXCOORD_${info.getTexCoord()}`) : [];
  };
  return (doc) => {
    for (const mesh of doc.getRoot().listMeshes()) {
      const meshReads = new Set(isFrameMesh(mesh) ? mesh.listPrimitives().flatMap(readsOf) : []);
      for (const prim of mesh.listPrimitives()) {
        const read = new Set(readsOf(prim));
        for (const semantic of prim.listSemantics())
          if (semantic.startsWith('TEXCOORD_') && !read.has(semantic) && !meshReads.has(semantic)) prim.setAttribute(semantic, null);
      }
    }
  };
}

/** Weights that are all 0 or 1 (one influence a vertex: PSK rigid parts, 0 A.D.) are exact in
 * 8 bits; others go in 16 bits on a 1/4095 grid (the low bits zero, which meshopt's delta coding
 * makes little of), each vertex's summing to 1 exactly. Set before quantize, which leaves
 * attributes already that small as they are. */
function weightGrid() {
  return (doc) => {
    for (const mesh of doc.getRoot().listMeshes()) {
      for (const prim of mesh.listPrimitives()) {
        const weights = prim.getAttribute('WEIGHTS_0');
        const a = weights?.getArray();
        if (!(a instanceof Float32Array)) continue;
        if (a.every((w) => w === 0 || w === 1)) {
          prim.setAttribute(
            'WEIGHTS_0',
            weights
              .clone()
              .setArray(Uint8Array.from(a, (w) => w * 255))
              .setNormalized(true),
          );
          continue;
        }
        const q = new Uint16Array(a.length);
        for (let v = 0; v < a.length; v += 4) {
          const sum = a[v] + a[v + 1] + a[v + 2] + a[v + 3] || 1;
          let top = v;
          for (let k = v; k < v + 4; k++) {
            q[k] = Math.round((a[k] / sum) * 4095) * 16;
            if (a[k] > a[top]) top = k;
          }
          q[top] += 65535 - (q[v] + q[v + 1] + q[v + 2] + q[v + 3]);
        }
        prim.setAttribute('WEIGHTS_0', weights.clone().setArray(q).setNormalized(true));
      }
    }
  };
}

/**
 * `resample` with a limit: a channel it would leave more than DENSE_SHARE of its keys keeps them
 * all, with the time array every such channel of its clip shares (a time array of its own costs
 * more than the keys saved).
 */
function resampleSparse() {
  return async (doc) => {
    const before = new Map();
    for (const animation of doc.getRoot().listAnimations()) {
      for (const sampler of animation.listSamplers()) before.set(sampler, [sampler.getInput(), sampler.getOutput()]);
    }
    // Held by samplers of no animation meanwhile: resample disposes the accessors nothing refers to.
    const holders = [];
    for (const [input, output] of before.values()) holders.push(doc.createAnimationSampler().setInput(input).setOutput(output));
    await doc.transform(resample({ tolerance: TOLERANCE, cleanup: false }));
    for (const [sampler, [input, output]] of before) {
      const kept = sampler.getInput().getCount();
      if (kept < input.getCount() && kept > DENSE_SHARE * input.getCount()) sampler.setInput(input).setOutput(output);
    }
    for (const holder of holders) holder.dispose();
    for (const accessor of doc.getRoot().listAccessors())
      if (!accessor.listParents().some((p) => p.propertyType !== PropertyType.ROOT)) accessor.dispose();
    await doc.transform(dedup({ propertyTypes: [PropertyType.ACCESSOR] }));
  };
}

const scaling = (s) => [s, 0, 0, 0, 0, s, 0, 0, 0, 0, s, 0, 0, 0, 0, 1];

function multiply(a, b) {
  const out = new Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v += a[k * 4 + r] * b[c * 4 + k];
      out[c * 4 + r] = v;
    }
  return out;
}

/** The box diagonal of integer positions. */
function diagonalOf(values) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < values.length; i += 3)
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], values[i + k]);
      max[k] = Math.max(max[k], values[i + k]);
    }
  return Math.hypot(...max.map((m, k) => m - min[k]));
}

/**
 * Positions, quantized by glTF-Transform to normalized 16 bits (±32767 over the mesh's box),
 * moved to each mesh's coarsest grid within GRID_ERROR and stored as plain integers; the grid's
 * scale goes where glTF-Transform put the box's (the mesh's node, or its skin's inverse bind
 * matrices).
 */
function positionGrid(lattices) {
  return (doc) => {
    const step = new Map(); // mesh → the grid step, in 16-bit units
    for (const mesh of doc.getRoot().listMeshes()) {
      const positions = mesh.listPrimitives().map((p) => p.getAttribute('POSITION'));
      if (!positions.every((a) => a?.getArray() instanceof Int16Array && a.getNormalized())) continue;
      const size = Math.min(...positions.map((a) => diagonalOf(a.getArray())));
      // A grid step of k units moves a vertex by up to (k + 1) / 2 units per axis (its first rounding's half unit too).
      let bits = GRID_BITS[1];
      while (bits > GRID_BITS[0] && (Math.sqrt(3) * (2 ** (16 - bits + 1) + 1)) / 2 <= GRID_ERROR * size) bits--;
      // A mesh on a lattice no finer than that grid keeps the lattice's integers: exact, and cheaper.
      if (lattices.has(mesh) && fromQuantized(mesh, lattices.get(mesh), 2 ** (16 - bits))) continue;
      step.set(mesh, 2 ** (16 - bits));
    }
    // Meshes that share a skin, or an accessor, take the finest step among them.
    const skinOf = (mesh) =>
      mesh
        .listParents()
        .filter((p) => p.propertyType === PropertyType.NODE && p.getMesh() === mesh)
        .map((n) => n.getSkin());
    for (let changed = true; changed;) {
      changed = false;
      for (const [a, ka] of step)
        for (const [b, kb] of step) {
          if (ka >= kb || a === b) continue;
          const shared =
            skinOf(a).some((s) => s && skinOf(b).includes(s)) ||
            a.listPrimitives().some((p) => b.listPrimitives().some((q) => p.getAttribute('POSITION') === q.getAttribute('POSITION')));
          if (shared) {
            step.set(a, kb);
            changed = true;
          }
        }
    }
    const done = new Set();
    const grid = (accessor, k) => {
      if (!accessor || done.has(accessor)) return;
      done.add(accessor);
      accessor.setArray(Int16Array.from(accessor.getArray(), (v) => Math.round(v / k))).setNormalized(false);
    };
    for (const [mesh, k] of step) {
      for (const prim of mesh.listPrimitives()) {
        grid(prim.getAttribute('POSITION'), k);
        for (const target of prim.listTargets()) grid(target.getAttribute('POSITION'), k);
      }
      const m = scaling(k / 32767);
      for (const node of mesh.listParents()) {
        if (node.propertyType !== PropertyType.NODE || node.getMesh() !== mesh) continue;
        const ibm = node.getSkin()?.getInverseBindMatrices();
        if (!node.getSkin()) node.setMatrix(multiply(node.getMatrix(), m));
        else if (!done.has(ibm)) {
          done.add(ibm);
          const el = [];
          for (let i = 0; i < ibm.getCount(); i++) ibm.setElement(i, multiply(ibm.getElement(i, el), m));
        }
      }
    }
  };
}

/** meshopt's encoder with rotation keys in ROTATION_BITS (glTF-Transform asks the quaternion
 * filter for 16; each quaternion carries its own bit count, so any decoder reads either). */
function rotationBits(encoder) {
  return {
    ...encoder,
    encodeFilterQuat: (source, count, stride, bits) => encoder.encodeFilterQuat(source, count, stride, Math.min(bits, ROTATION_BITS)),
  };
}

/** The shortest decimal that reads back as the same float32 (the JSON's numbers are float32s
 * written as float64s: "0.30000001192092896" is "0.3"). */
function shortest(v) {
  const f = Math.fround(v);
  if (f !== v || Number.isInteger(v)) return v;
  for (let digits = 1; digits < 9; digits++) {
    const s = Number(v.toPrecision(digits));
    if (Math.fround(s) === f) return s;
  }
  return v;
}

/** glTF's defaults, which a reader assumes when they are left out. */
const DEFAULTS = { normalized: false, byteOffset: 0, interpolation: 'LINEAR' };

/** The GLB of a glTF-Transform JSON document, its JSON written compactly. */
function glbOf({ json, resources }) {
  const text = JSON.stringify(json, (key, value) => {
    if (key in DEFAULTS && DEFAULTS[key] === value) return undefined;
    return typeof value === 'number' ? shortest(value) : value;
  });
  const chunk = (bytes, type, pad) => {
    const out = new Uint8Array(8 + ((bytes.length + 3) & ~3)).fill(pad, 8);
    new DataView(out.buffer).setUint32(0, out.length - 8, true);
    new DataView(out.buffer).setUint32(4, type, true);
    out.set(bytes, 8);
    return out;
  };
  const bin = Object.values(resources)[0];
  const chunks = [chunk(new TextEncoder().encode(text), 0x4e4f534a, 0x20), ...(bin?.length ? [chunk(bin, 0x004e4942, 0)] : [])];
  const out = new Uint8Array(12 + chunks.reduce((n, c) => n + c.length, 0));
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, out.length, true);
  let at = 12;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
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
    'meshopt.encoder': rotationBits(MeshoptEncoder),
    'meshopt.decoder': MeshoptDecoder,
  });
  const doc = await io.readBinary(glb instanceof Uint8Array ? glb : new Uint8Array(glb));
  doc.setLogger(new Logger(Logger.Verbosity.ERROR));
  const lattices = new Map(); // mesh → its lattice, from toLattice to positionGrid
  await doc.transform(
    dedup({ propertyTypes: [PropertyType.ACCESSOR, PropertyType.TEXTURE] }),
    dropUnreadUVs(),
    weld(),
    weightGrid(),
    dropUnplayedFrames(),
    resampleSparse(),
    dropRestChannels(),
    sparseFrameWeights(),
    snapFreeUVs(),
    toLattice(lattices),
    meshopt({ encoder: MeshoptEncoder, level: 'high', quantizePosition: 16, quantizeWeight: 16 }),
    positionGrid(lattices),
  );
  const problems = [];
  if (textures === 'ktx2' && !encodeKtx2) throw new Error(KTX2_UNAVAILABLE);
  if (textures === 'ktx2') problems.push(...(await encodeKtx2(doc)));
  if (textures === 'webp') {
    const { encodeWebP } = await import('./compress-textures.js');
    problems.push(...(await encodeWebP(doc, { WebP: EXTTextureWebP, encodeImage })));
  }
  const frames = takeFrameTargets(doc);
  const written = await io.writeJSON(doc, { format: 'GLB' });
  writeFrameTargets(written, frames, MeshoptEncoder);
  const out = glbOf(written);
  return { glb: out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength), problems };
}
