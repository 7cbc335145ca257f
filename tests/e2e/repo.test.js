// Repository folders by link in the browser: `repo=` on the page, the embed and the element's
// `src` against a local server that answers as GitHub's and GitLab's APIs do
// (tests/repo-server.js), pointed at by the page's host setting (window.rigscopeRepoHosts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAMPLES, clickMenuItem, dropFolder, launch, openPage, until } from './browser.js';
import { lfsPointerOf, startRepoServer } from '../repo-server.js';

// Each family's folder as a repository holds it; the files a drop of that folder gives. The 0 A.D.
// animation sits in a sub-folder: the listing walks it, as a folder drop does.
const FOLDERS = {
  psk: { files: ['psk/skSpiderLargeMesh.psk', 'psk/skSpiderLargeAnims.psa'] },
  zeroad: { files: ['zeroad/skeleton.pmd', 'zeroad/skeleton_idle.psa'], sub: { 'zeroad/skeleton_idle.psa': 'anims' } },
  ue1: {
    files: [
      'vertex3d/assimp-mar_rifle/mar_rifle_d.3d',
      'vertex3d/assimp-mar_rifle/mar_rifle_a.3d',
      'vertex3d/assimp-mar_rifle/mar_rifle.uc',
      'vertex3d/assimp-mar_rifle/m_rifl.bmp',
    ],
  },
  psg: { files: ['psg/synthetic/skinned_quad_f32.psg', 'psg/synthetic/skinned_quad_s16.psg'] },
};

let browser, fake, lfsFolder;
beforeAll(async () => {
  // A folder of links to the samples (nothing copied) per family, plus a README no family reads.
  const root = mkdtempSync(join(tmpdir(), 'rigscope-repo-e2e-'));
  for (const [family, { files, sub = {} }] of Object.entries(FOLDERS)) {
    for (const f of files) {
      const dir = join(root, family, sub[f] ?? '');
      mkdirSync(dir, { recursive: true });
      symlinkSync(join(SAMPLES, f), join(dir, f.split('/').pop()));
    }
  }
  symlinkSync(join(SAMPLES, 'README.md'), join(root, 'psk', 'README.md'));
  // A UE1 package as UMS Marines lays one out (scripts in Classes/, a folder per mesh in Models/,
  // skins in Models/), the firetrucks package as it is, and a folder whose texture and zip are Git
  // LFS pointers.
  const FT = join(SAMPLES, 'vertex3d/firetrucks');
  const link = (from, to) => {
    mkdirSync(join(root, to, '..'), { recursive: true });
    symlinkSync(from, join(root, to));
  };
  link(join(FT, 'Classes/Key.uc'), 'ums/Classes/Key.uc');
  link(join(FT, 'Classes/Bottle.uc'), 'ums/Classes/Bottle.uc');
  link(join(FT, 'Models/key_d.3d'), 'ums/Models/Key/key_d.3d');
  link(join(FT, 'Models/key_a.3d'), 'ums/Models/Key/key_a.3d');
  link(join(FT, 'Models/key1.pcx'), 'ums/Models/key1.pcx');
  link(FT, 'firetrucks');
  const rifle = join(SAMPLES, 'vertex3d/assimp-mar_rifle');
  for (const f of ['mar_rifle_d.3d', 'mar_rifle_a.3d', 'mar_rifle.uc']) link(join(rifle, f), `lfs/${f}`);
  writeFileSync(join(root, 'lfs/m_rifl.bmp'), lfsPointerOf(readFileSync(join(rifle, 'm_rifl.bmp'))));
  writeFileSync(join(root, 'lfs/Packages.zip'), lfsPointerOf(Buffer.alloc(5_000_000, 7)));
  lfsFolder = join(root, 'lfs');
  fake = await startRepoServer({ 'mods/classics': root, 'group/sub/classics': root });
  browser = await launch();
});
afterAll(async () => {
  await dropShared?.context.close();
  await pskRepo?.context.close();
  await browser?.close();
  await fake?.close();
});

