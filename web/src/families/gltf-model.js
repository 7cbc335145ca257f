// A GLB read into the decoded model every family gives (docs/ARCHITECTURE.md), so the scene
// assembler, Character, the CLI and every output take it as they take game files: a compressed
// export is checked in place, and a GLB dropped beside game files is a character of its own.
// glTF-Transform reads it (meshopt streams decoded by meshoptimizer's decoder, quantized
// attributes read back as floats); loaded only when a GLB is opened.
//
// What the decoded model wants and glTF gives otherwise:
// - meshes in their rest pose (a Character binds at rest): skinned vertices are skinned once
//   into the nodes' rest pose (a glTF binds with its inverse bind matrices), others placed by
//   their node;
// - clips keyed once per frame for every bone: each channel is sampled at the clip's rate;
// - UVs for three's flipY (u, 1 − v), as every decoder gives them;
// - one vertex animation: morph targets a weights clip shows one at a time, full weight each (as
//   `exportGLB` writes UE1 frames), become frames, each clip a sequence.

import { Logger, WebIO } from '@gltf-transform/core';
import {
  EXTMeshoptCompression,
  EXTTextureWebP,
  KHRMaterialsUnlit,
  KHRMeshQuantization,
  KHRTextureTransform,
} from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer/decoder';

const RATE = 30; // frames per second of clips sampled from a GLB's keys
// What Rigscope's exports use, and no more (the page's reader script stays small); a GLB that
// requires another extension is refused with glTF-Transform's message naming it.
const EXTENSIONS = [EXTMeshoptCompression, EXTTextureWebP, KHRMaterialsUnlit, KHRMeshQuantization, KHRTextureTransform];

// ---- small matrix helpers (column-major 4×4, as glTF stores them) ------------------------------

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

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** out += weight × (m · (x, y, z, w)) for a point (w = 1) or a direction (w = 0). */
function addTransformed(out, o, m, x, y, z, w, weight) {
  out[o] += weight * (m[0] * x + m[4] * y + m[8] * z + m[12] * w);
  out[o + 1] += weight * (m[1] * x + m[5] * y + m[9] * z + m[13] * w);
  out[o + 2] += weight * (m[2] * x + m[6] * y + m[10] * z + m[14] * w);
}

// ---- the skeleton: every joint of every skin, with the ancestors that place it ----------------

function skeletonOf(root, skins) {
  const nodes = root.listNodes();
  const parentOf = new Map();
  for (const n of nodes) for (const c of n.listChildren()) parentOf.set(c, n);
  const keep = new Set();
  for (const skin of skins) for (const j of skin.listJoints()) for (let n = j; n && !keep.has(n); n = parentOf.get(n)) keep.add(n);
  const bones = nodes.filter((n) => keep.has(n));
  if (!bones.length) return { bones, skeleton: null, world: new Map() };
  const index = new Map(bones.map((b, i) => [b, i]));
  const world = new Map();
  const worldOf = (n) => {
    if (!world.has(n)) {
      const local = n.getMatrix();
      const p = parentOf.get(n);
      world.set(n, p ? multiply(worldOf(p), local) : local);
    }
    return world.get(n);
  };
  for (const n of nodes) worldOf(n);
  const skeleton = {
    names: bones.map((b, i) => b.getName() || `bone_${i}`),
    parents: Int32Array.from(bones, (b) => index.get(parentOf.get(b)) ?? -1),
    restTranslation: Float32Array.from(bones.flatMap((b) => b.getTranslation())),
    restRotation: Float32Array.from(bones.flatMap((b) => b.getRotation())),
    restScale: Float32Array.from(bones.flatMap((b) => b.getScale())),
  };
  return { bones, index, skeleton, world };
}

// ---- meshes ------------------------------------------------------------------------------------

const floats = (accessor) => {
  const n = accessor.getCount();
  const size = accessor.getElementSize();
  const out = new Float32Array(n * size);
  const el = [];
  for (let i = 0; i < n; i++) out.set(accessor.getElement(i, el), i * size);
  return out;
};

/** Where each vertex's four influences go, as joint matrices of the rest pose. */
function restJointMatrices(skin, world) {
  const ibm = skin.getInverseBindMatrices();
  return skin.listJoints().map((j, i) => {
    const inverse = ibm ? ibm.getElement(i, []) : IDENTITY;
    return multiply(world.get(j) ?? IDENTITY, inverse);
  });
}

