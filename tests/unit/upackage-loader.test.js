// UPackageLoader (`import { UPackageLoader } from 'rigscope'`) in Node: a UE1 package as a Group of
// its meshes, one mesh alone with setMesh, its textures from a .utx given beside it, and a texture
// package alone as textures.
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { readFileSync } from 'node:fs';
import { UPackageLoader } from '../../web/src/index.js';
import { decoder, HAVE_SAMPLES, SAMPLES, sampleServer } from './helpers.js';

const PKG = `${SAMPLES}upackage/`;
const bytes = (name) => new Uint8Array(readFileSync(PKG + name));
const loader = async () => new UPackageLoader().setDecoder(await decoder());

describe.skipIf(!HAVE_SAMPLES)('UPackageLoader', () => {
  it('gives every mesh of a package as a character of one Group, with every clip', async () => {
    const group = await (await loader()).parseAsync(bytes('C4.u'), 'C4.u');
    expect(group).toBeInstanceOf(THREE.Group);
    expect(group.userData.characters.map((c) => c.name)).toEqual(['C4', 'C4Pickup']);
    let skinned = 0;
    group.traverse((o) => (skinned += o.isSkinnedMesh ? 1 : 0));
    expect(skinned).toBe(2);
    // The package's own textures are on the materials, decoded when the characters were built.
    const c4 = group.userData.characters[0];
    const maps = c4.materials.map((m) => m.map?.image?.width ?? 0);
    expect(maps[0]).toBe(512);
  });

  it('setMesh gives one mesh alone, decoding only it, and plays its sequences', async () => {
    const d = await decoder();
    const calls = [];
    const counting = {
      transfersInput: d.transfersInput,
      holdsInputs: d.holdsInputs,
      holdInput: d.holdInput,
      call: (op, args) => (calls.push(op), d.call(op, args)),
    };
    const group = await new UPackageLoader()
      .setDecoder(counting)
      .setMesh('SiegeIV_0032beta9.sg_GL1st')
      .parseAsync(bytes('SiegeIV_0032beta9.u'), 'SiegeIV_0032beta9.u');
    expect(group.userData.characters.map((c) => c.name)).toEqual(['sg_GL1st']);
    // One listing, and one call for the mesh with its three textures (slot 3 is empty): none of the other 114 textures.
    expect(calls).toEqual(['listPackage', 'decodePackageMesh']);
    expect(group.userData.character.materials.filter((m) => m.map).map((m) => m.map.image.width)).toHaveLength(3);
    expect(group.animations.map((a) => a.name)).toEqual(['All', 'DISPENSE', 'Down', 'Fire', 'Reload', 'Select', 'Still', 'Sway']);
    const character = group.userData.character;
    const mesh = character.vertexAnimations[0].mesh;
    const before = mesh.geometry.attributes.position.array.slice();
    const mixer = new THREE.AnimationMixer(group);
    mixer.clipAction(group.animations.find((a) => a.name === 'Reload')).play();
    mixer.setTime(0.4);
    character.update();
    expect(mesh.geometry.attributes.position.array.some((v, i) => Math.abs(v - before[i]) > 1e-4)).toBe(true);
  });

  it('a texture package alone gives an empty Group with its textures; a missing package is a record', async () => {
    const group = await (await loader()).parseAsync(bytes('HPDemoAd.utx'), 'HPDemoAd.utx');
    expect(group.userData.characters).toEqual([]);
    expect(group.userData.textures.map((t) => [t.image.width, t.image.height])).toContainEqual([256, 256]);
    const siege = await (await loader()).setMesh('Constructor').parseAsync(bytes('SiegeIV_0032beta9.u'), 'SiegeIV_0032beta9.u');
    expect(siege.userData.records.filter((r) => r.kind === 'missing').map((r) => r.needs)).toEqual(['Botpack.u or .utx']);
  });
});

describe.skipIf(!HAVE_SAMPLES)('UPackageLoader.load', () => {
  const { served, url: siteUrl } = sampleServer();
  const mesh = (group) => group.userData.character.vertexAnimations[0].mesh.geometry.attributes;

  it('reads a package in parts from a host that answers ranges, and gives what the whole file gives', async () => {
    served.length = 0;
    const url = `${siteUrl('')}/samples/upackage/SiegeIV_0032beta9.u`;
    const parts = await (await loader()).setMesh('sg_GL1st').loadAsync(url);
    const read = served.reduce((n, s) => n + s.bytes, 0);
    expect(served.length).toBeGreaterThanOrEqual(3);
    expect(read).toBeLessThan(4114609 / 5);
    served.length = 0;
    const whole = await (await loader()).setMesh('sg_GL1st').loadAsync(`${url}?whole`);
    // Once: the tail's request is ended when the head's answer is the whole file.
    await expect.poll(() => served.map((s) => s.sent).sort()).toEqual([false, true]);
    expect(parts.userData.characters.map((c) => c.name)).toEqual(['sg_GL1st']);
    expect(parts.animations.map((a) => a.name)).toEqual(whole.animations.map((a) => a.name));
    expect(mesh(parts).position.array).toEqual(mesh(whole).position.array);
    expect(mesh(parts).uv.array).toEqual(mesh(whole).uv.array);
    const maps = (g) => g.userData.character.materials.map((m) => m.map?.image?.data ?? null);
    expect(maps(parts)).toEqual(maps(whole));
  });
});
