// The viewer with real folders: the first drop replaces the demo, unrelated models stand apart,
// isolate, framing that follows a clip, the up-axis in links, Space after Export, texture arenas
// without GL errors, no drawing while idle, and the phone layout. Read through the page's
// read-only handle (window.rigscope.snapshot()) and its pixels.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { animationFrames, chooseFiles, fileBrowser, FIXTURES, openFolder, openPage, pixels, SAMPLES, clickMenuItem } from './browser.js';
import { sharedViewerPage } from './shared-page.js';

const HAVE_SAMPLES = existsSync(SAMPLES);
const browser = fileBrowser();
// Tests of drops into an empty view share one page, emptied by Clear between them; tests of the
// demo share another (looked at and played, never replaced). The first drop onto a page's demo
// and a share link opened have pages of their own.
const viewerPage = sharedViewerPage(browser);
const demoPage = sharedViewerPage(browser, '/');

const openFiles = (page, paths) => chooseFiles(page, paths, 120000);

const snapshot = (page) => page.evaluate(() => window.rigscope.snapshot());
const overlap = (a, b) => [0, 1, 2].every((k) => a.min[k] < b.max[k] && b.min[k] < a.max[k]);

describe('the scene of a folder', () => {
  it('replaces the demo with the first drop, adds later drops, replaces when asked', async () => {
    const page = await openPage(browser, '/');
    expect((await snapshot(page)).demo).toBe(true);
    await openFiles(page, [`${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`]);
    let s = await snapshot(page);
    expect(s.demo).toBe(false);
    expect(s.characters.map((c) => c.name)).toEqual(['two_bone.psk']);
    expect(s.messages).toEqual([]);
    await openFiles(page, [`${FIXTURES}static.pskx`]);
    expect((await snapshot(page)).characters.map((c) => c.name)).toEqual(['two_bone.psk', 'static.pskx']);
    await page.selectOption('#drop-mode', 'replace');
    await openFiles(page, [`${FIXTURES}arm.pmd`]);
    s = await snapshot(page);
    expect(s.characters.map((c) => c.name)).toEqual(['arm.pmd']);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it.skipIf(!HAVE_SAMPLES)('lays a UE1 mod folder out with no two visible models overlapping, textured, calm', async () => {
    const page = await viewerPage({ viewport: { width: 1280, height: 800 } });
    await openFolder(page, `${SAMPLES}vertex3d/partystuff`);
    const s = await snapshot(page);
    expect(s.characters.map((c) => c.name)).toEqual(['kebab_d.3d', 'redbull_d.3d', 'sandwich_d.3d']);
    const boxes = s.characters.filter((c) => c.visible).map((c) => c.bounds);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i], boxes[j])).toBe(false);
    // Two textures no script names are listed as unused, not as errors.
    expect(s.messages).toEqual([]);
    expect(await page.locator('#outliner').innerText()).toMatch(/BLTTex1\.bmp: not used/);
    expect((await pixels(page)).count).toBeGreaterThan(5000);
  });

  it.skipIf(!HAVE_SAMPLES)('isolates one model, and shows them all again', async () => {
    const page = await viewerPage();
    await openFolder(page, `${SAMPLES}vertex3d/firetrucks`);
    const names = (await snapshot(page)).characters.map((c) => c.name);
    expect(names).toEqual(['FlatSheet_d.3d', 'bottle_d.3d', 'key_d.3d', 'tankard_d.3d']);
    const all = (await pixels(page)).count;
    await page.locator('#outliner li', { hasText: 'key_d.3d' }).locator('button.solo').click();
    expect((await snapshot(page)).characters.map((c) => c.visible)).toEqual([false, false, true, false]);
    const alone = (await pixels(page)).count;
    expect(alone).toBeLessThan(all);
    expect(alone).toBeGreaterThan(0);
    await page.locator('#outliner li', { hasText: 'key_d.3d' }).locator('button.solo').click();
    expect((await snapshot(page)).characters.every((c) => c.visible)).toBe(true);
    await page.locator('#outliner li', { hasText: 'bottle_d.3d' }).locator('input[type=checkbox]').uncheck();
    expect((await snapshot(page)).characters.find((c) => c.name === 'bottle_d.3d').visible).toBe(false);
  });

  it('frames the whole clip: the figure stays in view at every frame of a clip that moves it', async () => {
    const page = await viewerPage();
    await openFiles(page, [
      `${FIXTURES}knight_head.psk`,
      `${FIXTURES}knight_body.psk`,
      `${FIXTURES}knight_armour.psk`,
      `${FIXTURES}knight.psa`,
    ]);
    const s = await snapshot(page);
    expect(s.characters).toHaveLength(1);
    // Project the character's bounds at each frame: every corner inside the view.
    const outside = await page.evaluate(async () => {
      const { app, viewer } = window.__rigscope;
      const Vector3 = viewer.camera.position.constructor;
      let worst = 0;
      for (let f = 0; f < 4; f++) {
        app.current.action.paused = true;
        app.setTime(f / 8);
        const b = window.rigscope.snapshot().characters[0].bounds;
        for (let i = 0; i < 8; i++) {
          const p = new Vector3(i & 1 ? b.max[0] : b.min[0], i & 2 ? b.max[1] : b.min[1], i & 4 ? b.max[2] : b.min[2]).project(
            viewer.camera,
          );
          worst = Math.max(worst, Math.abs(p.x), Math.abs(p.y));
        }
      }
      return worst;
    });
    expect(outside).toBeLessThanOrEqual(1);
  });

  it('turns the scene a quarter about X and keeps the turn in a share link', async () => {
    const page = await viewerPage();
    await openFiles(page, [`${FIXTURES}two_bone.psk`]);
    const upright = (await snapshot(page)).characters[0].bounds;
    expect(upright.max[1] - upright.min[1]).toBeCloseTo(20, 3);
    await page.click('[data-turn="x,-90"]');
    const lying = (await snapshot(page)).characters[0].bounds;
    expect(lying.max[1] - lying.min[1]).toBeLessThan(1e-3);
    expect(lying.max[2] - lying.min[2]).toBeCloseTo(20, 3);
    const query = await page.evaluate(() => window.__rigscope.shareQuery());
    expect(query).toMatch(/up=-90%2C0%2C0/);
    await page.click('#turn-reset'); // the page serves the next tests upright
    // The link reopens with the same turn (files from this computer are not in it: use a hosted one).
    const again = await openPage(browser, `/?file=${encodeURIComponent('./demo/rigscope-demo.psk')}&${query}`);
    expect(await again.evaluate(() => window.__rigscope.viewer.up)).toEqual([-90, 0, 0]);
    await again.close();
  });

  it('Space after clicking Export plays or pauses and never exports again; export keeps playback', async () => {
    const page = await demoPage({ keep: true });
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.evaluate(() => {
      window.__rigscope.app.current.action.paused = true;
      window.__rigscope.app.setTime(0.4);
    });
    const before = await page.evaluate(() => window.__rigscope.app.time);
    await Promise.all([page.waitForEvent('download'), clickMenuItem(page, 'export-button')]);
    await page.waitForFunction(() => /Exported/.test(document.getElementById('status').textContent), null, { timeout: 60000 });
    expect(downloads).toBe(1);
    expect(await page.evaluate(() => window.__rigscope.app.time)).toBeCloseTo(before, 5);
    expect(await page.evaluate(() => window.__rigscope.app.current.action.paused)).toBe(true);
    await page.keyboard.press(' ');
    // Once the time moves on the key has been handled; an export it began would have said so at once.
    await page.waitForFunction((t) => window.__rigscope.app.playing && window.__rigscope.app.time !== t, before, { timeout: 30000 });
    expect(await page.textContent('#status')).toMatch(/Exported/);
    expect(downloads).toBe(1);
    // The page stays open for later tests: it plays nothing while the tests between run.
    await page.evaluate(() => window.__rigscope.pause());
  });

  it.skipIf(!HAVE_SAMPLES)('shows a texture arena and the sky dome without GL errors; the dome is unlit and seen from inside', async () => {
    const page = await viewerPage();
    const gl = [];
    page.on('console', (m) => {
      if (/GL_INVALID|WebGL: INVALID/i.test(m.text())) gl.push(m.text());
    });
    await openFiles(page, [`${SAMPLES}psg/skybox_textures.psg`]);
    await openFiles(page, [`${SAMPLES}psg/cas_texture_0x2c7f381800171902.psg`]);
    await page.selectOption('#drop-mode', 'replace');
    await openFiles(page, [`${SAMPLES}psg/skybox_night.psg`, `${SAMPLES}psg/skybox_textures.psg`]);
    const s = await snapshot(page);
    expect(s.characters.map((c) => [c.name, c.visible])).toEqual([['skybox_night.psg', true]]);
    // From inside the dome (camera at its centre) the sky fills the view with texture, not black.
    const inside = await page.evaluate(() => {
      const { viewer, app } = window.__rigscope;
      viewer.grid.visible = false;
      viewer.camera.position.set(0, 1000, 0);
      viewer.controls.target.set(0, 1100, -100);
      viewer.controls.update();
      const r = viewer.countForegroundPixels();
      let lit = 0;
      for (let i = 0; i < r.pixels.length; i += 4) if (r.pixels[i] + r.pixels[i + 1] + r.pixels[i + 2] >= 20) lit++;
      const [m] = app.characters[0].materials;
      return { count: r.count, lit, total: r.total, unlit: m.type === 'MeshBasicMaterial', bothSides: m.side === 2, map: m.map?.name };
    });
    // The night sky's own dark blues fill the view: unlit, textured, seen from inside.
    expect(inside).toMatchObject({ unlit: true, bothSides: true, map: '0x0a950eac2dfefc7b.Texture' });
    expect(inside.count).toBeGreaterThan(inside.total * 0.9);
    expect(inside.lit).toBeGreaterThan(inside.total * 0.9);
    expect(gl).toEqual([]);
  });

  it("marks a UE1 sequence's notify on the timeline", async () => {
    const page = await viewerPage();
    await openFiles(
      page,
      ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((n) => FIXTURES + n),
    );
    await page.evaluate(() => {
      const { app } = window.__rigscope;
      const wave = app.allClips.find((c) => c.clip.name === 'Wave');
      app.select(wave.character, wave.clip);
    });
    const marks = await page.locator('#notify-marks span').evaluateAll((spans) => spans.map((s) => [s.title, s.style.left]));
    expect(marks).toEqual([[expect.stringMatching(/^Flap at 0\.958 s$/), expect.stringMatching(/^\d+(\.\d+)?%$/)]]);
  });

  it('opens an actor that props itself at three points at once, with one message', async () => {
    const page = await viewerPage();
    const actor =
      '<actor version="1"><group><variant><mesh>arm.dae</mesh><props><prop actor="self.xml" attachpoint="hand"/><prop actor="self.xml" attachpoint="head"/><prop actor="self.xml" attachpoint="prop_hand"/></props></variant></group></actor>';
    const before = await page.evaluate(() => window.__rigscope.app.loads ?? 0);
    await page.setInputFiles('#file-input', [
      { name: 'self.xml', mimeType: 'text/xml', buffer: Buffer.from(actor) },
      { name: 'arm.pmd', mimeType: 'application/octet-stream', buffer: (await import('node:fs')).readFileSync(`${FIXTURES}arm.pmd`) },
    ]);
    await page.waitForFunction((n) => (window.__rigscope.app.loads ?? 0) > n, before, { timeout: 30000 });
    // The cycle is cut where it starts: the actor's own mesh and no prop was built (counted, not
    // timed: a busy machine takes its time over any drop).
    const built = await page.evaluate(() => {
      const [c] = window.__rigscope.app.characters;
      let meshes = 0;
      c.root.traverse((o) => o.isMesh && meshes++);
      return { parts: [...c.tree()].length, props: c.props.length, meshes };
    });
    expect(built).toEqual({ parts: 1, props: 0, meshes: 1 });
    const s = await snapshot(page);
    expect(s.characters.map((c) => c.name)).toEqual(['self.xml']);
    expect(s.messages).toEqual([{ file: 'self.xml', text: 'self.xml: props itself through self.xml: the cycle is cut' }]);
  });

  it('draws no frame while paused and idle', async () => {
    const page = await demoPage({ keep: true });
    await page.evaluate(() => window.__rigscope.pause());
    // Counted in the page's own animation frames, so a busy machine cannot make it pass by drawing slowly.
    await animationFrames(page, 5);
    const a = await page.evaluate(() => window.__rigscope.viewer.frames);
    await animationFrames(page, 60);
    const b = await page.evaluate(() => window.__rigscope.viewer.frames);
    expect(b - a).toBe(0);
    // A change draws again.
    await page.click('#show-skeleton');
    await page.waitForFunction((n) => window.__rigscope.viewer.frames > n, b, { timeout: 30000 });
    await page.click('#show-skeleton'); // hidden again for the next test
  });

  it('gives the 3D view at least 60 % of a phone screen', async () => {
    const page = await demoPage({ viewport: { width: 390, height: 844 }, keep: true });
    const m = await page.evaluate(() => {
      const r = document.getElementById('stage').getBoundingClientRect();
      return { h: r.height, w: r.width, scrollW: document.documentElement.scrollWidth, side: document.getElementById('side').scrollWidth };
    });
    expect(m.h).toBeGreaterThanOrEqual(0.6 * 844);
    expect(m.scrollW).toBeLessThanOrEqual(390);
    expect((await pixels(page)).count).toBeGreaterThan(300);
  });
});

