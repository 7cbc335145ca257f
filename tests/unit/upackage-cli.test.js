// `rigscope inspect`, `convert` and `export` on UE1 packages: the facts of specs/ue1-package.md §14
// and the samples README, and GLBs the Khronos validator passes with their textures inside.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateBytes } from 'gltf-validator';
import { readBundle } from '../../web/src/core/bundle.js';
import { attributesOfPackedState } from '../../web/src/element/packed.js';
import { FIXTURES, HAVE_SAMPLES, SAMPLES } from './helpers.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const run = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
const PKG = `${SAMPLES}upackage/`;
const scratch = () => mkdtempSync(join(tmpdir(), 'rigscope-upackage-'));

describe.skipIf(!HAVE_SAMPLES)('rigscope on UE1 packages', () => {
  it('inspect --json: per package its version, classes, every mesh and every texture', () => {
    const r = run('inspect', `${PKG}C4.u`, `${PKG}SiegeIV_0032beta9.u`, `${PKG}HPDemoAd.utx`, `${PKG}Beam.utx`, '--json');
    const [c4, siege, hp, beam] = JSON.parse(r.stdout);
    expect(c4.format).toBe('upackage');
    expect(c4.package).toMatchObject({ name: 'C4', version: 69, licenseeVersion: 0, counts: { names: 437, imports: 165, exports: 317 } });
    expect(c4.package.classes).toMatchObject({ SkeletalMesh: 2, Animation: 2, Texture: 27, Palette: 27 });
    expect(c4.package.meshes.map((m) => [m.object, m.className, m.vertices, m.triangles])).toEqual([
      ['C4.C4', 'SkeletalMesh', 444, 404],
      ['C4.C4Pickup', 'SkeletalMesh', 444, 404],
    ]);
    const skin = c4.package.textures.find((t) => t.object === 'C4.Skins.C4Skin');
    expect(skin).toMatchObject({ format: 'P8', width: 512, height: 512, mips: 10, masked: true, compMips: 8, compFormat: 'DXT5' });
    expect(skin.palette).toMatch(/^C4\.Skins\.Palette/);
    // SiegeIV: 15 Mesh + 2 LodMesh; sg_GL1st 208 vertices, 86 frames, 319 triangles, 8 sequences.
    expect(siege.package.meshes).toHaveLength(17);
    const gl = siege.package.meshes.find((m) => m.name === 'sg_GL1st');
    expect(gl).toMatchObject({ className: 'Mesh', vertices: 208, frames: 86, triangles: 319 });
    expect(gl.sequences).toHaveLength(8);
    expect(gl.sequences[1]).toMatchObject({ name: 'DISPENSE', startFrame: 0, frames: 24 });
    expect(gl.sequences.every((s) => s.fps > 0)).toBe(true);
    const constructor = siege.package.meshes.find((m) => m.name === 'Constructor');
    expect(constructor).toMatchObject({ className: 'LodMesh', vertices: 363, frames: 31, triangles: 277 });
    expect(siege.package.textures.find((t) => t.object === 'SiegeIV_0032beta9.HUD.HUD_sgMetal')).toMatchObject({
      format: 'P8',
      width: 128,
      height: 64,
      mips: 1,
      compMips: 1,
      compFormat: 'DXT1',
    });
    // The slots of the game's own Botpack are missing, by name; the package says it uses Botpack's textures.
    expect(siege.warnings.join('\n')).toMatch(/missing Botpack\.u or \.utx/);
    expect(siege.package.uses).toEqual(['Botpack']);
    expect(c4.package.uses).toEqual([]);
    // Harry Potter 2 (v79): P8 256 × 256, 9 mips, palette HPDemoAd.Palette2.
    expect(hp.package.version).toBe(79);
    expect(hp.package.textures.find((t) => t.name === 'FEDemoAdBack1Texture1')).toMatchObject({
      width: 256,
      height: 256,
      mips: 9,
      palette: 'HPDemoAd.Palette2',
    });
    // Procedural textures: FireTexture 256 × 256 as stored, drawn as a placeholder.
    const beam3 = beam.package.textures.find((t) => t.object === 'Beam.Beam.beam3');
    expect(beam3).toMatchObject({ className: 'FireTexture', width: 256, height: 256, mips: 1 });
    expect(beam3.placeholder).toBeTruthy();
    expect(beam.package.licenseeVersion).toBe(227);
  });

  it('inspect in text names the package, its classes, meshes with their sequences and textures', () => {
    const r = run('inspect', `${PKG}SiegeIV_0032beta9.u`);
    expect(r.stdout).toMatch(/package SiegeIV_0032beta9, version 69: 4900 names, 1492 imports, 7531 exports/);
    expect(r.stdout).toMatch(/classes: .*Texture 117.*Mesh 15.*LodMesh 2/);
    expect(r.stdout).toMatch(/mesh SiegeIV_0032beta9\.sg_GL1st \(Mesh\): 208 vertices, 86 frames, 319 triangles, 8 sequences/);
    expect(r.stdout).toMatch(/ {4}sequence DISPENSE: frames 0–23, 24 frames @ \d+(\.\d+)? fps/);
    expect(r.stdout).toMatch(/texture SiegeIV_0032beta9\.HUD\.HUD_sgMetal \(Texture\): P8 128x64, 1 mip/);
  });

  it('convert --mesh writes that mesh alone, textured and animated, as a valid GLB', async () => {
    const out = join(scratch(), 'gl.glb');
    const r = run('convert', `${PKG}SiegeIV_0032beta9.u`, '--mesh', 'sg_GL1st', '-o', out);
    expect(r.stdout).toMatch(/1 model\(s\), 8 clip\(s\)/);
    const report = await validateBytes(new Uint8Array(readFileSync(out)));
    expect(report.issues.numErrors).toBe(0);
    expect(report.info.animationCount).toBe(8);
    expect(report.info.hasTextures).toBe(true);
    const json = JSON.parse(new TextDecoder().decode(readFileSync(out).subarray(20, 20 + readFileSync(out).readUInt32LE(12))));
    expect(json.images.length).toBeGreaterThanOrEqual(3);
    // By object path too; a name the package does not hold is refused, naming the meshes there.
    const c4 = join(scratch(), 'c4.glb');
    expect(run('convert', `${PKG}C4.u`, '--mesh', 'C4.C4Pickup', '-o', c4).stdout).toMatch(/1 model\(s\)/);
    const skinned = await validateBytes(new Uint8Array(readFileSync(c4)));
    expect(skinned.issues.numErrors).toBe(0);
    expect(skinned.info.hasSkins).toBe(true);
    const none = run('convert', `${PKG}C4.u`, '--mesh', 'NoSuchMesh', '-o', join(scratch(), 'x.glb'));
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/no mesh NoSuchMesh among the files \(meshes: C4, C4Pickup\)/);
  });

  it('export writes a valid GLB per mesh of a package, textures inside', async () => {
    const out = scratch();
    const r = run('export', `${PKG}C4.u`, '-o', out, '--json', '--jobs', '1');
    const summary = JSON.parse(r.stdout);
    expect(summary.totals.written).toBe(2);
    const glbs = readdirSync(out, { recursive: true }).filter((f) => f.endsWith('.glb'));
    expect(glbs.map((f) => f.split(/[\\/]/).pop()).sort()).toEqual(['C4.glb', 'C4Pickup.glb']);
    for (const f of glbs) {
      const report = await validateBytes(new Uint8Array(readFileSync(join(out, f))));
      expect(report.issues.numErrors, f).toBe(0);
      expect(report.info.hasTextures, f).toBe(true);
    }
  });

  it("export keeps a mod's System/*.u in one scene with its Textures/*.utx", () => {
    // A mod's layout, in a temporary folder (a walk follows no links).
    const mod = join(scratch(), 'Mod');
    for (const [folder, file] of [
      ['System', 'C4.u'],
      ['Textures', 'Beam.utx'],
    ]) {
      mkdirSync(join(mod, folder), { recursive: true });
      copyFileSync(`${PKG}${file}`, join(mod, folder, file));
    }
    const r = run('export', mod, '-o', join(scratch(), 'out'), '--dry-run', '--json');
    const summary = JSON.parse(r.stdout);
    expect(summary.folders).toHaveLength(1);
    expect(summary.folders[0].files).toBe(2);
    expect(summary.folders[0].characters.map((c) => c.name)).toEqual(['C4', 'C4Pickup']);
  });

  it('bundle --mesh carries the package with the mesh asked for, which the element shows alone', async () => {
    const out = join(scratch(), 'c4.rigscope');
    const r = run('bundle', `${PKG}C4.u`, '--mesh', 'C4Pickup', '-o', out);
    expect(r.status).toBe(0);
    const { files, state } = await readBundle(readFileSync(out));
    expect(files.map((f) => f.name)).toEqual(['C4.u']);
    expect(state.mesh).toBe('C4Pickup');
    expect(attributesOfPackedState(state).mesh).toBe('C4Pickup');
    // A name the package does not hold is a bad command line, naming the meshes there.
    const bad = run('page', `${PKG}C4.u`, '--mesh', 'Nope', '-o', join(scratch(), 'x.html'));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--mesh Nope: no mesh of that name in a package; meshes: C4, C4Pickup/);
  });
});

