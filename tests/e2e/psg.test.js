import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, openPage, SAMPLES } from './browser.js';

const browser = fileBrowser();

/** Counts drawn pixels close to each of the given colours (sRGB bytes). */
const colourCounts = (page, colours) =>
  page.evaluate((list) => {
    const rs = window.__rigscope;
    rs.viewer.grid.visible = false;
    rs.viewer.setAttachmentsVisible(false);
    const r = rs.viewer.countForegroundPixels();
    const counts = list.map(() => 0);
    const drawn = r.count;
    for (let i = 0; i < r.w * r.h; i++) {
      const p = [r.pixels[i * 4], r.pixels[i * 4 + 1], r.pixels[i * 4 + 2]];
      list.forEach((c, k) => {
        if (Math.abs(p[0] - c[0]) + Math.abs(p[1] - c[1]) + Math.abs(p[2] - c[2]) < 90) counts[k]++;
      });
    }
    return { counts, drawn };
  }, colours);

const RED = [255, 0, 0],
  GREEN = [0, 255, 0],
  BLUE = [0, 0, 255];

describe('PSG fixtures in the viewer', () => {
  it('shows the skinned box textured from its texture arena (matched by GUID)', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${FIXTURES}skinned_box.psg`), filePayload(`${FIXTURES}box_textures.psg`)]);
    const lines = await page.evaluate(() => window.__rigscope.reportLines());
    expect(lines).toContain('box_textures.psg → material material_0 of skinned_box.psg (GUID)');
    // Unlit colours for the check: the texture's quadrants, not the lighting.
    await page.evaluate(() => {
      for (const m of window.__rigscope.app.characters[0].materials) {
        m.emissive?.set(0xffffff);
        m.emissiveMap = m.map;
        m.color.set(0);
        m.needsUpdate = true;
      }
    });
    const { counts, drawn } = await colourCounts(page, [RED, GREEN, BLUE]);
    expect(drawn).toBeGreaterThan(2000);
    for (const n of counts) expect(n).toBeGreaterThan(100);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('shows a texture arena alone as named quads', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${FIXTURES}box_textures.psg`)]);
    const { counts, drawn } = await colourCounts(page, [RED, GREEN, BLUE]);
    expect(drawn).toBeGreaterThan(3000);
    for (const n of counts) expect(n).toBeGreaterThan(300);
    expect(await page.locator('.label3d').allInnerTexts()).toEqual(['0x1122334455667788.Texture']);
    await page.close();
  });

  it('reports a damaged arena in the page and keeps what is loaded', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${FIXTURES}skinned_box.psg`)]);
    const cut = readFileSync(`${FIXTURES}box_textures.psg`).subarray(0, 400);
    await chooseFiles(page, [{ name: 'damaged.psg', mimeType: 'application/octet-stream', buffer: cut }]);
    const text = await page.locator('#messages').innerText();
    expect(text).toMatch(/damaged\.psg: PSG damaged\.psg: .*bytes/);
    expect(await page.evaluate(() => window.__rigscope.app.characters.length)).toBe(1);
    await page.close();
  });
});

describe.skipIf(!existsSync(SAMPLES))('real PSG files in the viewer', () => {
  it('shows the night sky dome with its texture', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${SAMPLES}psg/skybox_night.psg`), filePayload(`${SAMPLES}psg/skybox_textures.psg`)]);
    const r = await page.evaluate(() => {
      const rs = window.__rigscope;
      const [material] = rs.app.characters[0].materials;
      // From inside the dome, looking at the horizon, as the game does.
      rs.viewer.grid.visible = false;
      rs.viewer.camera.position.set(0, 300, 0);
      rs.viewer.controls.target.set(3000, 1200, 0);
      rs.viewer.controls.update();
      material.side = 2;
      const px = rs.viewer.countForegroundPixels();
      // The night texture is dark with blue near the horizon: count distinct non-black colours.
      const colours = new Set();
      for (let i = 0; i < px.w * px.h; i += 7)
        colours.add(((px.pixels[i * 4] >> 2) << 12) | ((px.pixels[i * 4 + 1] >> 2) << 6) | (px.pixels[i * 4 + 2] >> 2));
      return { guid: material.userData.source.guid, mapped: material.map?.image.width, colours: colours.size };
    });
    expect(r).toMatchObject({ guid: '0a950eac2dfefc7b', mapped: 2048 });
    expect(r.colours).toBeGreaterThan(20);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
