// Repository folders by link (core/repo.js) against a local server that answers as GitHub's and
// GitLab's APIs do (tests/repo-server.js): listing, raw files, and each failure's sentence.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearRepoCache, entriesFromRepo, listRepoFolder, parseRepoUrl, repoHosts } from '../../web/src/core/repo.js';
import { readsName, repoCompanions } from '../../web/src/families/index.js';
import { lfsPointer } from '../../web/src/core/lfs.js';
import { lfsPointerOf, startRepoServer } from '../repo-server.js';
import { zipSync } from 'fflate';
import { createHash } from 'node:crypto';
import { buildQuery, readParams } from '../../web/src/app/params.js';
import { makeShare } from '../../web/src/app/packed-link.js';

const SAMPLES = new URL('../../../shared/samples/', import.meta.url).pathname;
let fake, hosts, lfs;

/** A folder of links to the samples (nothing copied): `{ 'to/file': 'sample/path' }`, plus files written. */
function layout(links, written = {}) {
  const root = mkdtempSync(join(tmpdir(), 'rigscope-repo-layout-'));
  const place = (to) => {
    mkdirSync(join(root, to, '..'), { recursive: true });
    return join(root, to);
  };
  for (const [to, from] of Object.entries(links)) symlinkSync(join(SAMPLES, from), place(to));
  for (const [to, bytes] of Object.entries(written)) writeFileSync(place(to), bytes);
  return root;
}

const FT = 'vertex3d/firetrucks';
const RIFLE = 'vertex3d/assimp-mar_rifle';

beforeAll(async () => {
  const text = mkdtempSync(join(tmpdir(), 'rigscope-repo-text-'));
  mkdirSync(join(text, 'docs'));
  writeFileSync(join(text, 'docs', 'README.md'), '# notes\n');
  writeFileSync(join(text, 'docs', 'notes.txt'), 'hello\n');
  // A UE1 package laid out as UMS Marines' is: scripts in Classes/, a folder per mesh in Models/,
  // skins beside them in Models/ (the scripts import MODELS\key1.PCX).
  const ums = layout({
    'Classes/Key.uc': `${FT}/Classes/Key.uc`,
    'Classes/Bottle.uc': `${FT}/Classes/Bottle.uc`,
    'Classes/Tankard.uc': `${FT}/Classes/Tankard.uc`,
    'Classes/FlatSheet.uc': `${FT}/Classes/FlatSheet.uc`,
    'Models/Key/key_d.3d': `${FT}/Models/key_d.3d`,
    'Models/Key/key_a.3d': `${FT}/Models/key_a.3d`,
    'Models/key1.pcx': `${FT}/Models/key1.pcx`,
    'Models/tankard1.pcx': `${FT}/Models/tankard1.pcx`,
  });
  // Git LFS pointers in place of a texture, a zip, and a texture inside a real zip.
  const bmp = readFileSync(join(SAMPLES, RIFLE, 'm_rifl.bmp'));
  const zip = zipSync({ 'skins/m_rifl.bmp': new TextEncoder().encode(lfsPointerOf(bmp)) });
  lfs = layout(
    {
      'rifle/mar_rifle_d.3d': `${RIFLE}/mar_rifle_d.3d`,
      'rifle/mar_rifle_a.3d': `${RIFLE}/mar_rifle_a.3d`,
      'rifle/mar_rifle.uc': `${RIFLE}/mar_rifle.uc`,
    },
    { 'rifle/m_rifl.bmp': lfsPointerOf(bmp), 'rifle/Packages.zip': lfsPointerOf(Buffer.alloc(5_000_000, 7)), 'rifle/skins.zip': zip },
  );
  fake = await startRepoServer({
    'mods/samples': SAMPLES,
    'group/sub/samples': SAMPLES,
    'mods/text': text,
    'mods/ums': ums,
    'group/sub/ums': ums,
    'mods/lfs': lfs,
  });
  hosts = repoHosts({ github: fake.github, gitlab: fake.gitlab });
});
afterAll(() => fake?.close());
beforeEach(() => {
  clearRepoCache();
  Object.assign(fake.state, {
    rateLimited: false,
    cut: false,
    maxTree: 100000,
    cutTrees: false,
    limitAfter: Infinity,
    apiCalls: 0,
    missingRaw: new Set(),
  });
});

