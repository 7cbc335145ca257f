// What a character is on real export trees (issue 19, item 4), on trees written by the project's own
// writers (build/fixtures/lod_export from wasm/tools/write_lod_fixtures, 0 A.D. and image fixtures
// copied under new names into a temporary folder): levels of detail are one part with levels, a
// character is named after its body or largest part, a texture named after a model or material plus
// `_` goes to it, and `inspect` pairs an animation with every mesh of the drop.
import { describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateBytes } from 'gltf-validator';
import { assembleScene, decodeFiles } from '../../web/src/families/index.js';
import { sceneToJSON } from '../../web/src/core/scene.js';
import { entriesFromPaths } from '../../web/cli/entries.js';
import { decoder, FIXTURES, glbJson, HAVE_SAMPLES, SAMPLES } from './helpers.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const cli = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
const scratch = () => mkdtempSync(join(tmpdir(), 'rigscope-lod-'));
const LODS = `${FIXTURES}lod_export/`;
const BODIES = `${LODS}ueviewer/Characters/Male/Bodies/`;
const GOBLIN = `${LODS}fmodel/Characters/Goblin/`;
const PROPS = `${LODS}ueviewer/Props/`;

/** Vertices of each level the fixture writer wrote (2 × (segments + 1)). */
const VERTICES = {
  SK_MaleBase_01_ArmsForJaket: [34, 18, 10, 6],
  SK_MaleBase_01_Body: [26, 14, 8, 4],
  SK_MaleBase_01_Legs: [22, 12, 6, 4],
};
const ueLevel = (part, level) => `${BODIES}${part}${level ? `_Lod${level}` : ''}.psk`;