// A Deus Ex character as a mod ships it (the writer's dx_character.u: a LodMesh of 8-byte vertices
// with 72 sequences beside a larger static prop), so the held-back kind runs without the samples.
describe('rigscope on a Deus Ex character package', () => {
  const file = `${FIXTURES}dx_character.u`;

  it('inspect lists its 72 sequences; convert --mesh writes the character alone as a valid GLB of 72 animations', async () => {
    const [pkg] = JSON.parse(run('inspect', file, '--json').stdout);
    expect(pkg.package).toMatchObject({ version: 68, classes: { LodMesh: 2, Texture: 2, Palette: 2 } });
    const [trooper, crate] = pkg.package.meshes;
    expect(trooper).toMatchObject({ name: 'Trooper', className: 'LodMesh', vertices: 4, frames: 288, triangles: 2, textureSlots: 2 });
    expect(trooper.sequences).toHaveLength(72);
    expect(trooper.sequences[71]).toEqual({ name: 'Seq71', startFrame: 284, frames: 4, fps: 8 });
    expect(crate).toMatchObject({ name: 'Crate', frames: 1 });
    const out = join(scratch(), 'trooper.glb');
    expect(run('convert', file, '--mesh', 'Trooper', '-o', out).stdout).toMatch(/1 model\(s\), 72 clip\(s\)/);
    const report = await validateBytes(new Uint8Array(readFileSync(out)));
    expect(report.issues.numErrors).toBe(0);
    expect(report.info.animationCount).toBe(72);
    expect(report.info.hasTextures).toBe(true);
  });
});
