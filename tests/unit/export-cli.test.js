// `rigscope export`: a tree to one GLB per character, per folder, with a summary, exit codes,
// Ctrl-C leaving only whole files, --skip-existing, and hostile files named without stopping.
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { validateBytes } from 'gltf-validator';
import { glbNames } from '../../web/src/three/glb-names.js';
import { FIXTURES, HAVE_SAMPLES, reimport, SAMPLES } from './helpers.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const cli = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
const scratch = () => mkdtempSync(join(tmpdir(), 'rigscope-export-'));

/** Every file below `dir`, relative to it, sorted. */
function filesBelow(dir, base = dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesBelow(join(dir, d.name), base) : [relative(base, join(dir, d.name))]))
    .sort();
}

/** A GLB is whole when its header's length is the file's length and its chunks fill it. */
function isWholeGlb(bytes) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 20 || v.getUint32(0, true) !== 0x46546c67 || v.getUint32(8, true) !== bytes.length) return false;
  let at = 12;
  while (at < bytes.length) at += 8 + v.getUint32(at, true);
  return at === bytes.length;
}

/** A tree of folders made from the project's fixtures: `n` copies of a character with its animation. */
function fixtureTree(n) {
  const root = scratch();
  for (let i = 0; i < n; i++) {
    const dir = join(root, `mod${String(i).padStart(3, '0')}`);
    mkdirSync(dir, { recursive: true });
    copyFileSync(`${FIXTURES}two_bone.psk`, join(dir, 'two_bone.psk'));
    copyFileSync(`${FIXTURES}two_bone.psa`, join(dir, 'two_bone.psa'));
  }
  return root;
}

describe('rigscope export: names and arguments', () => {
  it('names GLBs after characters; clashes get a suffix, never an overwrite', () => {
    expect(glbNames(['Body.psk', 'body.pskx', 'Body', 'a/b:c', '', '.hidden', 'v1.2_hero_d.3d'])).toEqual([
      'Body.glb',
      'body (2).glb',
      'Body (3).glb',
      'a_b_c.glb',
      'character.glb',
      'hidden.glb',
      'v1.2_hero_d.glb',
    ]);
  });

  it('exits 2 with the usage on a bad command line, before reading anything', () => {
    for (const args of [
      [FIXTURES],
      [FIXTURES, '-o'],
      [FIXTURES, '-o', scratch(), '--frobnicate'],
      [FIXTURES, '-o', scratch(), '--jobs', '0'],
      ['/no/such/folder', '-o', scratch()],
    ]) {
      const r = cli('export', ...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/usage: rigscope/);
    }
  });

  it('exits 0 when everything was used, and the GLB holds the character with its clip', async () => {
    const tree = fixtureTree(1);
    const out = scratch();
    const r = cli('export', tree, '-o', out, '--json');
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.totals).toMatchObject({ folders: 1, characters: 1, written: 1, notUsed: 0, refused: 0 });
    const [file] = filesBelow(out);
    expect(file).toMatch(new RegExp(`^${tree.split('/').pop()}/mod000/[^/]+\\.glb$`));
    const glb = readFileSync(join(out, file));
    const report = await validateBytes(new Uint8Array(glb));
    expect(report.issues.numErrors).toBe(0);
    const gltf = await reimport(glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength));
    expect(gltf.animations.map((a) => a.name)).toEqual(['Bend']);
    let joints = 0;
    gltf.scene.traverse((o) => {
      if (o.isSkinnedMesh) joints = o.skeleton.bones.length;
    });
    expect(joints).toBe(2);
  });

  it('--dry-run prints the plan and writes nothing; --clip keeps only that clip', () => {
    const tree = fixtureTree(2);
    const out = scratch();
    const dry = cli('export', tree, '-o', out, '--dry-run', '--json');
    expect(JSON.parse(dry.stdout).totals).toMatchObject({ planned: 2, written: 0 });
    expect(filesBelow(out)).toEqual([]);
    const none = cli('export', tree, '-o', out, '--clip', 'NoSuchClip', '--json');
    const s = JSON.parse(none.stdout);
    expect(s.folders.flatMap((f) => f.characters.map((c) => c.clips))).toEqual([[], []]);
    expect(filesBelow(out)).toHaveLength(2);
  });
});

