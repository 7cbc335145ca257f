// The viewer on export trees with levels of detail (build/fixtures/lod_export, from the project's
// own writer): one character showing LOD0, named after its body; the Scene panel's level control
// swaps every part to that level (the clip goes on) or shows all levels; the materials panel names
// the rule that put a texture named after a model plus `_` on it.
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileBrowser, FIXTURES, openFolder, openPage, until, clickMenuItem } from './browser.js';
import { sharedViewerPage } from './shared-page.js';

const BODIES = `${FIXTURES}lod_export/ueviewer/Characters/Male/Bodies`;
const browser = fileBrowser();

/** Each character's name, clip and its meshes' vertex counts, as drawn. */
const drawn = (page) =>
  page.evaluate(() =>
    window.__rigscope.app.characters.map((c) => ({
      name: c.name,
      clip: window.__rigscope.app.current?.character === c ? window.__rigscope.app.current.clip.name : null,
      meshes: c.meshes.map((m) => [m.name, m.geometry.attributes.position.count]),
    })),
  );

/**
 * The viewer page files and folders are opened in, one for the file (a fresh page costs about 3
 * CPU-seconds): cleared first (Clear, as a person does; memory.test.js tests it), at `viewport`,
 * its errors new. Pages a link opens stay fresh: their start is the subject.
 */
const sharedPage = sharedViewerPage(browser);
const viewerPage = (viewport = { width: 640, height: 480 }) => sharedPage({ viewport });

/** The viewer with the body folder just opened (LOD 0, its clip playing). */
async function bodiesPage() {
  const page = await viewerPage({ width: 1280, height: 800 });
  await openFolder(page, BODIES);
  return page;
}

/** Clears the viewer once a test is done with it: its playing clip would draw beside the pages the next ones open. */
const doneWith = (page) => page.evaluate(() => document.getElementById('clear-button').click());

describe('levels of detail in the viewer', () => {
  it('shows LOD0 of each part, and the level control swaps every part to the level chosen', async () => {
    const page = await bodiesPage();
    let [c] = await drawn(page);
    expect(c.name).toBe('SK_MaleBase_01_Body.psk');
    expect(c.clip).toBe('Idle');
    expect(c.meshes.map(([, n]) => n)).toEqual([34, 26, 14, 22]); // arms, body, head, legs at LOD0
    expect(await page.isVisible('#lod')).toBe(true);
    expect(await page.$$eval('#lod option', (o) => o.map((x) => [x.value, x.textContent]))).toEqual([
      ['0', 'LOD 0 (finest)'],
      ['1', 'LOD 1'],
      ['2', 'LOD 2'],
      ['3', 'LOD 3'],
      ['all', 'All levels'],
    ]);
    await page.screenshot({ path: join(tmpdir(), 'rigscope-lod-desktop.png') });

    await page.selectOption('#lod', '2');
    await page.waitForFunction(() => window.__rigscope.app.lod === 2 && !document.getElementById('lod').disabled);
    [c] = await drawn(page);
    expect(c).toMatchObject({ name: 'SK_MaleBase_01_Body.psk', clip: 'Idle' });
    expect(c.meshes.map(([, n]) => n)).toEqual([10, 8, 14, 6]); // the head has one level
    expect(await page.inputValue('#lod')).toBe('2');

    await page.selectOption('#lod', 'all');
    await page.waitForFunction(() => window.__rigscope.app.lod === 'all' && !document.getElementById('lod').disabled);
    [c] = await drawn(page);
    expect(c.meshes).toHaveLength(13);
    expect(c.meshes.map(([name]) => name)).toContain('SK_MaleBase_01_Body LOD3');
    expect(page.errors).toEqual([]);
    await doneWith(page);
  });

  it('hides the level control when no part has levels; the phone layout shows it in the Scene panel', async () => {
    const page = await viewerPage({ width: 390, height: 844 });
    const before = await page.evaluate(() => window.__rigscope.app.loads ?? 0);
    await page.setInputFiles('#file-input', [`${FIXTURES}two_bone.psk`]);
    await page.waitForFunction((n) => (window.__rigscope.app.loads ?? 0) > n, before);
    expect(await page.isVisible('#lod')).toBe(false);
    await openFolder(page, BODIES);
    expect(await page.isVisible('#lod-row')).toBe(true);
    await page.locator('#lod-row').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(tmpdir(), 'rigscope-lod-phone.png') });
    await doneWith(page);
  });
});

