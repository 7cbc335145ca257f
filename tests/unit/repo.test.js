// Repository folders by link (core/repo.js) against a local server that answers as GitHub's and
// GitLab's APIs do (tests/repo-server.js): listing, raw files, and each failure's sentence.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearRepoCache, entriesFromRepo, listRepoFolder, parseRepoUrl, repoHosts } from '../../web/src/core/repo.js';
import { readsName } from '../../web/src/families/index.js';
import { startRepoServer } from '../repo-server.js';
import { buildQuery, readParams } from '../../web/src/app/params.js';
import { makeShare } from '../../web/src/app/packed-link.js';

const SAMPLES = new URL('../../../shared/samples/', import.meta.url).pathname;
let fake, hosts;

beforeAll(async () => {
  const text = mkdtempSync(join(tmpdir(), 'rigscope-repo-text-'));
  mkdirSync(join(text, 'docs'));
  writeFileSync(join(text, 'docs', 'README.md'), '# notes\n');
  writeFileSync(join(text, 'docs', 'notes.txt'), 'hello\n');
  fake = await startRepoServer({ 'mods/samples': SAMPLES, 'group/sub/samples': SAMPLES, 'mods/text': text });
  hosts = repoHosts({ github: fake.github, gitlab: fake.gitlab });
});
afterAll(() => fake?.close());
beforeEach(() => {
  clearRepoCache();
  Object.assign(fake.state, { rateLimited: false, cut: false, maxTree: 100000 });
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
      'knows no such branch, tag or commit',
    );
    await expect(listRepoFolder('https://github.com/mods/samples/tree/main/nowhere', { hosts })).rejects.toThrow(
      'has no folder "nowhere" at main',
    );
    await expect(listRepoFolder('https://gitlab.com/group/sub/samples/-/tree/nope/psk', { hosts })).rejects.toThrow(
      'GitLab knows no such branch, tag or commit',
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

describe('the CLI takes folder addresses (RIGSCOPE_GITHUB_API / _RAW, RIGSCOPE_GITLAB_API)', () => {
  const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
  // Asynchronous: the fake server answers from this process while the CLI runs.
  const run = (...args) =>
    new Promise((resolve) => {
      const env = {
        ...process.env,
        RIGSCOPE_GITHUB_API: fake.github.api,
        RIGSCOPE_GITHUB_RAW: fake.github.raw,
        RIGSCOPE_GITLAB_API: fake.gitlab.api,
      };
      execFile(process.execPath, [CLI, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 26 }, (err, stdout, stderr) =>
        resolve({ status: err ? (err.code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('scene lists a GitHub folder as a folder on disk', async () => {
    const r = await run('scene', 'https://github.com/mods/samples/tree/main/vertex3d/assimp-mar_rifle', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const scene = JSON.parse(r.stdout);
    expect(scene.characters.length).toBe(1);
    expect(JSON.stringify(scene)).toContain('assimp-mar_rifle/mar_rifle_d.3d');
  });

  it('page, bundle and export take a GitLab folder', async () => {
    const out = mkdtempSync(join(tmpdir(), 'rigscope-repo-cli-'));
    const folder = 'https://gitlab.com/group/sub/samples/-/tree/main/psg/synthetic';
    expect((await run('bundle', folder, '-o', join(out, 'quad.rigscope'))).status).toBe(0);
    expect(readFileSync(join(out, 'quad.rigscope')).subarray(1, 4).toString()).toBe('RSB');
    expect((await run('page', folder, '-o', join(out, 'quad.html'))).status).toBe(0);
    expect(existsSync(join(out, 'quad.html'))).toBe(true);
    const r = await run('export', folder, '-o', join(out, 'glb'));
    expect(r.status).toBe(0);
    expect(readdirSync(join(out, 'glb'), { recursive: true }).some((f) => String(f).endsWith('.glb'))).toBe(true);
  });

  it('says why a folder could not be read', async () => {
    const r = await run('scene', 'https://github.com/mods/nothing/tree/main/psk');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('github.com/mods/nothing is not a public repository or does not exist');
  });
});
