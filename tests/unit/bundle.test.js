// .rigscope bundles (core/bundle.js): the fixed format, opening one where zips are opened (the
// page's input, the element's src), the loaders, every command line command and `rigscope bundle`;
// hostile bundles end in the packed link's messages with the bundle named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { deflateSync, inflateSync, zipSync } from 'fflate';
import {
  BUNDLE_SIGNATURE,
  bundleBytes,
  bundleFileName,
  bundlesOf,
  expandBundles,
  isBundle,
  readBundle,
} from '../../web/src/core/bundle.js';
import { packScene } from '../../web/src/core/pack.js';
import { expandZips } from '../../web/src/core/input.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { sceneToJSON } from '../../web/src/core/scene.js';
import { assembleScene, decodeFiles } from '../../web/src/families/index.js';
import { entriesFromPaths } from '../../web/cli/entries.js';
import { bundle } from '../../web/cli/bundle.js';
import { UsageError } from '../../web/cli/usage.js';
import { entriesFromSource } from '../../web/src/element/packed.js';
import { PMDLoader, PSALoader, PSKLoader } from '../../web/src/index.js';
import { FAMILY_SAMPLES } from '../e2e/browser.js';
import { FIXTURES, HAVE_SAMPLES, SAMPLES, decoder, glbJson } from './helpers.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const cli = (...args) =>
  promisify(execFile)(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 }).then(
    (r) => ({ ...r, status: 0 }),
    (err) => ({ stdout: err.stdout, stderr: err.stderr, status: err.code }),
  );
const dir = mkdtempSync(join(tmpdir(), 'rigscope-bundle-'));
const text = (s) => new TextEncoder().encode(s);
/** A file's bytes in an ArrayBuffer of their own (a small Buffer lies inside a shared pool). */
const arrayBuffer = (path) => new Uint8Array(readFileSync(path)).buffer;

/** The files of a set as packScene takes them, named by their file names. */
const filesOf = (paths) => paths.map((p) => ({ name: basename(p), bytes: new Uint8Array(readFileSync(p)) }));
/** A bundle of these files and view state, written to `dir` as `name`; its path. */
function writeBundle(name, paths, state = {}) {
  const path = join(dir, name);
  writeFileSync(path, bundleBytes(packScene({ files: filesOf(paths), state })));
  return path;
}

/** The scene of some entries as the viewer assembles it, and each model's vertex count. */
async function sceneOf(entries) {
  const decoded = await decodeFiles(entries, await decoder());
  const scene = await assembleScene(decoded);
  return { json: sceneToJSON(scene), vertices: decoded.models.map((m) => [basename(m.file), m.counts.vertices]) };
}

/** A container written by hand (core/pack.js's layout), so a test can lie where packScene never would. */
function container(header, body = new Uint8Array(0), { count } = {}) {
  const h = text(JSON.stringify(header));
  const out = new Uint8Array(12 + h.length + body.length);
  out.set(text('RSPK'), 0);
  new DataView(out.buffer).setUint32(4, count ?? header.files.length, true);
  new DataView(out.buffer).setUint32(8, h.length, true);
  out.set(h, 12);
  out.set(body, 12 + h.length);
  return deflateSync(out);
}

// Every family: the samples the browser tests use (real files) and the project's own fixtures.
const SETS = [
  ...(HAVE_SAMPLES
    ? Object.entries(FAMILY_SAMPLES).map(([family, files]) => ({ label: `${family} samples`, paths: files.map((f) => SAMPLES + f) }))
    : []),
  { label: 'unreal fixtures', paths: ['two_bone.psk', 'two_bone.psa'].map((f) => FIXTURES + f) },
  { label: '0 A.D. fixtures', paths: ['arm.pmd', 'arm_wave.psa'].map((f) => FIXTURES + f) },
  { label: 'UE1 fixtures', paths: ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((f) => FIXTURES + f) },
  { label: 'PSG fixtures', paths: ['skinned_box.psg', 'box_textures.psg'].map((f) => FIXTURES + f) },
];

