// The inspector panels and the texture viewer in the page: textures opened from their material
// and from texture buttons (levels, faces, channels, zoom), the bone tree (search, collapse,
// selection marked in 3D) and bone-name labels that never overlap.
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync } from 'node:fs';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, png, SAMPLES } from './browser.js';
import { sharedViewerPage } from './shared-page.js';

const SHOTS = new URL('../../build/screenshots/', import.meta.url).pathname;

const browser = fileBrowser();
beforeAll(() => {
  mkdirSync(SHOTS, { recursive: true });
});

// Every test here drops files into an empty view: one page, emptied by Clear between them.
const viewerPage = sharedViewerPage(browser);

/** The page, empty, that also collects WebGL errors (Chromium reports them as console warnings), from now on. */
async function open(options) {
  const page = await viewerPage(options);
  if (!page.glErrors) {
    page.glErrors = [];
    page.on('console', (m) => {
      if (/GL_INVALID|WebGL: INVALID|GL ERROR/i.test(m.text())) page.glErrors.push(m.text());
    });
  }
  page.glErrors.length = 0;
  return page;
}

const openSide = (page) =>
  page.evaluate(() => {
    for (const d of document.querySelectorAll('#side details')) d.open = true;
  });

async function chooseFolder(page, dir) {
  const before = await page.evaluate(() => window.__rigscope.app.reports.length);
  await page.setInputFiles('#folder-input', dir);
  await page.waitForFunction((n) => window.__rigscope.app.reports.length > n, before, { timeout: 60000 });
}

/** Opens the viewer with a texture button and waits until its pixels are shown (or refused). */
async function view(page, button) {
  await button.click();
  await page.waitForFunction(() => {
    const d = document.querySelector('dialog.texview');
    return d?.open && d.querySelector('.texview-message').textContent !== 'Decoding…';
  });
}

/**
 * What the viewer shows: title, facts line, mip and face choices, zoom, any message, and the RGBA
 * at fractions (fx, fy) of its canvas.
 */
function viewerState(page, points = []) {
  return page.evaluate((pts) => {
    const d = document.querySelector('dialog.texview');
    const c = d.querySelector('canvas');
    const ctx = c.getContext('2d');
    const options = (sel) => [...d.querySelector(sel).options].map((o) => o.textContent);
    return {
      open: d.open,
      title: d.querySelector('h2').textContent,
      facts: d.querySelector('.texview-facts').textContent,
      mips: d.querySelector('.texview-mip').closest('label').hidden ? [] : options('.texview-mip'),
      faces: d.querySelector('.texview-face').closest('label').hidden ? [] : options('.texview-face'),
      zoom: d.querySelector('.texview-zoom').textContent,
      message: d.querySelector('.texview-message').textContent,
      pixels: pts.map(([fx, fy]) => [...ctx.getImageData(Math.floor(c.width * fx), Math.floor(c.height * fy), 1, 1).data]),
    };
  }, points);
}

/** Distinct colours (6 bits a channel) and drawn pixels on the viewer's canvas. */
const canvasColours = (page) =>
  page.evaluate(() => {
    const c = document.querySelector('dialog.texview canvas');
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let drawn = 0;
    for (let i = 0; i < px.length; i += 4) {
      if (px[i + 3] === 0) continue;
      drawn++;
      colours.add(((px[i] >> 2) << 12) | ((px[i + 1] >> 2) << 6) | (px[i + 2] >> 2));
    }
    return { drawn, colours: colours.size };
  });

const near = (got, want, tolerance = 4) => want.every((v, i) => Math.abs(got[i] - v) <= tolerance);
const setSelect = (page, selector, value) => page.selectOption(`dialog.texview ${selector}`, value);
const closeViewer = (page) => page.click('dialog.texview .texview-close');

