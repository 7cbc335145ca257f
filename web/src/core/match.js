// Binds an animation's bones to a skeleton's bones. Unreal PSA tracks match PSK bones by name
// (case-insensitive, trailing spaces trimmed, as every ActorX reader does); 0 A.D. PSSA tracks
// bind by index and must have exactly the model's bone count.

const key = (name) => name.replace(/[\s\0]+$/, '').toLowerCase();

/**
 * @param {string[]} skeletonNames bones of the mesh
 * @param {string[]} animNames bones of the animation (PSA BONENAMES)
 * @returns {{ map: Int32Array, byIndex: boolean, matched: number, missing: string[], extra: string[] }}
 *   map[animBone] = skeleton bone or -1; missing = skeleton bones without a track (they keep the
 *   bind pose); extra = animation bones the skeleton lacks.
 */
export function matchBonesByName(skeletonNames, animNames) {
  const map = new Int32Array(animNames.length).fill(-1);
  const same = skeletonNames.length === animNames.length && skeletonNames.every((n, i) => key(n) === key(animNames[i]));
  if (same) {
    // Identical lists (duplicates included, as in HP2-era files) map by index.
    for (let i = 0; i < map.length; i++) map[i] = i;
    return { map, byIndex: true, matched: map.length, missing: [], extra: [] };
  }
  // Otherwise by name, consuming duplicate names in order.
  const slots = new Map();
  skeletonNames.forEach((n, i) => {
    const k = key(n);
    if (!slots.has(k)) slots.set(k, []);
    slots.get(k).push(i);
  });
  const used = new Uint8Array(skeletonNames.length);
  const extra = [];
  animNames.forEach((n, a) => {
    const list = slots.get(key(n));
    const s = list?.shift();
    if (s === undefined) extra.push(n);
    else {
      map[a] = s;
      used[s] = 1;
    }
  });
  const missing = skeletonNames.filter((_, i) => !used[i]);
  return { map, byIndex: false, matched: animNames.length - extra.length, missing, extra };
}

/** 0 A.D.: bind by index when the counts agree, otherwise refuse with both counts named. */
export function matchBonesByCount(skeletonCount, animCount, animFile, modelFile) {
  if (skeletonCount !== animCount) {
    return { error: `animation ${animFile} has ${animCount} bones, model ${modelFile} has ${skeletonCount}` };
  }
  const map = new Int32Array(animCount);
  for (let i = 0; i < animCount; i++) map[i] = i;
  return { map, byIndex: true, matched: animCount, missing: [], extra: [] };
}