/** A page whose repository hosts are the fake server's. */
async function pageWithHosts(path) {
  const context = await browser.newContext();
  const hosts = { github: fake.github, gitlab: fake.gitlab };
  await context.addInitScript((h) => {
    window.rigscopeRepoHosts = h;
  }, hosts);
  const page = await openPage(context, path);
  page.context = context;
  return page;
}

/**
 * The '/?demo=0' page folders are dropped on and Open URL… is used in, one for the file (a fresh
 * page costs about 3 CPU-seconds): cleared first (Clear, as a person does; memory.test.js tests
 * it), its errors new. Pages opened from a repo= link stay fresh: their start is the subject.
 */
let dropShared;
async function dropPage() {
  if (!dropShared) dropShared = await pageWithHosts('/?demo=0');
  else await dropShared.evaluate(() => document.getElementById('clear-button').click());
  dropShared.errors = [];
  return dropShared;
}

/**
 * The page of the psk folder's repo= link, kept for the tests of Copy link on such a page (one
 * load of the folder over the fake API instead of three): paused while other tests run, as its
 * playing clip would draw beside their pages; each Copy link test plays it again first.
 */
let pskRepo;
async function pskRepoPage() {
  pskRepo ??= await pageWithHosts(`/?repo=${encodeURIComponent(repoLink('psk'))}`);
  return pskRepo;
}
const pause = (page) => page.evaluate(() => window.__rigscope.pause());

const scene = (page) =>
  page.evaluate(() => ({
    characters: window.__rigscope.app.characters.map((c) => c.name).sort(),
    clips: window.__rigscope.clipNames().sort(),
  }));

const repoLink = (family) =>
  family === 'zeroad' || family === 'psg'
    ? `https://gitlab.com/group/sub/classics/-/tree/main/${family}`
    : `https://github.com/mods/classics/tree/main/${family}`;

describe('repo= on the page', () => {
  for (const family of Object.keys(FOLDERS)) {
    it(`opens the ${family} folder and shows the same scene as dropping it`, async () => {
      const page = family === 'psk' ? await pskRepoPage() : await pageWithHosts(`/?repo=${encodeURIComponent(repoLink(family))}`);
      const opened = await scene(page);
      expect(opened.characters.length).toBeGreaterThan(0);
      expect(page.errors).toEqual([]);
      // Closed (or paused, psk's, kept for Copy link) before the drop's page opens: its playing
      // clip would draw beside that load.
      if (page === pskRepo) await pause(page);
      else await page.context.close();
      const dropped = await dropPage();
      await dropFolder(
        dropped,
        family,
        FOLDERS[family].files.map((f) => join(SAMPLES, f)),
      );
      expect(await scene(dropped)).toEqual(opened);
      // Paused: it would draw beside the next test's page load.
      await pause(dropped);
    });
  }

  it('Copy link writes the folder at its commit with the view, under 300 characters, and the link opens it', async () => {
    const page = await pskRepoPage();
    await page.evaluate(() => window.__rigscope.app.play());
    expect(await page.locator('#status').textContent()).toMatch(/GitHub API calls left/);
    await clickMenuItem(page, 'link-button');
    await until(page, () => document.getElementById('share-text').value !== '');
    const link = await page.evaluate(() => document.getElementById('share-text').value);
    expect(link).toContain(`repo=https://github.com/mods/classics/tree/${fake.sha}/psk`);
    expect(link).toMatch(/[?&]camera=/);
    expect(link.length).toBeLessThan(300);
    expect(await page.locator('#share-note').textContent()).toContain(`at commit ${fake.sha.slice(0, 12)}`);
    const before = await scene(page);
    await page.keyboard.press('Escape');
    await pause(page);
    const again = await pageWithHosts(link);
    expect(await scene(again)).toEqual(before);
    await again.context.close();
  });

  it('a missing repository and the API limit each end in a sentence on the page', async () => {
    const page = await pageWithHosts(`/?repo=${encodeURIComponent('https://github.com/mods/nothing/tree/main/psk')}`);
    await until(page, () => document.getElementById('messages').textContent.includes('is not a public repository'));
    fake.state.rateLimited = true;
    try {
      const limited = await pageWithHosts(`/?repo=${encodeURIComponent('https://github.com/mods/classics/tree/main/zeroad')}`);
      await until(limited, () => document.getElementById('messages').textContent.includes("GitHub's API limit is used up"));
      await limited.context.close();
    } finally {
      fake.state.rateLimited = false;
    }
    await page.context.close();
  });
});

