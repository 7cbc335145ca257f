// A .uc script beside the .psk it imports (#exec MESH MODELIMPORT, UT v436 and UE2-era mods): the
// script places, scales, rotates and textures the .psk as the engine shows it, its slots find
// textures in the packages it loads (#exec OBJ LOAD) through the package family, and the script is
// used, not listed as unused. Checked against the C4 sample (C4.u was built from sources/C4.psk by
// the script its C4Weapon class holds) and a hand-made script (reference/ue1-scripts/Jet.uc).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateBytes } from 'gltf-validator';
import { assembleScene, decodeFiles } from '../../web/src/families/index.js';
import { PSKLoader, UE1Loader } from '../../web/src/index.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { describeRecord } from '../../web/src/core/report.js';
import { decode, decoder, FIXTURES, glbJson, HAVE_SAMPLES, positions, reimport, SAMPLES } from './helpers.js';

const PKG = `${SAMPLES}upackage/`;
const JET = new URL('./reference/ue1-scripts/Jet.uc', import.meta.url).pathname;
const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const run = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
const entryOf = (path, name = path.split('/').pop()) => entryFromBytes(name, readFileSync(path));

/** The class source (a TextBuffer of the package) whose #exec lines import `mesh`. */
async function scriptOf(file, mesh) {
  const d = await decoder();
  const bytes = () => new Uint8Array(readFileSync(file));
  const listing = await d.call('listPackage', [bytes(), file.split('/').pop()]);
  for (const t of listing.texts) {
    const text = (await d.call('decodePackageObject', [bytes(), file.split('/').pop(), t.index])).info.text;
    if (text.includes(`MODELIMPORT MESH=${mesh} `)) return text;
  }
  throw new Error(`no class of ${file} imports ${mesh}`);
}

/** Positions of a model's first mesh as sorted triples (wedge order differs between a package and its .psk). */
const sortedPoints = (model) => {
  const p = model.meshes[0].positions;
  const out = [];
  for (let i = 0; i < p.length; i += 3) out.push([p[i], p[i + 1], p[i + 2]]);
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
};

/**
 * The engine's placement (unreal-vertex-3d.md §7.1–7.2) written out on its own: p = RotOrigin ·
 * ((v − Origin) ⊙ Scale), with the spec's rotator rows; v and the result in the PSK decoder's
 * three axes (Unreal (x, y, z) = three (x, −z, y)).
 */
function placed([x, y, z], { origin, pitch, yaw, roll, scale }) {
  const k = (2 * Math.PI) / 256;
  const [cp, sp, cy, sy, cr, sr] = [
    Math.cos(pitch * k),
    Math.sin(pitch * k),
    Math.cos(yaw * k),
    Math.sin(yaw * k),
    Math.cos(roll * k),
    Math.sin(roll * k),
  ];
  const rows = [
    [cp * cy, cp * sy, sp],
    [sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, -sr * cp],
    [-(cr * sp * cy + sr * sy), cy * sr - cr * sp * sy, cr * cp],
  ];
  const u = [x, -z, y];
  const s = u.map((v, i) => (v - origin[i]) * scale[i]);
  const p = [0, 1, 2].map((c) => s[0] * rows[0][c] + s[1] * rows[1][c] + s[2] * rows[2][c]);
  return [p[0], p[2], -p[1]];
}

const JET_PLACEMENT = { origin: [4, -8, 10], yaw: 64, pitch: 32, roll: -16, scale: [2, 2, 0.5] };
const jetPaths = () => [JET, `${PKG}sources/C4.psk`, `${PKG}sources/C4.psa`, `${FIXTURES}flag.pcx`, `${PKG}JetpackTex.utx`];

