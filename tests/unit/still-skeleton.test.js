import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { StillSkeleton } from '../../web/src/three/build.js';
import { BonesHelper, JointsHelper } from '../../web/src/three/helpers.js';

/** Two bones, the second bent off the first, with their bind inverses; both skeletons share them. */
function rig() {
  const root = new THREE.Bone();
  const tip = new THREE.Bone();
  tip.position.set(0, 2, 0);
  tip.rotation.set(0.3, 0, 0.2);
  root.add(tip);
  root.updateMatrixWorld(true);
  const inverses = [root, tip].map((b) => b.matrixWorld.clone().invert());
  return { root, tip, bones: [root, tip], inverses };
}

describe('StillSkeleton', () => {
  it('gives the bone matrices three.js gives, and uploads them again only when a bone moved', () => {
    const r = rig();
    const still = new StillSkeleton(r.bones, r.inverses);
    const plain = new THREE.Skeleton(r.bones, r.inverses);
    still.computeBoneTexture();
    plain.computeBoneTexture();
    const uploads = () => still.boneTexture.version;

    r.tip.rotation.x = 1.1;
    r.root.updateMatrixWorld(true);
    still.update();
    plain.update();
    expect(Array.from(still.boneMatrices)).toEqual(Array.from(plain.boneMatrices));
    const afterMove = uploads();

    // Nothing moved: three.js would upload again each frame.
    still.update();
    still.update();
    expect(uploads()).toBe(afterMove);

    r.root.position.x = 0.5;
    r.root.updateMatrixWorld(true);
    still.update();
    plain.update();
    expect(uploads()).toBe(afterMove + 1);
    expect(Array.from(still.boneMatrices)).toEqual(Array.from(plain.boneMatrices));
  });
});

/** The rig with its bones named Root and Tip, its StillSkeleton, and a Group holding both as a loader's does. */
function namedRig() {
  const r = rig();
  r.root.name = 'Root';
  r.tip.name = 'Tip';
  const skeleton = new StillSkeleton(r.bones, r.inverses);
  const group = new THREE.Group();
  group.add(r.root);
  group.skeleton = skeleton;
  return { r, skeleton, group };
}

describe('binding tracks to bones', () => {
  it("finds a character's bones by name through its skeleton, as a mixer binds them", () => {
    const { r, skeleton, group } = namedRig();
    expect(THREE.PropertyBinding.findNode(group, 'Tip')).toBe(r.tip);
    expect(skeleton.getBoneByName('Root')).toBe(r.root);
    expect(skeleton.getBoneByName('Nope')).toBeUndefined();
    // A renamed bone is found under its new name, not its old one.
    r.tip.name = 'Tip2';
    expect(skeleton.getBoneByName('Tip')).toBeUndefined();
    expect(skeleton.getBoneByName('Tip2')).toBe(r.tip);
    const clip = new THREE.AnimationClip('bend', 1, [new THREE.NumberKeyframeTrack('Tip2.position[x]', [0, 1], [0, 3])]);
    new THREE.AnimationMixer(group).clipAction(clip).play().getMixer().update(0.5);
    expect(r.tip.position.x).toBe(1.5);
  });

  it('binds tracks for bones the mesh does not have without making its map of names again', () => {
    const { r, skeleton, group } = namedRig();
    expect(skeleton.getBoneByName('Root')).toBe(r.root);
    const byName = skeleton._byName;
    // An animation made for another mesh: 200 tracks for bones this one lacks, and one it has
    // (the psk sample folder's: a map made again at each miss held its page 120 ms).
    const missing = Array.from({ length: 200 }, (_, i) => new THREE.NumberKeyframeTrack(`Other${i}.position[x]`, [0, 1], [0, 1]));
    const clip = new THREE.AnimationClip('other', 1, [...missing, new THREE.NumberKeyframeTrack('Tip.position[x]', [0, 1], [0, 3])]);
    new THREE.AnimationMixer(group).clipAction(clip).play().getMixer().update(0.5);
    expect(r.tip.position.x).toBe(1.5);
    expect(skeleton._byName).toBe(byName);
  });
});

describe('skeleton overlays', () => {
  it('follow the bones while shown, and do no work while hidden', () => {
    const r = rig();
    const group = new THREE.Group();
    group.add(r.root);
    const lines = new BonesHelper(group);
    const joints = new JointsHelper(r.bones);
    const positions = (h) => Array.from(h.geometry.attributes.position.array);
    for (const h of [lines, joints]) {
      h.visible = false;
      h.updateMatrixWorld(true);
      expect(positions(h).every((v) => v === 0)).toBe(true);
      h.visible = true;
      h.updateMatrixWorld(true);
    }
    const tip = new THREE.Vector3().setFromMatrixPosition(r.tip.matrixWorld);
    // Lines: the tip, then its parent (the root, at the origin).
    expect(positions(lines).slice(0, 3)).toEqual([tip.x, tip.y, tip.z].map(Math.fround));
    expect(positions(joints).slice(3, 6)).toEqual([tip.x, tip.y, tip.z].map(Math.fround));
  });
});
