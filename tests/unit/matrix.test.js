// The product matrix: one row per family, each dropped as a folder is, through the scene
// (`rigscope scene --json` facts), the GLB export (Khronos validator, re-import with three's
// GLTFLoader: joints, clips, morphs, names) and the pose and UVs at a chosen frame compared with
// what the viewer shows.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as THREE from 'three';
import { validateBytes } from 'gltf-validator';
import { buildScene } from '../../web/cli/convert.js';
import { sceneToJSON } from '../../web/src/core/scene.js';
import { exportGLB } from '../../web/src/three/export.js';
import { decoder, FIXTURES, glbJson, HAVE_SAMPLES, positions, reimport, SAMPLES } from './helpers.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const cli = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
const scratch = () => mkdtempSync(join(tmpdir(), 'rigscope-matrix-'));
const S = SAMPLES;

/** The viewer's pose of a character at `time` in `clipName` (loop as the clip says). */
function viewerPose(character, clipName, time) {
  const clip = character.clips.find((c) => c.name === clipName);
  character.mixer.stopAllAction();
  clip.select(clip.loop);
  character.mixer.clipAction(clip.build(clip.loop)).play();
  character.mixer.setTime(time);
  character.update();
  character.root.updateMatrixWorld(true);
  return character.meshes.map(positions);
}

/** The re-imported GLB's pose at `time` in the animation of that name. */
function gltfPose(gltf, clipName, time) {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const clip = gltf.animations.find((a) => a.name === clipName);
  if (clip) mixer.clipAction(clip).play();
  mixer.setTime(time);
  gltf.scene.updateMatrixWorld(true);
  const meshes = [];
  gltf.scene.traverse((o) => {
    if (o.isMesh) meshes.push(o);
  });
  return meshes.map(positions);
}

function sizeOf(sets) {
  const box = new THREE.Box3();
  for (const p of sets) for (let i = 0; i < p.length; i += 3) box.expandByPoint(new THREE.Vector3(p[i], p[i + 1], p[i + 2]));
  return box.getSize(new THREE.Vector3()).length();
}

/** Every re-imported mesh equals one of the viewer's meshes, vertex for vertex, within 1e-5 of the size. */
function expectSamePose(viewer, imported) {
  const tolerance = 1e-5 * sizeOf(viewer);
  expect(imported.length).toBeGreaterThan(0);
  for (const p of imported) {
    const errors = viewer
      .filter((q) => q.length === p.length)
      .map((q) => {
        let worst = 0;
        for (let i = 0; i < p.length; i++) worst = Math.max(worst, Math.abs(p[i] - q[i]));
        return worst;
      });
    expect(errors.length).toBeGreaterThan(0);
    expect(Math.min(...errors)).toBeLessThanOrEqual(tolerance);
  }
}

