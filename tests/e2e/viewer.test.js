import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chooseFiles, filePayload, FIXTURES, launch, openPage, pixels, SAMPLES } from './browser.js';

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

const snapshot = (page) => page.evaluate(() => {
  window.__rigscope.viewer.grid.visible = false;
  const r = window.__rigscope.viewer.countForegroundPixels();
  // A coarse signature of the picture: which 16x16 cells are covered.
  const cells = [];
  for (let y = 0; y < r.h; y += 16) for (let x = 0; x < r.w; x += 16) {
    const o = (y * r.w + x) * 4;
    cells.push(r.pixels[o] + r.pixels[o + 1] + r.pixels[o + 2]);
  }
  return { count: r.count, cx: r.cx, cy: r.cy, cells };
});
const differingCells = (a, b) => a.cells.filter((v, i) => Math.abs(v - b.cells[i]) > 30).length;

describe('viewer page', () => {
  it('opens with the animated demo character', async () => {
    const page = await openPage(browser, '/');
    const names = await page.evaluate(() => window.__rigscope.clipNames());
    expect(names).toEqual(expect.arrayContaining(['Idle', 'Walk']));
    const p = await pixels(page);
    expect(p.count).toBeGreaterThan(p.total * 0.02);
    // The walk moves the limbs: two times of the clip give different pictures.
    await page.evaluate(() => {
      const { app } = window.__rigscope;
      const walk = app.allClips.find((c) => c.clip.name === 'Walk');
      app.select(walk.character, walk.clip);
      window.__rigscope.pause();
      app.setTime(0);
    });
    const a = await snapshot(page);
    await page.evaluate(() => window.__rigscope.app.setTime(window.__rigscope.app.current.clip.duration * 0.5));
    const b = await snapshot(page);
    expect(differingCells(a, b)).toBeGreaterThan(3);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('shows an error for a truncated file and keeps what is loaded', async () => {
    const page = await openPage(browser, '/');
    const before = await pixels(page);
    await chooseFiles(page, [filePayload(`${FIXTURES}truncated.psk`)]);
    const text = await page.locator('#errors').innerText();
    expect(text).toMatch(/truncated\.psk/);
    expect(text).toMatch(/byte \d+/);
    const after = await pixels(page);
    expect(after.count).toBeGreaterThan(before.count * 0.5);
    expect(await page.evaluate(() => window.__rigscope.app.characters.length)).toBe(1);
    // Still usable: step a frame.
    await page.click('#step-forward');
    await page.close();
  });

  it('renders file names as text, never as HTML', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${FIXTURES}hostile_names.psk`), filePayload(`${FIXTURES}hostile_names.psa`)]);
    const injected = await page.evaluate(() => document.querySelectorAll('#side img, #errors img, #clip-list img').length);
    expect(injected).toBe(0);
    expect(await page.locator('#info').innerText()).toContain('<img');
    expect(await page.evaluate(() => window.__xss === undefined)).toBe(true);
    await page.close();
  });
});

describe.skipIf(!existsSync(SAMPLES))('real Unreal files', () => {
  it('shows the spider and plays its sequences', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${SAMPLES}psk/skSpiderLargeMesh.psk`), filePayload(`${SAMPLES}psk/skSpiderLargeAnims.psa`)]);
    const names = await page.evaluate(() => window.__rigscope.clipNames());
    expect(names).toHaveLength(12);
    expect(await page.locator('#clip-list li[role=option]').count()).toBe(12);
    await page.locator('#clip-list li', { hasText: 'webattack' }).click();
    await page.evaluate(() => { window.__rigscope.pause(); window.__rigscope.app.setTime(0); });
    const a = await snapshot(page);
    expect(a.count).toBeGreaterThan(1000);
    await page.evaluate(() => window.__rigscope.app.setTime(1.2));
    const b = await snapshot(page);
    expect(differingCells(a, b)).toBeGreaterThan(3);
    expect(await page.locator('#frame-label').innerText()).toBe('frame 36 / 71');
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
