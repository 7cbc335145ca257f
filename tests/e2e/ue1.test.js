import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import {
  chooseFiles,
  dropFolder,
  fileBrowser,
  filePayload,
  FIXTURES,
  FLAG_COLOURS,
  frameWithColours,
  maskDifference,
  openPage,
  SAMPLES,
} from './browser.js';

const browser = fileBrowser();

/** Paused at `t` seconds: the frame with counts of the flag texture's reddish and bluish pixels. */
async function shot(page, t) {
  const f = await frameWithColours(page, t, FLAG_COLOURS);
  f.frame = f.label;
  return f;
}

describe('UE1 fixtures in the viewer', () => {
  it("shows the flag textured and plays its Wave sequence at the file's frame numbers", async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(
      page,
      ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((n) => filePayload(FIXTURES + n)),
    );
    expect(await page.evaluate(() => window.__rigscope.clipNames())).toEqual(['Still', 'Wave']);
    await page.locator('#clip-list li', { hasText: 'Wave' }).click();
    const a = await shot(page, 0);
    expect(a.count).toBeGreaterThan(2000);
    // Textured: the PCX's red top half and blue bottom half both appear, red above blue.
    expect(a.red).toBeGreaterThan(75); // sampled: every 2nd pixel each way
    expect(a.blue).toBeGreaterThan(75);
    expect(a.frame).toBe('frame 1 / 23');
    const b = await shot(page, 4 / 12);
    expect(b.frame).toBe('frame 5 / 23');
    expect(maskDifference(a, b)).toBeGreaterThan(40);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("shows the flag upright and not mirrored: red on top, white on the viewer's right", async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(
      page,
      ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((n) => filePayload(FIXTURES + n)),
    );
    const where = await page.evaluate(() => {
      const rs = window.__rigscope;
      rs.viewer.grid.visible = false;
      rs.pause();
      rs.app.setTime(0);
      // Look at the flag straight from +Z (its front, spec: models face +Z).
      rs.viewer.camera.position.set(0, 3.2, 20);
      rs.viewer.controls.target.set(0, 3.2, 0);
      rs.viewer.controls.update();
      const r = rs.viewer.countForegroundPixels();
      const mean = (test) => {
        let n = 0,
          sx = 0,
          sy = 0;
        for (let i = 0; i < r.w * r.h; i++) {
          if (!test(r.pixels[i * 4], r.pixels[i * 4 + 1], r.pixels[i * 4 + 2])) continue;
          n++;
          sx += i % r.w;
          sy += Math.floor(i / r.w);
        }
        return { n, x: sx / n, y: sy / n };
      };
      return {
        red: mean((R, G, B) => R > 120 && G < 80 && B < 90),
        blue: mean((R, G, B) => B > 100 && R < 80),
        white: mean((R, G, B) => R > 200 && G > 200 && B > 200),
        w: r.w,
      };
    });
    // readPixels rows start at the bottom: a larger y is higher on screen.
    expect(where.red.y).toBeGreaterThan(where.blue.y);
    // Texture column 0 (white) is on U = 0, which is vertex column 0 at Unreal y = -64: three x = +6.4,
    // the right side of the picture seen from the front.
    expect(where.white.n).toBeGreaterThan(50);
    expect(where.white.x).toBeGreaterThan(where.w / 2);
    await page.close();
  });

  it('opens a dropped folder with the mesh, its script and texture', async () => {
    const page = await openPage(browser, '/?demo=0');
    await dropFolder(
      page,
      'Flag',
      ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((n) => FIXTURES + n),
    );
    const lines = await page.evaluate(() => window.__rigscope.reportLines());
    expect(lines).toContain('flag_d.3d ↔ flag_a.3d ↔ flag.uc (script)');
    expect(lines.join('\n')).toMatch(/flag\.pcx → material tex0_twosided\S* of flag_d\.3d \(script slot\)/);
    const a = await shot(page, 0);
    expect(a.red).toBeGreaterThan(75); // sampled: every 2nd pixel each way
    await page.close();
  });
});

describe.skipIf(!existsSync(SAMPLES))('real UE1 files in the viewer', () => {
  const V = `${SAMPLES}vertex3d/`;

  it('shows the rifle with its BMP texture and steps through All', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(
      page,
      ['mar_rifle_d.3d', 'mar_rifle_a.3d', 'mar_rifle.uc', 'm_rifl.bmp'].map((n) => filePayload(`${V}assimp-mar_rifle/${n}`)),
    );
    expect(await page.evaluate(() => window.__rigscope.app.characters[0].materials[0].map?.name)).toBe('m_rifl.bmp');
    const a = await shot(page, 0);
    expect(a.count).toBeGreaterThan(1500);
    // Olive-green texture pixels from the BMP (untextured would be one flat palette colour).
    const green = await page.evaluate(() => {
      const r = window.__rigscope.viewer.countForegroundPixels();
      let n = 0;
      for (let i = 0; i < r.w * r.h; i++)
        if (r.pixels[i * 4 + 1] > r.pixels[i * 4 + 2] + 25 && r.pixels[i * 4 + 1] + 10 > r.pixels[i * 4]) n++;
      return n;
    });
    expect(green).toBeGreaterThan(200);
    const b = await shot(page, 0.5);
    expect(b.frame).toBe('frame 15 / 29');
    // The rifle's 30 frames hold the same pose (checked in Node): the picture stays; the flag fixture shows motion.
    expect(maskDifference(a, b)).toBeLessThan(3);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('shows the trash bag textured from its PCX (dropped as a folder)', async () => {
    const page = await openPage(browser, '/?demo=0');
    const files = ['Models/trashbag_d.3d', 'Models/trashbag_a.3d', 'Classes/Trashbag.uc', 'Models/trashbag1.pcx', 'Models/scroll1.pcx'];
    await dropFolder(
      page,
      'trashbag',
      files.map((f) => `${V}trashbag/${f}`),
    );
    const info = await page.evaluate(() => {
      const c = window.__rigscope.app.characters;
      return { n: c.length, maps: c[0].materials.map((m) => m.map?.name) };
    });
    expect(info).toEqual({ n: 1, maps: ['trashbag1'] });
    const a = await shot(page, 0);
    expect(a.count).toBeGreaterThan(3000);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
