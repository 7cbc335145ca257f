// Large meshes go to the GPU in slices across frames before their first draw (web/src/app/upload.js).
// With the threshold lowered to nothing and slices of 16 bytes, every mesh of the writers'
// fixtures takes that path over many frames; the finished picture must be the very one the
// unsliced path draws (every triangle of it), for every family, and nothing may be left unfilled.
import { describe, expect, it } from 'vitest';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, openPage } from './browser.js';
import { sharedViewerPage } from './shared-page.js';

const FAMILIES = {
  psk: ['knight_body.psk', 'knight_armour.psk', 'knight_head.psk', 'knight.psa'],
  zeroad: ['arm.pmd', 'arm_wave.psa'],
  ue1: ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'],
  psg: ['skinned_box.psg', 'box_textures.psg'],
};

const browser = fileBrowser();
const VIEW = { viewport: { width: 320, height: 240 } };
// Two pages for the pictures compared (the unsliced one and the sliced one), each emptied between
// tests: both have the same history of drops and Clears, so a picture can differ only by its path.
const wholePage = sharedViewerPage(browser);
const slicedPage = sharedViewerPage(browser);

/**
 * `shared`'s page, emptied, its uploader's settings, adaptive sizes and counts back where the page
 * began (kept at its first use) and then `settings` over them: as a page just opened and set so.
 */
async function uploadsPage(shared, settings = {}) {
  const page = await shared(VIEW);
  await setUploads(page, settings);
  return page;
}

/** The page's uploader as it began (its settings, adaptive sizes and counts), with `settings` over that. */
function setUploads(page, settings) {
  return page.evaluate((s) => {
    const { uploads } = window.__rigscope.viewer;
    uploads.__began ??= {
      ...Object.fromEntries(Object.entries(uploads).filter(([, v]) => typeof v === 'number' || typeof v === 'boolean')),
      stats: { ...uploads.stats },
    };
    Object.assign(uploads, uploads.__began, { stats: { ...uploads.__began.stats } }, s);
  }, settings);
}

/** The page's picture once every upload is done, paused at `t` of the current clip, as base64 RGBA, and the triangles drawn. */
async function picture(page, t) {
  await page.waitForFunction(() => window.__rigscope.viewer.uploads.pending === 0 && !window.__rigscope.viewer.glides?.active, null, {
    timeout: 60000,
  });
  return page.evaluate((time) => {
    const { app, viewer } = window.__rigscope;
    window.__rigscope.pause();
    if (app.current) app.setTime(Math.min(time, app.current.clip.lastTime));
    viewer.grid.visible = false;
    const { pixels } = viewer.countForegroundPixels();
    const triangles = viewer.renderer.info.render.triangles;
    let text = '';
    for (let i = 0; i < pixels.length; i += 0x8000) text += String.fromCharCode(...pixels.subarray(i, i + 0x8000));
    return { rgba: btoa(text), triangles };
  }, t);
}

