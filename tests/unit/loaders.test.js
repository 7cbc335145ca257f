// The three.js-style loaders other apps import (`import { PSKLoader } from 'rigscope'`).
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { PSALoader, PSKLoader, UE1Loader, Character } from '../../web/src/index.js';
import { decoder, fixture } from './helpers.js';

const buffer = (name) => { const b = fixture(name); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength); };

describe('loaders', () => {
  it('PSKLoader and PSALoader parse into a playable Character', async () => {
    const d = await decoder();
    const character = await new PSKLoader().setDecoder(d).parse(buffer('two_bone.psk'), 'two_bone.psk');
    expect(character).toBeInstanceOf(Character);
    expect(character.meshes[0]).toBeInstanceOf(THREE.SkinnedMesh);
    const anim = await new PSALoader().setDecoder(d).parse(buffer('two_bone.psa'), 'two_bone.psa');
    expect(character.addAnimation(anim).matched).toBe(2);
    const clip = character.clips[0].build();
    const action = character.mixer.clipAction(clip);
    action.play();
    character.mixer.setTime(clip.duration / 2);
    character.root.updateMatrixWorld(true);
    const top = character.meshes[0].getVertexPosition(4, new THREE.Vector3());
    const rest = new THREE.Vector3().fromBufferAttribute(character.meshes[0].geometry.attributes.position, 4);
    expect(top.distanceTo(rest)).toBeGreaterThan(0.5); // the bend moved the tip
  });

  it('UE1Loader parses a data + animation pair with its script', async () => {
    const d = await decoder();
    const uc = new TextDecoder().decode(fixture('flag.uc'));
    const character = await new UE1Loader().setDecoder(d).parse(buffer('flag_d.3d'), buffer('flag_a.3d'), uc, 'flag_d.3d', 'flag_a.3d', 'flag.uc');
    expect(character.clips.map((c) => c.name)).toEqual(expect.arrayContaining(['Still', 'Wave']));
  });
});
