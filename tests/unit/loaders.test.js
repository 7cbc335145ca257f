// The three.js loaders other apps import (`import { PSKLoader } from 'rigscope'`), in Node: the
// same classes as in the browser, decoding through the synchronous WASM host instead of workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { createServer } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { PMDLoader, PSALoader, PSKLoader, PSSALoader, UE1Loader, bindClips } from '../../web/src/index.js';
import { buildGeometry, buildMaterial, buildMaterials, buildSkeleton, restInverses, uniqueNodeNames } from '../../web/src/three/build.js';
import { FIXTURES, HAVE_SAMPLES, decode, fixture, joinBytes, pskChunk, sample } from './helpers.js';

const buffer = (name) => {
  const b = fixture(name);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
};

/** Where vertex 4 (the tip of two_bone's upper bone) is at `t` seconds into `clip` on `group`. */
function tipAt(group, clip, t) {
  const mixer = new THREE.AnimationMixer(group);
  mixer.clipAction(clip).play();
  mixer.setTime(t);
  group.updateMatrixWorld(true);
  let mesh = null;
  group.traverse((o) => {
    if (o.isSkinnedMesh) mesh = o;
  });
  return mesh.getVertexPosition(4, new THREE.Vector3());
}

let server, base;
const requests = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url);
    const file = `${FIXTURES}${decodeURIComponent(req.url.slice(1))}`;
    if (!existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}/`;
});
afterAll(() => server.close());

describe('mesh loaders resolve to a Group with .animations, like FBXLoader', () => {
  it('PSKLoader: a PSK with its PSA is one Group whose clip bends the mesh', async () => {
    const group = await new PSKLoader().parseAsync({ 'two_bone.psk': buffer('two_bone.psk'), 'two_bone.psa': buffer('two_bone.psa') });
    expect(group).toBeInstanceOf(THREE.Group);
    expect(group.animations.map((a) => [a.name, a.tracks.length])).toEqual([['Bend', 4]]);
    expect(group.userData.character.name).toBe('two_bone.psk');
    expect(group.userData.records).toContainEqual(expect.objectContaining({ kind: 'bound', files: ['two_bone.psa', 'two_bone.psk'] }));
    const rest = tipAt(group, group.animations[0], 0);
    const bent = tipAt(group, group.animations[0], 0.2);
    expect(bent.distanceTo(rest)).toBeGreaterThan(0.5);
    // The Character stays reachable but out of JSON: the Group serialises as a three.js object.
    expect(() => JSON.stringify(group.toJSON())).not.toThrow();
  });

  it('load() brackets the LoadingManager: onLoad fires after the last decode, not after the fetches', async () => {
    const events = [];
    const manager = new THREE.LoadingManager(() => events.push('manager onLoad'));
    manager.onProgress = (url, loaded, total) => events.push(`progress ${loaded}/${total}`);
    const mesh = new PSKLoader(manager).setPath(base);
    const done = new Promise((resolve) => {
      manager.onLoad = () => {
        events.push('manager onLoad');
        resolve();
      };
    });
    mesh.load('two_bone.psk', (g) => events.push(`mesh ${g.userData.character.name}`));
    new PMDLoader(manager).setPath(base).load('arm.pmd', (g) => events.push(`mesh ${g.userData.character.name}`));
    await done;
    expect(events.at(-1)).toBe('manager onLoad');
    expect(events.filter((e) => e.startsWith('mesh')).sort()).toEqual(['mesh arm.pmd', 'mesh two_bone.psk']);
    expect(events.indexOf('mesh two_bone.psk')).toBeLessThan(events.indexOf('manager onLoad'));
    expect(events.indexOf('mesh arm.pmd')).toBeLessThan(events.indexOf('manager onLoad'));
  });

  it('load() reports a failed fetch through onError and itemError, and the manager still completes', async () => {
    const errors = [];
    const manager = new THREE.LoadingManager();
    manager.onError = (url) => errors.push(`manager ${url.split('/').pop()}`);
    const finished = new Promise((resolve) => {
      manager.onLoad = resolve;
    });
    new PSKLoader(manager).setPath(base).load(
      'nothing-here.psk',
      () => errors.push('loaded?!'),
      undefined,
      () => errors.push('onError'),
    );
    await finished;
    expect(errors.sort()).toEqual(['manager nothing-here.psk', 'manager nothing-here.psk', 'onError']);
  });

  it('UE1Loader.load() fetches the _a.3d beside the _d.3d (the family names it) and plays its sequences', async () => {
    requests.length = 0;
    const group = await new UE1Loader().setPath(base).loadAsync(['flag_d.3d', 'flag.uc']);
    expect(requests.sort()).toEqual(['/flag.uc', '/flag_a.3d', '/flag_d.3d']);
    expect(group.animations.map((a) => a.name)).toEqual(expect.arrayContaining(['Still', 'Wave']));
    // A plain mixer drives the vertex frame; the character writes it into the geometry.
    const character = group.userData.character;
    const mesh = character.vertexAnimations[0].mesh;
    const mixer = new THREE.AnimationMixer(group);
    mixer.clipAction(group.animations.find((a) => a.name === 'Wave')).play();
    const before = mesh.geometry.attributes.position.array.slice();
    mixer.setTime(0.3);
    character.update();
    expect(mesh.vertexFrame).toBeGreaterThan(0);
    expect(mesh.geometry.attributes.position.array.some((v, i) => Math.abs(v - before[i]) > 1e-3)).toBe(true);
  });

  it('parse(data, path, onLoad, onError) takes callbacks and never sends them to the decoder', async () => {
    const group = await new Promise((resolve, reject) => new PSKLoader().parse(buffer('two_bone.psk'), 'two_bone.psk', resolve, reject));
    expect(group.userData.character.meshes[0]).toBeInstanceOf(THREE.SkinnedMesh);
    // DRACOLoader's parse(data, onLoad, onError) form.
    const again = await new Promise((resolve, reject) => new PSKLoader().parse(buffer('two_bone.psk'), resolve, reject));
    expect(again.animations).toEqual([]);
  });

  it('refuses a file of another kind, naming the file and what it holds', async () => {
    await expect(new PSKLoader().parseAsync(buffer('two_bone.psa'), 'two_bone.psa')).rejects.toThrow(
      'PSKLoader: two_bone.psa holds an animation (Unreal ActorX), not a mesh (Unreal ActorX)',
    );
    await expect(new PMDLoader().parseAsync(buffer('two_bone.psk'), 'two_bone.psk')).rejects.toThrow('not a mesh (0 A.D.)');
    await expect(new PSKLoader().parseAsync(buffer('truncated.psk'), 'truncated.psk')).rejects.toThrow(
      /truncated\.psk.*FACE0000.*at byte \d+/,
    );
  });
});

describe('mesh loaders and levels of detail', () => {
  // build/fixtures/lod_export: UE Viewer's X, X_Lod1… of one body part (vertices 26, 14, 8, 4).
  const BODY = 'lod_export/ueviewer/Characters/Male/Bodies/SK_MaleBase_01_Body';
  const levels = () =>
    Object.fromEntries(
      [0, 1, 2, 3].map((l) => [`SK_MaleBase_01_Body${l ? `_Lod${l}` : ''}.psk`, buffer(`${BODY}${l ? `_Lod${l}` : ''}.psk`)]),
    );
  const meshesOf = (group) => {
    const out = [];
    group.traverse((o) => {
      if (o.isMesh) out.push([o.name, o.geometry.attributes.position.count]);
    });
    return out;
  };

  it('show LOD0 by default, the level setLod(n) names, or every level with setLod("all")', async () => {
    expect(meshesOf(await new PSKLoader().parseAsync(levels())).map(([, n]) => n)).toEqual([26]);
    const loader = new PSKLoader();
    expect(loader.setLod(2)).toBe(loader);
    expect(meshesOf(await loader.parseAsync(levels())).map(([, n]) => n)).toEqual([8]);
    // A level past the coarsest shows the coarsest.
    expect(meshesOf(await new PSKLoader().setLod(9).parseAsync(levels())).map(([, n]) => n)).toEqual([4]);
    const all = meshesOf(await new PSKLoader().setLod('all').parseAsync(levels()));
    expect(all.map(([, n]) => n).sort((a, b) => a - b)).toEqual([4, 8, 14, 26]);
    expect(all.map(([name]) => name)).toContain('SK_MaleBase_01_Body LOD3');
  });

  it('load() fetches the levels given as URLs and shows the level asked for', async () => {
    const urls = [0, 1, 2, 3].map((l) => `${base}${BODY}${l ? `_Lod${l}` : ''}.psk`);
    expect(meshesOf(await new PSKLoader().setLod(1).loadAsync(urls)).map(([, n]) => n)).toEqual([14]);
  });

  it('setLod refuses what is not a level', () => {
    for (const bad of [-1, 1.5, '2', 'ALL', null, NaN])
      expect(() => new PSKLoader().setLod(/** @type {any} */ (bad)), String(bad)).toThrow(RangeError);
  });
});

describe('animation loaders resolve to AnimationClip[]', () => {
  it('PSALoader.setTarget(group): clips bound to the mesh by bone name', async () => {
    const group = await new PSKLoader().parseAsync(buffer('two_bone.psk'), 'two_bone.psk');
    const clips = await new PSALoader().setTarget(group).parseAsync(buffer('two_bone.psa'), 'two_bone.psa');
    expect(clips).toHaveLength(1);
    expect(clips[0]).toBeInstanceOf(THREE.AnimationClip);
    expect(tipAt(group, clips[0], 0.2).distanceTo(tipAt(group, clips[0], 0))).toBeGreaterThan(0.5);
  });

  it("without a target the clips use the file's bone names; bindClips() binds them in one line", async () => {
    const group = await new PSKLoader().parseAsync(buffer('two_bone.psk'), 'two_bone.psk');
    const own = await new PSALoader().parseAsync(buffer('two_bone.psa'), 'two_bone.psa');
    expect(own[0].tracks.map((t) => t.name)).toEqual(['Root.position', 'Root.quaternion', 'Bone1.position', 'Bone1.quaternion']);
    const bound = bindClips(own, group);
    expect(tipAt(group, bound[0], 0.2).distanceTo(tipAt(group, own[0], 0.2))).toBeLessThan(1e-5);
    // Any skeleton: a plain three.js SkinnedMesh's bones by name.
    const bones = group.userData.character.bones.map((b) => Object.assign(new THREE.Bone(), { name: b.name }));
    expect(bindClips(own, new THREE.Skeleton(bones))[0].tracks).toHaveLength(4);
    expect(() => bindClips([new THREE.AnimationClip('x', 1, [])], group)).toThrow('was not made by a Rigscope animation loader');
  });

  it('PSSALoader binds by bone index and count, and refuses a skeleton of another size', async () => {
    const arm = await new PMDLoader().parseAsync(buffer('arm.pmd'), 'arm.pmd');
    const clips = await new PSSALoader().setTarget(arm).parseAsync(buffer('arm_wave.psa'), 'arm_wave.psa');
    expect(clips.map((c) => c.name)).toEqual(['arm_wave']);
    const two = await new PSKLoader().parseAsync(buffer('two_bone.psk'), 'two_bone.psk');
    await expect(new PSSALoader().setTarget(two).parseAsync(buffer('arm_wave.psa'), 'arm_wave.psa')).rejects.toThrow(
      'arm_wave.psa: 3 bones, two_bone.psk has 2',
    );
  });
});

describe('decoder pools', () => {
  it("dispose() of one loader leaves another loader's decodes running", async () => {
    const a = new PSKLoader();
    const b = new PSKLoader();
    const pendingB = b.parseAsync(buffer('two_bone.psk'), 'two_bone.psk');
    const pendingA = a.parseAsync(buffer('two_bone.psk'), 'two_bone.psk');
    a.dispose();
    await expect(pendingA).rejects.toThrow('Decoder pool disposed');
    expect((await pendingB).userData.character.name).toBe('two_bone.psk');
  });
});

// What a loader builds after the decode (issue #20) is made with less work than before; these
// check it is the same: each against the way it used to be made, or against three's own.
describe('the objects a loader builds are the ones three makes', () => {
  /** How unlit materials were made before: a lit one built, its settings copied to a MeshBasicMaterial. */
  const SHARED_KEYS = [
    'name',
    'side',
    'visible',
    'alphaTest',
    'transparent',
    'blending',
    'blendSrc',
    'blendDst',
    'blendEquation',
    'depthWrite',
    'premultipliedAlpha',
  ];
  function copiedUnlit(m, i) {
    const std = buildMaterial(m, i);
    const basic = new THREE.MeshBasicMaterial();
    for (const k of SHARED_KEYS) basic[k] = std[k];
    basic.color.copy(std.color);
    basic.userData = std.userData;
    return basic;
  }
  const json = (material) => {
    const { uuid, ...rest } = material.toJSON();
    return { ...rest, version: material.version, shaderChange: !!material.onBeforeCompile.toString().includes('playerColor') };
  };

  it('unlit and modulated materials: a MeshBasicMaterial with every setting the lit one had', () => {
    const decoded = [
      { name: 'sky', unlit: true, twoSided: true, blend: 'opaque' },
      { name: 'glass', unlit: true, blend: 'translucent', hidden: true },
      { name: 'shadow', blend: 'modulated' },
      { name: 'fence', unlit: true, blend: 'masked', flat: true },
      { name: 'banner', unlit: true, blend: 'opaque', playerColor: true },
      { name: 'body', blend: 'opaque', playerColor: true, flat: true },
    ].map((m) => ({ textureNames: [], ...m }));
    const built = buildMaterials(decoded);
    decoded.forEach((m, i) => {
      const before = m.unlit || m.blend === 'modulated' ? copiedUnlit(m, i) : buildMaterial(m, i);
      expect(built[i].constructor, m.name).toBe(before.constructor);
      expect(json(built[i]), m.name).toEqual(json(before));
      expect(built[i].userData.source).toBe(m);
    });
    expect(built.map((m) => m.type)).toEqual([
      'MeshBasicMaterial',
      'MeshBasicMaterial',
      'MeshBasicMaterial',
      'MeshBasicMaterial',
      'MeshBasicMaterial',
      'MeshStandardMaterial',
    ]);
    expect(built[4].userData.playerColor.value.getHex()).toBe(0x2a5bd7);
  });

  it("bone names are what sanitizeNodeName makes of them, unique whatever the case, the file's own kept", () => {
    const long = `${'Bip01 Spine '.repeat(8)}[end]`;
    const names = ['Bip01', 'Bip01 Head', 'bip01', 'a.b', 'arm[0]', 'x:y/z', '', 'BIP01', 'Bip01\tHead', 'ok_name', long, long];
    const before = (list) => {
      const seen = new Map();
      return list.map((raw, i) => {
        let n = THREE.PropertyBinding.sanitizeNodeName(String(raw ?? '')) || `bone_${i}`;
        const count = seen.get(n.toLowerCase()) ?? 0;
        seen.set(n.toLowerCase(), count + 1);
        if (count > 0) n = `${n}_${count + 1}`;
        return n;
      });
    };
    expect(uniqueNodeNames(names)).toEqual(before(names));
    expect(uniqueNodeNames(names)).toEqual([
      'Bip01',
      'Bip01_Head',
      'bip01_2',
      'ab',
      'arm0',
      'xyz',
      'bone_6',
      'BIP01_3',
      'Bip01_Head_2',
      'ok_name',
      `${'Bip01_Spine_'.repeat(8)}end`,
      `${'Bip01_Spine_'.repeat(8)}end_2`,
    ]);
    // Names seen before (remembered, or too long to remember) come out alike.
    expect(uniqueNodeNames(names)).toEqual(before(names));
    const skel = {
      names,
      parents: Int32Array.from(names, (_, i) => i - 1),
      restTranslation: new Float32Array(names.length * 3).fill(1),
      restRotation: Float32Array.from({ length: names.length * 4 }, (_, k) => (k % 4 === 3 ? 1 : 0)),
    };
    const { bones, roots } = buildSkeleton(skel);
    expect(bones.map((b) => b.userData.sourceName)).toEqual(names);
    expect(bones.map((b) => b.userData.index)).toEqual(names.map((_, i) => i));
    expect(roots).toEqual([bones[0]]);
    expect(bones.slice(1).every((b, i) => b.parent === bones[i])).toBe(true);
  });

  it("a morphing mesh's bounds: the decoder measures the numbers three's computeBoundingBox and computeBoundingSphere make", async () => {
    // 100 points, each its own wedge, 33 faces; one target reaching out, one pulling in, one with a
    // single point moved far, and a copy with a NaN delta, which three must measure itself.
    const wave = (i, scale, seed) => Math.sin(i * 12.9898 + seed) * scale;
    const morphPsk = (targets) =>
      joinBytes([
        pskChunk('ACTRHEAD', 0, 0),
        pskChunk('PNTS0000', 12, 100, (v, at, i) => [0, 1, 2].forEach((k) => v.setFloat32(at + 4 * k, wave(3 * i + k, 2, 1), true))),
        pskChunk('VTXW0000', 16, 100, (v, at, i) => v.setUint32(at, i, true)),
        pskChunk('FACE0000', 12, 33, (v, at, f) => [0, 1, 2].forEach((k) => v.setUint16(at + 2 * k, 3 * f + k, true))),
        pskChunk('MATT0000', 88, 1),
        pskChunk('REFSKELT', 120, 1, (v, at) => v.setFloat32(at + 88, 1, true)),
        pskChunk('RAWWEIGHTS', 12, 100, (v, at, i) => (v.setFloat32(at, 1, true), v.setUint32(at + 4, i, true))),
        pskChunk('MRPHINFO', 68, targets.length, (v, at, t) => {
          [...targets[t].name].forEach((c, k) => v.setUint8(at + k, c.charCodeAt(0)));
          v.setInt32(at + 64, 100, true);
        }),
        pskChunk('MRPHDATA', 28, 100 * targets.length, (v, at, r) => {
          const point = r % 100;
          [0, 1, 2].forEach((k) => v.setFloat32(at + 4 * k, targets[Math.floor(r / 100)].delta(point, k), true));
          v.setUint32(at + 24, point, true);
        }),
      ]);
    const targets = [
      { name: 'out', delta: (i, k) => Math.abs(wave(3 * i + k, 0.5, 2)) },
      { name: 'in', delta: (i, k) => -Math.abs(wave(3 * i + k, 0.3, 3)) },
      { name: 'one', delta: (i) => (i === 7 ? 9 : 0) },
    ];
    const bytes = morphPsk(targets);
    const [mesh] = (await decode('decodePsk', bytes, 'morphs.psk')).meshes;
    expect(mesh.morphs.map((m) => m.name)).toEqual(['out', 'in', 'one']);
    expect(mesh.morphedBounds).toBeDefined();
    const g = buildGeometry(mesh);
    const own = g.clone();
    own.computeBoundingBox();
    own.computeBoundingSphere();
    expect(g.boundingBox.min.toArray()).toEqual(own.boundingBox.min.toArray());
    expect(g.boundingBox.max.toArray()).toEqual(own.boundingBox.max.toArray());
    expect(g.boundingSphere.center.toArray()).toEqual(own.boundingSphere.center.toArray());
    expect(g.boundingSphere.radius).toBe(own.boundingSphere.radius);
    // The targets count: the far point of the third reaches past the rest pose's sphere.
    expect(g.boundingSphere.radius).toBeGreaterThan(mesh.bounds.radius + 1);
    // Through the loader too: the geometry it builds carries the decoder's numbers.
    const group = await new PSKLoader().parseAsync(bytes, 'morphs.psk');
    expect(group.userData.character.meshes[0].geometry.boundingSphere.radius).toBe(own.boundingSphere.radius);

    // A NaN in a target: the decoder gives no numbers, and three measures as it would.
    const nan = await decode('decodePsk', morphPsk([...targets, { name: 'nan', delta: (i) => (i === 3 ? NaN : 0) }]), 'nan.psk');
    expect(nan.meshes[0].morphedBounds).toBeUndefined();
    const measured = buildGeometry(nan.meshes[0]);
    const byThree = measured.clone();
    byThree.computeBoundingSphere();
    expect(Number.isNaN(measured.boundingSphere.radius)).toBe(Number.isNaN(byThree.boundingSphere.radius));
  });

  it.skipIf(!HAVE_SAMPLES)(
    'every sample skeleton: bind inverses and rest pose as three computes them, bounds as three measures them',
    async () => {
      const files = [
        'psk/skSpiderLargeMesh.psk',
        'psk/Grunt_Preview_LOD0.psk',
        'psk/Shrek.psk',
        'psk/Slurp_Monster_Axe_LOD0.psk',
        'zeroad/skeleton.pmd',
        'zeroad/rich-man.pmd',
      ];
      for (const file of files) {
        const Loader = file.endsWith('.pmd') ? PMDLoader : PSKLoader;
        const group = await new Loader().parseAsync(sample(file), file.split('/').pop());
        const character = group.userData.character;
        const { skeleton } = character;
        // Three's own: a Skeleton given no inverses computes them from the bones' world matrices.
        const own = new THREE.Skeleton(skeleton.bones);
        expect(skeleton.boneInverses.length, file).toBe(skeleton.bones.length);
        skeleton.boneInverses.forEach((m, i) => expect(m.elements, `${file} bone ${i}`).toEqual(own.boneInverses[i].elements));
        // And from the decoded arrays alone, without Bones.
        const fromArrays = restInverses(character.scene.skeleton);
        skeleton.boneInverses.forEach((m, i) => m.elements.forEach((v, k) => expect(v).toBeCloseTo(fromArrays[i].elements[k], 4)));
        for (const mesh of character.meshes) {
          const box = mesh.geometry.boundingBox.clone();
          const sphere = mesh.geometry.boundingSphere.clone();
          if (mesh.geometry.morphAttributes.position) {
            // A morphing mesh's bounds are three's own numbers (the decoder's morphedBounds).
            mesh.geometry.computeBoundingSphere();
            expect(sphere.center.toArray(), file).toEqual(mesh.geometry.boundingSphere.center.toArray());
            expect(sphere.radius, file).toBe(mesh.geometry.boundingSphere.radius);
          }
          mesh.geometry.computeBoundingBox();
          expect(box.min.toArray(), file).toEqual(mesh.geometry.boundingBox.min.toArray());
          expect(box.max.toArray(), file).toEqual(mesh.geometry.boundingBox.max.toArray());
          // The decoder's sphere holds every vertex.
          const p = mesh.geometry.attributes.position;
          const v = new THREE.Vector3();
          let reach = 0;
          for (let i = 0; i < p.count; i++) reach = Math.max(reach, v.fromBufferAttribute(p, i).distanceTo(sphere.center));
          expect(reach, file).toBeLessThanOrEqual(sphere.radius * (1 + 1e-6));
        }
        // The mixer is made when first asked for, on the character's root, once.
        expect(character.mixer).toBeInstanceOf(THREE.AnimationMixer);
        expect(character.mixer.getRoot()).toBe(character.root);
        expect(character.mixer).toBe(character.mixer);
      }
    },
  );
});