describe.skipIf(!HAVE_SAMPLES)('rigscope export on the sample folders', () => {
  it('writes one valid GLB per character of every family, matching rigscope scene per folder', async () => {
    const out = scratch();
    const r = cli('export', SAMPLES, '-o', out, '--json', '--jobs', '2');
    expect(r.status).toBe(1); // the samples hold notes and unbound animations
    const summary = JSON.parse(r.stdout);
    const glbs = filesBelow(out);
    expect(glbs.every((f) => f.endsWith('.glb'))).toBe(true);
    expect(glbs.length).toBe(summary.totals.written);
    for (const folder of summary.folders) {
      // The same folder through `rigscope scene`: the same characters, clips and unused files.
      // The folder's own files and its UE1 package folders, given to `rigscope scene` by name.
      const own = readdirSync(folder.folder, { withFileTypes: true }).flatMap((d) =>
        d.isFile()
          ? [join(folder.folder, d.name)]
          : /^(Models|Classes|Textures)$/.test(d.name)
            ? filesBelow(join(folder.folder, d.name)).map((f) => join(folder.folder, d.name, f))
            : [],
      );
      expect(own.length, folder.folder).toBe(folder.files);
      const scene = JSON.parse(cli('scene', ...own, '--json').stdout);
      expect(
        folder.characters.map((c) => c.name),
        folder.folder,
      ).toEqual(scene.characters.map((c) => c.name));
      expect(folder.notUsed.filter((n) => n.kind === 'unused').length, folder.folder).toBe(scene.unused.length);
      expect(folder.notUsed.filter((n) => n.kind === 'unbound').length, folder.folder).toBe(scene.unbound.length);
      for (const c of folder.characters) {
        const glb = readFileSync(join(out, c.file));
        const report = await validateBytes(new Uint8Array(glb));
        expect(report.issues.numErrors, c.file).toBe(0);
        const gltf = await reimport(glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength));
        const clipNames = gltf.animations.map((a) => a.name);
        for (const k of c.clips)
          expect(
            clipNames.some((n) => n === k || n.endsWith(`: ${k}`)),
            `${c.file} ${k}`,
          ).toBe(true);
        expect(glbNamesOfTextures(glb).length >= Math.min(1, c.textures.length), c.file).toBe(true);
      }
    }
    const byName = Object.fromEntries(summary.folders.flatMap((f) => f.characters.map((c) => [c.file.split('/').pop(), c])));
    expect(byName['skSpiderLargeMesh.glb'].clips).toHaveLength(12);
    expect(byName['skeleton.glb'].clips).toContain('skeleton_idle');
    expect(byName['skinned_quad_f32.glb'].meshes).toEqual(['skinned_quad_f32.psg']);
    // A UE1 package's Models, Classes and Textures folders are one scene: the script's skins reach the meshes.
    expect(byName['redbull_d.glb'].textures).toEqual(['RedBullTex1.bmp']);
    expect(summary.folders.some((f) => /partystuff\/(Models|Classes|Textures)$/.test(f.folder))).toBe(false);
  }, 240000);
});

/** The image names a GLB's JSON holds. */
function glbNamesOfTextures(glb) {
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + glb.readUInt32LE(12))));
  return (json.images ?? []).map((i) => i.name ?? i.mimeType);
}

describe('rigscope export at scale and under trouble', () => {
  it('names each hostile file and finishes the rest', () => {
    const tree = fixtureTree(3);
    writeFileSync(join(tree, 'mod001', 'garbage.psk'), Buffer.from('ACTRHEAD not really a mesh at all'));
    copyFileSync(`${FIXTURES}truncated.psk`, join(tree, 'mod002', 'truncated.psk'));
    const out = scratch();
    const r = cli('export', tree, '-o', out, '--json');
    expect(r.status).toBe(1);
    const s = JSON.parse(r.stdout);
    expect(s.totals.written).toBe(3);
    const notUsed = s.folders.flatMap((f) => f.notUsed.map((n) => n.why)).join('\n');
    expect(notUsed).toMatch(/truncated\.psk: .*byte \d+/);
    expect(notUsed).toMatch(/garbage\.psk/);
  });

  it('Ctrl-C leaves only whole GLBs, and --skip-existing finishes the rest', async () => {
    const tree = fixtureTree(120);
    const out = scratch();
    const child = spawn(process.execPath, [CLI, 'export', tree, '-o', out, '--jobs', '1', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    // Interrupt once the first GLBs exist, while the run is still going.
    for (let tries = 0; filesBelow(out).filter((f) => f.endsWith('.glb')).length < 2 && tries < 600; tries++)
      await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(130);
    const summary = JSON.parse(stdout);
    expect(summary.interrupted).toBe(true);
    const first = filesBelow(out);
    expect(first.some((f) => f.includes('.rigscope-partial'))).toBe(false);
    expect(first.length).toBeGreaterThan(1);
    expect(first.length).toBeLessThan(120);
    for (const f of first) expect(isWholeGlb(readFileSync(join(out, f))), f).toBe(true);
    const again = cli('export', tree, '-o', out, '--skip-existing', '--json');
    expect(again.status).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s.totals.skipped).toBe(first.length);
    expect(s.totals.written).toBe(120 - first.length);
    expect(filesBelow(out)).toHaveLength(120);
  }, 120000);
});
