// The room a clip needs, from its data: root travel for skeletal clips, every frame's vertices for
// vertex clips. Known answers on hand-made clips.
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { clipMotionBounds } from '../../web/src/three/motion-bounds.js';

const rest = () => new THREE.Box3(new THREE.Vector3(-1, 0, -1), new THREE.Vector3(1, 2, 1));

describe('clipMotionBounds', () => {
  it('grows the rest bounds by how far the root bone travels, not by a limb', () => {
    const root = new THREE.Bone();
    root.position.set(0, 1, 0);
    const arm = new THREE.Bone();
    root.add(arm);
    const character = { bones: [root, arm], vertexAnimations: [] };
    const tracks = [
      { bone: 3, translation: new Float32Array([0, 1, 0, 5, 1, 0, 10, 1.5, -2]) }, // the root, by the map
      { bone: 7, translation: new Float32Array([50, 50, 50]) }, // the arm: moves within the figure
    ];
    const clip = { kind: 'skeletal', scene: { clip: { tracks }, map: { 3: 0, 7: 1 } } };
    const box = clipMotionBounds(character, clip, rest());
    expect(box.min.toArray()).toEqual([-1, 0, -3]);
    expect(box.max.toArray()).toEqual([11, 2.5, 1]);
  });

  it('keeps the rest bounds for a clip that stays in place', () => {
    const root = new THREE.Bone();
    const character = { bones: [root], vertexAnimations: [] };
    const clip = { kind: 'skeletal', scene: { clip: { tracks: [{ bone: 0, rotation: new Float32Array([0, 0, 0, 1]) }] }, map: null } };
    expect(clipMotionBounds(character, clip, rest())).toEqual(rest());
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