describe('folder URLs', () => {
  it('reads GitHub and GitLab folder addresses as the browser shows them', () => {
    expect(parseRepoUrl('https://github.com/mods/samples/tree/main/psk')).toMatchObject({
      project: 'mods/samples',
      segments: ['main', 'psk'],
    });
    expect(parseRepoUrl('https://gitlab.com/group/sub/samples/-/tree/main/vertex3d/firetrucks')).toMatchObject({
      project: 'group/sub/samples',
      segments: ['main', 'vertex3d', 'firetrucks'],
    });
    expect(parseRepoUrl('https://github.com/mods/samples')).toMatchObject({ segments: [] });
    expect(parseRepoUrl('https://example.com/a/b/tree/main')).toBeNull();
    expect(parseRepoUrl('https://github.com/mods/samples/blob/main/a.psk')).toBeNull();
  });
});

describe('repo= links', () => {
  const folder = `https://github.com/some-modder/unreal-tournament-mod/tree/${'a'.repeat(40)}/Models/Characters`;
  it('reads repo= and refuses what is not a folder address', () => {
    expect(readParams(`?repo=${folder}`, 'https://x/').repo).toBe(folder);
    expect(readParams(`?repo=${folder}`, 'https://x/').demo).toBe(false);
    const bad = readParams('?repo=https://example.com/x', 'https://x/');
    expect(bad.repo).toBeUndefined();
    expect(bad.problems).toEqual([
      'repo=https://example.com/x is not a GitHub or GitLab folder address (…/tree/BRANCH/FOLDER); it was not opened',
    ]);
  });

  it('writes the folder at its commit with the whole view in under 300 characters', async () => {
    const state = {
      repo: folder,
      clip: 'RunLg',
      frame: 12,
      speed: 1,
      autoplay: false,
      camera: [-123.4567, 89.0123, 456.789, 1.2345, 40.5678, -2.3456],
      bg: '202830',
      up: [-90, 0, 0],
      lod: 0,
    };
    const share = await makeShare({ kind: 'link', base: 'https://rigscope.example/viewer/', hosted: [], state, local: [], scene: null });
    expect(share.url.startsWith(`https://rigscope.example/viewer/index.html?repo=${folder}&clip=RunLg`)).toBe(true);
    expect(share.url.length).toBeLessThan(300);
    expect(readParams(new URL(share.url).search, share.url)).toMatchObject({ repo: folder, clip: 'RunLg', frame: 12 });
    expect(buildQuery({ repo: folder })).toBe(`repo=${folder}`);
  });
});