/** What each set shows, as the files themselves give it: character, vertices, first clip. */
const EXPECTED = {
  'psk samples': { character: 'skSpiderLargeMesh.psk', vertices: 307, clip: 'Walk', clips: 12 },
  'zeroad samples': { character: 'skeleton.pmd', vertices: 378, clip: 'skeleton_idle', clips: 1 },
  'ue1 samples': { character: 'mar_rifle_d.3d', vertices: 421, clip: 'All', clips: 1 },
  'psg samples': { character: 'skinned_quad_f32.psg', vertices: 4, clip: undefined, clips: 0 },
  'unreal fixtures': { character: 'two_bone.psk', vertices: 6, clip: 'Bend', clips: 1 },
  '0 A.D. fixtures': { character: 'arm.pmd', vertices: 112, clip: 'arm_wave', clips: 1 },
  'UE1 fixtures': { character: 'flag_d.3d', vertices: 45, clip: 'Still', clips: 2 },
  'PSG fixtures': { character: 'skinned_box.psg', vertices: 24, clip: undefined, clips: 0 },
};
const clipsOf = (json) => json.characters.flatMap((c) => c.animations.flatMap((a) => a.clips.map((k) => k.name)));

describe('the format', () => {
  it('is the 8-byte signature followed by exactly the bytes packScene returns', () => {
    expect([...BUNDLE_SIGNATURE]).toEqual([0x89, 0x52, 0x53, 0x42, 0x0d, 0x0a, 0x1a, 0x0a]);
    const payload = packScene({ files: [{ name: 'a.psk', bytes: text('hello') }], state: { clip: 'Walk' } });
    const file = bundleBytes(payload);
    expect(file.length).toBe(payload.length + 8);
    expect([...file.subarray(0, 8)]).toEqual([...BUNDLE_SIGNATURE]);
    expect(file.subarray(8)).toEqual(payload);
    // The payload is raw deflate of the RSPK container: what another program (the wiki's PHP) checks.
    expect(new TextDecoder().decode(inflateSync(file.subarray(8)).subarray(0, 4))).toBe('RSPK');
  });

  it('is told by its first 8 bytes', () => {
    expect(isBundle(BUNDLE_SIGNATURE)).toBe(true);
    expect(isBundle(bundleBytes(new Uint8Array([1, 2, 3])).buffer)).toBe(true);
    expect(isBundle(BUNDLE_SIGNATURE.subarray(0, 7))).toBe(false);
    expect(isBundle(Uint8Array.of(0x89, 0x52, 0x53, 0x42, 0x0a, 0x1a, 0x0a, 0x00))).toBe(false);
    expect(isBundle(text('PK\x03\x04abcd'))).toBe(false);
  });

  it('is named after the character', () => {
    expect(bundleFileName('Grunt')).toBe('Grunt.rigscope');
    expect(bundleFileName('skSpiderLargeMesh.psk')).toBe('skSpiderLargeMesh.rigscope');
    expect(bundleFileName('a/b:c?')).toBe('a_b_c_.rigscope');
    expect(bundleFileName('')).toBe('rigscope.rigscope');
  });
});

describe('a bundle opens as the files it holds (every family)', () => {
  for (const set of SETS) {
    it(`${set.label}: the same files, names and scene`, async () => {
      const state = { clip: EXPECTED[set.label].clip ?? '', frame: '2', up: '-90,0,0' };
      const file = bundleBytes(packScene({ files: filesOf(set.paths), state }));
      expect((await readBundle(file, { name: 'x.rigscope' })).files.map((f) => [f.name, f.bytes.length])).toEqual(
        set.paths.map((p) => [basename(p), readFileSync(p).length]),
      );
      // The page's input: the bundle is replaced by its files, named as inside it, with its view.
      const opened = await expandZips([entryFromBytes('Hero.rigscope', file)]);
      expect(opened.map((e) => e.path)).toEqual(set.paths.map((p) => basename(p)));
      expect(bundlesOf(opened)).toEqual([{ path: 'Hero.rigscope', state }]);
      const fromBundle = await sceneOf(opened);
      const fromFiles = await sceneOf(set.paths.map((p) => entryFromBytes(basename(p), readFileSync(p))));
      expect(fromBundle).toEqual(fromFiles);
      const want = EXPECTED[set.label];
      expect(fromBundle.json.characters[0].name).toBe(want.character);
      expect(fromBundle.vertices[0]).toEqual([want.character, want.vertices]);
      expect(clipsOf(fromBundle.json)).toHaveLength(want.clips);
      expect(clipsOf(fromBundle.json)[0]).toBe(want.clip);
    });
  }
});