describe('a texture named after its model plus _ in the viewer', () => {
  it('puts horse_celt_stripe_a.dds on horse.pmd and the materials panel names the rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rigscope-e2e-prefix-'));
    copyFileSync(`${FIXTURES}arm.pmd`, join(dir, 'horse.pmd'));
    copyFileSync(`${FIXTURES}image_dxt1_mips.dds`, join(dir, 'horse_celt_stripe_a.dds'));
    copyFileSync(`${FIXTURES}image_rgb24.tga`, join(dir, 'banner.tga'));
    const page = await viewerPage();
    await openFolder(page, dir);
    await page.click('summary:has-text("Materials")');
    await expect.poll(() => page.textContent('#materials')).toContain('name prefix');
    expect(await page.textContent('#materials')).toContain('horse_celt_stripe_a.dds');
    await doneWith(page);
  });
});

// ---- the level chosen travels: links, packed links, embed code, the embed page, the element ----

/** The body folder's files as the test site serves them, for file= links and the element's src. */
const bodyUrls = () =>
  readdirSync(BODIES)
    .sort()
    .map((n) => `${inject('baseUrl')}/fixtures/lod_export/ueviewer/Characters/Male/Bodies/${n}`);
const fileQuery = () =>
  bodyUrls()
    .map((u) => `file=${encodeURIComponent(u)}`)
    .join('&');

/**
 * Opens `url` recording the level of detail of every assembly the viewer page makes (its early
 * drawings included): the hook object is caught as the page sets it, before any file is decoded.
 */
async function openRecorded(url, viewport = { width: 1280, height: 800 }) {
  const page = await browser.newPage({ viewport });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.addInitScript(() => {
    window.__lods = [];
    let hook;
    Object.defineProperty(window, '__rigscope', {
      configurable: true,
      get: () => hook,
      set(value) {
        hook = value;
        const app = value?.app;
        if (!app?._assemble) return;
        const assemble = app._assemble.bind(app);
        app._assemble = (...args) => {
          window.__lods.push(app.lod);
          return assemble(...args);
        };
      },
    });
  });
  await page.goto(new URL(url, inject('baseUrl')).href);
  await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 120000 });
  await page.waitForFunction(() => window.__rigscope.app.characters.length > 0, null, { timeout: 60000 });
  return page;
}

/** Copy link or Embed code from the share dialog: the text it offers. */
async function shareText(page, kind) {
  await clickMenuItem(page, kind === 'embed' ? 'embed-button' : 'link-button');
  await page.waitForFunction(() => document.getElementById('share-text').value !== '', null, { timeout: 60000 });
  const text = await page.inputValue('#share-text');
  await page.keyboard.press('Escape');
  return text;
}

/** The embed page's (or a page's element's) characters: name and meshes, as `drawn` gives them. */
const elementDrawn = (page, selector = '#player') =>
  page.evaluate(
    (sel) =>
      document.querySelector(sel).app.characters.map((c) => ({
        name: c.name,
        meshes: c.meshes.map((m) => [m.name, m.geometry.attributes.position.count]),
      })),
    selector,
  );

async function chooseLod(page, value) {
  await page.selectOption('#lod', value);
  await page.waitForFunction((v) => String(window.__rigscope.app.lod) === v && !document.getElementById('lod').disabled, value);
}

/** What the viewer draws of the file= link at lod=2, as its test read it. */
let fileLinkAtLod2;

