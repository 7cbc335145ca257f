// Compressed vertex animation: a UE1 mesh's frames, which `exportGLB` writes as one morph target
// per frame (named frame_N) with weights clips that show one at a time. Hundreds of frames make
// the targets nearly all of the file, so they get what glTF-Transform's meshopt writer does not
// give them (compress.js runs these around it):
//
// - frames no clip shows go (a clip's own frames all stay, named as they were);
// - the weights clips' keys as sparse accessors: one non-zero value a key, not one per frame;
// - each primitive's vertices in an order where neighbours move alike over the frames (meshopt's
//   attribute codec codes each vertex as a delta from the one before it, so similar motion is
//   cheap), and all its targets in one EXT_meshopt_compression stream, not a buffer view each
//   (the JSON of thousands of views outweighed the deltas).
import { PropertyType } from '@gltf-transform/core';

const FRAME = /^frame_\d+$/;
/** Steps of the greedy vertex order (vertices² × sampled frame values) before it keeps the order it has. */
const ORDER_BUDGET = 2e8;

/** Whether a mesh's morph targets are all UE1 frames, on nodes without a skin. */
export function isFrameMesh(mesh) {
  const names = mesh.getExtras()?.targetNames;
  const count = mesh.listPrimitives()[0]?.listTargets().length ?? 0;
  return (
    count > 0 &&
    Array.isArray(names) &&
    names.length === count &&
    names.every((n) => FRAME.test(n)) &&
    !mesh.listParents().some((p) => p.propertyType === PropertyType.NODE && p.getSkin())
  );
}

const frameMeshes = (doc) => doc.getRoot().listMeshes().filter(isFrameMesh);

/** The weights channels' output accessors that drive `mesh`, or null when one is shared with another mesh's. */
function weightOutputs(doc, mesh) {
  const outputs = new Set();
  for (const animation of doc.getRoot().listAnimations()) {
    for (const channel of animation.listChannels()) {
      if (channel.getTargetPath() !== 'weights') continue;
      const output = channel.getSampler()?.getOutput();
      if (!output) continue;
      const drives = channel.getTargetNode()?.getMesh() === mesh;
      const elsewhere = output
        .listParents()
        .flatMap((sampler) => sampler.listParents())
        .some((c) => c.propertyType === PropertyType.ANIMATION_CHANNEL && c.getTargetNode()?.getMesh() !== mesh);
      if (drives && elsewhere) return null;
      if (drives) outputs.add(output);
    }
  }
  return [...outputs];
}

/** Frames no clip gives a weight go, from every primitive, the mesh's weights, names and clips.
 * A mesh without clips keeps them all: nothing says which of them matter. */
export function dropUnplayedFrames() {
  return (doc) => {
    for (const mesh of frameMeshes(doc)) {
      const outputs = weightOutputs(doc, mesh);
      if (!outputs?.length) continue;
      const count = mesh.listPrimitives()[0].listTargets().length;
      const played = new Uint8Array(count);
      for (const output of outputs) {
        const a = output.getArray();
        for (let i = 0; i < a.length; i++) if (a[i] !== 0) played[i % count] = 1;
      }
      const keep = [];
      played.forEach((p, t) => p && keep.push(t));
      if (keep.length === count) continue;
      for (const prim of mesh.listPrimitives()) {
        prim.listTargets().forEach((target, t) => {
          if (played[t]) return;
          prim.removeTarget(target);
          target.dispose();
        });
      }
      const weights = mesh.getWeights();
      mesh.setWeights(weights.length ? keep.map((t) => weights[t]) : []);
      const names = mesh.getExtras().targetNames;
      mesh.setExtras({ ...mesh.getExtras(), targetNames: keep.map((t) => names[t]) });
      for (const output of outputs) {
        const a = output.getArray();
        const keys = a.length / count;
        const kept = new a.constructor(keys * keep.length);
        for (let k = 0; k < keys; k++) keep.forEach((t, j) => (kept[k * keep.length + j] = a[k * count + t]));
        output.setArray(kept);
      }
    }
  };
}

/** Weights outputs of frame meshes are one non-zero value a key: stored sparse (glTF-Transform
 * writes only the non-zero values, with their indices). Runs after `resample`. */
export function sparseFrameWeights() {
  return (doc) => {
    for (const mesh of frameMeshes(doc)) for (const output of weightOutputs(doc, mesh) ?? []) output.setSparse(true);
  };
}

/** A greedy path through the vertices, each step to the unvisited vertex whose feature values
 * are nearest (L1): `perm[new] = old`. */