describe('found by content, and opened wherever zips are', () => {
  const two = [`${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`];
  const file = () => bundleBytes(packScene({ files: filesOf(two), state: { clip: 'Bend' } }));

  it('a bundle renamed by a chat host (.bin, no extension) still opens; a game file is never looked at', async () => {
    for (const name of ['two_bone.bin', 'two_bone', 'download.dat']) {
      const opened = await expandZips([entryFromBytes(name, file())]);
      expect(opened.map((e) => e.path)).toEqual(['two_bone.psk', 'two_bone.psa']);
    }
    // A game file (.psk, or a UE package a family does not read) is never looked at, so a folder of
    // game files pays no extra read.
    for (const name of ['odd.psk', 'Engine.u', 'readme.md']) {
      const entry = entryFromBytes(name, file());
      let heads = 0;
      const counted = { ...entry, readHead: (n) => (heads++, entry.readHead(n)) };
      expect(await expandBundles([counted])).toEqual([counted]);
      expect(heads).toBe(0);
    }
  });

  it('a bundle unpacks with progress named after it, ending with every byte in', async () => {
    const seen = [];
    await expandZips([entryFromBytes('hero.rigscope', file())], { onUnpack: (p) => seen.push(p) });
    const size = filesOf(two).reduce((n, f) => n + f.bytes.length, 0);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((p) => p.name === 'hero.rigscope' && p.total === size)).toBe(true);
    expect(seen.at(-1).done).toBe(size);
  });

  it('a bundle inside a zip opens, and zips and bundles share the drop budget', async () => {
    const zip = zipSync({ 'pack/hero.rigscope': file(), 'pack/readme.txt': text('hi') });
    const opened = await expandZips([{ ...entryFromBytes('mods.zip', zip), url: 'https://example.org/mods.zip' }]);
    expect(opened.map((e) => e.path)).toEqual(['two_bone.psk', 'two_bone.psa', 'mods.zip/pack/readme.txt']);
    expect(opened[0].url).toBe('https://example.org/mods.zip');
    expect(bundlesOf(opened)[0]).toEqual({ path: 'mods.zip/pack/hero.rigscope', state: { clip: 'Bend' } });
    // The zip spends 2 of 3 entries; the bundle's 2 files pass what is left.
    await expect(expandZips([entryFromBytes('mods.zip', zip)], { maxZipEntries: 3 })).rejects.toThrow(
      'mods.zip/pack/hero.rigscope: Packed scene: it holds 2 files, over the limit of 1',
    );
  });

  it("the element's src: a fetched bundle gives its files, and its view fills the attributes", async () => {
    const body = file();
    const payload = bundleBytes(
      packScene({ files: filesOf(two), state: { clip: 'Bend', camera: '1,2,3,0,0,0', bg: '202830', up: '-90,0,0' } }),
    );
    const server = createServer((req, res) => {
      res.writeHead(200, { 'Access-Control-Allow-Origin': '*' });
      res.end(req.url.includes('view') ? payload : body);
    });
    await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
    const base = `http://127.0.0.1:${server.address().port}/`;
    try {
      const source = await entriesFromSource('hero-view.rigscope', null, base);
      expect(source.entries.map((e) => [e.path, e.size])).toEqual(filesOf(two).map((f) => [f.name, f.bytes.length]));
      expect(source.urls).toEqual([`${base}hero-view.rigscope`]);
      expect(source.attributes).toEqual({ clip: 'Bend', camera: '1,2,3,0,0,0', background: '202830', up: '-90,0,0', autoplay: '' });
      // The first bundle's view wins; a later one fills only what it left unset.
      const both = await entriesFromSource('hero.rigscope hero-view.rigscope', null, base);
      expect(both.attributes.clip).toBe('Bend');
      expect(both.attributes.camera).toBe('1,2,3,0,0,0');
    } finally {
      server.close();
    }
  });
});

