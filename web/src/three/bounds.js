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

const corner = new THREE.Vector3();

/**
 * Where a world box is drawn through `camera` on a view of `width` × `height` CSS pixels: the
 * rectangle of its eight corners from the top left, clipped to the view, or null when none of it
 * is in view (the snapshot's `screen`, in the page and in <rigscope-viewer> alike).
 * @param {THREE.Box3} box
 * @param {THREE.Camera} camera with its matrices up to date
 * @param {number} width
 * @param {number} height
 * @returns {{ x: number, y: number, width: number, height: number } | null}
 */
export function screenRect(box, camera, width, height) {
  if (box.isEmpty()) return null;
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (let k = 0; k < 8; k++) {
    corner.set(k & 1 ? box.max.x : box.min.x, k & 2 ? box.max.y : box.min.y, k & 4 ? box.max.z : box.min.z).project(camera);
    if (corner.z > 1) continue; // behind the camera
    x0 = Math.min(x0, corner.x);
    x1 = Math.max(x1, corner.x);
    y0 = Math.min(y0, corner.y);
    y1 = Math.max(y1, corner.y);
  }
  // The part on the view (NDC -1..1).
  const left = Math.max(x0, -1),
    right = Math.min(x1, 1),
    bottom = Math.max(y0, -1),
    top = Math.min(y1, 1);
  if (!(left < right && bottom < top)) return null;
  return {
    x: ((left + 1) / 2) * width,
    y: ((1 - top) / 2) * height,
    width: ((right - left) / 2) * width,
    height: ((top - bottom) / 2) * height,
  };
}