/** Converts through the scene, validates, re-imports, and compares the pose at `time` of `clipName`. */
async function roundTrip(paths, { clipName, time, joints, clips, morphs = 0 }) {
  const d = await decoder();
  const { scene, characters } = await buildScene(paths, d);
  const { glb, problems } = await exportGLB(characters, { decoder: d });
  expect(problems).toEqual([]);
  const report = await validateBytes(new Uint8Array(glb));
  expect(report.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
  const json = glbJson(glb);
  const gltf = await reimport(glb);
  expect(gltf.animations.map((a) => a.name).sort()).toEqual([...clips].sort());
  expect((json.skins ?? []).map((s) => s.joints.length)).toEqual(joints);
  let morphTargets = 0;
  gltf.scene.traverse((o) => {
    if (o.isMesh && o.morphTargetInfluences) morphTargets = Math.max(morphTargets, o.morphTargetInfluences.length);
  });
  expect(morphTargets).toBe(morphs);
  if (clipName) {
    const target = characters.find((c) => c.clips.some((k) => k.name === clipName));
    const viewer = characters.flatMap((c) => (c === target ? viewerPose(c, clipName, time) : c.meshes.map(positions)));
    expectSamePose(viewer, gltfPose(gltf, clipName, time));
  }
  return { scene, json: sceneToJSON(scene), glbJson: json, gltf, characters };
}

describe('product matrix: Unreal PSK + PSA + .config', () => {
  it("binds the animation with its sidecar, exports the file's UVs and bone names, poses match", async () => {
    const dir = scratch();
    copyFileSync(`${FIXTURES}two_bone.psk`, join(dir, 'two_bone.psk'));
    copyFileSync(`${FIXTURES}two_bone.psa`, join(dir, 'two_bone.psa'));
    writeFileSync(join(dir, 'two_bone.config'), '[AnimSet]\nbAnimRotationOnly=0\n');
    const { json, glbJson: g, gltf } = await roundTrip([dir], { clipName: 'Bend', time: 0.15, joints: [2], clips: ['Bend'] });
    expect(json.characters).toHaveLength(1);
    expect(json.characters[0]).toMatchObject({
      name: 'two_bone.psk',
      meshes: [join(dir, 'two_bone.psk')],
      skeleton: { bones: 2 },
      animations: [
        {
          file: join(dir, 'two_bone.psa'),
          bound: { matched: 2, total: 2, by: 'name' },
          clips: [{ name: 'Bend', frames: 3, fps: 10, loop: true, notifies: [] }],
        },
      ],
    });
    expect(json.unused).toEqual([]);
    expect(json.refused).toEqual([]);
    // The file's UVs: point i has ((x + 1) / 2, z / 20), top-left origin, as glTF wants them.
    let mesh;
    gltf.scene.traverse((o) => {
      if (o.isSkinnedMesh) mesh = o;
    });
    const uv = mesh.geometry.attributes.uv;
    const pos = mesh.geometry.attributes.position;
    for (let i = 0; i < uv.count; i++) {
      expect(uv.getX(i)).toBeCloseTo((pos.getX(i) + 1) / 2, 6);
      expect(uv.getY(i)).toBeCloseTo(pos.getY(i) / 20, 6);
    }
    expect(g.nodes.map((n) => n.name)).toEqual(expect.arrayContaining(['Root', 'Bone1']));
    // A looping clip ends with the wrap key one frame after its last: 4 keys for 3 frames.
    expect(g.accessors[g.animations[0].samplers[0].input].count).toBe(4);
  });

  it.skipIf(!HAVE_SAMPLES)("keeps the spider's duplicate and spaced bone names, and its pose at webattack frame 30", async () => {
    const { glbJson: g } = await roundTrip([`${S}psk/skSpiderLargeMesh.psk`, `${S}psk/skSpiderLargeAnims.psa`], {
      clipName: 'webattack',
      time: 1.0,
      joints: [71],
      clips: [
        'Walk',
        'walk2jump',
        'Jump',
        'jump2walk',
        'webattack',
        'lungeAttackStart',
        'lungeAttack',
        'lungeAttackend',
        'flippedOver',
        'idleOnBack',
        'Idle',
        'attack',
      ],
    });
    const names = g.skins[0].joints.map((j) => g.nodes[j].name);
    expect(names.filter((n) => n === 'bip01 Head')).toHaveLength(2);
    expect(names).toContain('bip01 L Toe0');
  });

  it.skipIf(!HAVE_SAMPLES)('exports morph targets (Slurp) and a partial match (Grunt, 72 of 89 bones)', async () => {
    await roundTrip([`${S}psk/Slurp_Monster_Axe_LOD0.psk`], { joints: [4], clips: [], morphs: 5 });
    const { json } = await roundTrip([`${S}psk/Grunt_Preview_LOD0.psk`, `${S}psk/grunt_hh_grabplayer_crouch_SEQ0.psa`], {
      clipName: 'grunt_hh_grabplayer_crouch',
      time: 1.2,
      joints: [136],
      clips: ['grunt_hh_grabplayer_crouch'],
    });
    expect(json.characters[0].animations[0].bound).toEqual({ matched: 72, total: 89, by: 'name' });
  });
});

describe('product matrix: a head, body and armour in any order', () => {
  const parts = ['knight_head.psk', 'knight_body.psk', 'knight_armour.psk'];
  const orders = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
  ];
  it.each(orders)("order %i %i %i makes one character on the head's skeleton", async (...order) => {
    const paths = [...order.map((i) => `${FIXTURES}${parts[i]}`), `${FIXTURES}knight.psa`];
    const { json, characters } = await roundTrip(paths, { clipName: 'Nod', time: 0.3, joints: [4, 3, 2], clips: ['Nod'] });
    expect(json.characters).toHaveLength(1);
    expect(json.characters[0].meshes).toEqual(parts.map((p) => `${FIXTURES}${p}`));
    expect(json.characters[0].animations[0].bound).toEqual({ matched: 4, total: 4, by: 'name' });
    // The armour rides the spine: at frame 2 (40°) its top edge has turned with it.
    const [, , armour] = viewerPose(characters[0], 'Nod', 0.25);
    const top = new THREE.Vector3(armour[6], armour[7], armour[8]);
    const a = (40 * Math.PI) / 180;
    // Rest (3.5, 12, 0.5): 7 above the spine at y 5 and 0.5 in front, turned about +X.
    expect(
      top.distanceTo(new THREE.Vector3(3.5, 5 + 7 * Math.cos(a) - 0.5 * Math.sin(a), 7 * Math.sin(a) + 0.5 * Math.cos(a))),
    ).toBeLessThan(1e-4);
  });
});