describe('the level of detail travels with every way of showing a model', () => {
  it('Copy link and Embed code of files from disk carry LOD 2 and All levels: the link opens at that level', async () => {
    const source = await bodiesPage();
    const offered = [];
    for (const [lod, vertices] of [
      ['2', [10, 8, 14, 6]],
      ['all', null],
    ]) {
      await chooseLod(source, lod);
      const [want] = await drawn(source);
      if (vertices) expect(want.meshes.map(([, n]) => n)).toEqual(vertices);
      else expect(want.meshes.map(([name]) => name)).toContain('SK_MaleBase_01_Body LOD3');
      const link = await shareText(source, 'link');
      expect(link).toMatch(/\/index\.html#pack=/);
      offered.push({ lod, want, link, iframe: await shareText(source, 'embed') });
    }
    // Cleared before the link and the embed open: its playing clip would draw beside them.
    await doneWith(source);
    for (const { lod, want, link, iframe } of offered) {
      const page = await openRecorded(link);
      expect((await drawn(page))[0]).toEqual(want);
      // Every drawing, the early ones included, was of that level; the chooser says so.
      expect(await page.evaluate(() => window.__lods.length)).toBeGreaterThan(0);
      expect(new Set(await page.evaluate(() => window.__lods.map(String)))).toEqual(new Set([lod]));
      expect(await page.inputValue('#lod')).toBe(lod);
      expect(page.errors).toEqual([]);
      await page.close();

      const embed = await openPage(browser, iframe.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&'));
      expect(await elementDrawn(embed)).toEqual([{ name: want.name, meshes: want.meshes }]);
      expect(await embed.getAttribute('#player', 'lod')).toBe(lod);
      await embed.close();
    }
  }, 240000);

  it('a packed link at All levels pasted into a tab showing the demo opens at All levels', async () => {
    const source = await bodiesPage();
    await chooseLod(source, 'all');
    const [want] = await drawn(source);
    const link = await shareText(source, 'link');
    await doneWith(source);
    const page = await openPage(browser, '/');
    expect(await page.evaluate(() => window.__rigscope.app.demo)).toBe(true);
    // Only the fragment changes: the page opens the pack as a drop, which replaces the demo (and
    // with it the level the pack set before its files were drawn).
    await page.evaluate((hash) => {
      location.hash = hash;
    }, new URL(link).hash);
    await page.waitForFunction(() => !window.__rigscope.app.demo && window.__rigscope.app.lod === 'all', null, { timeout: 60000 });
    await expect.poll(() => drawn(page), { timeout: 60000 }).toEqual([want]);
    await expect.poll(() => page.inputValue('#lod')).toBe('all');
    expect(page.errors).toEqual([]);
    await page.close();
  }, 240000);

  it('Save page at LOD 2 writes a page that opens from disk at LOD 2', async () => {
    const source = await bodiesPage();
    await chooseLod(source, '2');
    const [want] = await drawn(source);
    const [download] = await Promise.all([source.waitForEvent('download', { timeout: 120000 }), clickMenuItem(source, 'save-page-button')]);
    const path = join(mkdtempSync(join(tmpdir(), 'rigscope-e2e-lod-page-')), 'body.html');
    await download.saveAs(path);
    await doneWith(source);
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    await page.goto(pathToFileURL(path).href);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 120000 });
    expect(await elementDrawn(page)).toEqual([{ name: want.name, meshes: want.meshes }]);
    expect(await page.getAttribute('#player', 'lod')).toBe('2');
    await page.close();
  }, 240000);

  it('a link with file= URLs and lod=2 draws level 2 from its first drawing; Copy link keeps lod=2', async () => {
    const page = await openRecorded(`/?${fileQuery()}&lod=2`);
    const [c] = await drawn(page);
    fileLinkAtLod2 = c;
    expect(c.name).toBe('SK_MaleBase_01_Body.psk');
    expect(c.meshes.map(([, n]) => n)).toEqual([10, 8, 14, 6]);
    expect(await page.evaluate(() => window.__lods)).not.toHaveLength(0);
    expect(await page.evaluate(() => window.__lods.every((l) => l === 2))).toBe(true);
    expect(await page.inputValue('#lod')).toBe('2');
    expect(await page.evaluate(() => window.__rigscope.shareQuery())).toMatch(/(^|&)lod=2(&|$)/);
    await page.evaluate(() => window.__rigscope.pause());
    await page.screenshot({ path: join(tmpdir(), 'rigscope-lod-link-desktop.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(tmpdir(), 'rigscope-lod-link-phone.png') });
    expect(page.errors).toEqual([]);
    await page.close();
  }, 180000);

  it('the embed page with lod=2 and <rigscope-viewer lod="2"> show what the page shows at LOD 2; a new lod assembles again', async () => {
    // What the page shows of that link, as the test before read it (read again when only this test runs).
    const want =
      fileLinkAtLod2 ??
      (await (async () => {
        const page = await openRecorded(`/?${fileQuery()}&lod=2`);
        const [c] = await drawn(page);
        await page.close();
        return c;
      })());

    const embed = await openPage(browser, `/embed.html?${fileQuery()}&lod=2`, { viewport: { width: 1280, height: 800 } });
    expect(await elementDrawn(embed)).toEqual([{ name: want.name, meshes: want.meshes }]);
    await embed.screenshot({ path: join(tmpdir(), 'rigscope-lod-embed-desktop.png') });
    await embed.setViewportSize({ width: 390, height: 844 });
    await embed.screenshot({ path: join(tmpdir(), 'rigscope-lod-embed-phone.png') });

    // The attribute changed after load: the same files assembled again at the new level, the clip going on.
    await embed.evaluate(async () => {
      const player = document.getElementById('player');
      player.setAttribute('lod', 'all');
      await player.loaded;
    });
    const [all] = await elementDrawn(embed);
    expect(all.meshes).toHaveLength(13);
    expect(all.meshes.map(([name]) => name)).toContain('SK_MaleBase_01_Body LOD3');
    expect(await embed.evaluate(() => document.getElementById('player').currentClip)).toBe('Idle');
    await embed.evaluate(async () => {
      const player = document.getElementById('player');
      player.setAttribute('lod', 'abc');
      await player.loaded;
    });
    expect((await elementDrawn(embed))[0].meshes.map(([, n]) => n)).toEqual([34, 26, 14, 22]);
    expect(await embed.evaluate(() => document.getElementById('player').messages.map((m) => m.text))).toContain(
      'lod="abc" is not a level of detail (0 the finest, 1, 2… or all): level 0 is shown',
    );
    expect(embed.errors).toEqual([]);

    // An element a page writes itself, with lod from the start (in the same page: a page's first
    // element makes the renderer and its shaders, seconds on SwiftShader).
    const host = embed;
    await host.evaluate((src) => {
      const v = document.createElement('rigscope-viewer');
      v.id = 'mine';
      v.setAttribute('lod', '2');
      v.setAttribute('src', src);
      v.style.cssText = 'display:block;width:320px;height:240px';
      document.body.prepend(v);
    }, bodyUrls().join(' '));
    // Loaded when its clips are offered (a drawing made while it decodes offers none).
    await until(host, () => document.getElementById('mine').clips.length > 0);
    expect(await elementDrawn(host, '#mine')).toEqual([{ name: want.name, meshes: want.meshes }]);
    expect(host.errors).toEqual([]);
    await host.close();
  }, 240000);

  it('a lod that is not a level is named on the page and in the embed, and level 0 is shown', async () => {
    const page = await openRecorded(`/?${fileQuery()}&lod=-1`);
    expect(await page.textContent('#messages')).toContain('lod=-1 is not a level of detail (0 the finest, 1, 2… or all); ignored');
    expect((await drawn(page))[0].meshes.map(([, n]) => n)).toEqual([34, 26, 14, 22]);
    expect(await page.evaluate(() => window.__rigscope.app.lod)).toBe(0);
    await page.close();
    // A level past the deepest shows each part's coarsest, and the chooser names the level asked for.
    const deep = await openRecorded(`/?${fileQuery()}&lod=7`);
    expect((await drawn(deep))[0].meshes.map(([, n]) => n)).toEqual([6, 4, 14, 4]);
    expect(await deep.inputValue('#lod')).toBe('7');
    expect(await deep.textContent('#lod option:checked')).toBe('LOD 7 (coarsest shown)');
    await deep.close();
    const embed = await openPage(browser, `/embed.html?${fileQuery()}&lod=abc`);
    expect(await embed.textContent('#errors')).toContain('lod=abc is not a level of detail (0 the finest, 1, 2… or all); ignored');
    expect((await elementDrawn(embed))[0].meshes.map(([, n]) => n)).toEqual([34, 26, 14, 22]);
    await embed.close();
  }, 180000);
});
