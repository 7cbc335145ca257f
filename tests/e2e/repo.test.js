// Repository folders by link in the browser: `repo=` on the page, the embed and the element's
// `src` against a local server that answers as GitHub's and GitLab's APIs do
// (tests/repo-server.js), pointed at by the page's host setting (window.rigscopeRepoHosts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAMPLES, dropFolder, launch, openPage, until, clickMenuItem } from './browser.js';
import { startRepoServer } from '../repo-server.js';

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

let browser, fake;
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
  fake = await startRepoServer({ 'mods/classics': root, 'group/sub/classics': root });
  browser = await launch();
});
afterAll(async () => {
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
      const page = await pageWithHosts(`/?repo=${encodeURIComponent(repoLink(family))}`);
      const opened = await scene(page);
      expect(opened.characters.length).toBeGreaterThan(0);
      expect(page.errors).toEqual([]);
      // Closed before the drop's page opens: its playing clip would draw beside that load.
      await page.context.close();
      const dropped = await pageWithHosts('/?demo=0');
      await dropFolder(
        dropped,
        family,
        FOLDERS[family].files.map((f) => join(SAMPLES, f)),
      );
      expect(await scene(dropped)).toEqual(opened);
      await dropped.context.close();
    });
  }

  it('Copy link writes the folder at its commit with the view, under 300 characters, and the link opens it', async () => {
    const page = await pageWithHosts(`/?repo=${encodeURIComponent(repoLink('psk'))}`);
    expect(await page.locator('#status').textContent()).toMatch(/GitHub API calls left/);
    await clickMenuItem(page, 'link-button');
    await until(page, () => document.getElementById('share-text').value !== '');
    const link = await page.evaluate(() => document.getElementById('share-text').value);
    expect(link).toContain(`repo=https://github.com/mods/classics/tree/${fake.sha}/psk`);
    expect(link).toMatch(/[?&]camera=/);
    expect(link.length).toBeLessThan(300);
    expect(await page.locator('#share-note').textContent()).toContain(`at commit ${fake.sha.slice(0, 12)}`);
    const before = await scene(page);
    await page.context.close();
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
    const page = await pageWithHosts('/?demo=0');
    const before = await page.evaluate(() => window.__rigscope.app.loads ?? 0);
    await clickMenuItem(page, 'url-button');
    await page.fill('#url-text', repoLink('psg'));
    await page.click('#url-form button[value="open"]');
    await page.waitForFunction((n) => (window.__rigscope.app.loads ?? 0) > n, before, { timeout: 60000 });
    expect((await scene(page)).characters.length).toBeGreaterThan(0);
    expect(await page.locator('#status').textContent()).toMatch(/2 files read/);
    await page.context.close();
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