describe('product matrix: 0 A.D.', () => {
  it('binds each animation to its one best model, lists the mismatch once, reads archive names', async () => {
    const dir = scratch();
    copyFileSync(`${FIXTURES}arm.pmd`, join(dir, 'arm.dae.cached.pmd'));
    copyFileSync(`${FIXTURES}arm_wave.psa`, join(dir, 'arm_wave.dae.cached.psa'));
    copyFileSync(`${FIXTURES}arm_bad.psa`, join(dir, 'arm_bad.psa'));
    copyFileSync(`${FIXTURES}old_v1.pmd`, join(dir, 'old_v1.pmd'));
    const { json } = await roundTrip([dir], { clipName: 'arm_wave', time: 0.3, joints: [3, 2], clips: ['arm_wave'] });
    const arm = json.characters.find((c) => c.name === 'arm.dae.cached.pmd');
    expect(arm.animations.map((a) => a.file)).toEqual([join(dir, 'arm_wave.dae.cached.psa')]);
    expect(json.unbound).toEqual([
      { file: join(dir, 'arm_bad.psa'), reason: '4 bones, arm.dae.cached.pmd has 3', best: join(dir, 'arm.dae.cached.pmd') },
    ]);
    const r = cli('inspect', join(dir, 'arm.dae.cached.pmd'), join(dir, 'arm_wave.dae.cached.psa'), '--json');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).map((x) => [x.format, x.boundTo])).toEqual([
      ['pmd', undefined],
      ['pssa', join(dir, 'arm.dae.cached.pmd')],
    ]);
  });

  it.skipIf(!HAVE_SAMPLES)('plays skeleton_idle on skeleton.pmd; rich-man (25 bones) takes no 29-bone animation', async () => {
    const z = `${S}zeroad/`;
    const { json } = await roundTrip([`${z}skeleton.pmd`, `${z}skeleton_idle.psa`, `${z}rich-man.pmd`], {
      clipName: 'skeleton_idle',
      time: 2.0,
      joints: [25, 29],
      clips: ['skeleton_idle'],
    });
    expect(json.characters.map((c) => [c.name, c.animations.map((a) => a.clips[0].name)])).toEqual([
      ['rich-man.pmd', []],
      ['skeleton.pmd', ['skeleton_idle']],
    ]);
    expect(json.unbound).toEqual([]);
  });
});