describe('listing', () => {
  it('lists a GitHub folder at its commit and fetches what the families read', async () => {
    let listed;
    const entries = await entriesFromRepo('https://github.com/mods/samples/tree/main/vertex3d/assimp-mar_rifle', {
      hosts,
      wanted: readsName,
      onListed: (l) => (listed = l),
    });
    expect(listed.sha).toBe(fake.sha);
    expect(listed.link).toBe(`https://github.com/mods/samples/tree/${fake.sha}/vertex3d/assimp-mar_rifle`);
    expect(listed.rate).toMatchObject({ limit: 60 });
    // The .source.txt is no family's: not fetched.
    expect(entries.map((e) => e.path).sort()).toEqual([
      'assimp-mar_rifle/m_rifl.bmp',
      'assimp-mar_rifle/mar_rifle.uc',
      'assimp-mar_rifle/mar_rifle_a.3d',
      'assimp-mar_rifle/mar_rifle_d.3d',
    ]);
    expect(entries.every((e) => e.repo === listed.link)).toBe(true);
  });

  it('walks sub-folders and pages of a GitLab subgroup project, with a ref that holds a slash', async () => {
    const l = await listRepoFolder('https://gitlab.com/group/sub/samples/-/tree/feature/models/vertex3d', { hosts, wanted: readsName });
    expect(l.ref).toBe('feature/models');
    expect(l.folder).toBe('vertex3d');
    // Folders are rows too: more than 100 rows, so a second page was asked for.
    expect(fake.state.calls.some((c) => c.includes('/repository/tree?') && c.includes('page=2'))).toBe(true);
    expect(l.files.some((f) => f.path === 'vertex3d/firetrucks/Models/key_d.3d')).toBe(true);
    const [first] = await entriesFromRepo('https://gitlab.com/group/sub/samples/-/tree/main/psk', {
      hosts,
      wanted: (p) => p.endsWith('Suzanne.psk'),
    });
    expect(first.path).toBe('psk/Suzanne.psk');
    expect(first.size).toBeGreaterThan(1000);
  });

  it('asks a tree too large for one answer again from the folder down', async () => {
    fake.state.maxTree = 60; // the whole samples tree is cut; vertex3d/firetrucks is not
    const l = await listRepoFolder('https://github.com/mods/samples/tree/main/vertex3d/firetrucks', { hosts, wanted: readsName });
    expect(l.truncated).toBe(false);
    expect(l.files.map((f) => f.path)).toContain('firetrucks/Models/key_d.3d');
    expect(l.files.length).toBe(15); // 4 scripts, 8 meshes, 3 textures; no README
    expect(fake.state.calls.filter((c) => /\/git\/trees\/[0-9a-f]{40}$/.test(c)).length).toBe(2); // a level at a time
  });

  it('asks the API once per session for the same folder', async () => {
    const url = 'https://github.com/mods/samples/tree/main/zeroad';
    await listRepoFolder(url, { hosts, wanted: readsName });
    const before = fake.state.calls.length;
    await listRepoFolder(url, { hosts, wanted: readsName });
    expect(fake.state.calls.length).toBe(before);
  });
});

describe('each failure ends in a sentence', () => {
  it('a missing or private repository', async () => {
    await expect(listRepoFolder('https://github.com/mods/nothing/tree/main/psk', { hosts })).rejects.toThrow(
      'github.com/mods/nothing is not a public repository or does not exist (GitHub answers 404 for private ones).',
    );
    await expect(listRepoFolder('https://gitlab.com/group/nothing/-/tree/main', { hosts })).rejects.toThrow(
      /gitlab\.com\/group\/nothing is not a public repository/,
    );
    await expect(listRepoFolder('https://github.com/mods/samples/tree/nope/psk', { hosts })).rejects.toThrow(
      'github.com/mods/samples: GitHub knows no such branch, tag or commit as "nope" (nor "nope/psk": a branch name may hold slashes).',
    );
    await expect(listRepoFolder('https://github.com/mods/samples/tree/main/nowhere', { hosts })).rejects.toThrow(
      'has no folder "nowhere" at main',
    );
    await expect(listRepoFolder('https://gitlab.com/group/sub/samples/-/tree/nope', { hosts })).rejects.toThrow(
      'gitlab.com/group/sub/samples: GitLab knows no such branch, tag or commit as "nope".',
    );
    await expect(listRepoFolder('https://gitlab.com/group/sub/samples/-/tree/main/nowhere', { hosts })).rejects.toThrow(
      'has no folder "nowhere" at main',
    );
  });

  it('the API limit, with the reset time', async () => {
    fake.state.rateLimited = true;
    await expect(listRepoFolder('https://github.com/mods/samples/tree/main/psk', { hosts })).rejects.toThrow(
      /^GitHub's API limit is used up \(60 calls an hour without signing in, per address\); it resets at \d\d:\d\d UTC\. .* try again then\.$/,
    );
    await expect(listRepoFolder('https://gitlab.com/group/sub/samples/-/tree/main/psk', { hosts })).rejects.toThrow(
      /^GitLab's API limit is used up; it resets at/,
    );
  });

  it('a folder of nothing Rigscope reads', async () => {
    await expect(listRepoFolder('https://github.com/mods/text/tree/main/docs', { hosts, wanted: readsName })).rejects.toThrow(
      'github.com/mods/text/docs at main holds 2 files, none of which Rigscope reads (meshes, animations, scripts, textures, zips).',
    );
  });

  it('a cut connection', async () => {
    fake.state.cut = true;
    await expect(listRepoFolder('https://github.com/mods/samples/tree/main/psk', { hosts })).rejects.toThrow(
      /^github\.com\/mods\/samples could not be listed: GitHub \(http:\/\/127\.0\.0\.1:\d+\/gh-api\) could not be reached, or the connection was cut/,
    );
    // Listed, then cut while the files download: the link fetcher's sentence.
    fake.state.cut = false;
    await listRepoFolder('https://github.com/mods/samples/tree/main/psg', { hosts, wanted: readsName });
    fake.state.cut = true;
    await expect(entriesFromRepo('https://github.com/mods/samples/tree/main/psg', { hosts, wanted: readsName })).rejects.toThrow(
      /^Could not fetch http:\/\/127\.0\.0\.1:\d+\/gh-raw\/mods\/samples\/[0-9a-f]{40}\/psg\//,
    );
  });
});