/** The primitive's positions (and normals, morph deltas) moved into the rest pose. */
function restPose(prim, place) {
  const positions = floats(prim.getAttribute('POSITION'));
  const normalAttr = prim.getAttribute('NORMAL');
  const normals = normalAttr ? floats(normalAttr) : null;
  const targets = prim.listTargets().map((t) => ({ positions: t.getAttribute('POSITION') && floats(t.getAttribute('POSITION')) }));
  const n = positions.length / 3;
  const out = {
    positions: new Float32Array(n * 3),
    normals: normals && new Float32Array(n * 3),
    targets: targets.map((t) => t.positions && new Float32Array(n * 3)),
  };
  for (let v = 0; v < n; v++) {
    for (const [m, w] of place(v)) {
      const o = v * 3;
      addTransformed(out.positions, o, m, positions[o], positions[o + 1], positions[o + 2], 1, w);
      if (normals) addTransformed(out.normals, o, m, normals[o], normals[o + 1], normals[o + 2], 0, w);
      targets.forEach((t, k) => {
        if (t.positions) addTransformed(out.targets[k], o, m, t.positions[o], t.positions[o + 1], t.positions[o + 2], 0, w);
      });
    }
  }
  if (out.normals) {
    for (let o = 0; o < out.normals.length; o += 3) {
      const l = Math.hypot(out.normals[o], out.normals[o + 1], out.normals[o + 2]) || 1;
      for (let k = 0; k < 3; k++) out.normals[o + k] /= l;
    }
  }
  return out;
}

function boundsOf(p) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i += 3)
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], p[i + k]);
      max[k] = Math.max(max[k], p[i + k]);
    }
  const center = min.map((m, k) => (m + max[k]) / 2);
  const radius = Math.hypot(...max.map((m, k) => m - center[k]));
  return { min, max, center, radius };
}

function meshOf(node, prim, { index, world, materials }) {
  const skin = node.getSkin();
  const joints = prim.getAttribute('JOINTS_0');
  const weights = prim.getAttribute('WEIGHTS_0');
  const skinned = skin && joints && weights;
  let place;
  let skinIndex;
  let skinWeight;
  if (skinned) {
    // A skinned mesh's own node transform does not apply in glTF: only its joints place it.
    const matrices = restJointMatrices(skin, world);
    const toBone = skin.listJoints().map((j) => index.get(j));
    const js = floats(joints);
    skinWeight = floats(weights);
    skinIndex = Uint16Array.from(js, (j) => toBone[j] ?? 0);
    place = (v) => [0, 1, 2, 3].filter((k) => skinWeight[v * 4 + k] > 0).map((k) => [matrices[js[v * 4 + k]], skinWeight[v * 4 + k]]);
  } else {
    const m = world.get(node) ?? IDENTITY;
    place = () => [[m, 1]];
  }
  const rest = restPose(prim, place);
  const uvs = [];
  for (let k = 0; prim.getAttribute(`TEXCOORD_${k}`); k++) {
    const uv = floats(prim.getAttribute(`TEXCOORD_${k}`));
    for (let i = 1; i < uv.length; i += 2) uv[i] = 1 - uv[i];
    uvs.push(uv);
  }
  const n = rest.positions.length / 3;
  const indexAccessor = prim.getIndices();
  const indices = indexAccessor ? Uint32Array.from(indexAccessor.getArray()) : Uint32Array.from({ length: n }, (_, i) => i);
  const material = Math.max(0, materials.indexOf(prim.getMaterial()));
  const targetNames = node.getMesh().getExtras()?.targetNames ?? [];
  const morphs = rest.targets.flatMap((positions, k) => (positions ? [{ name: targetNames[k] ?? `morph_${k}`, positions }] : []));
  return {
    name: node.getMesh().getName() || node.getName(),
    positions: rest.positions,
    ...(rest.normals && { normals: rest.normals }),
    uvs,
    indices,
    groups: [{ start: 0, count: indices.length, material }],
    ...(skinned && { skinIndex, skinWeight }),
    ...(morphs.length && { morphs }),
    bounds: boundsOf(rest.positions),
  };
}

// ---- clips -------------------------------------------------------------------------------------

/** A channel's value at time t (linear, slerp for rotations, step; cubic splines by their values). */
function sampleAt(sampler, t, size, out) {
  const times = sampler.getInput().getArray();
  const values = sampler.getOutput();
  const cubic = sampler.getInterpolation() === 'CUBICSPLINE';
  const at = (k, el) => values.getElement(cubic ? k * 3 + 1 : k, el);
  let hi = 0;
  while (hi < times.length && times[hi] < t) hi++;
  if (hi === 0 || hi === times.length) return at(Math.min(hi, times.length - 1), out);
  const lo = hi - 1;
  const a = at(lo, []);
  if (sampler.getInterpolation() === 'STEP') return a;
  const b = at(hi, []);
  const f = (t - times[lo]) / (times[hi] - times[lo]);
  if (size === 4) return slerp(a, b, f, out);
  for (let k = 0; k < size; k++) out[k] = a[k] + (b[k] - a[k]) * f;
  return out;
}

