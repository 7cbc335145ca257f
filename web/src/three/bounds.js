// Bounds of a Character as it is posed now, for framing, layout and the snapshot.
import * as THREE from 'three';

const LARGE_MESH = 60000;

/**
 * World bounds (or bounds in the space `inverse` maps the world into) of a character as posed now: skinned meshes skinned on the CPU (three's
 * SkinnedMesh bounds), vertex-animated ones from their current positions; meshes too large to
 * skin every frame keep the bind-pose bounds the decoder measured. `skin: false` takes those
 * bind-pose bounds for every mesh (a crowd framed at once: no vertex is skinned).
 */
export function characterBox(character, inverse = null, { skin = true } = {}) {
  const box = new THREE.Box3();
  const m4 = new THREE.Matrix4();
  for (const c of character.tree()) {
    for (const m of c.meshes) {
      if (!m.visible) continue;
      const posed = skin && m.geometry.attributes.position.count < LARGE_MESH;
      if (posed && m.isSkinnedMesh) m.computeBoundingBox();
      else if (posed && c.vertexAnimations.some((v) => v.mesh === m)) m.geometry.computeBoundingBox();
      const local = posed && m.isSkinnedMesh ? m.boundingBox : m.geometry.boundingBox;
      if (local) box.union(local.clone().applyMatrix4(inverse ? m4.multiplyMatrices(inverse, m.matrixWorld) : m.matrixWorld));
    }
  }
  return box;
}
