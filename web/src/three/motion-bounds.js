// The room a clip needs, measured from the clip without skinning a vertex: a skeletal clip is
// posed at a few times and only its joints are measured (how far they reach beyond their rest
// place grows the mesh's rest bounds), and a vertex clip's frames are every position its
// vertices take (one pass over the typed array).
import * as THREE from 'three';

/** Times a skeletal clip is posed at to measure its joints. */
const SAMPLES = 8;

/** Bounds of the character's joints as posed now, in the root's space. */
function jointBox(character, inverse, box = new THREE.Box3()) {
  const p = new THREE.Vector3();
  character.root.updateMatrixWorld(true);
  for (const bone of character.bones) box.expandByPoint(p.setFromMatrixPosition(bone.matrixWorld).applyMatrix4(inverse));
  return box;
}

/** Grows `box` by how far the joints reach beyond their rest bounds while `clip` plays. */
function addJointTravel(box, character, clip) {
  if (!character.bones.length) return;
  character.root.updateMatrixWorld(true);
  const inverse = character.root.matrixWorld.clone().invert();
  const rest = jointBox(character, inverse);
  const moving = new THREE.Box3();
  const action = character.mixer.clipAction(clip.build(clip.loop));
  action.play();
  for (let k = 0; k < SAMPLES; k++) {
    action.time = (k / (SAMPLES - 1)) * clip.lastTime;
    character.mixer.update(0);
    jointBox(character, inverse, moving);
  }
  action.stop(); // the mixer puts the bones back at rest
  character.mixer.update(0);
  box.min.add(moving.min.sub(rest.min).min(new THREE.Vector3()));
  box.max.add(moving.max.sub(rest.max).max(new THREE.Vector3()));
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
  else addJointTravel(box, character, clip);
  return box;
}