function sceneJson(...args) {
  const r = cli('scene', ...args, '--json');
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

/** Node name → POSITION count of every mesh node in a GLB. */
function meshVertices(glb) {
  const json = glbJson(glb);
  return Object.fromEntries(
    json.nodes
      .filter((n) => n.mesh !== undefined)
      .map((n) => [n.name, json.meshes[n.mesh].primitives.reduce((k, p) => k + json.accessors[p.attributes.POSITION].count, 0)]),
  );
}

describe('levels of detail are one part with levels', () => {
  it("UE Viewer's Bodies folder: one character of four parts showing LOD0, named after its body, the levels listed", () => {
    const json = sceneJson(BODIES);
    expect(json.characters).toHaveLength(1);
    const [c] = json.characters;
    expect(c.name).toBe('SK_MaleBase_01_Body.psk');
    expect(c.meshes).toEqual(
      ['SK_MaleBase_01_ArmsForJaket', 'SK_MaleBase_01_Body', 'SK_MaleBase_01_Head', 'SK_MaleBase_01_Legs'].map((p) => ueLevel(p, 0)),
    );
    expect(c.materials.map((m) => m.name)).toEqual(['MI_Arms', 'MI_Body', 'MI_Head', 'MI_Legs']);
    expect(c.lods).toEqual(
      Object.entries(VERTICES).map(([part, counts]) => ({
        part,
        shown: 0,
        levels: counts.map((vertices, level) => ({ level, file: ueLevel(part, level), vertices })),
      })),
    );
    expect(c.animations.map((a) => [a.file, a.bound.matched, a.bound.total])).toEqual([[`${BODIES}SK_MaleBase_01_Idle.psa`, 4, 4]]);
    expect(json.unused).toEqual([]);
    expect(json.refused).toEqual([]);
  });

  it('assembles the same character whatever order the files come in', async () => {
    const d = await decoder();
    const entries = await entriesFromPaths([BODIES]);
    const of = async (list) => sceneToJSON(await assembleScene(await decodeFiles(list, d)));
    const reference = await of(entries);
    expect(await of([...entries].reverse())).toEqual(reference);
    expect(await of([...entries.slice(5), ...entries.slice(0, 5)])).toEqual(reference);
  });

  it('the loaders and <rigscope-viewer> build the same: one character, LOD0 of each part', async () => {
    const { sceneObjects } = await import('../../web/src/three/scene-objects.js');
    const d = await decoder();
    const { characters } = await sceneObjects(await decodeFiles(await entriesFromPaths([BODIES]), d), d);
    expect(characters.map((c) => c.name)).toEqual(['SK_MaleBase_01_Body.psk']);
    expect(characters[0].meshes.map((m) => m.geometry.attributes.position.count)).toEqual([34, 26, 14, 22]);
    expect(characters[0].clips.map((k) => k.name)).toEqual(['Idle']);
  });

  it('names the knight after its body, not the head whose skeleton hosts the parts', () => {
    const parts = ['knight_head.psk', 'knight_armour.psk', 'knight_body.psk'].map((p) => `${FIXTURES}${p}`);
    const [c] = sceneJson(...parts).characters;
    expect(c.name).toBe('knight_body.psk');
    expect(c.meshes).toEqual([parts[0], parts[2], parts[1]]); // the host's skeleton first, as before
  });

  it('FModel names every level X_LODN: the character is named after its part with the most vertices', () => {
    const [c] = sceneJson(GOBLIN).characters;
    expect(c.name).toBe('SK_Goblin_Torso_LOD0.psk');
    expect(c.meshes).toEqual([`${GOBLIN}SK_Goblin_Cape_LOD0.psk`, `${GOBLIN}SK_Goblin_Torso_LOD0.psk`]);
    expect(c.lods.map((l) => [l.part, l.levels.map((x) => x.vertices)])).toEqual([
      ['SK_Goblin_Cape', [10, 6]],
      ['SK_Goblin_Torso', [18, 10, 6]],
    ]);
  });

  it('--lod N shows level N, or the coarsest a part has, and keeps the name', () => {
    const [c] = sceneJson(BODIES, '--lod', '3').characters;
    expect(c.name).toBe('SK_MaleBase_01_Body.psk');
    expect(c.meshes).toEqual([
      ueLevel('SK_MaleBase_01_ArmsForJaket', 3),
      ueLevel('SK_MaleBase_01_Body', 3),
      ueLevel('SK_MaleBase_01_Head', 0), // the head has one level
      ueLevel('SK_MaleBase_01_Legs', 3),
    ]);
    expect(c.lods.every((l) => l.shown === 3)).toBe(true);
    expect(cli('scene', BODIES, '--lod', '1').stdout).toContain(
      'levels of SK_MaleBase_01_Body: LOD0 26 vertices, LOD1 14 vertices, LOD2 8 vertices, LOD3 4 vertices (LOD1 shown)',
    );
    // Static meshes too (no skeleton): SM_Barrel_Lod1.pskx is level 1 of SM_Barrel.
    const [barrel] = sceneJson(PROPS, '--lod', '5').characters;
    expect(barrel).toMatchObject({ name: 'SM_Barrel.pskx', meshes: [`${PROPS}SM_Barrel_Lod1.pskx`], skeleton: { bones: 0 } });
    expect(barrel.lods[0].levels.map((l) => l.vertices)).toEqual([14, 6]);
  });

  it('rejects a --lod that is not a level or all, naming it', () => {
    const scene = cli('scene', BODIES, '--lod', 'high');
    expect(scene.status).toBe(2);
    expect(scene.stderr).toContain('--lod high');
    const exported = cli('export', BODIES, '-o', scratch(), '--lod', '-1');
    expect(exported.status).toBe(2);
    expect(exported.stderr).toContain('--lod -1');
  });

  it('rigscope export --lod 2 writes level 2 meshes into a GLB that validates', async () => {
    const out = scratch();
    const r = cli('export', BODIES, '-o', out, '--lod', '2', '--jobs', '1');
    expect(r.status).toBe(0);
    const dir = join(out, 'Bodies');
    expect(readdirSync(dir)).toEqual(['SK_MaleBase_01_Body.glb']);
    const glb = readFileSync(join(dir, 'SK_MaleBase_01_Body.glb'));
    const report = await validateBytes(new Uint8Array(glb));
    expect(report.issues.numErrors).toBe(0);
    const bytes = glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength);
    expect(Object.values(meshVertices(bytes)).sort((a, b) => a - b)).toEqual([6, 8, 10, 14]); // legs, body, arms at 2; the head's one level
    expect(glbJson(bytes).animations.map((a) => a.name)).toEqual(['Idle']);
  });

  it('rigscope convert --lod all writes every level as a mesh named with its level', async () => {
    const file = join(scratch(), 'all.glb');
    const r = cli('convert', BODIES, '-o', file, '--lod', 'all');
    expect(r.status).toBe(0);
    const glb = readFileSync(file);
    expect((await validateBytes(new Uint8Array(glb))).issues.numErrors).toBe(0);
    const meshes = meshVertices(glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength));
    const expected = { 'SK_MaleBase_01_Head.psk': 14 }; // one level: a part like any other
    for (const [part, counts] of Object.entries(VERTICES)) counts.forEach((n, level) => (expected[`${part} LOD${level}`] = n));
    expect(meshes).toEqual(expected);
  });

  it.skipIf(!HAVE_SAMPLES)('a lone FModel LOD0 file (real sample) stays a character of its own, without levels', () => {
    const [c] = sceneJson(`${SAMPLES}psk/Grunt_Preview_LOD0.psk`).characters;
    expect(c.name).toBe('Grunt_Preview_LOD0.psk');
    expect(c.lods).toBeUndefined();
  });
});

