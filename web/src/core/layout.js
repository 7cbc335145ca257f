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

/** Vertices of a character's meshes (what the hero rule weighs after clips). */
function vertexCount(sc) {
  let n = 0;
  for (const model of sc.models) for (const mesh of model.meshes) n += (mesh.positions?.length ?? 0) / 3;
  return n;
}

/**
 * What makes a character the hero, most telling first: not scenery seen from inside, clips with
 * motion (one or two frames are a pose: a UE1 prop has an "All" sequence of one frame), clips,
 * vertices.
 */
function heroRank(sc) {
  let moving = 0;
  for (const clip of sc.clips ?? []) if ((clip.frames ?? clip.frameCount ?? 0) > 2) moving++;
  return [sc.enclosing ? 0 : 1, moving, sc.clips?.length ?? 0, vertexCount(sc)];
}

/**
 * The character a modder opened a folder for: the one with the most clips (those with motion
 * first), then the most vertices; the first in scene order on a tie. A prop (one pose, few
 * vertices) never wins over a character because its name sorts first. Scenery seen from inside
 * is chosen only when it is all there is. Returns a scene character, or null when none has
 * vertices. Used by every first look: the page, the element and embed page, `rigscope poster`.
 * @param {object[]} characters scene characters (their `enclosing` as layoutCharacters set it)
 */
export function chooseHero(characters) {
  let best = null,
    bestRank = null;
  for (const sc of characters) {
    if (!vertexCount(sc)) continue;
    const rank = heroRank(sc);
    const k = bestRank ? rank.findIndex((v, i) => v !== bestRank[i]) : 0;
    if (bestRank && (k < 0 || rank[k] < bestRank[k])) continue;
    [best, bestRank] = [sc, rank];
  }
  return best;
}

/** Smallest size ratio between the largest and smallest model of one size class (one row group). */
const CLASS_RATIO = 4;

const footprint = (b) => [b.max[0] - b.min[0], b.max[2] - b.min[2]];

/**
 * Sets `offset` ([x, y, z]), `enclosing` and `hidden` on every scene character, and `hero` on
 * the one chooseHero picks: it stands at the origin, and the others stand behind it (further
 * from the default camera, which looks from +z), so none comes between that camera and it.
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
    sc.hero = false;
  }
  const sized = items.filter((i) => i.bounds);
  // Which way a mesh faces is a fact of its bind pose, measured about its bind-pose centre.
  for (const i of sized) i.sc.enclosing = facesInward(i.sc, characterBounds(i.sc) ?? i.bounds);
  const models = sized.filter((i) => !i.sc.enclosing);
  // Scenery is hidden while there are models to look at; alone it is the model.
  for (const i of sized) if (i.sc.enclosing && models.length) i.sc.hidden = true;
  const heroSc = chooseHero(characters);
  if (heroSc) heroSc.hero = true;
  if (models.length < 2) return;
  const hero = models.find((i) => i.sc === heroSc) ?? models[0];
  const b = hero.bounds;
  // The hero stands on the ground, centred on the origin.
  hero.sc.offset = [-(b.min[0] + b.max[0]) / 2, -b.min[1], -(b.min[2] + b.max[2]) / 2];
  const others = models.filter((i) => i !== hero).sort((p, q) => size(p.bounds) - size(q.bounds));
  // Rows behind the hero, smallest models nearest: a prop stands with props, spaced for its
  // class, and a building in its own row further back, where it hides nothing.
  // Half the hero's size clear behind it, so what stands nearest does not crowd its framing.
  let z = -footprint(b)[1] / 2 - 0.5 * Math.max(...footprint(b));
  for (const group of sizeClasses(others)) z = layoutClass(group, z);
}

/** Models (sorted by size) cut into runs whose largest is at most CLASS_RATIO times its smallest. */
function sizeClasses(sorted) {
  const groups = [];
  for (const i of sorted) {
    const last = groups.at(-1);
    if (last && size(i.bounds) <= CLASS_RATIO * Math.max(size(last[0].bounds), 1e-9)) last.push(i);
    else groups.push([i]);
  }
  return groups;
}

/**
 * Lays one size class out in centred rows about square overall, starting a gap behind `front`
 * (a z) and going back; returns the z of its back edge. Bounded work: one pass per model.
 */
function layoutClass(group, front) {
  const gap = 0.25 * Math.max(...group.map((i) => Math.max(...footprint(i.bounds))));
  const area = group.reduce((n, i) => {
    const [w, d] = footprint(i.bounds);
    return n + (w + gap) * (d + gap);
  }, 0);
  const rowWidth = Math.max(Math.sqrt(area), ...group.map((i) => footprint(i.bounds)[0]));
  let z = front - gap;
  let row = [];
  const closeRow = () => {
    const width = row.reduce((n, i) => n + footprint(i.bounds)[0], 0) + gap * (row.length - 1);
    const depth = Math.max(...row.map((i) => footprint(i.bounds)[1]));
    let x = -width / 2;
    for (const i of row) {
      // Each model's bounds start at the cursor, its lowest point on the ground (y = 0), its
      // front edge on the row's front line.
      i.sc.offset = [x - i.bounds.min[0], -i.bounds.min[1], z - i.bounds.max[2]];
      x += footprint(i.bounds)[0] + gap;
    }
    z -= depth + gap;
    row = [];
  };
  let x = 0;
  for (const i of group) {
    const w = footprint(i.bounds)[0];
    if (row.length && x + w > rowWidth) {
      closeRow();
      x = 0;
    }
    row.push(i);
    x += w + gap;
  }
  closeRow();
  return z + gap;
}
