// GLB export of everything loaded: meshes, skeletons, skins, every clip, morph targets, and UE1
// vertex animation as one morph target per frame with one weights clip per sequence.
import * as THREE from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';

/** A copy of a vertex-animated mesh carrying its frames as morph targets (export only). */
function morphCopy(va) {
  const src = va.mesh;
  const geometry = src.geometry.clone();
  const { frames, frameCount, vertexCount } = va.data;
  geometry.morphTargetsRelative = false;
  geometry.morphAttributes.position = [];
  for (let f = 0; f < frameCount; f++) {
    const a = new THREE.BufferAttribute(frames.slice(f * vertexCount * 3, (f + 1) * vertexCount * 3), 3);
    a.name = `frame_${f}`;
    geometry.morphAttributes.position.push(a);
  }
  geometry.setAttribute('position', new THREE.BufferAttribute(frames.slice(0, vertexCount * 3), 3));
  const mesh = new THREE.Mesh(geometry, src.material);
  mesh.name = src.name;
  mesh.updateMorphTargets();
  const clips = va.data.sequences.map((seq) => {
    const targets = [];
    for (let k = 0; k < seq.frameCount; k++) targets.push({ name: `frame_${seq.startFrame + k}` });
    return THREE.AnimationClip.CreateFromMorphTargetSequence(seq.name, targets, seq.rate || 30, false);
  });
  return { mesh, clips };
}

/**
 * @param {import('./character.js').Character[]} characters
 * @returns {Promise<ArrayBuffer>} the GLB bytes
 */
export async function exportGLB(characters) {
  const roots = [];
  const animations = [];
  const temporary = [];
  for (const c of characters) {
    c.mixer.stopAllAction();
    // Export in the bind pose: reset every bone to its rest transform.
    c.skeleton?.pose();
    const root = new THREE.Group();
    root.name = c.root.name || 'model';
    roots.push(root);
    // Re-parent temporarily: the exporter walks the objects it is given.
    const parent = c.root.parent;
    temporary.push(() => { root.remove(c.root); parent?.add(c.root); });
    root.add(c.root);
    for (const va of c.vertexAnimations) {
      const { mesh, clips } = morphCopy(va);
      va.mesh.visible = false;
      c.root.add(mesh);
      temporary.push(() => { mesh.removeFromParent(); mesh.geometry.dispose(); va.mesh.visible = true; });
      animations.push(...clips);
    }
    for (const clip of c.clips) if (clip.kind === 'skeletal') animations.push(clip.build());
  }
  try {
    const exporter = new GLTFExporter();
    return await exporter.parseAsync(roots, { binary: true, animations, onlyVisible: true });
  } finally {
    for (const undo of temporary.reverse()) undo();
  }
}
