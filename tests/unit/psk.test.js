import { beforeAll, describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { Character } from '../../web/src/three/character.js';
import { decode, fixture, HAVE_SAMPLES, sample } from './helpers.js';
import { bindWorlds, readPsa, readPsk, skinnedWedge, toThree } from './reference/actorx.js';

/** Poses a character at `t` seconds into `clipName` and returns it. */
function pose(character, clipName, t) {
  const clip = character.clips.find((c) => c.name === clipName);
  const action = character.mixer.clipAction(clip.build());
  character.mixer.stopAllAction();
  action.play();
  character.mixer.setTime(t);
  character.root.updateMatrixWorld(true);
  return character;
}

describe('PSK/PSA through the WASM module', () => {
  it('decodes the two-bone fixture and plays its clip', async () => {
    const psk = await decode('decodePsk', fixture('two_bone.psk'), 'two_bone.psk');
    const psa = await decode('decodePsa', fixture('two_bone.psa'), 'two_bone.psa', '');
    expect(psk.format).toBe('psk');
    expect(psk.skeleton.names.length).toBe(2);
    expect(psa.clips.map((c) => c.name)).toEqual(['Bend']);
    const c = new Character(psk);
    const report = c.addAnimation(psa);
    expect(report.matched).toBe(2);
    expect(c.clips[0].build()).toBeInstanceOf(THREE.AnimationClip);
  });

  it('reports a truncated file as an Error naming the file and offset', async () => {
    await expect(decode('decodePsk', fixture('truncated.psk'), 'truncated.psk')).rejects.toThrow(/truncated\.psk.*byte \d+/);
  });

  it('refuses garbage with a clear message', async () => {
    await expect(decode('decodePsk', new Uint8Array([1, 2, 3]), 'tiny.psk')).rejects.toThrow(/PSK tiny\.psk/);
  });
});

describe.skipIf(!HAVE_SAMPLES)('PSK/PSA samples', () => {
  let spiderMesh, spiderAnims, refMesh, refAnims;
  beforeAll(async () => {
    spiderMesh = await decode('decodePsk', sample('psk/skSpiderLargeMesh.psk'), 'skSpiderLargeMesh.psk');
    spiderAnims = await decode('decodePsa', sample('psk/skSpiderLargeAnims.psa'), 'skSpiderLargeAnims.psa', '');
    refMesh = readPsk(sample('psk/skSpiderLargeMesh.psk'));
    refAnims = readPsa(sample('psk/skSpiderLargeAnims.psa'));
  });

  it('decodes the spider with its documented counts', () => {
    expect(spiderMesh.counts).toMatchObject({ points: 266, wedges: 307, faces: 492, materials: 3, bones: 71, influences: 408 });
    expect(spiderAnims.clips.map((c) => [c.name, c.frameCount])).toEqual([
      ['Walk', 21],
      ['walk2jump', 14],
      ['Jump', 19],
      ['jump2walk', 24],
      ['webattack', 72],
      ['lungeAttackStart', 24],
      ['lungeAttack', 24],
      ['lungeAttackend', 13],
      ['flippedOver', 55],
      ['idleOnBack', 50],
      ['Idle', 31],
      ['attack', 21],
    ]);
    expect(spiderAnims.clips.every((c) => c.fps === 30)).toBe(true);
  });

  it('skins the spider at a chosen frame exactly as an independent computation does', () => {
    const c = new Character(spiderMesh);
    const report = c.addAnimation(spiderAnims);
    expect(report.byIndex).toBe(true);
    const seq = refAnims.sequences.find((s) => s.name === 'webattack');
    const frame = 30;
    pose(c, 'webattack', frame / seq.fps);
    const mesh = c.meshes[0];
    const got = new THREE.Vector3();
    let worst = 0;
    for (let w = 0; w < refMesh.wedges.length; w += 7) {
      const want = toThree(skinnedWedge(refMesh, refAnims, seq, frame, w));
      mesh.getVertexPosition(w, got);
      worst = Math.max(worst, got.distanceTo(want));
    }
    const size = new THREE.Box3().setFromBufferAttribute(mesh.geometry.attributes.position).getSize(new THREE.Vector3()).length();
    expect(worst).toBeLessThan(size * 1e-4);
  });

  it('puts bones near their weighted vertices in the bind pose', () => {
    const bind = bindWorlds(refMesh);
    const c = new Character(spiderMesh);
    c.root.updateMatrixWorld(true);
    // Decoded bone world positions match the reference bind pose (converted to Y-up)...
    c.bones.forEach((b, i) => {
      const want = toThree(new THREE.Vector3().setFromMatrixPosition(bind[i]));
      expect(new THREE.Vector3().setFromMatrixPosition(b.matrixWorld).distanceTo(want)).toBeLessThan(1e-3);
    });
    // ...and each weighted bone sits near the centroid of the points it moves (spec: 1-12 units).
    const sums = new Map();
    refMesh.weights.forEach((list, p) =>
      list.forEach(({ w, bone }) => {
        const s = sums.get(bone) ?? { v: new THREE.Vector3(), w: 0 };
        s.v.addScaledVector(new THREE.Vector3(...refMesh.points[p]), w);
        s.w += w;
        sums.set(bone, s);
      }),
    );
    let total = 0;
    for (const [bone, s] of sums) total += new THREE.Vector3().setFromMatrixPosition(bind[bone]).distanceTo(s.v.divideScalar(s.w));
    expect(total / sums.size).toBeLessThan(15);
  });

  it('matches 72 of 89 Grunt animation bones by name and leaves the rest in bind pose', async () => {
    const mesh = await decode('decodePsk', sample('psk/Grunt_Preview_LOD0.psk'), 'Grunt_Preview_LOD0.psk');
    const anim = await decode('decodePsa', sample('psk/grunt_hh_grabplayer_crouch_SEQ0.psa'), 'grunt_hh_grabplayer_crouch_SEQ0.psa', '');
    const c = new Character(mesh);
    const r = c.addAnimation(anim);
    expect(r.matched).toBe(72);
    expect(r.extra.length).toBe(17);
    expect(r.missing.length).toBe(136 - 72);
    expect(anim.clips[0].frameCount).toBe(101);
    expect(anim.clips[0].fps).toBeCloseTo(30.3, 4);
  });
});
