// The room a clip needs, from its data: root travel for skeletal clips, every frame's vertices for
// vertex clips. Known answers on hand-made clips.
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { clipMotionBounds } from '../../web/src/three/motion-bounds.js';

const rest = () => new THREE.Box3(new THREE.Vector3(-1, 0, -1), new THREE.Vector3(1, 2, 1));

describe('clipMotionBounds', () => {
  // A hip bone under the root, and a hand under the hip: the clip walks the hip 10 along x, and
  // swings the hand up by turning the hip (a rotation, which the joints' reach shows).
  function walker() {
    const root = new THREE.Group();
    const hip = new THREE.Bone();
    hip.name = 'hip';
    hip.position.set(0, 1, 0);
    const hand = new THREE.Bone();
    hand.position.set(1, 0, 0);
    hip.add(hand);
    root.add(hip);
    const mixer = new THREE.AnimationMixer(root);
    const character = { root, bones: [hip, hand], mixer, vertexAnimations: [] };
    return { character, hip, hand };
  }
  const q = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 0, 1), Math.PI / 2).toArray();
  const walk = () =>
    new THREE.AnimationClip('walk', 1, [
      new THREE.VectorKeyframeTrack('hip.position', [0, 1], [0, 1, 0, 10, 1, 0]),
      new THREE.QuaternionKeyframeTrack('hip.quaternion', [0, 1], [0, 0, 0, 1, ...q]),
    ]);

  it('grows the rest bounds by how far the joints reach while the clip plays, then leaves them at rest', () => {
    const { character, hip, hand } = walker();
    const clip = { kind: 'skeletal', lastTime: 1, loop: false, build: walk };
    const box = clipMotionBounds(character, clip, rest());
    // Joints at rest span x 0..1, y 1; posed they reach x 10 (hip), and y 2 (the hand turned up).
    expect(box.min.toArray().map((v) => +v.toFixed(5))).toEqual([-1, 0, -1]);
    expect(box.max.toArray().map((v) => +v.toFixed(5))).toEqual([10, 3, 1]);
    expect(hip.position.toArray()).toEqual([0, 1, 0]);
    expect(hand.getWorldPosition(new THREE.Vector3()).toArray()).toEqual([1, 1, 0]);
  });

  it('keeps the rest bounds for a clip that stays in place', () => {
    const { character } = walker();
    const still = () => new THREE.AnimationClip('still', 1, [new THREE.VectorKeyframeTrack('hip.position', [0, 1], [0, 1, 0, 0, 1, 0])]);
    expect(clipMotionBounds(character, { kind: 'skeletal', lastTime: 1, build: still }, rest())).toEqual(rest());
  });

  it('takes every position of a vertex sequence, and only its frames', () => {
    const mesh = new THREE.Mesh();
    mesh.position.set(0, 10, 0);
    const sequence = { name: 'wave', startFrame: 1, frameCount: 2 };
    // Two vertices a frame; frame 0 (another sequence) reaches far and must not count.
    const frames = new Float32Array([-100, 0, 0, 100, 0, 0, 0, 0, 0, 3, 0, 0, 0, -4, 0, 0, 0, 6]);
    const va = { mesh, stride: 6, data: { frames, sequences: [sequence] } };
    const character = { bones: [], vertexAnimations: [va] };
    const box = clipMotionBounds(character, { kind: 'vertex', scene: { sequence } }, rest());
    expect(box.min.toArray()).toEqual([-1, 0, -1]);
    expect(box.max.toArray()).toEqual([3, 10, 6]);
  });
});
