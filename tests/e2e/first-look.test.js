// The first look at a drop of characters of very different sizes (issue 30): the hero (most
// clips, then most vertices) is selected and framed large, the others stand behind it, and
// PgDn/PgUp step the selection and framing through them. Read through window.rigscope.snapshot()
// (`selected`, each character's `screen` rectangle). Screenshots go to /tmp/shots/hero-*.png.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { existsSync, mkdirSync } from 'node:fs';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, openFolder, SAMPLES } from './browser.js';
import { sharedViewerPage } from './shared-page.js';

const HAVE_SAMPLES = existsSync(SAMPLES);
const SHOTS = '/tmp/shots';
const browser = fileBrowser();
// Every drop here is a first look at an empty view: one page, emptied by Clear between them.
const viewerPage = sharedViewerPage(browser);
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
beforeAll(() => {
  mkdirSync(SHOTS, { recursive: true });
});

const snapshot = (page) => page.evaluate(() => window.rigscope.snapshot());
const settled = (page) => page.evaluate(() => window.__rigscope.viewer.settled());
const canvasHeight = (page) => page.evaluate(() => document.querySelector('#stage canvas').clientHeight);

/** The mixed fixture folder: a ten times larger prop whose name sorts first, and the hero. */
const mixedFolder = () => [
  filePayload(`${FIXTURES}static.pskx`, 'aaa_crate.pskx'),
  filePayload(`${FIXTURES}flag_d.3d`),
  filePayload(`${FIXTURES}flag_a.3d`),
  filePayload(`${FIXTURES}flag.pcx`),
  heroScript(),
];

/** The fixture flag (writer-made) with 100 sequences, shrunk to a tenth of the crate beside it. */
function heroScript() {
  const lines = [
    'class Flag expands Decoration;',
    '#exec MESH IMPORT MESH=flag ANIVFILE=MODELS\\flag_a.3d DATAFILE=MODELS\\flag_d.3d X=0 Y=0 Z=0',
    '#exec MESH ORIGIN MESH=flag X=0 Y=0 Z=0',
  ];
  for (let i = 0; i < 100; i++) lines.push(`#exec MESH SEQUENCE MESH=flag SEQ=Wave${i} STARTFRAME=1 NUMFRAMES=23 RATE=12`);
  lines.push(
    '#exec TEXTURE IMPORT NAME=FlagTex FILE=Textures\\flag.pcx',
    '#exec MESHMAP NEW MESHMAP=flag MESH=flag',
    '#exec MESHMAP SCALE MESHMAP=flag X=0.0012 Y=0.0012 Z=0.0024',
    '#exec MESHMAP SETTEXTURE MESHMAP=flag NUM=0 TEXTURE=FlagTex',
  );
  return { name: 'flag.uc', mimeType: 'text/plain', buffer: Buffer.from(lines.join('\r\n')) };
}

const size = (b) => Math.hypot(...[0, 1, 2].map((k) => b.max[k] - b.min[k]));

/** Checks the first look: `hero` selected, its rectangle at least a third of the view's height. */
async function expectHeroFramed(page, hero) {
  await settled(page);
  const s = await snapshot(page);
  expect(s.selected).toBe(hero);
  const c = s.characters.find((x) => x.name === hero);
  expect(c.screen).not.toBeNull();
  expect(c.screen.height).toBeGreaterThanOrEqual((await canvasHeight(page)) / 3);
  return s;
}

/** PgDn selects the next character and frames it; PgUp comes back to the hero. */
async function expectStepping(page, hero) {
  await page.locator('#stage canvas').focus();
  const before = await snapshot(page);
  await page.keyboard.press('PageDown');
  await settled(page);
  const s = await snapshot(page);
  const shown = before.characters.filter((c) => c.visible).map((c) => c.name);
  const next = shown[(shown.indexOf(hero) + 1) % shown.length];
  expect(s.selected).toBe(next);
  const c = s.characters.find((x) => x.name === next);
  expect(c.screen).not.toBeNull();
  // Framed: it fills a good part of the view one way or the other.
  const h = await canvasHeight(page);
  const w = await page.evaluate(() => document.querySelector('#stage canvas').clientWidth);
  expect(Math.max(c.screen.height / h, c.screen.width / w)).toBeGreaterThan(0.3);
  // The outliner's selection follows.
  expect(await page.locator('#outliner button.name[aria-current="true"]').allTextContents()).toEqual([next]);
  await page.keyboard.press('PageUp');
  await settled(page);
  expect((await snapshot(page)).selected).toBe(hero);
  // The view panel's buttons do the same.
  await page.click('#view-next');
  await settled(page);
  expect((await snapshot(page)).selected).toBe(next);
  await page.click('#view-previous');
  await settled(page);
  expect((await snapshot(page)).selected).toBe(hero);
  // A name clicked in the outliner becomes the selection, and PgDn steps on from it.
  await page.locator('#outliner').getByRole('button', { name: next, exact: true }).click();
  await settled(page);
  expect((await snapshot(page)).selected).toBe(next);
  await page.locator('#stage canvas').focus();
  await page.keyboard.press('PageDown');
  await settled(page);
  expect((await snapshot(page)).selected).toBe(shown[(shown.indexOf(next) + 1) % shown.length]);
}