describe('an Unreal export folder, textured as exported', () => {
  it("puts the sidecars' maps on the materials; the normal map visibly changes the shading", async () => {
    const page = await viewerPage();
    await openFolder(page, `${FIXTURES}unreal_export/ueviewer_props`);
    const slots = await page.evaluate(() =>
      window.__rigscope.app.characters[0].materials.map((m) => [m.name, m.map?.name, !!m.normalMap, !!m.roughnessMap]),
    );
    expect(slots).toEqual([
      ['MI_Hero_Body', 'T_Hero_Body_BC.png', true, true],
      ['MI_Hero_Head', 'T_Head_D.tga', true, false],
    ]);
    expect(await page.locator('#materials').textContent()).toMatch(/props\.txt parent chain/);
    // Mean change per drawn pixel against the previous picture (kept in the page: no megabytes over the wire).
    const shade = () =>
      page.evaluate(() => {
        const { viewer } = window.__rigscope;
        viewer.grid.visible = false;
        viewer.setAttachmentsVisible(false);
        const r = viewer.countForegroundPixels();
        const previous = window.__previousShade ?? r.pixels;
        let sum = 0;
        for (let i = 0; i < r.pixels.length; i += 4)
          sum +=
            Math.abs(r.pixels[i] - previous[i]) + Math.abs(r.pixels[i + 1] - previous[i + 1]) + Math.abs(r.pixels[i + 2] - previous[i + 2]);
        window.__previousShade = r.pixels;
        return { count: r.count, change: sum / Math.max(1, r.count) };
      });
    const full = await shade();
    expect(full.count).toBeGreaterThan(1000);
    await page.check('#base-colour-only');
    // The normal map lights the upper half more and the lower half less than the plain material.
    expect((await shade()).change).toBeGreaterThan(6);
    await page.uncheck('#base-colour-only');
    expect((await shade()).change).toBeGreaterThan(6);
    expect((await shade()).change).toBe(0);
  });
});