// The CLI against the stand-in: its status, stderr and stdout as given. Asynchronous: the fake
// server answers from this process while the CLI runs.
const CLI_PATH = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const cli = (...args) =>
  new Promise((resolve) => {
    const env = {
      ...process.env,
      RIGSCOPE_GITHUB_API: fake.github.api,
      RIGSCOPE_GITHUB_RAW: fake.github.raw,
      RIGSCOPE_GITLAB_API: fake.gitlab.api,
    };
    execFile(process.execPath, [CLI_PATH, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 26 }, (err, stdout, stderr) =>
      resolve({ status: err ? (err.code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('the CLI takes folder addresses (RIGSCOPE_GITHUB_API / _RAW, RIGSCOPE_GITLAB_API)', () => {
  it('scene lists a GitHub folder as a folder on disk', async () => {
    const r = await cli('scene', 'https://github.com/mods/samples/tree/main/vertex3d/assimp-mar_rifle', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const scene = JSON.parse(r.stdout);
    expect(scene.characters.length).toBe(1);
    expect(JSON.stringify(scene)).toContain('assimp-mar_rifle/mar_rifle_d.3d');
  });

  it('page, bundle and export take a GitLab folder', async () => {
    const out = mkdtempSync(join(tmpdir(), 'rigscope-repo-cli-'));
    const folder = 'https://gitlab.com/group/sub/samples/-/tree/main/psg/synthetic';
    expect((await cli('bundle', folder, '-o', join(out, 'quad.rigscope'))).status).toBe(0);
    expect(readFileSync(join(out, 'quad.rigscope')).subarray(1, 4).toString()).toBe('RSB');
    expect((await cli('page', folder, '-o', join(out, 'quad.html'))).status).toBe(0);
    expect(existsSync(join(out, 'quad.html'))).toBe(true);
    const r = await cli('export', folder, '-o', join(out, 'glb'));
    expect(r.status).toBe(0);
    expect(readdirSync(join(out, 'glb'), { recursive: true }).some((f) => String(f).endsWith('.glb'))).toBe(true);
  });

  it('says why a folder could not be read', async () => {
    const r = await cli('scene', 'https://github.com/mods/nothing/tree/main/psk');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('github.com/mods/nothing is not a public repository or does not exist');
  });
});

describe('a file of the folder that cannot be fetched', () => {
  const models = `https://github.com/mods/samples/tree/main/${FT}/Models`;

  it('is an entry refused with the host’s answer; the others arrive', async () => {
    fake.state.missingRaw = new Set([`${FT}/Models/tankard_a.3d`]);
    const entries = await entriesFromRepo(models, { hosts, wanted: readsName });
    expect(entries.filter((e) => e.refusal).map((e) => [e.path, e.refusal])).toEqual([
      ['Models/tankard_a.3d', 'could not be fetched: HTTP 404'],
    ]);
    expect(entries.filter((e) => !e.refusal).length).toBe(10); // 8 meshes and 3 textures, less one
    // GitLab's raw-file API alike.
    clearRepoCache();
    const gl = await entriesFromRepo(`https://gitlab.com/group/sub/samples/-/tree/main/${FT}/Models`, { hosts, wanted: readsName });
    expect(gl.filter((e) => e.refusal).map((e) => e.refusal)).toEqual(['could not be fetched: HTTP 404']);
  });

  it('the CLI shows the rest, names the file with the answer and exits 1', async () => {
    fake.state.missingRaw = new Set([`${FT}/Models/tankard_a.3d`]);
    const scene = await cli('scene', models);
    expect(scene.status).toBe(1);
    const lines = scene.stdout.split('\n');
    expect(lines.filter((l) => /^\S+_d\.3d: /.test(l)).map((l) => l.split(':')[0])).toEqual(['FlatSheet_d.3d', 'bottle_d.3d', 'key_d.3d']);
    expect(lines).toContain('refused firetrucks/Models/tankard_a.3d: could not be fetched: HTTP 404');
    expect(lines).toContain('missing for firetrucks/Models/tankard_d.3d: tankard_a.3d');
    const inspected = await cli('inspect', models);
    expect(inspected.status).toBe(1);
    expect(inspected.stdout).toContain('firetrucks/Models/key_d.3d: ue1\n');
    expect(inspected.stderr).toContain('rigscope: firetrucks/Models/tankard_a.3d: could not be fetched: HTTP 404\n');
    // export walks a copy on disk: the file that never came is said before the walk.
    const out = mkdtempSync(join(tmpdir(), 'rigscope-repo-404-'));
    const exported = await cli('export', models, '-o', out);
    expect(exported.status).toBe(1);
    expect(exported.stderr).toContain('rigscope: firetrucks/Models/tankard_a.3d: could not be fetched: HTTP 404\n');
    const glbs = readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('.glb'));
    expect(glbs.map((f) => String(f).split('/').pop()).sort()).toEqual(['FlatSheet_d.glb', 'bottle_d.glb', 'key_d.glb']);
  });
});

describe('a page saved of a repository folder', () => {
  it('is titled after its hero, not its first file', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rigscope-repo-title-')), 'firetrucks.html');
    const r = await cli('page', `https://github.com/mods/samples/tree/main/${FT}/Models`, '-o', out);
    expect(r.status).toBe(0);
    // FlatSheet_d.3d is read first; of four one-frame props, the one of most vertices is the hero.
    expect(readFileSync(out, 'utf8')).toContain('<title>tankard_d.3d — Rigscope</title>');
  });
});

describe('a listing GitHub cut short', () => {
  it('is completed folder by folder: the same files as an uncut listing', async () => {
    const url = 'https://github.com/mods/samples/tree/main/vertex3d';
    const whole = await listRepoFolder(url, { hosts, wanted: readsName });
    clearRepoCache();
    fake.state.cutTrees = true;
    fake.state.calls.length = 0;
    const completed = await listRepoFolder(url, { hosts, wanted: readsName });
    expect(completed.truncated).toBe(false);
    expect(completed.notes).toEqual([]);
    expect(completed.files.map((f) => f.path)).toEqual(whole.files.map((f) => f.path).sort());
    expect(completed.files.length).toBe(91);
    // A level's own tree, then each folder below it on its own.
    expect(fake.state.calls.filter((c) => /\/git\/trees\/[0-9a-f]{40}$/.test(c)).length).toBeGreaterThan(5);
  });

  it('left cut when the API limit runs out meanwhile: said, and the CLI exits 1 after showing what it has', async () => {
    fake.state.cutTrees = true;
    fake.state.limitAfter = 5; // the commit, the cut tree, two levels down to psg/synthetic, its cut tree
    const note = 'GitHub cut the listing short; some files of github.com/mods/samples/psg/synthetic may be missing';
    const l = await listRepoFolder('https://github.com/mods/samples/tree/main/psg/synthetic', { hosts, wanted: readsName });
    expect(l.truncated).toBe(true);
    expect(l.notes).toEqual([note]);
    expect(l.files.map((f) => f.path)).toEqual(['synthetic/skinned_quad_f32.psg']);
    for (const args of [['scene'], ['scene', '--json'], ['inspect', '--json']]) {
      fake.state.apiCalls = 0;
      const r = await cli(args[0], 'https://github.com/mods/samples/tree/main/psg/synthetic', ...args.slice(1));
      expect(r.stderr).toBe(`rigscope: ${note}\n`);
      expect(r.status).toBe(1);
      expect(r.stdout).toContain('synthetic/skinned_quad_f32.psg');
      expect(r.stdout).not.toContain('skinned_quad_s16');
    }
  });
});

describe('Git LFS pointers', () => {
  const pointerReason = (bytes) => `a Git LFS pointer: the repository keeps this file elsewhere (the file itself is ${bytes}, sha256 `;

  it('lfsPointer reads a pointer’s oid and size, and nothing else', () => {
    const text = lfsPointerOf(Buffer.from('hello'));
    expect(lfsPointer(new TextEncoder().encode(text))).toEqual({
      oid: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      size: 5,
    });
    expect(lfsPointer(new TextEncoder().encode(text.replace('size 5', 'size x')))).toBeNull();
    expect(lfsPointer(new TextEncoder().encode(text.slice(0, 60)))).toBeNull();
    expect(lfsPointer(readFileSync(join(SAMPLES, RIFLE, 'mar_rifle.uc')))).toBeNull();
  });

  it('in a repository folder, a zip and on disk, each is named for what it is and the rest opens', async () => {
    const repo = await cli('scene', 'https://github.com/mods/lfs/tree/main/rifle', '--json');
    const disk = await cli('scene', join(lfs, 'rifle'), '--json');
    for (const [r, prefix] of [
      [repo, 'rifle/'],
      [disk, `${join(lfs, 'rifle')}/`],
    ]) {
      expect(r.status).toBe(1);
      const scene = JSON.parse(r.stdout);
      expect(scene.characters.map((c) => c.name)).toEqual(['mar_rifle_d.3d']);
      // The pointer .bmp is not bound as the rifle's texture.
      expect(scene.characters[0].materials.map((m) => m.texture)).toEqual([null]);
      const refused = Object.fromEntries(scene.refused.map((x) => [x.file, x.reason]));
      const oid = createHash('sha256')
        .update(readFileSync(join(SAMPLES, RIFLE, 'm_rifl.bmp')))
        .digest('hex');
      expect(refused[`${prefix}m_rifl.bmp`]).toBe(`${pointerReason('192.1 KiB')}${oid.slice(0, 12)}…)`);
      expect(refused[`${prefix}Packages.zip`]).toContain(pointerReason('4.8 MiB'));
    }
    // A repository's zip is opened: the pointer inside it is named too.
    expect(JSON.parse(repo.stdout).refused.map((x) => x.file)).toContain('skins.zip/skins/m_rifl.bmp');
    // Every command names them.
    const out = mkdtempSync(join(tmpdir(), 'rigscope-lfs-'));
    const converted = await cli('convert', join(lfs, 'rifle'), '-o', join(out, 'rifle.glb'));
    expect(converted.status).toBe(1);
    expect(converted.stdout).toMatch(/rifle\.glb: \d+ bytes, 1 model\(s\), 1 clip\(s\)/);
    expect(converted.stderr).toContain(`m_rifl.bmp: ${pointerReason('192.1 KiB')}`);
    const inspected = await cli('inspect', join(lfs, 'rifle', 'm_rifl.bmp'));
    expect(inspected.status).toBe(1);
    expect(inspected.stdout).toContain(`  error: ${pointerReason('192.1 KiB')}`);
  });
});

describe('a UE1 mesh whose script is elsewhere in the repository', () => {
  it('fetches the script that imports it and the textures that script imports, and says so', async () => {
    const notes = [];
    const entries = await entriesFromRepo('https://github.com/mods/ums/tree/main/Models/Key', {
      hosts,
      wanted: readsName,
      companions: repoCompanions,
      onNote: (n) => notes.push(n),
    });
    expect(entries.map((e) => e.path)).toEqual([
      'ums/Models/Key/key_a.3d',
      'ums/Models/Key/key_d.3d',
      'ums/Classes/Key.uc',
      'ums/Models/key1.pcx',
    ]);
    expect(notes).toEqual([
      'script Classes/Key.uc fetched from elsewhere in the repository, with the 1 texture it imports: it imports key',
    ]);
    // GitLab alike; a folder whose scripts are all there fetches nothing more.
    clearRepoCache();
    const gl = await entriesFromRepo('https://gitlab.com/group/sub/ums/-/tree/main/Models/Key', {
      hosts,
      wanted: readsName,
      companions: repoCompanions,
    });
    expect(gl.map((e) => e.path)).toContain('ums/Classes/Key.uc');
    const rifle = await entriesFromRepo(`https://github.com/mods/samples/tree/main/${RIFLE}`, {
      hosts,
      wanted: readsName,
      companions: repoCompanions,
    });
    expect(rifle.length).toBe(4);
  });

  it('names a package’s Models/ folder from the package, with every script of its Classes/', async () => {
    const notes = [];
    const entries = await entriesFromRepo(`https://github.com/mods/samples/tree/main/${FT}/Models`, {
      hosts,
      wanted: readsName,
      companions: repoCompanions,
      onNote: (n) => notes.push(n),
    });
    expect(
      entries
        .filter((e) => e.path.startsWith('firetrucks/Classes/'))
        .map((e) => e.path)
        .sort(),
    ).toEqual([
      'firetrucks/Classes/Bottle.uc',
      'firetrucks/Classes/FlatSheet.uc',
      'firetrucks/Classes/Key.uc',
      'firetrucks/Classes/Tankard.uc',
    ]);
    expect(entries.length).toBe(15);
    expect(notes.length).toBe(4);
  });

  it('finds a script of another name (Hamburger.uc imports Hamburger01; GoldCoins.uc the coins)', async () => {
    const notes = [];
    const entries = await entriesFromRepo('https://github.com/mods/samples/tree/main/vertex3d/trashbag/Models', {
      hosts,
      wanted: readsName,
      companions: repoCompanions,
      onNote: (n) => notes.push(n),
    });
    const at = 'vertex3d/trashbag/Classes';
    expect(notes).toContain(`script ${at}/Hamburger.uc fetched from elsewhere in the repository: it imports Hamburger01`);
    expect(notes).toContain(
      `script ${at}/GoldCoins.uc fetched from elsewhere in the repository: it imports coin100, coin10, coin1, coin20, coin50, coin5`,
    );
    // Tankards.uc imports the same coins: once they have a script it is not fetched. lavender and
    // rollychair have none anywhere.
    expect(entries.filter((e) => e.path.endsWith('.uc')).length).toBe(10);
    expect(notes.some((n) => /Tankards|lavender|rollychair/i.test(n))).toBe(false);
  });

  it('the CLI reads the mesh with its script: scale, sequences and skin', async () => {
    const r = await cli('inspect', 'https://github.com/mods/ums/tree/main/Models/Key', '--json');
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      'rigscope: script Classes/Key.uc fetched from elsewhere in the repository, with the 1 texture it imports: it imports key\n',
    );
    const key = JSON.parse(r.stdout).find((x) => x.file === 'ums/Models/Key/key_d.3d');
    expect(key.info.scale).toBe('0.01 0.01 0.02');
    expect(key.sequences.map((s) => s.name)).toEqual(['All', 'KEY']);
    expect(key.warnings).toEqual([]);
    const scene = JSON.parse((await cli('scene', 'https://github.com/mods/ums/tree/main/Models/Key', '--json')).stdout);
    expect(scene.characters[0].materials.map((m) => [m.texture, m.rule])).toEqual([['ums/Models/key1.pcx', 'script slot']]);
  });
});