describe('the first look at a mixed drop', () => {
  it('selects and frames the 100-clip character beside a ten times larger prop whose name sorts first', async () => {
    const page = await viewerPage({ viewport: DESKTOP });
    await chooseFiles(page, mixedFolder());
    const s = await expectHeroFramed(page, 'flag_d.3d');
    const [prop, hero] = ['aaa_crate.pskx', 'flag_d.3d'].map((n) => s.characters.find((c) => c.name === n));
    expect(size(prop.bounds)).toBeGreaterThan(8 * size(hero.bounds));
    // The prop stands behind the hero (further from the camera, which looks from +z).
    expect(prop.bounds.max[2]).toBeLessThan(hero.bounds.min[2]);
    await expectStepping(page, 'flag_d.3d');
    expect(page.errors).toEqual([]);
    // The page stays open for the tests after: it plays nothing while the embed page loads.
    await page.evaluate(() => window.__rigscope.pause());
  });

  it('the embed page (<rigscope-viewer>) starts on the hero; PgDn and PgUp on its view frame each model in turn', async () => {
    const base = `${inject('baseUrl')}/mixed/`;
    // Its own page, routed before it loads (the embed page opens its files at once).
    const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/GPU stall|favicon|ReadPixels/.test(m.text())) page.errors.push(m.text());
    });
    const files = mixedFolder();
    for (const f of files) await page.route(base + f.name, (route) => route.fulfill({ status: 200, body: f.buffer }));
    const query = files.map((f) => `file=${encodeURIComponent(base + f.name)}`).join('&');
    await page.goto(`${inject('baseUrl')}/embed.html?${query}`);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
    await page.evaluate(() => window.__rigscope.element.loaded);
    // Where the camera looks, against each model's centre.
    const view = () =>
      page.evaluate(async () => {
        const r = window.__rigscope;
        await r.viewer.glides.settled?.();
        while (r.viewer.glides.active) await new Promise((ok) => setTimeout(ok, 50));
        const s = r.snapshot();
        const centre = (b) => b.min.map((v, k) => (v + b.max[k]) / 2);
        return {
          selected: s.selected,
          target: r.viewer.controls.target.toArray(),
          centres: Object.fromEntries(s.characters.map((c) => [c.name, centre(c.bounds)])),
        };
      });
    const near = (v, a, b) => Math.hypot(...a.map((x, k) => x - b[k])) < v;
    let v = await view();
    expect(v.selected).toBe('flag_d.3d');
    const gap = Math.hypot(...v.centres['flag_d.3d'].map((x, k) => x - v.centres['aaa_crate.pskx'][k]));
    expect(near(gap / 4, v.target, v.centres['flag_d.3d'])).toBe(true);
    await page.locator('rigscope-viewer canvas').focus();
    await page.keyboard.press('PageDown');
    v = await view();
    expect(v.selected).toBe('aaa_crate.pskx');
    expect(near(gap / 4, v.target, v.centres['aaa_crate.pskx'])).toBe(true);
    await page.keyboard.press('PageUp');
    v = await view();
    expect(v.selected).toBe('flag_d.3d');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it.skipIf(!HAVE_SAMPLES)('finds the hero of every samples folder dropped together', async () => {
    const page = await viewerPage({ viewport: DESKTOP });
    await openFolder(page, SAMPLES);
    // The first look is taken at load; playing the whole samples folder on (400k triangles, some
    // 250 ms of CPU a frame in SwiftShader) adds nothing to it. Camera glides still draw.
    await page.evaluate(() => window.__rigscope.pause());
    const hero = await page.evaluate(() => window.__rigscope.app.hero.name);
    const s = await expectHeroFramed(page, hero);
    // The hero has the most clips of all.
    const clips = await page.evaluate(() => window.__rigscope.app.characters.map((c) => c.clips.length));
    expect(clips[s.characters.findIndex((c) => c.name === hero)]).toBe(Math.max(...clips));
    await page.screenshot({ path: `${SHOTS}/hero-all-samples-desktop.png` });
    await expectStepping(page, hero);
  });

  for (const folder of ['firetrucks', 'trashbag', '']) {
    for (const [device, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ]) {
      const name = folder || 'vertex3d';
      it.skipIf(!HAVE_SAMPLES)(`shows the hero of ${name} large (${device})`, async () => {
        const page = await viewerPage({ viewport });
        await openFolder(page, `${SAMPLES}vertex3d/${folder}`);
        const hero = await page.evaluate(() => window.__rigscope.app.hero.name);
        await expectHeroFramed(page, hero);
        await page.screenshot({ path: `${SHOTS}/hero-${name}-${device}.png` });
        expect(page.errors).toEqual([]);
      });
    }
  }
});