/** Spherical interpolation, as glTF (and three) interpolate rotations: the shorter way. */
function slerp(a, b, f, out) {
  let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const s = dot < 0 ? -1 : 1;
  dot *= s;
  let wa = 1 - f;
  let wb = f * s;
  if (dot < 0.9995) {
    const angle = Math.acos(dot);
    const sin = Math.sin(angle);
    wa = Math.sin((1 - f) * angle) / sin;
    wb = (Math.sin(f * angle) / sin) * s;
  }
  for (let k = 0; k < 4; k++) out[k] = wa * a[k] + wb * b[k];
  const l = Math.hypot(out[0], out[1], out[2], out[3]) || 1;
  for (let k = 0; k < 4; k++) out[k] /= l;
  return out;
}

const PATHS = { translation: 3, rotation: 4, scale: 3 };

function skeletalClip(animation, index) {
  const channels = animation.listChannels().filter((c) => PATHS[c.getTargetPath()] && index.has(c.getTargetNode()));
  if (!channels.length) return null;
  const duration = Math.max(0, ...channels.map((c) => c.getSampler().getInput().getMax([])[0]));
  // A looping clip (the wrap key is the decoded model's to add): frames 0 … n − 1 at RATE.
  const frameCount = Math.max(1, Math.round(duration * RATE));
  const times = Float32Array.from({ length: frameCount }, (_, k) => k / RATE);
  const byBone = new Map();
  for (const c of channels) {
    const bone = index.get(c.getTargetNode());
    const path = c.getTargetPath();
    const size = PATHS[path];
    const values = new Float32Array(frameCount * size);
    const el = [];
    for (let k = 0; k < frameCount; k++) values.set(sampleAt(c.getSampler(), times[k], size, el).slice(0, size), k * size);
    if (!byBone.has(bone)) byBone.set(bone, { bone, times });
    byBone.get(bone)[path] = values;
  }
  return {
    name: animation.getName(),
    fps: RATE,
    frameCount,
    duration: frameCount / RATE,
    loop: true,
    notifies: [],
    tracks: [...byBone.values()],
  };
}

/**
 * Vertex animation from weights clips that show one morph target at a time: the mesh's targets
 * are frames (absolute: rest + delta), each clip a sequence of consecutive frames.
 */
function vertexAnimationOf(doc, meshes, inScope) {
  const host = meshes.find((m) => m.morphs?.length && m.morphs.every((t) => /^frame_\d+$/.test(t.name)));
  if (!host) return null;
  const sequences = [];
  for (const animation of doc.getRoot().listAnimations()) {
    const channel = animation.listChannels().find((c) => c.getTargetPath() === 'weights' && inScope(c.getTargetNode()));
    if (!channel) continue;
    const sampler = channel.getSampler();
    const times = sampler.getInput().getArray();
    const count = host.morphs.length;
    const shown = [];
    const weights = sampler.getOutput().getArray(); // normalized or not, the largest is the one shown
    for (let k = 0; k < times.length; k++) {
      const values = weights.subarray(k * count, (k + 1) * count);
      shown.push(values.indexOf(Math.max(...values)));
    }
    // The looping clip's last key shows its first frame again.
    const frames = shown.length > 1 && shown.at(-1) === shown[0] ? shown.slice(0, -1) : shown;
    const rate = times.length > 1 ? 1 / (times[1] - times[0]) : RATE;
    sequences.push({ name: animation.getName(), startFrame: frames[0], frameCount: frames.length, rate, loop: true });
  }
  if (!sequences.length) return null;
  const stride = host.positions.length;
  const frames = new Float32Array(stride * host.morphs.length);
  host.morphs.forEach((m, f) => {
    for (let i = 0; i < stride; i++) frames[f * stride + i] = host.positions[i] + m.positions[i];
  });
  delete host.morphs;
  return { frameCount: frames.length / stride, vertexCount: stride / 3, frames, sequences };
}

// ---- textures ----------------------------------------------------------------------------------

