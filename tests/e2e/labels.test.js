// Socket names over a crowd in the page: thinned so that no two overlap, the nearest first, all
// of a character's shown once it is isolated, none while attachment points are off. (Bone names
// are thinned the same way: panels.test.js.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { chooseFiles, filePayload, FIXTURES, launch, openPage } from './browser.js';

const SHOTS = new URL('../../build/screenshots/', import.meta.url).pathname;
/** Copies of the 0 A.D. arm fixture: each has two sockets, prop_hand and prop_head. */
const ARMS = 40;

let browser;
beforeAll(async () => {
  browser = await launch();
  mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});

/**
 * The socket labels after a render: how many there are, the names shown with their owners, the
 * pairs of shown rectangles that overlap, and the shown labels of the character nearest the
 * camera (by its sockets' distance).
 */
const sockets = (page) =>
  page.evaluate(() => {
    const { viewer, app } = window.__rigscope;
    viewer.render();
    const labels = [...viewer.labels.ranks.keys()];
    const shown = labels.filter((l) => l.element.isConnected && l.element.style.display !== 'none');
    const rects = shown.map((l) => l.element.getBoundingClientRect());
    let overlaps = 0;
    for (let i = 0; i < rects.length; i++)
      for (let j = i + 1; j < rects.length; j++) {
        const a = rects[i],
          b = rects[j];
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps++;
      }
    const owner = (l) => app.characters.find((c) => c.root.getObjectById(l.id));
    const eye = viewer.camera.position;
    const distance = (c) =>
      Math.min(...labels.filter((l) => owner(l) === c).map((l) => l.getWorldPosition(l.position.clone()).distanceTo(eye)));
    // Of the characters drawn (an isolated one, or all).
    const drawn = app.characters.filter((c) => c.root.visible);
    const nearest = drawn.reduce((a, c) => (distance(c) < distance(a) ? c : a));
    return {
      all: labels.length,
      shown: shown.length,
      overlaps,
      nearestShown: shown.filter((l) => owner(l) === nearest).map((l) => l.element.textContent),
      nearest: nearest.name,
    };
  });

describe('socket labels over a crowd', () => {
  it('shows the nearest and no two overlapping, all of an isolated character, none with attachment points off', async () => {
    const page = await openPage(browser, '/?demo=0', { viewport: { width: 960, height: 640 } });
    const arms = Array.from({ length: ARMS }, (_, i) => filePayload(`${FIXTURES}arm.pmd`, `arm${i}.pmd`));
    await chooseFiles(page, arms);
    // Names are measured by the page's next layout, and placed from the frame after it.
    await page.waitForFunction(() => window.__rigscope.viewer.labels.shown.size > 0);

    const crowd = await sockets(page);
    expect(crowd.all).toBe(ARMS * 2);
    expect(crowd.overlaps).toBe(0);
    // Thinned: some shown, not all (40 pairs of names over one crowd cannot all fit).
    expect(crowd.shown).toBeGreaterThan(2);
    expect(crowd.shown).toBeLessThan(ARMS * 2);
    // The nearest character's names are placed first.
    expect(crowd.nearestShown.sort()).toEqual(['prop_hand', 'prop_head']);
    await page.screenshot({ path: `${SHOTS}labels-crowd-desktop.png` });

    // Isolated (its Solo button in the scene list) and framed, a character shows both of its names.
    await page.locator('#outliner li.model', { hasText: 'arm17.pmd' }).locator('button.solo').click();
    await page.evaluate(() => window.__rigscope.app.frameView());
    const alone = await sockets(page);
    expect(alone.nearest).toBe('arm17.pmd');
    expect(alone.shown).toBe(2);
    expect(alone.nearestShown.sort()).toEqual(['prop_hand', 'prop_head']);
    await page.locator('#outliner li.model', { hasText: 'arm17.pmd' }).locator('button.solo').click();
    await page.evaluate(() => window.__rigscope.app.frameView());
    const framed = await sockets(page);
    expect(framed.overlaps).toBe(0);
    expect(framed.shown).toBeLessThan(ARMS * 2);

    await page.uncheck('#show-attachments');
    expect((await sockets(page)).shown).toBe(0);
    await page.check('#show-attachments');
    expect((await sockets(page)).shown).toBe(framed.shown);

    // A phone's narrower view thins the crowd too.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(() => window.__rigscope.viewer.labels.getSize().width < 400);
    await page.evaluate(() => window.__rigscope.app.frameView());
    const phone = await sockets(page);
    expect(phone.overlaps).toBe(0);
    expect(phone.shown).toBeGreaterThan(0);
    await page.screenshot({ path: `${SHOTS}labels-crowd-phone.png` });
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
