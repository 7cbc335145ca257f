import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { App } from '../../web/src/app/app.js';
import { Character } from '../../web/src/three/character.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { describeRecord } from '../../web/src/core/report.js';
import { decode, decoder, fixture, HAVE_SAMPLES, sample, fakeViewer } from './helpers.js';

const appWith = async () => new App(fakeViewer(), await decoder());

// Independent posing: a rotation by `a` radians about +Z around `pivot`.
const rotZ = (p, a, pivot) => {
  const x = p[0] - pivot[0],
    y = p[1] - pivot[1];
  return [pivot[0] + x * Math.cos(a) - y * Math.sin(a), pivot[1] + x * Math.sin(a) + y * Math.cos(a), p[2]];
};
const blend = (parts) => parts.reduce((s, [w, p]) => s.map((v, k) => v + w * p[k]), [0, 0, 0]);

function poseBone(character, name, angle) {
  const bone = character.bones.find((b) => b.userData.sourceName === name);
  bone.quaternion.setFromAxisAngle(new THREE.Vector3(0, 0, 1), angle);
  character.root.updateMatrixWorld(true);
}

describe('PSG fixtures through the WASM module', () => {
  it('matches the skinned box material to its texture arena by GUID', async () => {
    const app = await appWith();
    const report = await app.loadFiles(['skinned_box.psg', 'box_textures.psg'].map((n) => entryFromBytes(n, fixture(n))));
    expect(app.characters).toHaveLength(1);
    const [material] = app.characters[0].materials;
    expect(material.userData.source.guid).toBe('1122334455667788');
    expect(material.map).toBeInstanceOf(THREE.CompressedTexture);
    expect(material.map.format).toBe(THREE.RGBA_S3TC_DXT1_Format);
    expect(material.map.mipmaps.map((m) => m.data.length)).toEqual([2048, 512, 128, 32, 8, 8, 8]);
    // Decoded UVs are (u, 1 − v): compressed textures flip V back through their transform.
    expect([material.map.repeat.y, material.map.offset.y]).toEqual([-1, 1]);
    expect(report.records.map((r) => describeRecord(r))).toContain('box_textures.psg → material material_0 of skinned_box.psg (GUID)');
  });

  it('binds the skinned box to the right bones', async () => {
    const model = await decode('decodePsg', fixture('skinned_box.psg'), 'skinned_box.psg');
    expect(model.skeleton.names).toEqual(['HIPS', 'SPINE', 'SPINE1']);
    const c = new Character(model);
    const a = 0.6,
      b = -0.4;
    poseBone(c, 'SPINE', a);
    poseBone(c, 'SPINE1', b);
    const mesh = c.meshes[0];
    const pos = mesh.geometry.attributes.position;
    const got = new THREE.Vector3();
    for (let v = 0; v < pos.count; v++) {
      const p = [pos.getX(v), pos.getY(v), pos.getZ(v)];
      // y = 0: HIPS only. y = 2: SPINE1 191/255 + SPINE 64/255 (palette [2, 0, 1] resolved).
      const spine = rotZ(p, a, [0, 1, 0]);
      const spine1 = rotZ(rotZ(p, b, [0, 2, 0]), a, [0, 1, 0]);
      const want =
        p[1] < 1
          ? p
          : blend([
              [191 / 255, spine1],
              [64 / 255, spine],
            ]);
      mesh.getVertexPosition(v, got);
      expect(got.distanceTo(new THREE.Vector3(...want))).toBeLessThan(1e-5);
    }
  });

  it('refuses damaged arenas with an error naming the file', async () => {
    const good = fixture('box_textures.psg');
    for (const cut of [16, 0xc0, 300, good.length - 1]) {
      await expect(decode('decodePsg', good.slice(0, cut), 'cut.psg')).rejects.toThrow(/PSG cut\.psg: .{10,}/);
    }
    const bad = good.slice();
    bad.fill(0xff, 0xc0, 0x100);
    await expect(decode('decodePsg', bad, 'bad.psg')).rejects.toThrow(/PSG bad\.psg: .{10,}/);
    // Byte flips anywhere: a model or a clear error, never a crash.
    const model = fixture('skinned_box.psg');
    for (let i = 0; i < model.length; i += 37) {
      const m = model.slice();
      m[i] ^= 0x5a;
      await decode('decodePsg', m, 'flip.psg').catch((err) => expect(err.message).toMatch(/flip\.psg/));
    }
  });

  it('opens a texture arena alone as a row of named textures', async () => {
    const app = await appWith();
    await app.loadFiles([entryFromBytes('box_textures.psg', fixture('box_textures.psg'))]);
    expect(app.characters).toHaveLength(1);
    expect(app.characters[0].textureBoard).toBe(true);
    expect(app.characters[0].attachments.map((a) => a.name)).toEqual(['0x1122334455667788.Texture']);
  });
});

describe.skipIf(!HAVE_SAMPLES)('PSG samples', () => {
  it('textures the sky dome from its arena by GUID', async () => {
    const app = await appWith();
    const files = { 'skybox_night.psg': sample('psg/skybox_night.psg'), 'skybox_textures.psg': sample('psg/skybox_textures.psg') };
    await app.loadFiles(Object.entries(files).map(([n, b]) => entryFromBytes(n, b)));
    expect(app.characters).toHaveLength(1);
    const [material] = app.characters[0].materials;
    const source = material.userData.source;
    expect(source.guid).toBe('0a950eac2dfefc7b'); // the diffuse channel
    expect(material.map).toBe(app.textures.find((r) => r.guid === '0a950eac2dfefc7b').texture);
    expect([material.map.image.width, material.map.image.height]).toEqual([2048, 512]);
    expect(app.textures.length).toBe(3);
  });

  it.each(['f32', 's16'])('skins the synthetic quad (%s) with the palette resolved', async (kind) => {
    const model = await decode('decodePsg', sample(`psg/synthetic/skinned_quad_${kind}.psg`), `skinned_quad_${kind}.psg`);
    const c = new Character(model);
    const a = 0.5,
      b = 0.9;
    poseBone(c, 'HIPS', a);
    poseBone(c, 'SPINE', b);
    // Bind: ROOT (0,0,0), HIPS (0,1,0), SPINE (0,1.5,0) child of HIPS. Palette [0, 2, 1]: slot 1 = SPINE, slot 2 = HIPS.
    const root = (p) => p;
    const hips = (p) => rotZ(p, a, [0, 1, 0]);
    const spine = (p) => rotZ(rotZ(p, b, [0, 1.5, 0]), a, [0, 1, 0]);
    const points = [
      [-0.5, 0, 0],
      [0.5, 0, 0],
      [-0.5, 2, 0],
      [0.5, 2, 0],
    ];
    const want = [
      root(points[0]),
      blend([
        [128 / 255, root(points[1])],
        [127 / 255, hips(points[1])],
      ]),
      blend([
        [200 / 255, spine(points[2])],
        [55 / 255, hips(points[2])],
      ]),
      spine(points[3]),
    ];
    const got = new THREE.Vector3();
    want.forEach((w, v) => {
      c.meshes[0].getVertexPosition(v, got);
      expect(got.distanceTo(new THREE.Vector3(...w))).toBeLessThan(1e-4);
    });
  });
});