describe('product matrix: Unreal Engine 1', () => {
  it('pairs data, animation and script; notify markers and textures by script slot; morph GLB matches', async () => {
    const { json } = await roundTrip(
      ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((f) => `${FIXTURES}${f}`),
      {
        clipName: 'Wave',
        time: 0.2,
        joints: [],
        clips: ['Still', 'Wave'],
        morphs: 24,
      },
    );
    const [flag] = json.characters;
    expect(flag.animations[0].file).toBe(`${FIXTURES}flag_a.3d`);
    const wave = flag.animations[0].clips.find((c) => c.name === 'Wave');
    expect(wave.notifies).toEqual([{ time: expect.any(Number), name: 'Flap' }]);
    expect(wave.notifies[0].time).toBeCloseTo((0.5 * wave.frames) / wave.fps, 5);
    expect(flag.materials.filter((m) => m.texture)).toEqual([
      expect.objectContaining({ texture: `${FIXTURES}flag.pcx`, rule: 'script slot' }),
    ]);
  });

  it.skipIf(!HAVE_SAMPLES)('opens the trashbag mod folder: every mesh with its script, textured, nothing refused', async () => {
    const r = cli('scene', `${S}vertex3d/trashbag`, '--json');
    const json = JSON.parse(r.stdout);
    expect(json.characters.map((c) => c.name).sort()).toEqual([
      'BoozeDeco2_d.3d',
      'Hamburger01_d.3d',
      'coin100_d.3d',
      'coin10_d.3d',
      'coin1_d.3d',
      'coin20_d.3d',
      'coin50_d.3d',
      'coin5_d.3d',
      'corndog_d.3d',
      'hairclip_d.3d',
      'lavender_d.3d',
      'openscroll_d.3d',
      'plaque2a_d.3d',
      'rollychair_d.3d',
      'scroll_d.3d',
      'steak_d.3d',
      'trashbag_d.3d',
    ]);
    expect(json.refused).toEqual([]);
    const burger = json.characters.find((c) => c.name === 'Hamburger01_d.3d');
    expect(burger.materials.filter((m) => m.texture).length).toBeGreaterThan(3);
    // Tankards.uc imports meshes that are not in this folder.
    expect(json.unused).toEqual([`${S}vertex3d/trashbag/README.md`, `${S}vertex3d/trashbag/Classes/Tankards.uc`]);
    expect(r.status).toBe(0);
  });

  it('reports a truncated _a.3d as truncated, still paired with its _d.3d by name', async () => {
    const dir = scratch();
    copyFileSync(`${FIXTURES}flag_d.3d`, join(dir, 'flag_d.3d'));
    const anim = readFileSync(`${FIXTURES}flag_a.3d`);
    writeFileSync(join(dir, 'flag_a.3d'), anim.subarray(0, 4 + 10));
    const r = cli('scene', dir, '--json');
    const json = JSON.parse(r.stdout);
    expect(json.missing).toEqual([]);
    expect(json.refused.map((x) => x.file)).toEqual([join(dir, 'flag_d.3d'), join(dir, 'flag_a.3d')]);
    expect(json.refused[0].reason).toBe('UE1 flag_a.3d: NumFrames declares 24 frames of 180 bytes, 10 bytes remain (at byte 0)');
    expect(r.status).toBe(1);
  });
});

describe('product matrix: Skate 3 PSG', () => {
  it('skins the synthetic quad and exports a valid skin', async () => {
    await roundTrip([`${FIXTURES}skinned_box.psg`, `${FIXTURES}box_textures.psg`], { joints: [3], clips: [] });
  });

  it.skipIf(!HAVE_SAMPLES)('textures the sky dome from its arena by GUID; the GLB embeds it as PNG', async () => {
    const { json, glbJson: g } = await roundTrip([`${S}psg/skybox_night.psg`, `${S}psg/skybox_textures.psg`], { joints: [], clips: [] });
    expect(json.characters[0].materials).toEqual([{ name: expect.any(String), texture: `${S}psg/skybox_textures.psg`, rule: 'GUID' }]);
    expect(json.unused).toEqual([]);
    expect(g.images).toEqual([expect.objectContaining({ mimeType: 'image/png' })]);
  });
});

describe('rigscope convert', () => {
  it('exports one clip with --clip and exits 1 naming what it could not use', async () => {
    const out = join(scratch(), 'one.glb');
    const ok = cli('convert', `${FIXTURES}knight_head.psk`, `${FIXTURES}knight.psa`, '-o', out, '--clip', 'Nod');
    expect(ok.status).toBe(0);
    expect(glbJson(readFileSync(out).buffer.slice(0)).animations.map((a) => a.name)).toEqual(['Nod']);
    const none = cli('convert', `${FIXTURES}knight_head.psk`, `${FIXTURES}knight.psa`, '-o', out, '--clip', 'Nope');
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/no clip named Nope/);
    const bad = cli('convert', `${FIXTURES}arm.pmd`, `${FIXTURES}arm_bad.psa`, '-o', out);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/arm_bad\.psa: not played on any model — 4 bones, arm\.pmd has 3/);
  });
});
