// The side panels at scale: a folder of hundreds of files (the bench's tree of the project's own
// fixtures, ten files a folder) through the folder button. The long lists are built in slices
// after the load's signal (none of their rows in that task), every row ends up in the document
// and is reachable (scrolled to, clicked, chosen with the keyboard), rows off screen are skipped
// by layout (content-visibility), and the outliner's filter and the clip search find rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { makeTree } from '../../scripts/bench-export.mjs';
import { launch, openPage, until } from './browser.js';

let browser, tree;
beforeAll(async () => {
  browser = await launch();
  tree = makeTree(24);
});
afterAll(async () => {
  await browser?.close();
  if (tree) rmSync(tree.dir, { recursive: true, force: true });
});

/** Drops the tree through the folder button; records what the panels held when 'loaded' returned. */
async function dropTree(page) {
  await page.evaluate(() => {
    const { app } = window.__rigscope;
    // Listens after the side panels (registered at start), so it runs right after them, in the same task.
    app.on('loaded', () => {
      const count = (s) => document.querySelectorAll(s).length;
      window.__atLoaded = {
        files: count('#files-report .files-status li'),
        outliner: count('#outliner li.model'),
        busy: [...document.querySelectorAll('#side [aria-busy=true]')].map((e) => e.id),
      };
    });
  });
  await page.setInputFiles('#folder-input', tree.dir);
  await page.waitForFunction(() => window.__atLoaded, null, { timeout: 240000 });
  await until(page, () => !document.querySelector('#side [aria-busy]'), undefined, 120000);
}

describe('side panels at scale', () => {
  it('builds the long lists in slices, and every row ends up there and is reachable', { timeout: 400000 }, async () => {
    const page = await openPage(browser, '/?demo=0', { viewport: { width: 1280, height: 800 } });
    await dropTree(page);
    const at = await page.evaluate(() => window.__atLoaded);
    // The load's own task built none of the long lists' rows: they were still coming.
    expect(at.files).toBe(0);
    expect(at.outliner).toBe(0);
    expect(at.busy).toEqual(expect.arrayContaining(['outliner', 'files-report', 'info']));

    const state = await page.evaluate(() => {
      const { app } = window.__rigscope;
      return {
        characters: app.characters.map((c) => c.name),
        files: app.reports.at(-1).files.length,
        rows: document.querySelectorAll('#outliner li.model').length,
        fileRows: document.querySelectorAll('#files-report .files-status li').length,
        lastFile: document.querySelector('#files-report .files-status li:last-child').title,
        infoItems: document.querySelectorAll('#info .info-item').length,
        models: app.characters.reduce((n, c) => n + c.models.length, 0),
        clipRows: document.querySelectorAll('#clip-list li[role=option]').length,
        clips: app.allClips.length,
      };
    });
    expect(state.files).toBe(tree.files);
    expect(state.characters.length).toBeGreaterThan(60); // more than a list builds at once
    expect(state.rows).toBe(state.characters.length);
    expect(state.fileRows).toBe(tree.files);
    expect(state.lastFile).toBe(await page.evaluate(() => window.__rigscope.app.reports.at(-1).files.at(-1)));
    expect(state.infoItems).toBeGreaterThanOrEqual(state.models);
    expect(state.clipRows).toBe(state.clips);

    // Rows far down are not laid out until they come near the view; the first ones are. Which
    // rows are near is decided at a rendering update: asked after the next frame, not before one.
    const skipped = () =>
      page.evaluate(async () => {
        await new Promise((frame) => requestAnimationFrame(() => requestAnimationFrame(frame)));
        const rows = document.querySelectorAll('#outliner li.model');
        const seen = (li) => li.querySelector('.name').checkVisibility({ contentVisibilityAuto: true });
        return { first: seen(rows[0]), last: seen(rows[rows.length - 1]), style: getComputedStyle(rows[0]).contentVisibility };
      });
    expect(await skipped()).toEqual({ first: true, last: false, style: 'auto' });

    // The last row is reached by scrolling, and works: framing it, hiding it.
    const last = page.locator('#outliner li.model').last();
    await last.scrollIntoViewIfNeeded();
    // (whether a row is near the view is decided at the next rendering step)
    await expect.poll(async () => (await skipped()).last).toBe(true);
    await last.locator('input[type=checkbox]').uncheck();
    expect(await page.evaluate(() => window.__rigscope.app.characters.at(-1).root.visible)).toBe(false);
    // The row was updated in place, not built again (it still holds the focus).
    expect(await page.evaluate(() => document.activeElement.closest('#outliner li') !== null)).toBe(true);

    // The last clip, chosen with the keyboard.
    const lastClip = page.locator('#clip-list li[role=option]').last();
    await lastClip.focus();
    await page.keyboard.press('Enter');
    const chosen = await page.evaluate(() => ({
      current: window.__rigscope.app.current?.clip.name,
      row: document.querySelector('#clip-list li[role=option]:last-child').dataset.clip,
      marked: [...document.querySelectorAll('#clip-list li[aria-selected=true]')].map((li) => li.dataset.clip),
    }));
    expect(chosen.current).toBe(chosen.row);
    expect(chosen.marked).toEqual([chosen.row]);

    // The outliner's filter shows the rows whose name holds the text, and says how many.
    await page.fill('.outliner-filter', 'banner');
    const banner = state.characters.filter((n) => n.toLowerCase().includes('banner'));
    expect(banner.length).toBeGreaterThan(0);
    const shown = await page.$$eval('#outliner li.model:not([hidden]) .name', (list) => list.map((b) => b.textContent));
    expect(shown).toEqual(banner);
    expect(await page.textContent('.outliner-count')).toBe(`${banner.length} of ${state.characters.length}`);
    await page.fill('.outliner-filter', '');
    expect(await page.locator('#outliner li.model:not([hidden])').count()).toBe(state.characters.length);

    // The clip search finds the clips of that name, a row each.
    await page.fill('#clip-search', 'wave');
    await until(page, () => !document.querySelector('#clip-list[aria-busy]'));
    const waves = await page.evaluate(
      () => window.__rigscope.app.allClips.filter((c) => c.clip.name.toLowerCase().includes('wave')).length,
    );
    expect(waves).toBeGreaterThan(0);
    expect(await page.locator('#clip-list li[role=option]').count()).toBe(waves);

    // Clear empties every list at once.
    await page.click('#clear-button');
    expect(await page.locator('#outliner li.model').count()).toBe(0);
    expect(await page.locator('#files-report li').count()).toBe(0);
    expect(await page.locator('#side [aria-busy]').count()).toBe(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
