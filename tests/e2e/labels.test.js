// Socket names over a crowd in the page: thinned so that no two overlap, the selected character's
// first, then the nearest; no name hidden where nothing placed before it took its room; all of a
// character's shown once it is isolated, none while attachment points are off. (Bone names
// are thinned the same way: panels.test.js.)
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, openPage } from './browser.js';

const SHOTS = new URL('../../build/screenshots/', import.meta.url).pathname;
/** Copies of the 0 A.D. arm fixture: each has two sockets, prop_hand and prop_head. */
const ARMS = 40;

const browser = fileBrowser();
beforeAll(() => {
  mkdirSync(SHOTS, { recursive: true });
});

/**
 * The socket labels after a render: how many there are and are shown, the pairs of shown
 * rectangles that overlap, the names shown of the character nearest the camera and of `name`, and
 * the labels hidden though nothing placed before them took their room. Placed before: a lower
 * rank, the selected character's before the others' of a rank, then the nearer. A hidden label's
 * room is where CSS2DRenderer would put it (its node's point on screen, its measured size).
 */
const sockets = (page, name = null) =>
  page.evaluate((asked) => {
    const { viewer, app } = window.__rigscope;
    viewer.render();
    const L = viewer.labels;
    const box = L.domElement.getBoundingClientRect();
    const vp = viewer.camera.projectionMatrix.clone().multiply(viewer.camera.matrixWorldInverse);
    const labels = [...L.ranks.keys()];
    const owner = (l) => app.characters.find((c) => c.root.getObjectById(l.id));
    const key = (l) => {
      const p = l.getWorldPosition(l.position.clone()).applyMatrix4(vp);
      let focus = false;
      for (let o = l; o; o = o.parent) focus ||= o === L.focus;
      return { rank: L.ranks.get(l) - (focus ? 0.5 : 0), z: p.z, x: (p.x * 0.5 + 0.5) * box.width, y: (-p.y * 0.5 + 0.5) * box.height };
    };
    const shown = labels.filter((l) => l.element.isConnected && l.element.style.display !== 'none');
    const rects = new Map(shown.map((l) => [l, l.element.getBoundingClientRect()]));
    const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    let overlaps = 0;
    for (let i = 0; i < shown.length; i++)
      for (let j = i + 1; j < shown.length; j++) if (meets(rects.get(shown[i]), rects.get(shown[j]))) overlaps++;
    const before = (a, b) => a.rank < b.rank || (a.rank === b.rank && a.z <= b.z);
    const hiddenWithRoom = [];
    for (const l of labels) {
      if (shown.includes(l) || !owner(l)?.root.visible || !l.parent.visible) continue;
      const k = key(l);
      const [w, h] = L._sizes.get(l.element) ?? [0, 0];
      const left = box.left + k.x - l.center.x * w,
        top = box.top + k.y - l.center.y * h;
      const room = { left: left - 1, top: top - 1, right: left + w + 1, bottom: top + h + 1 };
      const inside =
        k.z >= -1 && k.z <= 1 && room.left >= box.left && room.top >= box.top && room.right <= box.right && room.bottom <= box.bottom;
      if (!inside || !w) continue;
      // Each label keeps a pixel of air around it (three/labels.js): the shown one's too.
      const taken = (o) => {
        const r = rects.get(o);
        return { left: r.left - 1, top: r.top - 1, right: r.right + 1, bottom: r.bottom + 1 };
      };
      if (!shown.some((o) => meets(taken(o), room) && before(key(o), k))) hiddenWithRoom.push(`${owner(l).name}/${l.element.textContent}`);
    }
    const eye = viewer.camera.position;
    const distance = (c) =>
      Math.min(...labels.filter((l) => owner(l) === c).map((l) => l.getWorldPosition(l.position.clone()).distanceTo(eye)));
    const drawn = app.characters.filter((c) => c.root.visible); // an isolated one, or all
    const nearest = drawn.reduce((a, c) => (distance(c) < distance(a) ? c : a));
    const namesOf = (c) =>
      shown
        .filter((l) => owner(l) === c)
        .map((l) => l.element.textContent)
        .sort();
    return {
      all: labels.length,
      shown: shown.length,
      overlaps,
      hiddenWithRoom,
      nearest: nearest.name,
      nearestShown: namesOf(nearest),
      askedShown: asked ? namesOf(app.characters.find((c) => c.name === asked)) : [],
    };
  }, name);

describe('socket labels over a crowd', () => {
  it('shows the selected and the nearest first, no two overlapping, all of an isolated character, none with attachment points off', async () => {
    const page = await openPage(browser, '/?demo=0', { viewport: { width: 960, height: 640 } });
    const arms = Array.from({ length: ARMS }, (_, i) => filePayload(`${FIXTURES}arm.pmd`, `arm${i}.pmd`));
    await chooseFiles(page, arms);
    // Names are measured by the page's next layout, and placed from the frame after it.
    await page.waitForFunction(() => window.__rigscope.viewer.labels.shown.size > 0);

    // The nearest character selected: its names first, then nearer before farther.
    await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      const eye = viewer.camera.position;
      const nearest = app.characters.reduce((a, c) => (c.root.position.distanceTo(eye) < a.root.position.distanceTo(eye) ? c : a));
      app.choose(nearest);
    });
    const crowd = await sockets(page);
    expect(crowd.all).toBe(ARMS * 2);
    expect(crowd.overlaps).toBe(0);
    expect(crowd.hiddenWithRoom).toEqual([]);
    // Thinned: some shown, not all (40 pairs of names over one crowd cannot all fit).
    expect(crowd.shown).toBeGreaterThan(2);
    expect(crowd.shown).toBeLessThan(ARMS * 2);
    expect(crowd.nearestShown).toEqual(['prop_hand', 'prop_head']);
    await page.screenshot({ path: `${SHOTS}labels-crowd-desktop.png` });

    // A far character selected (a name clicked in the scene list selects it): its names go first.
    const far = await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      const hidden = app.characters.filter((c) => {
        let shown = false;
        c.root.traverse((o) => (shown ||= o.isCSS2DObject && viewer.labels.shown.has(o)));
        return !shown;
      });
      const eye = viewer.camera.position;
      const far = hidden.reduce((a, c) => (c.root.position.distanceTo(eye) > a.root.position.distanceTo(eye) ? c : a));
      app.choose(far);
      return far.name;
    });
    const chosen = await sockets(page, far);
    expect(chosen.overlaps).toBe(0);
    expect(chosen.hiddenWithRoom).toEqual([]);
    expect(chosen.askedShown.length).toBeGreaterThan(0);

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
    expect(framed.hiddenWithRoom).toEqual([]);
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
    expect(phone.hiddenWithRoom).toEqual([]);
    expect(phone.shown).toBeGreaterThan(0);
    await page.screenshot({ path: `${SHOTS}labels-crowd-phone.png` });
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