describe('texture viewer', () => {
  it("opens a material's texture and its maps, with the rule that chose them", async () => {
    const page = await open();
    await chooseFolder(page, `${FIXTURES}unreal_export/ueviewer_props`);
    await openSide(page);
    const rows = await page.$$eval('#materials .material', (list) =>
      list.map((row) => ({
        name: row.querySelector('.material-name').textContent,
        lines: [...row.querySelectorAll('.material-texture')]
          .map((l) => [...l.querySelectorAll('span')].map((s) => s.textContent).join('|'))
          .sort(),
        buttons: row.querySelectorAll('.texture-button').length,
      })),
    );
    expect(rows).toEqual([
      {
        name: 'MI_Hero_Body',
        lines: ['T_Hero_Body_BC.png| — props.txt parent chain', 'arm|T_Hero_Body_ARM.tga', 'normal|T_Hero_Body_N.png'],
        buttons: 3,
      },
      { name: 'MI_Hero_Head', lines: ['T_Head_D.tga| — props.txt', 'normal|T_Head_N.tga'], buttons: 2 },
    ]);

    // A PNG, decoded by the browser: top half (230, 60, 60), bottom half (140, 30, 30).
    await view(page, page.locator('#materials .material').nth(0).locator('.texture-button').first());
    await setSelect(page, '.texview-channels', 'rgb');
    let s = await viewerState(page, [
      [0.5, 0.3],
      [0.5, 0.7],
    ]);
    expect(s).toMatchObject({ open: true, title: 'T_Hero_Body_BC.png', mips: [], faces: [], message: '' });
    expect(s.facts).toBe('ueviewer_props/Game/Characters/Hero/Textures/Texture2D/T_Hero_Body_BC.png · 8 × 8 · PNG · 1 mip');
    expect(s.pixels[0]).toEqual([230, 60, 60, 255]);
    expect(s.pixels[1]).toEqual([140, 30, 30, 255]);
    await closeViewer(page);
    expect(await page.locator('dialog.texview').evaluate((d) => d.open)).toBe(false);

    // A TGA, decoded in the worker: top (60, 120, 230), bottom (30, 60, 150).
    await view(page, page.locator('#materials .material').nth(1).locator('.texture-button').first());
    await setSelect(page, '.texview-channels', 'rgb');
    s = await viewerState(page, [
      [0.5, 0.3],
      [0.5, 0.7],
    ]);
    expect(s.title).toBe('T_Head_D.tga');
    expect(s.facts).toMatch(/T_Head_D\.tga · 8 × 8 · RGBA8 · 1 mip$/);
    expect(s.pixels).toEqual([
      [60, 120, 230, 255],
      [30, 60, 150, 255],
    ]);
    await page.keyboard.press('Escape');
    expect(page.errors).toEqual([]);
  });

  it('shows colour, alpha and zoom of a texture opened from its texture button', async () => {
    const page = await open();
    // Left half transparent red (its colour kept under alpha 0), right half opaque blue.
    const alpha = png(4, 4, (x) => (x < 2 ? [255, 0, 0, 0] : [0, 0, 255, 255]));
    await chooseFiles(page, [{ name: 'alpha.png', mimeType: 'image/png', buffer: alpha }]);
    await openSide(page);
    await view(page, page.locator('#materials .texture-button').first());
    const left = [0.5 - 0.15, 0.5],
      right = [0.5 + 0.15, 0.5];
    let s = await viewerState(page, [left, right]);
    expect(s.title).toBe('alpha.png');
    // RGBA: the checkerboard shows through the transparent half.
    expect(
      [
        [0x8a, 0x8f, 0x99],
        [0x5d, 0x62, 0x6c],
      ].some((c) => near(s.pixels[0], c, 1)),
    ).toBe(true);
    expect(s.pixels[1]).toEqual([0, 0, 255, 255]);
    await setSelect(page, '.texview-channels', 'rgb');
    expect((await viewerState(page, [left, right])).pixels).toEqual([
      [255, 0, 0, 255],
      [0, 0, 255, 255],
    ]);
    await setSelect(page, '.texview-channels', 'alpha');
    expect((await viewerState(page, [left, right])).pixels).toEqual([
      [0, 0, 0, 255],
      [255, 255, 255, 255],
    ]);

    // Fitted, then one texel per pixel, then twice that; keys and buttons.
    const fitted = s.zoom;
    expect(Number.parseFloat(fitted)).toBeGreaterThan(1000);
    await page.focus('dialog.texview canvas');
    await page.keyboard.press('1');
    expect((await viewerState(page)).zoom).toBe('100%');
    await page.click('dialog.texview [aria-label="Zoom in"]');
    expect((await viewerState(page)).zoom).toBe('200%');
    await page.keyboard.press('-');
    expect((await viewerState(page)).zoom).toBe('100%');
    await page.click('dialog.texview [aria-label="Fit to the window"]');
    s = await viewerState(page);
    expect(s.zoom).toBe(fitted);
    // Panning moves the picture: after a drag to the right, where the opaque half showed (white
    // in the alpha view) the transparent half shows (black).
    const box = await page.locator('dialog.texview canvas').boundingBox();
    await page.mouse.move(box.x + box.width * 0.65, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.95, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    expect((await viewerState(page, [[0.5 + 0.15, 0.5]])).pixels[0]).not.toEqual([255, 255, 255, 255]);
    await page.keyboard.press('Escape');
    expect(page.errors).toEqual([]);
  });

  it('opens a PSG texture arena and a cube map from the texture buttons', async () => {
    const page = await open();
    await chooseFiles(page, [filePayload(`${FIXTURES}box_textures.psg`)]);
    await openSide(page);
    await view(page, page.locator('#materials .texture-button').first());
    let s = await viewerState(page);
    expect(s.title).toBe('0x1122334455667788.Texture');
    expect(s.facts).toMatch(/^box_textures\.psg · \d+ × \d+ · \w+ · \d+ mips? · GUID 1122334455667788$/);
    // Its quadrants: red, green, blue.
    const colours = await page.evaluate(() => {
      const c = document.querySelector('dialog.texview canvas');
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const n = [0, 0, 0];
      for (let i = 0; i < px.length; i += 4) {
        if (px[i] > 200 && px[i + 1] < 40 && px[i + 2] < 40) n[0]++;
        if (px[i] < 40 && px[i + 1] > 200 && px[i + 2] < 40) n[1]++;
        if (px[i] < 40 && px[i + 1] < 40 && px[i + 2] > 200) n[2]++;
      }
      return n;
    });
    for (const n of colours) expect(n).toBeGreaterThan(1000);
    await closeViewer(page);

    // A DXT1 cube map read in the worker: per face, 4 × 4 blocks alternating red (205, 28, 24) and
    // blue (24, 28, 205) across the whole level, faces one after another.
    await page.click('#clear-button');
    await chooseFiles(page, [filePayload(`${FIXTURES}image_dxt1_cube.dds`)]);
    await openSide(page);
    await view(page, page.locator('#materials .texture-button').first());
    await setSelect(page, '.texview-channels', 'rgb');
    s = await viewerState(page, [
      [0.5 - 0.15, 0.5],
      [0.5 + 0.15, 0.5],
    ]);
    expect(s.facts).toBe('image_dxt1_cube.dds · 8 × 8 · DXT1 · 4 mips · cube map');
    expect(s.mips).toEqual(['0: 8 × 8', '1: 4 × 4', '2: 2 × 2', '3: 1 × 1']);
    expect(s.faces).toEqual(['+X', '−X', '+Y', '−Y', '+Z', '−Z']);
    const RED = [205, 28, 24],
      BLUE = [24, 28, 205];
    expect(near(s.pixels[0], RED) && near(s.pixels[1], BLUE)).toBe(true);
    await setSelect(page, '.texview-mip', '1');
    const faceColours = [];
    for (const face of ['0', '1', '2', '3']) {
      await setSelect(page, '.texview-face', face);
      faceColours.push((await viewerState(page, [[0.5, 0.5]])).pixels[0]);
    }
    expect(faceColours.map((c) => (near(c, RED) ? 'red' : near(c, BLUE) ? 'blue' : c.join()))).toEqual(['red', 'blue', 'red', 'blue']);
    await page.keyboard.press('Escape');
    expect(page.errors).toEqual([]);
    expect(page.glErrors).toEqual([]);
  });
});

describe.skipIf(!existsSync(SAMPLES))('texture viewer on real files', () => {
  it('shows every texture of the Skate 3 sky arena, with the mips of its detail texture', async () => {
    const page = await open({ viewport: { width: 1280, height: 800 } });
    await chooseFiles(page, [filePayload(`${SAMPLES}psg/skybox_textures.psg`)]);
    await openSide(page);
    const buttons = page.locator('#materials .texture-button');
    expect(await buttons.count()).toBe(3);

    await view(page, buttons.nth(0));
    let s = await viewerState(page);
    expect(s.facts).toBe('skybox_textures.psg · 2048 × 512 · DXT1 · 1 mip · GUID 0a950eac2dfefc7b');
    // The night sky: dark, with blue towards the horizon.
    expect((await canvasColours(page)).colours).toBeGreaterThan(20);
    await page.screenshot({ path: `${SHOTS}panels-texture-sky-desktop.png` });
    await closeViewer(page);

    await view(page, buttons.nth(1));
    await setSelect(page, '.texview-channels', 'rgb');
    s = await viewerState(page);
    expect(s.facts).toBe('skybox_textures.psg · 16 × 16 · DXT1 · 5 mips · GUID 26e51b122e587b70');
    expect(s.mips).toEqual(['0: 16 × 16', '1: 8 × 8', '2: 4 × 4', '3: 2 × 2', '4: 1 × 1']);
    // The detail texture is mid grey at every level, each level filling the view when fitted.
    for (const mip of ['0', '1', '2', '3', '4']) {
      await setSelect(page, '.texview-mip', mip);
      const level = await viewerState(page, [
        [0.5, 0.5],
        [0.5, 0.1],
        [0.5, 0.9],
      ]);
      expect(level.pixels, `mip ${mip}`).toEqual([
        [128, 128, 128, 255],
        [128, 128, 128, 255],
        [128, 128, 128, 255],
      ]);
    }
    await closeViewer(page);

    await view(page, buttons.nth(2));
    s = await viewerState(page);
    expect(s.facts).toBe('skybox_textures.psg · 512 × 16 · DXT1 · 1 mip · GUID 26e564982e587b70');
    expect((await canvasColours(page)).colours).toBeGreaterThan(5);
    await closeViewer(page);
    expect(page.errors).toEqual([]);
    expect(page.glErrors).toEqual([]);
  });

  it('fits the viewer to a phone screen', async () => {
    const page = await open({ viewport: { width: 390, height: 844 } });
    await chooseFiles(page, [filePayload(`${SAMPLES}psg/skybox_textures.psg`)]);
    await openSide(page);
    await view(page, page.locator('#materials .texture-button').nth(0));
    const fits = await page.evaluate(() => {
      const r = document.querySelector('dialog.texview').getBoundingClientRect();
      return r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight;
    });
    expect(fits).toBe(true);
    expect((await canvasColours(page)).colours).toBeGreaterThan(20);
    await page.screenshot({ path: `${SHOTS}panels-texture-sky-phone.png` });
  });
});

/** Bone tree state: visible bone buttons, match count text, the pressed one. */
const treeState = (page) =>
  page.evaluate(() => {
    const visible = [...document.querySelectorAll('#bone-tree button.bone')].filter((b) => b.offsetParent !== null);
    return {
      visible: visible.map((b) => b.textContent),
      matches: [...document.querySelectorAll('#bone-tree li.match > button.bone')].map((b) => b.textContent),
      count: document.querySelector('.bone-count').textContent,
      pressed: [...document.querySelectorAll('#bone-tree button.bone[aria-pressed=true]')].map((b) => b.textContent),
    };
  });

/** Pixels of the 3D view close to the bone marker's colour (the grid hidden, the clip paused). */
const markerPixels = (page) =>
  page.evaluate(() => {
    const rs = window.__rigscope;
    rs.viewer.grid.visible = false;
    const r = rs.viewer.countForegroundPixels();
    let n = 0;
    for (let i = 0; i < r.pixels.length; i += 4) {
      if (Math.abs(r.pixels[i] - 255) + Math.abs(r.pixels[i + 1] - 194) + Math.abs(r.pixels[i + 2] - 26) < 60) n++;
    }
    return n;
  });

/** Every shown 3D label's rectangle, and how many pairs overlap. */
const labelLayout = (page) =>
  page.evaluate(() => {
    const shown = [...document.querySelectorAll('.label3d.bone')].filter((e) => e.isConnected && getComputedStyle(e).display !== 'none');
    const rects = shown.map((e) => e.getBoundingClientRect());
    let overlaps = 0;
    for (let i = 0; i < rects.length; i++) {
      for (let j = i + 1; j < rects.length; j++) {
        const a = rects[i],
          b = rects[j];
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps++;
      }
    }
    return { names: shown.map((e) => e.textContent), overlaps, all: document.querySelectorAll('.label3d.bone:not(.selected)').length };
  });

describe.skipIf(!existsSync(SAMPLES))('a long bone tree (Grunt, 136 bones)', () => {
  it('opens whole top levels at first, and reaches any bone by search or by expanding', async () => {
    const page = await open();
    await chooseFiles(page, [filePayload(`${SAMPLES}psk/Grunt_Preview_LOD0.psk`)]);
    await openSide(page);
    // The skeleton as the page has it: each bone's name and depth, from the three.js bones.
    const bones = await page.evaluate(() =>
      window.__rigscope.app.characters[0].bones.map((b) => {
        let depth = 0;
        for (let p = b.parent; p?.isBone; p = p.parent) depth++;
        return { name: b.userData.sourceName, depth };
      }),
    );
    expect(bones.length).toBe(136);
    let t = await treeState(page);
    expect(t.count).toBe('136 bones');
    // Whole levels, at most 80 rows: every bone down to some depth, none below it.
    const shownDepth = Math.max(...bones.filter((b) => t.visible.includes(b.name)).map((b) => b.depth));
    expect(t.visible.length).toBeLessThanOrEqual(80);
    expect(t.visible.length).toBe(bones.filter((b) => b.depth <= shownDepth).length);
    expect(shownDepth).toBeLessThan(Math.max(...bones.map((b) => b.depth)));

    // The deepest bone, found by name: shown with every ancestor.
    const deepest = bones.reduce((a, b) => (b.depth > a.depth ? b : a));
    await page.fill('.bone-search', deepest.name);
    t = await treeState(page);
    const hits = bones.filter((b) => b.name.toLowerCase().includes(deepest.name.toLowerCase()));
    expect(t.count).toBe(`${hits.length} of 136`);
    expect(t.matches.sort()).toEqual(hits.map((b) => b.name).sort());
    expect(t.visible.length).toBeGreaterThanOrEqual(deepest.depth + 1);
    await page.fill('.bone-search', '');
    await page.click('.bone-tools button:text("Expand all")');
    expect((await treeState(page)).visible.length).toBe(136);
    expect(page.errors).toEqual([]);
  });
});

describe.skipIf(!existsSync(SAMPLES))('bones of the Harry Potter spider', () => {
  async function spider(viewport) {
    const page = await open({ viewport });
    await chooseFiles(page, [filePayload(`${SAMPLES}psk/skSpiderLargeMesh.psk`), filePayload(`${SAMPLES}psk/skSpiderLargeAnims.psa`)]);
    await page.evaluate(() => window.__rigscope.pause());
    await openSide(page);
    await page.fill('.bone-search', ''); // as a page opened for it: no search from a test before
    return page;
  }

  it('searches, collapses and expands the bone tree', async () => {
    const page = await spider();
    let t = await treeState(page);
    expect(t.visible.length).toBe(71);
    expect(t.count).toBe('71 bones');
    await page.fill('.bone-search', 'toe');
    t = await treeState(page);
    // 8 toes (four of them duplicated names), shown with their ancestors only.
    expect(t.count).toBe('8 of 71');
    expect(t.matches.sort()).toEqual([
      'Bip02 L Toe0',
      'Bip02 L Toe0',
      'Bip02 R Toe0',
      'Bip02 R Toe0',
      'bip01 L Toe0',
      'bip01 L Toe0',
      'bip01 R Toe0',
      'bip01 R Toe0',
    ]);
    expect(t.visible).toContain('bip01');
    expect(t.visible).toContain('bip01 L Foot');
    expect(t.visible).not.toContain('bip01 L Hand');
    expect(t.visible.length).toBeLessThan(40);
    await page.fill('.bone-search', 'no such bone');
    expect(await treeState(page)).toMatchObject({ visible: [], count: '0 of 71' });
    await page.fill('.bone-search', '');
    expect((await treeState(page)).visible.length).toBe(71);

    await page.click('.bone-tools button:text("Collapse all")');
    expect((await treeState(page)).visible).toEqual(['bip01']);
    await page.click('#bone-tree li[data-node="0"] > button.twisty');
    t = await treeState(page);
    expect(t.visible[0]).toBe('bip01');
    expect(t.visible.length).toBe(
      1 + (await page.evaluate(() => window.__rigscope.app.characters[0].bones[0].children.filter((c) => c.isBone).length)),
    );
    await page.click('.bone-tools button:text("Expand all")');
    expect((await treeState(page)).visible.length).toBe(71);
  });

  it('marks the selected bone in 3D and keeps its local transform', async () => {
    const page = await spider({ width: 1280, height: 800 });
    const before = await markerPixels(page);
    await page.fill('.bone-search', 'L Foot');
    await page.locator('#bone-tree li.match > button.bone').first().click();
    const t = await treeState(page);
    expect(t.pressed).toEqual(['bip01 L Foot']);
    expect(await page.locator('#bone-detail').innerText()).toMatch(/^bip01 L Foot\nposition .*\nrotation .*\nquat .*\nscale .*/);
    const after = await markerPixels(page);
    expect(before).toBeLessThan(10);
    expect(after).toBeGreaterThan(before + 40);
    expect(await page.locator('.label3d.bone.selected').innerText()).toBe('bip01 L Foot');
    await page.screenshot({ path: `${SHOTS}panels-bones-desktop.png` });
    // Clicking it again clears the selection and the mark.
    await page.locator('#bone-tree button.bone[aria-pressed=true]').click();
    expect((await treeState(page)).pressed).toEqual([]);
    expect(await markerPixels(page)).toBeLessThan(10);
    expect(page.errors).toEqual([]);
  });

  it('thins bone-name labels out so that none overlap', async () => {
    const page = await spider({ width: 1280, height: 800 });
    await page.check('#show-bone-names');
    // Names are measured by the page's next layout, and placed from the frame after it.
    await page.waitForFunction(() => window.__rigscope.viewer.labels.shown.size > 0);
    await page.evaluate(() => window.__rigscope.viewer.render());
    let l = await labelLayout(page);
    expect(l.all).toBe(71);
    expect(l.overlaps).toBe(0);
    // Nearer the root wins: the root's label is always placed.
    expect(l.names).toContain('bip01');
    expect(l.names.length).toBeGreaterThan(8);
    expect(l.names.length).toBeLessThan(71);

    // A selected bone's name is placed first, from any view.
    await page.locator('#bone-tree button.bone', { hasText: 'bip01 R Hand' }).first().click();
    await page.waitForFunction(() => [...window.__rigscope.viewer.labels.shown].some((l) => l.element.classList.contains('selected')));
    for (const [x, y, z] of [
      [0, 0, 1],
      [1, 0.2, 0],
      [0, 1, 0.01],
      [-0.6, 0.3, -0.8],
    ]) {
      await page.evaluate(
        ([px, py, pz]) => {
          const { viewer } = window.__rigscope;
          const d = viewer.camera.position.distanceTo(viewer.controls.target);
          viewer.camera.position.set(px, py, pz).normalize().multiplyScalar(d).add(viewer.controls.target);
          viewer.controls.update();
          viewer.render();
        },
        [x, y, z],
      );
      l = await labelLayout(page);
      expect(l.overlaps, `view from ${x},${y},${z}`).toBe(0);
      expect(l.names).toContain('bip01 R Hand');
      expect(l.names.filter((n) => n === 'bip01 R Hand').length).toBe(1);
    }
    await page.screenshot({ path: `${SHOTS}panels-labels-desktop.png` });
    expect(page.errors).toEqual([]);
  });

  it('lays the bone panel out on a phone', async () => {
    const page = await spider({ width: 390, height: 844 });
    await page.check('#show-bone-names');
    await page.locator('#bone-tree button.bone', { hasText: 'bip01 Head' }).first().click();
    await page.locator('#bone-tree').scrollIntoViewIfNeeded();
    expect((await labelLayout(page)).overlaps).toBe(0);
    const fits = await page.evaluate(() => document.querySelector('.bone-search').getBoundingClientRect().right <= innerWidth);
    expect(fits).toBe(true);
    await page.screenshot({ path: `${SHOTS}panels-bones-phone.png` });
  });
});
