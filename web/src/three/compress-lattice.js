// Positions that lie on a lattice (UE1 meshes: the file's integers times MESHMAP SCALE) are stored
// as the lattice's own integers: exact, and often coarser than the grid the error budget allows
// (the UMSMarinesII marine: 0.1 units against 0.057), which meshopt's delta coding pays less for.
//
// glTF-Transform's quantize cannot be told to leave a mesh alone, so the lattice goes on before it
// (`toLattice`: positions as the integers, the lattice's origin and unit on the mesh's nodes) and
// comes back after it (`fromQuantized`: quantize's 16-bit values rounded to those integers, its
// transform taken off the nodes again).
import { Matrix4 } from 'three';
import { PropertyType } from '@gltf-transform/core';

/** How far from a lattice point (in lattice units) a float32 value may lie and still be on it. */
const ON_LATTICE = 1e-3;
const INT16 = 32767;

const nodesOf = (mesh) => mesh.listParents().filter((p) => p.propertyType === PropertyType.NODE && p.getMesh() === mesh);

/** The smallest gap between the values of any axis, refined over the widest axis's range. */
function unitOf(axes) {
  let unit = Infinity;
  for (const v of axes) {
    const range = v[v.length - 1] - v[0];
    for (let i = 1; i < v.length; i++) if (v[i] - v[i - 1] > 1e-6 * range) unit = Math.min(unit, v[i] - v[i - 1]);
  }
  if (!Number.isFinite(unit)) return null;
  const wide = axes.reduce((w, v) => (v[v.length - 1] - v[0] > w[w.length - 1] - w[0] ? v : w));
  return (wide[wide.length - 1] - wide[0]) / Math.round((wide[wide.length - 1] - wide[0]) / unit);
}

/** `{ unit, origin }` of the lattice every position (and every target's delta) lies on, or null. */
function latticeOf(positions, targets) {
  const axes = [0, 1, 2].map((k) => {
    const values = new Set();
    for (const a of positions) for (let i = k; i < a.length; i += 3) values.add(a[i]);
    return Float64Array.from(values).sort();
  });
  const unit = unitOf(axes);
  if (!unit) return null;
  const origin = axes.map((v) => v[0] + unit * Math.round((v[v.length - 1] - v[0]) / 2 / unit));
  const fits = (x, o) => {
    const r = (x - o) / unit;
    return Math.abs(r - Math.round(r)) <= ON_LATTICE && Math.abs(r) <= INT16;
  };
  for (const a of positions) for (let i = 0; i < a.length; i++) if (!fits(a[i], origin[i % 3])) return null;
  for (const a of targets) for (let i = 0; i < a.length; i++) if (!fits(a[i], 0)) return null;
  return { unit, origin };
}

/** The mesh's position accessors (base and targets), when no other mesh uses them and all are floats. */
function positionsOf(mesh) {
  const prims = mesh.listPrimitives();
  const targets = prims.flatMap((p) => p.listTargets());
  const base = prims.map((p) => p.getAttribute('POSITION'));
  const deltas = targets.map((t) => t.getAttribute('POSITION')).filter(Boolean);
  const own = new Set([...prims, ...targets]);
  const ok = [...base, ...deltas].every(
    (a) => a?.getArray() instanceof Float32Array && a.listParents().every((p) => own.has(p) || p.propertyType === PropertyType.ROOT),
  );
  return ok ? { base, deltas } : null;
}

/**
 * Before quantize: each unskinned mesh on a lattice gets the lattice's integers as positions and
 * its origin and unit on its nodes; `lattices` (mesh → { pre: node → matrix }) remembers them.
 */
export function toLattice(lattices) {
  return (doc) => {
    for (const mesh of doc.getRoot().listMeshes()) {
      const nodes = nodesOf(mesh);
      if (!nodes.length || nodes.some((n) => n.getSkin())) continue;
      const accessors = positionsOf(mesh);
      if (!accessors) continue;
      const { base, deltas } = accessors;
      const lattice = latticeOf(
        base.map((a) => a.getArray()),
        deltas.map((a) => a.getArray()),
      );
      if (!lattice) continue;
      const { unit, origin } = lattice;
      for (const a of new Set(base)) a.setArray(a.getArray().map((x, i) => Math.round((x - origin[i % 3]) / unit)));
      for (const a of new Set(deltas)) a.setArray(a.getArray().map((x) => Math.round(x / unit)));
      const place = new Matrix4().makeScale(unit, unit, unit).setPosition(...origin);
      const pre = new Map();
      for (const node of nodes) {
        const m = new Matrix4().fromArray(node.getMatrix()).multiply(place).toArray();
        node.setMatrix(m);
        pre.set(node, m);
      }
      lattices.set(mesh, { pre });
    }
  };
}

/** Quantize's transform of `mesh` (centre and scale of its 16-bit box), from a node that holds it. */
function quantizeTransform(mesh, pre) {
  const [node] = nodesOf(mesh);
  if (!node) return null;
  const now = new Matrix4().fromArray(node.getMatrix());
  // A node quantize made for the mesh (below one with children) holds its transform alone.
  return pre.has(node) ? new Matrix4().fromArray(pre.get(node)).invert().multiply(now) : now;
}

/**
 * After quantize: the lattice mesh's 16-bit positions back to plain integers when the lattice is
 * no finer than `step` (the grid the error budget gives, in 16-bit units); its nodes lose
 * quantize's transform. @returns {boolean} whether the mesh is on its lattice now
 */
export function fromQuantized(mesh, lattice, step) {
  const t = quantizeTransform(mesh, lattice.pre);
  if (!t) return false;
  const e = t.elements;
  const scale = e[0];
  if (step * (scale / INT16) > 1) return false; // the budget allows a coarser grid than the lattice
  const centre = [e[12], e[13], e[14]];
  const done = new Set();
  const back = (accessor, offset) => {
    if (!accessor || done.has(accessor)) return;
    done.add(accessor);
    const a = accessor.getArray();
    accessor.setArray(Int16Array.from(a, (q, i) => Math.round(offset[i % 3] + (scale * q) / INT16))).setNormalized(false);
  };
  for (const prim of mesh.listPrimitives()) {
    back(prim.getAttribute('POSITION'), centre);
    for (const target of prim.listTargets()) back(target.getAttribute('POSITION'), [0, 0, 0]);
  }
  const undo = t.clone().invert();
  for (const node of nodesOf(mesh)) node.setMatrix(new Matrix4().fromArray(node.getMatrix()).multiply(undo).toArray());
  return true;
}