/** The picture as rows of RGBA, top row first (the browser's decoders; none in Node). */
async function rgbaOf(bytes, mimeType) {
  if (typeof createImageBitmap !== 'function' || typeof OffscreenCanvas !== 'function') return null;
  const bitmap = await createImageBitmap(new Blob([bytes], { type: mimeType }), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(bitmap, 0, 0);
  bitmap.close();
  const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  return { width: canvas.width, height: canvas.height, rgba: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

async function texturesOf(root, materials, warnings) {
  const out = [];
  const names = new Map();
  const used = new Set(materials.map((m) => m.getBaseColorTexture()));
  for (const [i, texture] of root.listTextures().entries()) {
    if (!used.has(texture)) continue;
    const name = texture.getName() || texture.getURI() || `texture_${i}`;
    names.set(texture, name);
    try {
      const picture = await rgbaOf(texture.getImage(), texture.getMimeType());
      if (picture) out.push({ name, width: picture.width, height: picture.height, format: 'rgba8', mips: [picture.rgba] });
    } catch (err) {
      warnings.push(`texture ${name} (${texture.getMimeType()}) could not be decoded here: ${err.message}`);
    }
  }
  return { textures: out, names };
}

function materialsOf(materials, names) {
  return materials.map((m) => {
    const base = m.getBaseColorTexture();
    const blend = { OPAQUE: 'opaque', MASK: 'masked', BLEND: 'translucent' }[m.getAlphaMode()] ?? 'opaque';
    return {
      name: m.getName(),
      textureNames: base ? [names.get(base)] : [],
      twoSided: m.getDoubleSided(),
      blend,
      unlit: !!m.getExtension('KHR_materials_unlit'),
    };
  });
}

/**
 * @param {ArrayBuffer|Uint8Array} bytes a GLB
 * @param {string} name its file name, for messages
 * @param {{ roots?: number[] }} options roots: node indices of the one character to read (gltf.js
 *   charactersOf), the whole scene when not given
 * @returns {Promise<object>} the decoded model
 */
export async function decodeGlb(bytes, name, { roots } = {}) {
  await MeshoptDecoder.ready;
  const io = new WebIO().registerExtensions(EXTENSIONS).registerDependencies({ 'meshopt.decoder': MeshoptDecoder });
  io.setLogger(new Logger(Logger.Verbosity.ERROR));
  let doc;
  try {
    doc = await io.readBinary(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  } catch (err) {
    throw new Error(`GLB ${name}: ${err.message}`, { cause: err });
  }
  const root = doc.getRoot();
  const warnings = [];
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  const tops = roots ? roots.map((i) => root.listNodes()[i]) : (scene?.listChildren() ?? []);
  const scope = new Set();
  const gather = (node) => {
    scope.add(node);
    for (const c of node.listChildren()) gather(c);
  };
  for (const n of tops) gather(n);
  // One character of several: the skins of its meshes only (the whole scene: every skin, so a GLB
  // of a skeleton and clips alone still gives them).
  const skins = roots ? [...new Set([...scope].map((n) => n.getMesh() && n.getSkin()).filter(Boolean))] : root.listSkins();
  const { index, skeleton, world } = skeletonOf(root, skins);
  const prims = [...scope].flatMap((node) =>
    (node.getMesh()?.listPrimitives() ?? []).filter((p) => p.getMode() === 4).map((prim) => [node, prim]),
  );
  const materials = [...new Set(prims.map(([, prim]) => prim.getMaterial()).filter(Boolean))];
  const meshes = prims.map(([node, prim]) => meshOf(node, prim, { index, world: ensureWorld(world, node), materials }));
  const clips = index
    ? root
        .listAnimations()
        .map((a) => skeletalClip(a, index))
        .filter(Boolean)
    : [];
  const vertexAnimation = vertexAnimationOf(doc, meshes, (node) => scope.has(node));
  const { textures, names } = await texturesOf(root, materials, warnings);
  const vertices = meshes.reduce((n, m) => n + m.positions.length / 3, 0);
  return {
    format: 'glb',
    name,
    warnings,
    // A GLB is a character of its own: its clips are its own, no other file's animation binds to
    // it and no game file merges with it as a part (both ask for bindBy 'name' or 'index').
    bindBy: 'own',
    counts: {
      meshes: meshes.length,
      vertices,
      bones: skeleton?.names.length ?? 0,
      clips: clips.length || (vertexAnimation?.sequences.length ?? 0),
    },
    info: { generator: root.getAsset().generator ?? '', extensions: root.listExtensionsUsed().map((e) => e.extensionName) },
    meshes,
    materials: materialsOf(materials, names),
    ...(skeleton && { skeleton }),
    clips,
    ...(vertexAnimation && { vertexAnimation }),
    textures,
  };
}

/** Nodes outside every skin's chain have no world matrix yet: the chain from the scene root. */
function ensureWorld(world, node) {
  if (world.has(node)) return world;
  const chain = [];
  for (let n = node; n; n = n.getParentNode()) chain.unshift(n);
  let m = IDENTITY;
  for (const n of chain) {
    m = multiply(m, n.getMatrix());
    if (!world.has(n)) world.set(n, m);
  }
  return world;
}