describe('loaders: a bundle loads as its files do', () => {
  const two = [`${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`];
  const arm = [`${FIXTURES}arm.pmd`, `${FIXTURES}arm_wave.psa`];
  let server, base;
  beforeAll(async () => {
    writeBundle('two_bone.rigscope', two, { clip: 'Bend' });
    server = createServer((req, res) => {
      const file = join(dir, decodeURIComponent(req.url.slice(1)));
      if (!existsSync(file)) return res.writeHead(404).end();
      res.writeHead(200).end(readFileSync(file));
    });
    await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${server.address().port}/`;
  });
  afterAll(() => server?.close());

  it('PSKLoader: parse and load of a bundle give the Group its files give', async () => {
    const files = Object.fromEntries(filesOf(two).map((f) => [f.name, f.bytes]));
    const direct = await new PSKLoader().parseAsync(files);
    const bytes = readFileSync(join(dir, 'two_bone.rigscope'));
    for (const group of [
      await new PSKLoader().parseAsync(bytes, 'two_bone.rigscope'),
      await new PSKLoader().parseAsync(bytes), // no name: found by its signature
      await new PSKLoader().loadAsync(`${base}two_bone.rigscope`),
    ]) {
      expect(group.userData.character.name).toBe('two_bone.psk');
      expect(group.animations.map((a) => [a.name, a.tracks.length])).toEqual(direct.animations.map((a) => [a.name, a.tracks.length]));
      expect(group.animations.map((a) => a.name)).toEqual(['Bend']);
      let vertices = 0;
      group.traverse((o) => {
        if (o.isSkinnedMesh) vertices += o.geometry.attributes.position.count;
      });
      expect(vertices).toBe(6);
    }
  });

  it('animation loaders take the bundle’s animation; a loader of another family says what the bundle holds', async () => {
    const clips = await new PSALoader().parseAsync(readFileSync(join(dir, 'two_bone.rigscope')), 'two_bone.rigscope');
    expect(clips.map((c) => c.name)).toEqual(['Bend']);
    const armBundle = bundleBytes(packScene({ files: filesOf(arm) }));
    expect((await new PMDLoader().parseAsync(armBundle, 'arm.rigscope')).animations.map((a) => a.name)).toEqual(['arm_wave']);
    await expect(new PMDLoader().parseAsync(readFileSync(join(dir, 'two_bone.rigscope')), 'two.rigscope')).rejects.toThrow(
      'PMDLoader: two.rigscope holds a mesh (Unreal ActorX), not a mesh (0 A.D.)',
    );
  });

  it('a hostile bundle is refused with the packed link’s message, naming it', async () => {
    await expect(new PSKLoader().parseAsync(text('not a bundle at all'), 'bad.rigscope')).rejects.toThrow(
      'bad.rigscope: it is not a Rigscope bundle: its first bytes (offset 0) are 6E 6F 74 20 61 20 62 75 ("not a bu")',
    );
  });
});

describe('hostile bundles: the packed link’s messages, with the file named', () => {
  const good = () => bundleBytes(packScene({ files: filesOf([`${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`]) }));
  const open = (bytes, name = 'Grunt.rigscope', limits) => expandZips([entryFromBytes(name, bytes)], limits);

  it('a file named .rigscope without the signature names the bytes at offset 0', async () => {
    await expect(open(text('<!DOCTYPE html><p>Not found'))).rejects.toThrow(
      'Grunt.rigscope: it is not a Rigscope bundle: its first bytes (offset 0) are 3C 21 44 4F 43 54 59 50 ("<!DOCTYP"), a bundle starts with 89 52 53 42 0D 0A 1A 0A (it is text or a web page',
    );
    await expect(open(zipSync({ 'a.psk': text('x') }))).rejects.toThrow(/are 50 4B 03 04 .*\(it is a zip archive: rename it \.zip\)/);
    await expect(open(new Uint8Array(0))).rejects.toThrow('Grunt.rigscope: it is not a Rigscope bundle: it is empty');
    // A text-mode transfer turned CR LF into LF: the signature says so.
    const b = good();
    const mangled = Uint8Array.from([...b.subarray(0, 4), 0x0a, ...b.subarray(6)]);
    await expect(open(mangled)).rejects.toThrow(/its line ends were changed on the way \(a text-mode transfer\)/);
  });

  it('truncated', async () => {
    const b = good();
    await expect(open(b.subarray(0, 200))).rejects.toThrow(
      /^Grunt\.rigscope: Packed scene: it is cut off after 192 bytes .*: the file was cut short on its way/,
    );
    await expect(open(b.subarray(0, 8))).rejects.toThrow('Grunt.rigscope: Packed scene: it is empty');
  });

  it('a bomb: inflating past its header stops there', async () => {
    const bomb = bundleBytes(container({ v: 1, state: {}, files: [{ name: 'a.psk', size: 10 }] }, new Uint8Array(50_000_000)));
    expect(bomb.length).toBeLessThan(100_000);
    await expect(open(bomb)).rejects.toThrow('Grunt.rigscope: Packed scene: it inflates past the 10 bytes its header declares; refused');
  });

  it('bad names', async () => {
    for (const [name, why] of [
      ['../evil.psk', 'has an empty, "." or ".." folder in its path'],
      ['/etc/passwd', 'is an absolute path'],
      ['C:evil.psk', 'starts with a drive letter'],
      ['a\u202Ekcp.psk', 'has the control character U+202E at position 1'],
    ]) {
      const b = bundleBytes(container({ v: 1, state: {}, files: [{ name, size: 1 }] }, text('x')));
      await expect(open(b)).rejects.toThrow(
        `Grunt.rigscope: Packed scene: file 1's name ${JSON.stringify(name)} ${why}; nothing was opened`,
      );
    }
  });

  it('too many entries: the count is read before any name', async () => {
    const b = bundleBytes(container({ v: 1, state: {}, files: [] }, new Uint8Array(0), { count: 20_001 }));
    await expect(open(b)).rejects.toThrow('Grunt.rigscope: Packed scene: it holds 20,001 files, over the limit of 20,000');
  });

  it('the command line refuses the bundle with its reason and goes on with the rest (exit 1)', async () => {
    const bad = join(dir, 'bad.rigscope');
    writeFileSync(bad, good().subarray(0, 300));
    const entries = await entriesFromPaths([bad, `${FIXTURES}two_bone.psk`]);
    expect(entries.map((e) => e.path)).toEqual([bad, `${FIXTURES}two_bone.psk`]);
    await expect(entries[0].read()).rejects.toThrow(/^Packed scene: it is cut off after 292 bytes/);
    const r = await cli('inspect', bad, `${FIXTURES}two_bone.psk`);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`rigscope: ${bad}: could not be read: Packed scene: it is cut off after 292 bytes`);
    expect(r.stdout).toMatch(/two_bone\.psk: psk/);
  });
});

