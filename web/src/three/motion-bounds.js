// The room a clip needs, measured from the clip's own data instead of by posing the character at
// sampled times: a skeletal clip carries the whole figure by its root bones' translation keys,
// and a vertex clip's frames are every position its vertices take. Each is one pass over typed
// arrays, with no skinning.
import * as THREE from 'three';

/** Grows `box` by how far the root bones of `character` move from their rest place during `clip`. */
function addRootTravel(box, character, clip) {
  const { clip: data, map } = clip.scene;
  const low = new THREE.Vector3(),
    high = new THREE.Vector3();
  for (const track of data.tracks) {
    const t = track.translation;
    const bone = character.bones[map ? map[track.bone] : track.bone];
    // Only root bones move the figure as a whole; a limb's keys move within the rest bounds.
    if (!t || !bone || bone.parent?.isBone) continue;
    const { x, y, z } = bone.position;
    for (let k = 0; k + 2 < t.length; k += 3) {
      low.set(Math.min(low.x, t[k] - x), Math.min(low.y, t[k + 1] - y), Math.min(low.z, t[k + 2] - z));
      high.set(Math.max(high.x, t[k] - x), Math.max(high.y, t[k + 1] - y), Math.max(high.z, t[k + 2] - z));
    }
  }
  box.min.add(low);
  box.max.add(high);
}

/** Grows `box` by every position of the vertex clip's frames (in its mesh's space within the root). */
function addVertexFrames(box, character, clip) {
  const va = character.vertexAnimations.find((v) => v.data.sequences.includes(clip.scene.sequence)) ?? character.vertexAnimations[0];
  if (!va) return;
  const { startFrame, frameCount } = clip.scene.sequence;
  const { frames } = va.data;
  const from = startFrame * va.stride,
    to = Math.min(frames.length, (startFrame + Math.max(1, frameCount)) * va.stride);
  const local = new THREE.Box3();
  const v = new THREE.Vector3();
  for (let i = from; i + 2 < to; i += 3) local.expandByPoint(v.set(frames[i], frames[i + 1], frames[i + 2]));
  va.mesh.updateMatrix();
  if (!local.isEmpty()) box.union(local.applyMatrix4(va.mesh.matrix));
}

/**
 * Bounds in the character's root space of `character` playing `clip` (one of character.clips),
 * from its bounds at rest `rest` (same space).
 */
export function clipMotionBounds(character, clip, rest) {
  const box = rest.clone();
  if (clip.kind === 'vertex') addVertexFrames(box, character, clip);
  else if (clip.scene?.clip?.tracks) addRootTravel(box, character, clip);
  return box;
}
