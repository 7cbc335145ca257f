// Where each character of a scene stands. Unrelated models of a folder would all sit at the
// origin, one inside the other: they are laid out side by side on the ground in rows, with a gap,
// largest first. Meshes that enclose the others (sky domes, rooms) are shown apart: hidden while
// there is anything else to see, and always drawn unlit and from both sides.
// Data only (no three.js): bounds come from the decoders' per-mesh bounds, in the bind pose.
import { triangleNormal } from './triangles.js';

/** Triangles looked at to tell which way a mesh faces (enough for a dome; bounded work). */
const FACING_SAMPLES = 4096;

/** Bind-pose bounds of a character (its meshes and parts), or null when it has no vertices. */
export function characterBounds(sc) {
  const min = [Infinity, Infinity, Infinity],
    max = [-Infinity, -Infinity, -Infinity];
  for (const model of sc.models) {
    for (const mesh of model.meshes) {
      if (!mesh.bounds || !mesh.positions?.length) continue;
      for (let k = 0; k < 3; k++) {
        min[k] = Math.min(min[k], mesh.bounds.min[k]);
        max[k] = Math.max(max[k], mesh.bounds.max[k]);
      }
    }
  }
  return min[0] === Infinity ? null : { min, max };
}

const size = (b) => Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]);

/**
 * True when most of the surface faces its own centre: a dome or room seen from inside. Counter-
 * clockwise triangles face out of a closed model; the sum of their outward areas is negative for
 * one made to be seen from within.
 */
export function facesInward(sc, bounds) {
  // A character of one model (most) is asked again at each assembly of a drop: its answer is kept
  // with the model, whose data never changes (a first look at a million triangles costs 30 ms).
  const [only] = sc.models;
  if (sc.models.length !== 1) return inward(sc, bounds);
  let found = inwardOfModel.get(only);
  if (found === undefined) inwardOfModel.set(only, (found = inward(sc, bounds)));
  return found;
}

/** Each lone model's facesInward. */
const inwardOfModel = new WeakMap();

function inward(sc, bounds) {
  // Plain numbers only: this runs on every drop, and arrays per triangle were most of its cost.
  const cx = (bounds.min[0] + bounds.max[0]) / 2,
    cy = (bounds.min[1] + bounds.max[1]) / 2,
    cz = (bounds.min[2] + bounds.max[2]) / 2;
  let sum = 0,
    total = 0;
  const face = [0, 0, 0];
  for (const model of sc.models) {
    for (const mesh of model.meshes) {
      const p = mesh.positions,
        ix = mesh.indices;
      if (!p || !ix?.length) continue;
      const triangles = Math.floor(ix.length / 3);
      const step = Math.max(1, Math.floor(triangles / FACING_SAMPLES));
      for (let t = 0; t < triangles; t += step) {
        const a = ix[t * 3] * 3,
          b = ix[t * 3 + 1] * 3,
          d = ix[t * 3 + 2] * 3;
        if (d + 2 >= p.length || a + 2 >= p.length || b + 2 >= p.length) continue;
        const [nx, ny, nz] = triangleNormal(p, a, b, d, face);
        const rx = (p[a] + p[b] + p[d]) / 3 - cx,
          ry = (p[a + 1] + p[b + 1] + p[d + 1]) / 3 - cy,
          rz = (p[a + 2] + p[b + 2] + p[d + 2]) / 3 - cz;
        const len = Math.sqrt(rx * rx + ry * ry + rz * rz) || 1;
        sum += (nx * rx + ny * ry + nz * rz) / len;
        total += Math.sqrt(nx * nx + ny * ny + nz * nz);
      }
    }
  }
  return total > 0 && sum < -0.25 * total;
}

/**
 * Sets `offset` ([x, y, z]), `enclosing` and `hidden` on every scene character.
 * @param {object[]} characters scene characters, in the order they are shown
 */
export function layoutCharacters(characters) {
  // `motionBounds` (set by the viewer: the bounds over the character's first clip) wins over the
  // bind pose, so a character that leaps or walks keeps clear of its neighbours.
  const items = characters.map((sc) => ({ sc, bounds: sc.motionBounds ?? characterBounds(sc) }));
  for (const { sc } of items) {
    sc.offset = [0, 0, 0];
    sc.enclosing = false;
    sc.hidden = false;
  }
  const sized = items.filter((i) => i.bounds);
  // Which way a mesh faces is a fact of its bind pose, measured about its bind-pose centre.
  for (const i of sized) i.sc.enclosing = facesInward(i.sc, characterBounds(i.sc) ?? i.bounds);
  const models = sized.filter((i) => !i.sc.enclosing);
  // Scenery is hidden while there are models to look at; alone it is the model.
  for (const i of sized) if (i.sc.enclosing && models.length) i.sc.hidden = true;
  if (models.length < 2) return;
  // Rows of a width that makes the whole layout about square, biggest models first.
  const footprint = (b) => [b.max[0] - b.min[0], b.max[2] - b.min[2]];
  const gap = 0.25 * Math.max(...models.map((i) => Math.max(...footprint(i.bounds))));
  const order = [...models].sort((a, b) => size(b.bounds) - size(a.bounds));
  const area = order.reduce((n, i) => {
    const [w, d] = footprint(i.bounds);
    return n + (w + gap) * (d + gap);
  }, 0);
  const rowWidth = Math.max(Math.sqrt(area), ...order.map((i) => footprint(i.bounds)[0] + gap));
  let x = 0,
    z = 0,
    rowDepth = 0,
    width = 0;
  for (const i of order) {
    const [w, d] = footprint(i.bounds);
    if (x > 0 && x + w > rowWidth) {
      x = 0;
      z += rowDepth + gap;
      rowDepth = 0;
    }
    // Each model's bounds start at the cursor, its lowest point on the ground (y = 0).
    i.sc.offset = [x - i.bounds.min[0], -i.bounds.min[1], z - i.bounds.min[2]];
    x += w + gap;
    width = Math.max(width, x - gap);
    rowDepth = Math.max(rowDepth, d);
  }
  const depth = z + rowDepth;
  for (const i of order) {
    i.sc.offset[0] -= width / 2;
    i.sc.offset[2] -= depth / 2;
  }
}