function greedyOrder(features, count, size) {
  const seen = new Uint8Array(count);
  const perm = new Uint32Array(count);
  let current = 0;
  for (let n = 0; n < count; n++) {
    perm[n] = current;
    seen[current] = 1;
    let best = -1;
    let cost = Infinity;
    for (let w = 0; w < count; w++) {
      if (seen[w]) continue;
      let c = 0;
      for (let k = 0; k < size && c < cost; k++) c += Math.abs(features[current * size + k] - features[w * size + k]);
      if (c < cost) [best, cost] = [w, c];
    }
    current = best;
  }
  return perm;
}

/** Vertices of a primitive whose targets are `arrays` (VEC3 each), in the order of their motion:
 * features are the targets' deltas, every step-th target, within ORDER_BUDGET. */
function motionOrder(arrays, count) {
  const frames = Math.floor(ORDER_BUDGET / (count * count * 3));
  if (frames < 1) return null;
  const step = Math.max(1, Math.ceil(arrays.length / frames));
  const sampled = arrays.filter((_, t) => t % step === 0);
  const size = sampled.length * 3;
  const features = new Float32Array(count * size);
  sampled.forEach((a, j) => {
    for (let v = 0; v < count; v++) for (let k = 0; k < 3; k++) features[v * size + j * 3 + k] = a[v * 3 + k];
  });
  return greedyOrder(features, count, size);
}

/** Moves the vertex attributes `accessors` (VEC3 targets among them) to the order `perm`; the
 * indices of `prims`, which share them, follow. */
function permute(accessors, prims, perm) {
  for (const accessor of accessors) {
    const a = accessor.getArray();
    const n = accessor.getElementSize();
    const out = new a.constructor(a.length);
    for (let v = 0; v < perm.length; v++) for (let k = 0; k < n; k++) out[v * n + k] = a[perm[v] * n + k];
    accessor.setArray(out);
  }
  const inverse = new Uint32Array(perm.length);
  perm.forEach((old, v) => (inverse[old] = v));
  for (const prim of prims)
    prim.getIndices().setArray(
      prim
        .getIndices()
        .getArray()
        .map((i) => inverse[i]),
    );
}

const sameKind = (a, b) =>
  a.getType() === b.getType() && a.getComponentType() === b.getComponentType() && a.getNormalized() === b.getNormalized();

/**
 * The primitives of a frame mesh (one a material, each with its own vertices after weld) on one
 * shared vertex set: each target is then one accessor for all of them, not one a primitive (the
 * JSON of an accessor a frame a primitive was a tenth of the file). A semantic a primitive lacks
 * stays off it, its vertices' part of the shared array zeros that no other primitive reads.
 * False when their kinds differ.
 */
function shareVertices(doc, prims) {
  const semantics = [...new Set(prims.flatMap((p) => p.listSemantics()))];
  const kinds = semantics.map((s) => prims.map((p) => p.getAttribute(s)).filter(Boolean));
  if (kinds.some((list) => list.some((a) => !sameKind(a, list[0])))) return false;
  const counts = prims.map((p) => p.getAttribute('POSITION').getCount());
  const total = counts.reduce((n, c) => n + c, 0);
  const join = (parts, like) => {
    const n = like.getElementSize();
    const out = new (like.getArray().constructor)(total * n);
    let at = 0;
    parts.forEach((a, i) => {
      if (a) out.set(a.getArray(), at);
      at += counts[i] * n;
    });
    return doc.createAccessor().setType(like.getType()).setNormalized(like.getNormalized()).setBuffer(like.getBuffer()).setArray(out);
  };
  const old = new Set(prims.flatMap((p) => [...p.listAttributes(), ...p.listTargets().flatMap((t) => t.listAttributes())]));
  const merged = semantics.map((s, i) =>
    join(
      prims.map((p) => p.getAttribute(s)),
      kinds[i][0],
    ),
  );
  const targets = prims[0].listTargets().map((_, t) => {
    const parts = prims.map((p) => p.listTargets()[t].getAttribute('POSITION'));
    return join(parts, parts[0]);
  });
  let offset = 0;
  prims.forEach((prim, i) => {
    const indices = prim.getIndices();
    const shifted = Uint32Array.from(indices.getArray(), (v) => v + offset);
    indices.setArray(total <= 65535 ? new Uint16Array(shifted) : shifted);
    offset += counts[i];
    semantics.forEach((s, k) => prim.getAttribute(s) && prim.setAttribute(s, merged[k]));
    prim.listTargets().forEach((target, t) => target.setAttribute('POSITION', targets[t]));
  });
  for (const a of old) if (!a.listParents().some((p) => p.propertyType !== PropertyType.ROOT)) a.dispose();
  return true;
}

/** Whether a primitive's targets are plain 16-bit VEC3 positions alone, and its vertices its own
 * or those of `group` only (weld gives each primitive its own). */