describe('rigscope bundle, and every command on a bundle', () => {
  const CLI_SETS = SETS.filter((s) => s.label.endsWith('samples') || !HAVE_SAMPLES);
  /** A command's output with the set's folder and the bundle's path taken out of file names. */
  const plain = (s, set, bundlePath) => s.replaceAll(`${bundlePath}/`, '').replaceAll(`${dirname(set.paths[0])}/`, '');

  for (const set of CLI_SETS) {
    it(`${set.label}: inspect, scene and convert of the bundle say what they say of the files`, async () => {
      const out = join(dir, `${set.label.replace(/\W/g, '_')}.rigscope`);
      const want = EXPECTED[set.label];
      const made = await cli('bundle', ...set.paths, '-o', out, ...(want.clip ? ['--clip', want.clip.toUpperCase()] : []));
      expect(made.stderr).toBe('');
      expect(made.status).toBe(0);
      expect(made.stdout).toContain(`${out}: `);
      expect(isBundle(readFileSync(out))).toBe(true);
      const { files, state } = await readBundle(readFileSync(out), { name: out });
      expect(files.map((f) => f.name)).toEqual(set.paths.map((p) => basename(p)));
      expect(state).toEqual(want.clip ? { clip: want.clip } : {});

      const [sceneB, sceneF, inspectB, inspectF] = await Promise.all([
        cli('scene', out, '--json'),
        cli('scene', ...set.paths, '--json'),
        cli('inspect', out, '--json'),
        cli('inspect', ...set.paths, '--json'),
      ]);
      expect(sceneB.status).toBe(0);
      expect(JSON.parse(sceneB.stdout).characters[0].meshes).toEqual(
        set.paths.filter((p) => p.endsWith(want.character)).map((p) => `${out}/${basename(p)}`),
      );
      expect(plain(sceneB.stdout, set, out)).toBe(plain(sceneF.stdout, set, out));
      expect(JSON.parse(sceneB.stdout).characters[0].name).toBe(want.character);
      expect(clipsOf(JSON.parse(sceneB.stdout))[0]).toBe(want.clip);
      expect(inspectB.status).toBe(0);
      expect(plain(inspectB.stdout, set, out)).toBe(plain(inspectF.stdout, set, out));
      expect(JSON.parse(inspectB.stdout)[0].counts.vertices).toBe(want.vertices);

      const [glbB, glbF] = [join(dir, `${basename(out)}.glb`), join(dir, `${basename(out)}.files.glb`)];
      const [convertB, convertF] = await Promise.all([cli('convert', out, '-o', glbB), cli('convert', ...set.paths, '-o', glbF)]);
      expect([convertB.status, convertF.status]).toEqual([convertF.status, convertB.status]);
      const [a, b] = [glbJson(arrayBuffer(glbB)), glbJson(arrayBuffer(glbF))];
      expect(a.nodes.map((n) => n.name)).toEqual(b.nodes.map((n) => n.name));
      expect((a.animations ?? []).map((x) => x.name)).toEqual((b.animations ?? []).map((x) => x.name));
      expect(a.accessors.map((x) => x.count)).toEqual(b.accessors.map((x) => x.count));
      expect((a.animations ?? []).length).toBe(want.clips);
    }, 120000);
  }

  it('writes the view asked for in the links’ words, and a bundle bundled again keeps its names', async () => {
    const out = join(dir, 'view.rigscope');
    const code = await bundle([`${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`], {
      out,
      clip: 'bend',
      frame: 2,
      lod: 1,
      camera: '1,2,3,0,0.5,0',
      up: [-90, 0, 0],
      background: '#20A830',
    });
    expect(code).toBe(0);
    const { files, state } = await readBundle(readFileSync(out), { name: out });
    expect(files.map((f) => f.name)).toEqual(['two_bone.psk', 'two_bone.psa']);
    expect(state).toEqual({ clip: 'Bend', frame: '2', lod: '1', camera: '1,2,3,0,0.5,0', up: '-90,0,0', bg: '20a830' });
    const again = join(dir, 'again.rigscope');
    expect(await bundle([out], { out: again })).toBe(0);
    expect((await readBundle(readFileSync(again))).files.map((f) => f.name)).toEqual(['two_bone.psk', 'two_bone.psa']);
  });

  it('export: a bundle in a folder stands for its files in that folder’s scene', async () => {
    const folder = join(dir, 'export-in', 'hero');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'hero.rigscope'),
      readFileSync(writeBundle('hero.rigscope', [`${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`])),
    );
    const out = join(dir, 'export-out');
    const r = await cli('export', join(dir, 'export-in'), '-o', out, '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [summary] = JSON.parse(r.stdout).folders;
    expect(summary.characters.map((c) => [c.name, c.file, c.clips])).toEqual([['two_bone.psk', 'export-in/hero/two_bone.glb', ['Bend']]]);
    expect(existsSync(join(out, 'export-in/hero/two_bone.glb'))).toBe(true);
  });

  it('packs the files the scene uses; one it cannot use makes the exit 1', async () => {
    const folder = join(dir, 'knight');
    mkdirSync(folder, { recursive: true });
    for (const n of ['two_bone.psk', 'two_bone.psa', 'knight.psa']) copyFileSync(`${FIXTURES}${n}`, join(folder, n));
    const out = join(dir, 'knight.rigscope');
    expect(await bundle([folder], { out })).toBe(1);
    expect((await readBundle(readFileSync(out))).files.map((f) => f.name)).toEqual(['knight/two_bone.psa', 'knight/two_bone.psk']);
  });

  it('refuses a bad command line with a UsageError', async () => {
    const psk = `${FIXTURES}two_bone.psk`;
    const usage = (paths, options) => expect(bundle(paths, { out: join(dir, 'u.rigscope'), ...options })).rejects.toThrow(UsageError);
    await expect(bundle([psk], { out: join(dir, 'u.html') })).rejects.toThrow(
      '-o ' + join(dir, 'u.html') + ': the bundle is a .rigscope file',
    );
    await expect(bundle([psk, `${FIXTURES}two_bone.psa`], { out: join(dir, 'u.rigscope'), clip: 'Run' })).rejects.toThrow(
      '--clip Run: no clip of that name; clips: Bend',
    );
    await usage([join(dir, 'no-such-file.psk')], {});
    await usage([psk], { camera: '1,2,3' });
    await usage([psk], { up: '45,0,0' });
    await usage([psk], { background: 'red' });
    await usage([psk], { frame: -1 });
    expect(existsSync(join(dir, 'u.rigscope'))).toBe(false);
  });
});