describe('sliced upload of large meshes', () => {
  for (const [family, files] of Object.entries(FAMILIES)) {
    it(`${family}: the picture and triangles equal the unsliced ones, and every array three allocated is filled`, async () => {
      const payload = files.map((f) => filePayload(`${FIXTURES}${f}`));
      const whole = await uploadsPage(wholePage);
      await chooseFiles(whole, payload);
      const plain = await whole.evaluate(() => window.__rigscope.viewer.uploads.stats);
      const expected = await picture(whole, 0.3);
      expect(whole.errors).toEqual([]);
      // The default threshold keeps these small fixtures on three's own path.
      expect(plain.arrays).toBe(0);
      expect(plain.slices).toBe(0);

      const sliced = await uploadsPage(slicedPage, { threshold: 0, minSliceBytes: 16, maxSliceBytes: 16, frameBytes: 16 });
      await chooseFiles(sliced, payload);
      const actual = await picture(sliced, 0.3);
      const stats = await sliced.evaluate(() => window.__rigscope.viewer.uploads.stats);
      expect(sliced.errors).toEqual([]);
      // three's own buffers filled in many slices, every one of them to its end.
      expect(stats.arrays).toBeGreaterThan(1);
      expect(stats.filled).toBe(stats.arrays);
      expect(stats.dropped).toBe(0);
      expect(stats.slices).toBeGreaterThan(stats.arrays);
      // Every triangle is drawn again once the upload ends (the empty draw range is undone).
      expect(actual.triangles).toBeGreaterThan(0);
      expect(actual.triangles).toBe(expected.triangles);
      const a = Buffer.from(actual.rgba, 'base64'),
        b = Buffer.from(expected.rgba, 'base64');
      expect(a.length).toBe(b.length);
      const background = a.filter((v, i) => i % 4 === 0 && v !== a[0]).length;
      expect(background).toBeGreaterThan(100); // something is drawn
      let differing = 0;
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differing++;
      expect(differing).toBe(0);
    });
  }

  it('a mesh cleared while it uploads leaves no buffer behind and draws nothing', async () => {
    const page = await uploadsPage(slicedPage);
    // A first drop drawn and cleared: what three keeps for the page (its lookup table for standard
    // materials, compiled shaders) is made before the count.
    await chooseFiles(page, [filePayload(`${FIXTURES}two_bone.psk`)]);
    expect((await page.evaluate(() => window.__rigscope.pixels())).count).toBeGreaterThan(0);
    await page.evaluate(() => document.getElementById('clear-button').click());
    const empty = await page.evaluate(() => ({ ...window.__rigscope.viewer.renderer.info.memory }));
    // One slice of 16 bytes a frame: still uploading when Clear comes.
    await setUploads(page, { threshold: 0, minSliceBytes: 16, maxSliceBytes: 16, frameBytes: 16, maxFrameBytes: 16 });
    await chooseFiles(
      page,
      FAMILIES.psk.map((f) => filePayload(`${FIXTURES}${f}`)),
    );
    const during = await page.evaluate(() => window.__rigscope.viewer.uploads.pending);
    await page.evaluate(() => document.getElementById('clear-button').click());
    await page.waitForFunction(() => window.__rigscope.viewer.uploads.pending === 0, null, { timeout: 60000 });
    const after = await page.evaluate(() => {
      const { viewer } = window.__rigscope;
      viewer.grid.visible = false;
      return { memory: { ...viewer.renderer.info.memory }, drawn: viewer.countForegroundPixels().count, stats: viewer.uploads.stats };
    });
    expect(during).toBeGreaterThan(0);
    expect(after.memory).toEqual(empty);
    expect(after.drawn).toBe(0);
    // Every buffer three allocated was either filled or deleted with its geometry before that.
    expect(after.stats.dropped).toBeGreaterThan(0);
    expect(after.stats.filled + after.stats.dropped).toBe(after.stats.arrays);
    expect(page.errors).toEqual([]);
  });

  it('several slices go in one frame, and a frame carries more while frames stay cheap', async () => {
    const page = await uploadsPage(slicedPage, { threshold: 0, minSliceBytes: 16, maxSliceBytes: 16, frameBytes: 16 });
    await chooseFiles(
      page,
      FAMILIES.psk.map((f) => filePayload(`${FIXTURES}${f}`)),
    );
    await page.waitForFunction(() => window.__rigscope.viewer.uploads.pending === 0, null, { timeout: 60000 });
    const stats = await page.evaluate(() => window.__rigscope.viewer.uploads.stats);
    expect(stats.filled).toBe(stats.arrays);
    // Slices of 16 bytes, but no longer one a frame: the bytes of a frame doubled from 16.
    expect(stats.slices).toBeGreaterThan(2 * stats.frames);
    expect(stats.peakFrameBytes).toBeGreaterThanOrEqual(4 * 16);
    expect(page.errors).toEqual([]);
  });

  // Every family's fixtures in one drop, their meshes let in one a frame: each render makes at
  // most one new geometry, the view counts the waiting meshes as pending, and the finished picture
  // is the one drawn with no limit.
  it('a drop draws at most firstDraws new meshes a frame, the rest wait, and the picture ends the same', async () => {
    const payload = Object.values(FAMILIES)
      .flat()
      .map((f) => filePayload(`${FIXTURES}${f}`));
    const open = async (firstDraws) => {
      const page = await uploadsPage(firstDraws ? slicedPage : wholePage, firstDraws ? { firstDraws } : {});
      await page.evaluate(() => {
        const { viewer } = window.__rigscope;
        // The most geometries one render made, and the most meshes waiting at one render.
        const seen = (window.__firstDraws = { most: 0, waiting: 0 });
        // The page's own render, wrapped once here (the page serves other tests before and after).
        const render = (viewer.__unwrappedRender ??= viewer.render.bind(viewer));
        viewer.render = (...args) => {
          const before = viewer.renderer.info.memory.geometries;
          // The attachment markers' one geometry, made anew as sockets come, is no mesh let in.
          const markers = viewer.markers.object.geometry;
          seen.waiting = Math.max(seen.waiting, viewer.uploads.pending);
          render(...args);
          const made = viewer.renderer.info.memory.geometries - before - (viewer.markers.object.geometry !== markers ? 1 : 0);
          seen.most = Math.max(seen.most, made);
        };
      });
      await chooseFiles(page, payload);
      return page;
    };
    const whole = await open(0);
    const expected = await picture(whole, 0.3);
    const unlimited = await whole.evaluate(() => {
      const { viewer } = window.__rigscope;
      viewer.render = viewer.__unwrappedRender;
      return window.__firstDraws;
    });
    expect(whole.errors).toEqual([]);
    expect(unlimited.most).toBeGreaterThan(2); // the fixtures' meshes drawn first in one frame

    const page = await open(1);
    const actual = await picture(page, 0.3);
    const limited = await page.evaluate(() => {
      const { viewer } = window.__rigscope;
      viewer.render = viewer.__unwrappedRender;
      return window.__firstDraws;
    });
    expect(page.errors).toEqual([]);
    expect(limited.most).toBe(1);
    expect(limited.waiting).toBeGreaterThan(0);
    expect(actual.triangles).toBe(expected.triangles);
    const a = Buffer.from(actual.rgba, 'base64'),
      b = Buffer.from(expected.rgba, 'base64');
    let differing = 0;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differing++;
    expect(differing).toBe(0);
  });

  // three asks WebGL for an extension the first time it needs one (the first DXT texture), and
  // asking waits for the GPU process to finish everything queued: the viewer asks them at start.
  // A page of its own: one that drew DXT textures before has asked already, whoever asked.
  it('a drop with DXT textures asks WebGL for no extension', async () => {
    const page = await openPage(browser, '/?demo=0', { viewport: { width: 320, height: 240 } });
    await page.evaluate(() => {
      const gl = window.__rigscope.viewer.renderer.getContext();
      const getExtension = gl.getExtension.bind(gl);
      window.__asked = [];
      gl.getExtension = (name) => (window.__asked.push(name), getExtension(name));
    });
    await chooseFiles(
      page,
      FAMILIES.psg.map((f) => filePayload(`${FIXTURES}${f}`)),
    );
    const { asked, dxt } = await page.evaluate(() => {
      let dxt = 0;
      window.__rigscope.viewer.scene.traverse((o) => {
        for (const m of [].concat(o.material ?? [])) if (m.map?.isCompressedTexture) dxt++;
      });
      return { asked: window.__asked, dxt };
    });
    expect(dxt).toBeGreaterThan(0);
    expect(asked).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