describe.skipIf(!HAVE_SAMPLES)('a .uc script that imports a .psk', () => {
  it("C4.psk placed by its own script (the package's class text) is the package's C4 as shown", async () => {
    const script = await scriptOf(`${PKG}C4.u`, 'C4');
    const d = await decoder();
    const loose = await decodeFiles(
      [entryFromBytes('C4.uc', new TextEncoder().encode(script)), entryOf(`${PKG}sources/C4.psk`), entryOf(`${PKG}sources/C4.psa`)],
      d,
    );
    const pkg = await decodeFiles([entryOf(`${PKG}C4.u`)], d);
    const mesh = loose.models.find((m) => m.file === 'C4.psk');
    const shown = pkg.models.find((m) => m.container.object === 'C4.C4');
    expect(mesh.info).toMatchObject({ script: 'C4.uc', mesh: 'C4', rotation: '64 0 0', defaultAnim: 'C4Anim' });
    // Same bounds and points after Pitch=64 (X turned into three's y), within 1e-3 of the size.
    const size = Math.hypot(...shown.meshes[0].bounds.max.map((v, i) => v - shown.meshes[0].bounds.min[i]));
    for (const key of ['min', 'max'])
      for (let k = 0; k < 3; k++)
        expect(Math.abs(mesh.meshes[0].bounds[key][k] - shown.meshes[0].bounds[key][k])).toBeLessThan(1e-3 * size);
    expect(shown.meshes[0].bounds.max[1] - shown.meshes[0].bounds.min[1]).toBeCloseTo(39.94, 1); // Unreal X, now up
    const a = sortedPoints(mesh),
      b = sortedPoints(shown);
    expect(a.length).toBe(b.length);
    const worst = Math.max(...a.flatMap((p, i) => p.map((v, k) => Math.abs(v - b[i][k]))));
    expect(worst).toBeLessThan(1e-3 * size);
    expect(mesh.skeleton.names).toEqual(shown.skeleton.names);
    // Slots: the script's names are the package's objects' names.
    expect(mesh.materials.map((m) => m.textureNames.at(-1))).toEqual(shown.materials.map((m) => m.textureNames[0].split('.').pop()));
    // Clips: the loose .psa's one sequence (the package's C4Anim holds none: its import was never digested, spec §9).
    expect(loose.animations[0].clips.map((c) => [c.name, c.frameCount])).toEqual([['Name', 2]]);
    const pkgAnim = pkg.animations.find((x) => x.container.object === 'C4.C4Anim');
    expect(pkgAnim.clips).toEqual([]);
    // The script is used: paired with the mesh, and the .psa binds to the placed mesh.
    const scene = await assembleScene(loose);
    expect(scene.records).toContainEqual({ kind: 'paired', files: ['C4.psk', 'C4.uc'], via: 'script' });
    expect(scene.records.filter((r) => r.kind === 'unused')).toEqual([]);
    expect(scene.records).toContainEqual(expect.objectContaining({ kind: 'bound', files: ['C4.psa', 'C4.psk'] }));
    // Its loose textures (TEXTURE IMPORT) were not dropped: each slot says which file it wants.
    const missing = scene.records.filter((r) => r.kind === 'missing').map((r) => [r.needs, r.reason]);
    expect(missing).toContainEqual(['texture C4Skin', 'slot 0 (C4Skin) of C4.uc']);
    expect(missing).toContainEqual(['texture ScreenTemplateWithSeperator', 'slot 1 (C4ScreenOn) of C4.uc']);
  });

  it('Jet.uc places C4.psk by ORIGIN with YAW/PITCH/ROLL and SCALE, and textures it from a loose file and a .utx', async () => {
    const d = await decoder();
    const decoded = await decodeFiles(
      jetPaths().map((p) => entryOf(p)),
      d,
    );
    const mesh = decoded.models.find((m) => m.file === 'C4.psk');
    expect(mesh.info).toMatchObject({
      script: 'Jet.uc',
      mesh: 'Jet',
      origin: '4 -8 10',
      rotation: '32 64 -16',
      scale: '2 2 0.5',
      objLoad: 'JetpackTex.utx; JetDecals.utx',
    });
    // Every wedge where the spec's formula puts it.
    const plain = await decode('decodePsk', new Uint8Array(readFileSync(`${PKG}sources/C4.psk`)), 'C4.psk');
    const p = plain.meshes[0].positions,
      q = mesh.meshes[0].positions;
    expect(q.length).toBe(p.length);
    let worst = 0;
    for (let i = 0; i < p.length; i += 3) {
      const e = placed([p[i], p[i + 1], p[i + 2]], JET_PLACEMENT);
      for (let k = 0; k < 3; k++) worst = Math.max(worst, Math.abs(e[k] - q[i + k]));
    }
    expect(worst).toBeLessThan(1e-4);
    // Slots: the loose import's file, then a path, a bare name and a loaded-into name in JetpackTex.
    expect(mesh.materials.map((m) => m.textureNames)).toEqual([
      ['flag', 'JetSkin'],
      ['JetpackTex.JetMetal', 'JetMetal'],
      ['JetpackTex.JetTanks', 'JetDecals.JetTanks', 'JetTanks'],
      ['Jet.Skins.JetMetalRed', 'JetpackTex.JetMetalRed', 'JetMetalRed'],
      ['JetDecals.Labels.Stripe', 'JetDecals.Stripe', 'Stripe'],
    ]);
    expect(mesh.materials[0].blend).toBe('masked'); // FLAGS=2
    const scene = await assembleScene(decoded);
    const c = scene.characters.find((x) => x.host === mesh);
    expect(c.materials.map((m) => [m.texture?.path ?? null, m.texture?.object ?? null, m.rule])).toEqual([
      ['flag.pcx', null, 'script slot'],
      ['JetpackTex.utx', 'JetpackTex.JetMetal', 'object path'],
      ['JetpackTex.utx', 'JetpackTex.JetTanks', 'object path'],
      ['JetpackTex.utx', 'JetpackTex.JetMetalRed', 'object path'],
      [null, null, null],
    ]);
    // The package not dropped is named; the script is used, and the .psa it imports is bound.
    const missing = scene.records.filter((r) => r.kind === 'missing');
    expect(missing).toEqual([{ kind: 'missing', files: ['C4.psk'], needs: 'JetDecals.utx', reason: 'slot 4 (Stripe) of Jet.uc' }]);
    expect(describeRecord(missing[0])).toMatch(/JetDecals\.utx/);
    expect(scene.records.filter((r) => r.kind === 'unused')).toEqual([]);
    expect(scene.records).toContainEqual({ kind: 'paired', files: ['C4.psk', 'Jet.uc'], via: 'script' });
    expect(scene.records).toContainEqual(expect.objectContaining({ kind: 'bound', files: ['C4.psa', 'C4.psk'] }));
  });

  it('inspect and scene name the script that placed the mesh; convert writes it placed and textured', async () => {
    const paths = jetPaths();
    const inspect = run('inspect', '--json', ...paths);
    const records = JSON.parse(inspect.stdout);
    const psk = records.find((r) => r.file.endsWith('C4.psk'));
    expect(psk.info).toMatchObject({ script: 'Jet.uc', mesh: 'Jet', defaultAnim: 'JetAnims' });
    expect(psk.pairedWith).toEqual([JET]);
    const uc = records.find((r) => r.file === JET);
    expect(uc.format).toBe('companion');
    expect(JSON.stringify(uc)).not.toMatch(/unused/);
    const text = run('inspect', ...paths).stdout;
    expect(text).toMatch(/script: Jet\.uc/);
    expect(text).toMatch(/paired with .*Jet\.uc/);

    const scene = JSON.parse(run('scene', '--json', ...paths).stdout);
    expect(scene.unused).toEqual([]);
    expect(scene.missing).toEqual([{ file: `${PKG}sources/C4.psk`, needs: 'JetDecals.utx' }]);
    const character = scene.characters.find((c) => c.meshes.some((m) => String(m).includes('C4.psk')));
    expect(character.materials.map((m) => m.rule ?? null)).toEqual(['script slot', 'object path', 'object path', 'object path', null]);

    // The GLB: the mesh drawn where the script put it, its four textures inside, valid.
    const out = join(mkdtempSync(join(tmpdir(), 'rigscope-uc-')), 'jet.glb');
    const r = run('convert', ...paths, '-o', out);
    expect(r.stderr).toMatch(/JetDecals\.utx/);
    const glb = readFileSync(out);
    const report = await validateBytes(new Uint8Array(glb));
    expect(report.issues.numErrors).toBe(0);
    const bytes = glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength);
    const json = glbJson(bytes);
    expect(json.images.length).toBe(4);
    expect(json.materials.filter((m) => m.pbrMetallicRoughness?.baseColorTexture).length).toBe(4);
    const gltf = await reimport(bytes);
    let skinned = null;
    gltf.scene.traverse((o) => (skinned ??= o.isSkinnedMesh ? o : null));
    expect(skinned).toBeTruthy();
    const plain = await decode('decodePsk', new Uint8Array(readFileSync(`${PKG}sources/C4.psk`)), 'C4.psk');
    const expected = [];
    for (let i = 0; i < plain.meshes[0].positions.length; i += 3)
      expected.push(placed([...plain.meshes[0].positions.subarray(i, i + 3)], JET_PLACEMENT));
    const got = positions(skinned);
    const box = (list) => [0, 1, 2].map((k) => [Math.min(...list.map((v) => v[k])), Math.max(...list.map((v) => v[k]))]);
    const gotList = [];
    for (let i = 0; i < got.length; i += 3) gotList.push([got[i], got[i + 1], got[i + 2]]);
    const [eb, gb] = [box(expected), box(gotList)];
    for (let k = 0; k < 3; k++) for (let j = 0; j < 2; j++) expect(gb[k][j]).toBeCloseTo(eb[k][j], 3);
  });

  it('PSKLoader and UE1Loader given the .psk with its script resolve to the placed, textured mesh', async () => {
    const files = Object.fromEntries(jetPaths().map((p) => [p.split('/').pop(), new Uint8Array(readFileSync(p))]));
    const plain = await decode('decodePsk', files['C4.psk'], 'C4.psk');
    const expected = [];
    for (let i = 0; i < plain.meshes[0].positions.length; i += 3)
      expected.push(placed([...plain.meshes[0].positions.subarray(i, i + 3)], JET_PLACEMENT));
    for (const Loader of [PSKLoader, UE1Loader]) {
      const group = await new Loader().parseAsync(files, 'C4.psk');
      const character = group.userData.character;
      expect(group.userData.records).toContainEqual({ kind: 'paired', files: ['C4.psk', 'Jet.uc'], via: 'script' });
      expect(group.userData.records.filter((r) => r.kind === 'unused')).toEqual([]);
      const got = positions(character.meshes[0]);
      let worst = 0;
      expected.forEach((e, i) => e.forEach((v, k) => (worst = Math.max(worst, Math.abs(v - got[i * 3 + k])))));
      expect(worst, Loader.name).toBeLessThan(1e-3);
      expect(group.animations.map((a) => a.name)).toEqual(['Name']);
    }
  });

  it('a script that imports no dropped .psk is unused; the .psk alone is a plain ActorX mesh', async () => {
    const d = await decoder();
    const other = new TextEncoder().encode('#exec MESH MODELIMPORT MESH=X MODELFILE=Models\\X.psk\n');
    const decoded = await decodeFiles([entryFromBytes('X.uc', other), entryOf(`${PKG}sources/C4.psk`)], d);
    expect(decoded.models[0].family).toBe('unreal');
    expect(decoded.models[0].info.script).toBeUndefined();
    const scene = await assembleScene(decoded);
    expect(scene.records).toContainEqual({ kind: 'unused', files: ['X.uc'], reason: 'no mesh it imports was dropped with it' });
    // Written to disk, a C4 script found again by the CLI beside its .psk.
    const dir = mkdtempSync(join(tmpdir(), 'rigscope-uc-'));
    writeFileSync(join(dir, 'C4.uc'), await scriptOf(`${PKG}C4.u`, 'C4'));
    const r = JSON.parse(run('inspect', '--json', join(dir, 'C4.uc'), `${PKG}sources/C4.psk`).stdout);
    expect(r.find((x) => x.file.endsWith('C4.psk')).info.rotation).toBe('64 0 0');
  });
});