function takeable(prim, group) {
  const accessors = prim.listTargets().map((t) => t.getAttribute('POSITION'));
  const plain = accessors.every((a) => a?.getArray() instanceof Int16Array && !a.getNormalized() && a.getType() === 'VEC3');
  const owned = prim.listAttributes().every((a) => a.listParents().every((p) => group.includes(p) || p.propertyType === PropertyType.ROOT));
  return plain && owned && prim.getIndices() && prim.listTargets().every((t) => t.listSemantics().length === 1);
}

/**
 * Takes the targets of frame meshes out of the document, their vertices shared by the mesh's
 * primitives and in motion order, for `writeFrameTargets` to add to the written JSON as one
 * stream. Runs last, on targets that are plain 16-bit integers (compress.js's position grid).
 * @returns {{ mesh: number, primitives: number[], arrays: Int16Array[], order: number[], count: number }[]}
 */
export function takeFrameTargets(doc) {
  const taken = [];
  const meshes = doc.getRoot().listMeshes();
  for (const mesh of frameMeshes(doc)) {
    const prims = mesh.listPrimitives();
    if (!prims.every((p) => takeable(p, prims))) continue;
    // One vertex set for all primitives, or (kinds that differ) one each.
    const groups = shareVertices(doc, prims) ? [prims] : prims.map((p) => [p]);
    for (const group of groups) {
      const accessors = group[0].listTargets().map((t) => t.getAttribute('POSITION'));
      const unique = [...new Set(accessors)];
      const count = unique[0].getCount();
      const perm = motionOrder(
        unique.map((a) => a.getArray()),
        count,
      );
      if (perm) permute(new Set([...group[0].listAttributes(), ...unique]), group, perm);
      taken.push({
        mesh: meshes.indexOf(mesh),
        primitives: group.map((p) => prims.indexOf(p)),
        arrays: unique.map((a) => a.getArray()),
        order: accessors.map((a) => unique.indexOf(a)),
        count,
      });
      for (const prim of group)
        for (const target of prim.listTargets()) {
          prim.removeTarget(target);
          target.dispose();
        }
      for (const a of unique) if (!a.listParents().some((p) => p.propertyType !== PropertyType.ROOT)) a.dispose();
    }
  }
  return taken;
}

function bounds(array) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < array.length; i++) {
    min[i % 3] = Math.min(min[i % 3], array[i]);
    max[i % 3] = Math.max(max[i % 3], array[i]);
  }
  return { min, max };
}

/**
 * Adds what `takeFrameTargets` took to glTF-Transform's written JSON document: per primitive one
 * buffer view (16-bit x, y, z and a pad per vertex, every target after the other), compressed by
 * meshopt's attribute codec into the GLB's binary chunk, and an accessor per target in it.
 */
export function writeFrameTargets({ json, resources }, taken, encoder) {
  if (!taken.length) return;
  const key = Object.keys(resources)[0];
  let bin = resources[key];
  let fallback = json.buffers.findIndex((b) => b.extensions?.EXT_meshopt_compression?.fallback);
  if (fallback < 0) fallback = json.buffers.push({ byteLength: 0, extensions: { EXT_meshopt_compression: { fallback: true } } }) - 1;
  const chunks = [bin];
  let binLength = bin.length;
  for (const { mesh, primitives, arrays, order, count } of taken) {
    const data = new Int16Array(arrays.length * count * 4);
    arrays.forEach((a, t) => {
      for (let v = 0; v < count; v++) for (let k = 0; k < 3; k++) data[(t * count + v) * 4 + k] = a[v * 3 + k];
    });
    const bytes = new Uint8Array(data.buffer);
    const encoded = encoder.encodeGltfBuffer(bytes, arrays.length * count, 8, 'ATTRIBUTES');
    const padded = (encoded.length + 3) & ~3;
    const view = {
      buffer: fallback,
      byteOffset: json.buffers[fallback].byteLength,
      byteLength: bytes.length,
      byteStride: 8,
      target: 34962,
      extensions: {
        EXT_meshopt_compression: {
          buffer: 0,
          byteOffset: binLength,
          byteLength: encoded.length,
          byteStride: 8,
          mode: 'ATTRIBUTES',
          count: arrays.length * count,
        },
      },
    };
    json.buffers[fallback].byteLength += bytes.length;
    chunks.push(encoded, new Uint8Array(padded - encoded.length));
    binLength += padded;
    const bufferView = (json.bufferViews ??= []).push(view) - 1;
    const first = (json.accessors ??= []).length;
    arrays.forEach((a, t) =>
      json.accessors.push({ bufferView, byteOffset: t * count * 8, componentType: 5122, count, type: 'VEC3', ...bounds(a) }),
    );
    for (const p of primitives) json.meshes[mesh].primitives[p].targets = order.map((u) => ({ POSITION: first + u }));
  }
  bin = new Uint8Array(binLength);
  let at = 0;
  for (const c of chunks) {
    bin.set(c, at);
    at += c.length;
  }
  resources[key] = bin;
  json.buffers[0].byteLength = binLength;
}