describe('Open URL…', () => {
  it('takes a folder address as the browser shows it', async () => {
    const page = await dropPage();
    const before = await page.evaluate(() => window.__rigscope.app.loads ?? 0);
    await clickMenuItem(page, 'url-button');
    await page.fill('#url-text', repoLink('psg'));
    await page.click('#url-form button[value="open"]');
    await page.waitForFunction((n) => (window.__rigscope.app.loads ?? 0) > n, before, { timeout: 60000 });
    expect((await scene(page)).characters.length).toBeGreaterThan(0);
    expect(await page.locator('#status').textContent()).toMatch(/2 files read/);
    await pause(page);
  });
});

describe('repo= on the embed page', () => {
  it('opens the folder in the element', async () => {
    const page = await pageWithHosts(`/embed.html?repo=${encodeURIComponent(repoLink('ue1'))}`);
    const { characters } = await page.evaluate(() => window.__rigscope.snapshot());
    expect(characters.length).toBe(1);
    expect(page.errors).toEqual([]);
    await page.context.close();
  });
});

const GH = 'https://github.com/mods/classics/tree/main';
const reset = () =>
  Object.assign(fake.state, { cutTrees: false, limitAfter: Infinity, apiCalls: 0, missingRaw: new Set(), rateLimited: false });
const messages = (page) => page.evaluate(() => document.getElementById('messages').textContent);
const reportLines = (page) => page.evaluate(() => window.__rigscope.reportLines());

describe('a repository folder in part', () => {
  it('a file that answers 404 is named in the report with the answer; the rest of the folder shows', async () => {
    reset();
    fake.state.missingRaw = new Set(['firetrucks/Models/tankard_a.3d']);
    try {
      const page = await pageWithHosts(`/?repo=${encodeURIComponent(`${GH}/firetrucks/Models`)}`);
      expect((await scene(page)).characters).toEqual(['FlatSheet_d.3d', 'bottle_d.3d', 'key_d.3d']);
      const lines = await reportLines(page);
      expect(lines).toContain('tankard_a.3d: could not be fetched: HTTP 404');
      expect(lines).toContain('tankard_d.3d: missing tankard_a.3d (its animation file (vertex positions live there))');
      expect(await page.locator('#status').textContent()).toMatch(/2 problems \(see Files\)/);
      await page.context.close();
    } finally {
      reset();
    }
  });

  it('a listing left cut (the API limit ran out while completing it) is said, and what it holds shows', async () => {
    reset();
    fake.state.cutTrees = true;
    fake.state.limitAfter = 4; // the commit, the cut tree, the root's level, psg's cut tree
    try {
      const page = await pageWithHosts(`/?repo=${encodeURIComponent(`${GH}/psg`)}`);
      await until(page, () => document.getElementById('messages').textContent.includes('cut the listing short'));
      expect(await messages(page)).toContain('GitHub cut the listing short; some files of github.com/mods/classics/psg may be missing');
      expect(await page.evaluate(() => window.__rigscope.app.reports.at(-1).files)).toEqual(['psg/skinned_quad_f32.psg']);
      await page.context.close();
    } finally {
      reset();
    }
  });
});