describe('a texture named after a model or material plus _', () => {
  it('goes to the untextured 0 A.D. model of that name, base colour before maps, with the rule named', () => {
    const dir = scratch();
    copyFileSync(`${FIXTURES}arm.pmd`, join(dir, 'horse.pmd'));
    copyFileSync(`${FIXTURES}old_v1.pmd`, join(dir, 'cart.dae.cached.pmd'));
    copyFileSync(`${FIXTURES}image_dxt1_mips.dds`, join(dir, 'horse_celt_stripe_a.dds'));
    copyFileSync(`${FIXTURES}image_grey.tga`, join(dir, 'horse_a_norm.tga'));
    copyFileSync(`${FIXTURES}image_8bit.bmp`, join(dir, 'cart_wood.bmp'));
    copyFileSync(`${FIXTURES}image_rgb24.tga`, join(dir, 'banner.tga'));
    const json = sceneJson(dir);
    const material = (name) => json.characters.find((c) => c.name === name).materials[0];
    expect(material('horse.pmd')).toEqual({ name: 'horse', texture: join(dir, 'horse_celt_stripe_a.dds'), rule: 'name prefix' });
    expect(material('cart.dae.cached.pmd')).toEqual({ name: 'cart.dae.cached', texture: join(dir, 'cart_wood.bmp'), rule: 'name prefix' });
    expect(json.unused.sort()).toEqual([join(dir, 'banner.tga'), join(dir, 'horse_a_norm.tga')]);
    // The text output shows the rule beside the texture.
    expect(cli('scene', dir).stdout).toContain(`material horse: ${join(dir, 'horse_celt_stripe_a.dds')} (name prefix)`);
  });

  it('goes to an Unreal material of that name when no sidecar or suffix convention placed one', () => {
    const dir = scratch();
    copyFileSync(`${FIXTURES}two_bone.psk`, join(dir, 'two_bone.psk'));
    copyFileSync(`${FIXTURES}image_rgb24.tga`, join(dir, 'Skin_Variant1.tga'));
    copyFileSync(`${FIXTURES}image_grey.tga`, join(dir, 'other.tga'));
    const [c] = sceneJson(dir).characters;
    expect(c.materials).toEqual([{ name: 'Skin', texture: join(dir, 'Skin_Variant1.tga'), rule: 'name prefix' }]);
  });
});

describe('rigscope inspect pairs an animation with every mesh of the drop', () => {
  it('every level and part of the LOD tree, with matched and missing bones', () => {
    const r = cli('inspect', BODIES, '--json');
    expect(r.status).toBe(0);
    const anim = JSON.parse(r.stdout).find((x) => x.file.endsWith('SK_MaleBase_01_Idle.psa'));
    const meshes = readdirSync(BODIES)
      .filter((f) => f.endsWith('.psk'))
      .sort()
      .map((f) => `${BODIES}${f}`);
    expect(anim.pairing.map((p) => p.mesh)).toEqual(meshes);
    for (const p of anim.pairing) expect(p).toMatchObject({ fits: true, matched: 4, total: 4, missing: [], extra: [] });
    expect(anim.boundTo).toBe(ueLevel('SK_MaleBase_01_Body', 0)); // the file the character is named after
  });

  it('the parts of one character, each with its own counts', () => {
    const parts = ['knight_head.psk', 'knight_body.psk', 'knight_armour.psk'].map((p) => `${FIXTURES}${p}`);
    const r = cli('inspect', ...parts, `${FIXTURES}knight.psa`, '--json');
    const anim = JSON.parse(r.stdout).find((x) => x.file.endsWith('knight.psa'));
    expect(anim.pairing.map((p) => [p.mesh, p.fits, p.matched, p.total, p.missing.length, p.extra])).toEqual([
      [parts[0], true, 4, 4, 0, []],
      [parts[1], true, 3, 4, 0, ['Head']],
      [parts[2], true, 2, 4, 0, ['Neck', 'Head']],
    ]);
    expect(cli('inspect', ...parts, `${FIXTURES}knight.psa`).stdout).toContain(
      `pairing with ${parts[2]}: 2/4 bones matched; 0 mesh bones without a track; 2 animation bones not in the mesh`,
    );
  });

  it('0 A.D.: a model of the same bone count fits by index, another is refused with its counts', () => {
    const arm = `${FIXTURES}arm.pmd`;
    const old = `${FIXTURES}old_v1.pmd`;
    const r = cli('inspect', arm, old, `${FIXTURES}arm_wave.psa`, '--json');
    const anim = JSON.parse(r.stdout).find((x) => x.file.endsWith('arm_wave.psa'));
    expect(anim.pairing).toEqual([
      { mesh: arm, fits: true, matched: 3, total: 3, byIndex: true, missing: [], extra: [] },
      { mesh: old, fits: false, matched: 0, total: 3, byIndex: false, missing: [], extra: [], error: '3 bones, old_v1.pmd has 2' },
    ]);
  });

  it.skipIf(!HAVE_SAMPLES)('real samples: a partial match and a refusal, both with their counts', () => {
    const grunt = `${SAMPLES}psk/Grunt_Preview_LOD0.psk`;
    const axe = `${SAMPLES}psk/Slurp_Monster_Axe_LOD0.psk`;
    const r = cli('inspect', grunt, axe, `${SAMPLES}psk/grunt_hh_grabplayer_crouch_SEQ0.psa`, '--json');
    const anim = JSON.parse(r.stdout).find((x) => x.file.endsWith('.psa'));
    const [g, a] = anim.pairing;
    expect(g).toMatchObject({ mesh: grunt, fits: true, matched: 72, total: 89 });
    expect(g.missing).toHaveLength(136 - 72);
    expect(g.extra).toHaveLength(89 - 72);
    expect(a).toMatchObject({ mesh: axe, fits: false, matched: 0, total: 89 });
    expect(a.missing).toHaveLength(4);
    expect(a.error).toContain('shares no bone names');
  });
});