describe('Git LFS pointers on the page', () => {
  const bmp =
    /^m_rifl\.bmp: a Git LFS pointer: the repository keeps this file elsewhere \(the file itself is 192\.1 KiB, sha256 [0-9a-f]{12}…\)$/;
  const zip =
    /^Packages\.zip: a Git LFS pointer: the repository keeps this file elsewhere \(the file itself is 4\.8 MiB, sha256 [0-9a-f]{12}…\)$/;

  it('from a repository folder and from a drop: named, not bound as a texture, and the mesh shows', async () => {
    const page = await pageWithHosts(`/?repo=${encodeURIComponent(`${GH}/lfs`)}`);
    const dropped = await dropPage();
    await dropFolder(
      dropped,
      'lfs',
      ['mar_rifle_d.3d', 'mar_rifle_a.3d', 'mar_rifle.uc', 'm_rifl.bmp', 'Packages.zip'].map((f) => join(lfsFolder, f)),
    );
    for (const p of [page, dropped]) {
      expect((await scene(p)).characters).toEqual(['mar_rifle_d.3d']);
      const lines = await reportLines(p);
      expect(lines.filter((l) => bmp.test(l)).length).toBe(1);
      expect(lines.filter((l) => zip.test(l)).length).toBe(1);
      expect(await p.evaluate(() => window.__rigscope.app.scene.characters[0].materials.map((m) => m.texture?.path ?? null))).toEqual([
        null,
      ]);
    }
    await page.context.close();
    await pause(dropped);
  });
});

describe('a UE1 mesh whose script is elsewhere in the repository', () => {
  it('opens with the script that imports it and its skin, and the page says where they came from', async () => {
    reset();
    const page = await pageWithHosts(`/?repo=${encodeURIComponent(`${GH}/ums/Models/Key`)}`);
    expect(await scene(page)).toEqual({ characters: ['key_d.3d'], clips: ['All', 'KEY'] });
    expect(await messages(page)).toContain(
      'script ums/Classes/Key.uc fetched from elsewhere in the repository, with the 1 texture it imports: it imports key',
    );
    const material = await page.evaluate(() => {
      const m = window.__rigscope.app.scene.characters[0].materials[0];
      return [m.texture?.path, m.rule];
    });
    expect(material).toEqual(['ums/Models/key1.pcx', 'script slot']);
    await page.context.close();
  });
});

describe('the element (embed page) and a folder in part', () => {
  it('notes the script fetched from elsewhere in the repository, and a file that answers 404', async () => {
    reset();
    fake.state.missingRaw = new Set(['ums/Models/key1.pcx']);
    try {
      const page = await pageWithHosts(`/embed.html?repo=${encodeURIComponent(`${GH}/ums/Models/Key`)}`);
      const { characters } = await page.evaluate(() => window.__rigscope.snapshot());
      expect(characters.map((c) => c.name)).toEqual(['key_d.3d']);
      const messages = await page.evaluate(() => document.querySelector('rigscope-viewer').messages.map((m) => m.text));
      expect(messages).toEqual([
        'key1.pcx: could not be fetched: HTTP 404',
        'script ums/Classes/Key.uc fetched from elsewhere in the repository, with the 1 texture it imports: it imports key',
      ]);
      await page.context.close();
    } finally {
      reset();
    }
  });
});

describe('Copy link while a clip plays', () => {
  it('names the frame on screen, which holds while the dialog is open, and plays on after', async () => {
    reset();
    const page = await pskRepoPage();
    await page.evaluate(() => window.__rigscope.app.play());
    await page.waitForFunction(() => window.__rigscope.app.playing);
    await clickMenuItem(page, 'link-button');
    await until(page, () => document.getElementById('share-text').value !== '');
    const link = await page.evaluate(() => document.getElementById('share-text').value);
    const named = Number(new URL(link).searchParams.get('frame'));
    const shown = await page.evaluate(() => ({
      label: document.getElementById('frame-label').textContent,
      frame: window.__rigscope.app.fileFrame,
      playing: window.__rigscope.app.playing,
    }));
    expect(shown.playing).toBe(false);
    expect(shown.frame).toBe(named);
    expect(shown.label).toMatch(new RegExp(`^frame ${named} / `));
    expect(new URL(link).searchParams.get('autoplay')).not.toBe('0');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => window.__rigscope.app.playing);
    await page.context.close();
    pskRepo = null;
  });
});
