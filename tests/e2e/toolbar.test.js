// The toolbar: a few controls (Open, the drop mode, Clear, Export, Share, Help), the three menus
// following WAI-ARIA's menu button pattern (keys, focus, outside clicks), disabled while there is
// nothing to act on, every control on screen on a 390 px phone with a sample folder open, and
// axe-core finding nothing with each menu open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { clickMenuItem, filePayload, FIXTURES, launch, openFolder, SAMPLES, chooseFiles, TOOLBAR_CONTROLS } from './browser.js';
import { sharedViewerPage } from './shared-page.js';

const AXE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
const FOLDER = `${SAMPLES}psk`;
const MENUS = { 'open-menu': 'open-menu-items', 'export-menu': 'export-menu-items', 'share-menu': 'share-menu-items' };

let browser, context;
beforeAll(async () => {
  browser = await launch();
  // The site's pages have a CSP without inline scripts: axe is added by the test, not the page.
  context = await browser.newContext({ bypassCSP: true });
});
afterAll(async () => {
  await browser?.close();
});

// Two pages serve every test: the page as it opens, with its demo (looked at, never changed but
// for its size), and an empty one (demo=0) that tests drop into, emptied by Clear between them.
const DESKTOP = { width: 1280, height: 800 };
const demoPage = (viewport = DESKTOP) => sharedDemo({ viewport, keep: true });
const sharedDemo = sharedViewerPage(() => context, '/');
const emptyPage = sharedViewerPage(() => context, '/?demo=0');

/**
 * The toolbar's controls a person sees (not the items of its closed menus), each with its box and
 * whether it is what the page has at its centre (nothing covers or clips it), and the scroll widths.
 */
const toolbarLayout = (page) =>
  page.evaluate(() => {
    const bar = document.querySelector('.bar');
    const seen = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const controls = [...bar.querySelectorAll('button, select, input, [role=menuitemcheckbox]')].filter(
      (e) => seen(e) && (!e.closest('[role=menu]') || !e.closest('[role=menu]').hidden),
    );
    return {
      controls: controls.map((e) => {
        const r = e.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return {
          id: e.id,
          left: r.left,
          top: r.top,
          right: r.right,
          bottom: r.bottom,
          onTop: !!hit && (e.contains(hit) || hit.contains(e)),
        };
      }),
      page: { scrollWidth: document.documentElement.scrollWidth, width: innerWidth, height: innerHeight },
      bar: { scrollWidth: bar.scrollWidth, clientWidth: bar.clientWidth, height: bar.getBoundingClientRect().height },
    };
  });

/**
 * Every control inside the window, and nothing to scroll sideways to; on top (nothing covers or
 * clips it) are all of them, or those `onTop` names (an open menu covers what is below it).
 */
function expectAllOnScreen(layout, onTop = null) {
  const { width, height } = layout.page;
  expect(layout.page.scrollWidth).toBeLessThanOrEqual(width);
  expect(layout.bar.scrollWidth).toBeLessThanOrEqual(layout.bar.clientWidth);
  for (const c of layout.controls) {
    expect(c.left, c.id).toBeGreaterThanOrEqual(0);
    expect(c.top, c.id).toBeGreaterThanOrEqual(0);
    expect(c.right, c.id).toBeLessThanOrEqual(width);
    expect(c.bottom, c.id).toBeLessThanOrEqual(height);
    if (!onTop || onTop.includes(c.id)) expect(c.onTop, c.id).toBe(true);
  }
}

const focused = (page) => page.evaluate(() => document.activeElement.id);
const expanded = (page, id) => page.getAttribute(`#${id}`, 'aria-expanded');

async function axeViolations(page) {
  await page.addScriptTag({ content: AXE });
  return page.evaluate(async () => {
    const r = await window.axe.run(document);
    return r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

describe('the toolbar at desktop width', () => {
  it('has six controls in one row: Open, the drop mode, Clear, Export, Share and Help', async () => {
    const page = await demoPage();
    const layout = await toolbarLayout(page);
    expect(layout.controls.map((c) => c.id)).toEqual(TOOLBAR_CONTROLS);
    expect(new Set(layout.controls.map((c) => Math.round(c.top / 10))).size).toBe(1);
    expectAllOnScreen(layout);
    for (const [button, menu] of Object.entries(MENUS)) {
      const a = await page.evaluate(
        ([b, m]) => ({
          popup: document.getElementById(b).getAttribute('aria-haspopup'),
          expanded: document.getElementById(b).getAttribute('aria-expanded'),
          controls: document.getElementById(b).getAttribute('aria-controls'),
          role: document.getElementById(m).getAttribute('role'),
          items: [...document.getElementById(m).querySelectorAll('[role^=menuitem]')].map((i) => i.id),
        }),
        [button, menu],
      );
      expect(a).toMatchObject({ popup: 'menu', expanded: 'false', controls: menu, role: 'menu' });
      expect(a.items.length, button).toBeGreaterThanOrEqual(3);
    }
    expect(page.errors).toEqual([]);
    // The page stays open for later tests: it plays nothing while the tests between run.
    await page.evaluate(() => window.__rigscope.pause());
  });

  it('each menu opens below its button, on screen, and axe-core finds no violations with it open', async () => {
    const page = await emptyPage({ viewport: DESKTOP });
    await chooseFiles(page, [filePayload(`${SAMPLES}zeroad/skeleton.pmd`), filePayload(`${SAMPLES}zeroad/skeleton_idle.psa`)]);
    for (const button of Object.keys(MENUS)) {
      await page.click(`#${button}`);
      const items = await page.evaluate(
        (m) => [...document.getElementById(m).querySelectorAll('[role^=menuitem]')].map((i) => i.id),
        MENUS[button],
      );
      const layout = await toolbarLayout(page);
      expectAllOnScreen(layout, [button, ...items]);
      expect(layout.controls.map((c) => c.id)).toEqual(expect.arrayContaining(items));
      for (const c of layout.controls.filter((c) => items.includes(c.id))) expect(c.top, c.id).toBeGreaterThan(layout.bar.height - 2);
      expect(await axeViolations(page), button).toEqual([]);
      await page.keyboard.press('Escape');
    }
  });
});

/** Shows or hides a load's Cancel, progress bar and status, as loading.js does during a load. */
const showLoadControls = (page, shown) =>
  page.evaluate((on) => {
    document.getElementById('cancel-button').hidden = !on;
    document.getElementById('progress').hidden = !on;
    document.getElementById('status').textContent = on ? 'Decoding 12/94: a_long_mesh_name_of_a_mod_d.3d' : '2 files read';
  }, shown);

describe('a load never changes the bar’s height', () => {
  it.each([1280, 800])('at %i px: one row, with Cancel and the progress shown or not', async (width) => {
    const page = await demoPage({ width, height: 700 });
    const before = await toolbarLayout(page);
    await showLoadControls(page, true);
    const during = await toolbarLayout(page);
    expect(during.bar.height).toBe(before.bar.height);
    expect(new Set(during.controls.map((c) => Math.round(c.top / 10))).size).toBe(1);
    expect(during.controls.map((c) => c.id)).toContain('cancel-button');
    expectAllOnScreen(during);
    await showLoadControls(page, false);
  });

  // Between a phone and 800 px the bar has two rows whether a load runs or not: a Cancel that
  // took room only while it showed wrapped a one-row bar at these widths, and the 3D view under
  // it shrank and grew again with every load.
  it.each([560, 640, 700, 760])('at %i px: the same two rows, with Cancel and the progress shown or not', async (width) => {
    const page = await demoPage({ width, height: 700 });
    await showLoadControls(page, false);
    const before = await toolbarLayout(page);
    await showLoadControls(page, true);
    const during = await toolbarLayout(page);
    expect(during.bar.height).toBe(before.bar.height);
    expect(new Set(during.controls.map((c) => Math.round(c.top / 10))).size).toBe(2);
    expectAllOnScreen(during);
    await showLoadControls(page, false);
  });
});

describe('the menus from the keyboard', () => {
  let page;
  beforeAll(async () => {
    page = await demoPage();
    await page.evaluate(() => window.__rigscope.pause());
  });

  it('arrows, Home, End and letters move through the items; Escape gives the focus back to the button', async () => {
    const before = await page.evaluate(() => ({
      frame: window.__rigscope.app.frame,
      skeleton: document.getElementById('show-skeleton').checked,
    }));
    await page.focus('#share-menu');
    await page.keyboard.press('ArrowDown');
    expect(await expanded(page, 'share-menu')).toBe('true');
    expect(await focused(page)).toBe('link-button');
    const walk = [];
    for (const key of ['ArrowDown', 'ArrowUp', 'ArrowUp', 'Home', 'End', 'ArrowDown', 's', 's', 's', 'e', 'ArrowRight', 'ArrowLeft']) {
      await page.keyboard.press(key);
      walk.push(await focused(page));
    }
    expect(walk).toEqual([
      'embed-button',
      'link-button',
      'screenshot-button', // round to the last
      'link-button',
      'screenshot-button',
      'link-button', // round to the first
      'save-page-button',
      'save-bundle-button',
      'screenshot-button',
      'embed-button',
      'embed-button',
      'embed-button',
    ]);
    // The page's shortcuts did not see the menu's keys: no frame stepped, no skeleton shown.
    expect(
      await page.evaluate(() => ({ frame: window.__rigscope.app.frame, skeleton: document.getElementById('show-skeleton').checked })),
    ).toEqual(before);
    await page.keyboard.press('Escape');
    expect(await expanded(page, 'share-menu')).toBe('false');
    expect(await page.isHidden('#share-menu-items')).toBe(true);
    expect(await focused(page)).toBe('share-menu');
  });

  it('Space and Enter on the button open the menu (not play), ArrowUp opens it at the last item, Tab closes it', async () => {
    await page.focus('#open-menu');
    await page.keyboard.press(' ');
    expect(await focused(page)).toBe('open-button');
    expect(await page.evaluate(() => window.__rigscope.app.playing)).toBe(false);
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowUp');
    expect(await focused(page)).toBe('url-button');
    await page.keyboard.press('Tab');
    expect(await expanded(page, 'open-menu')).toBe('false');
    expect(await page.isHidden('#open-menu-items')).toBe(true);
    await page.focus('#export-menu');
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('export-button');
    await page.keyboard.press('Escape');
  });

  it('Space ticks Compressed and keeps the menu open; Enter unticks it and closes the menu', async () => {
    await page.focus('#export-menu');
    await page.keyboard.press('ArrowUp');
    expect(await focused(page)).toBe('export-compressed');
    await page.keyboard.press(' ');
    expect(await page.isChecked('#export-compressed')).toBe(true);
    expect(await page.getAttribute('#export-compressed', 'role')).toBe('menuitemcheckbox');
    expect(await expanded(page, 'export-menu')).toBe('true');
    await page.keyboard.press('Enter');
    expect(await page.isChecked('#export-compressed')).toBe(false);
    expect(await expanded(page, 'export-menu')).toBe('false');
    expect(await focused(page)).toBe('export-menu');
  });

  it('Enter on Screenshot saves the view as a PNG of the canvas’s size and closes the menu', async () => {
    await page.focus('#share-menu');
    await page.keyboard.press('ArrowUp');
    expect(await focused(page)).toBe('screenshot-button');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toBe('rigscope.png');
    const png = readFileSync(await download.path());
    const size = await page.evaluate(() => {
      const c = window.__rigscope.viewer.renderer.domElement;
      return [c.width, c.height];
    });
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual(size);
    expect(await expanded(page, 'share-menu')).toBe('false');
    expect(await focused(page)).toBe('share-menu');
  });

  it('a click outside closes a menu; opening another closes the first', async () => {
    await page.click('#export-menu');
    expect(await page.isVisible('#export-menu-items')).toBe(true);
    await page.click('#share-menu');
    expect(await page.isHidden('#export-menu-items')).toBe(true);
    expect(await page.isVisible('#share-menu-items')).toBe(true);
    await page.mouse.click(300, 400); // the 3D view
    expect(await page.isHidden('#share-menu-items')).toBe(true);
    expect(await expanded(page, 'share-menu')).toBe('false');
    // A second click on its button closes an open menu.
    await page.click('#open-menu');
    await page.click('#open-menu');
    expect(await page.isHidden('#open-menu-items')).toBe(true);
  });
});

describe('disabled while there is nothing to act on', () => {
  it('Export and the saves are disabled with nothing loaded, enabled by a drop, disabled again by Clear', async () => {
    const page = await emptyPage({ viewport: DESKTOP });
    const states = () =>
      page.evaluate(() =>
        Object.fromEntries(
          [
            'export-menu',
            'export-button',
            'export-all-button',
            'save-page-button',
            'save-bundle-button',
            'record-button',
            'link-button',
          ].map((id) => [id, document.getElementById(id).getAttribute('aria-disabled') === 'true']),
        ),
      );
    const none = {
      'export-menu': true,
      'export-button': true,
      'export-all-button': true,
      'save-page-button': true,
      'save-bundle-button': true,
      'record-button': true,
      'link-button': false,
    };
    expect(await states()).toEqual(none);
    // A disabled Export keeps the focus and opens nothing.
    await page.focus('#export-menu');
    await page.keyboard.press('Enter');
    expect(await page.isHidden('#export-menu-items')).toBe(true);
    // A disabled item stays in the arrow order and does nothing.
    await page.focus('#share-menu');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await focused(page)).toBe('save-page-button');
    await page.keyboard.press('Enter');
    expect(await page.isVisible('#share-menu-items')).toBe(true);
    expect(await page.textContent('#status')).toBe('');
    await page.keyboard.press('Escape');

    await chooseFiles(page, [filePayload(`${FIXTURES}two_bone.psk`), filePayload(`${FIXTURES}two_bone.psa`)]);
    expect(Object.values(await states()).some(Boolean)).toBe(false);
    const [download] = await Promise.all([page.waitForEvent('download'), clickMenuItem(page, 'export-all-button')]);
    expect(download.suggestedFilename()).toBe('rigscope-export.zip');
    await page.click('#clear-button');
    expect(await states()).toEqual(none);
    expect(page.errors).toEqual([]);
  });
});

describe.skipIf(!existsSync(FOLDER))('a 390 × 844 phone', () => {
  let page;
  beforeAll(async () => {
    page = await emptyPage({ viewport: { width: 390, height: 844 } });
    await openFolder(page, FOLDER);
    // The folder (400k triangles: some 250 ms of CPU a frame in SwiftShader) need not play for its layout.
    await page.evaluate(() => window.__rigscope.pause());
  });

  it('shows every toolbar control on screen with a sample folder open: nothing to scroll sideways to', async () => {
    const layout = await toolbarLayout(page);
    expect(layout.controls.map((c) => c.id)).toEqual(TOOLBAR_CONTROLS);
    expectAllOnScreen(layout);
    // Two rows at most: the 3D view keeps the screen.
    expect(layout.bar.height).toBeLessThan(90);
    expect(await page.textContent('#status')).toMatch(/^10 files read/);
  });

  it('keeps every item of each open menu on screen, and axe-core finds no violations', async () => {
    for (const [button, menu] of Object.entries(MENUS)) {
      await page.click(`#${button}`);
      const items = await page.evaluate((m) => [...document.getElementById(m).querySelectorAll('[role^=menuitem]')].map((i) => i.id), menu);
      const layout = await toolbarLayout(page);
      expectAllOnScreen(layout, [button, ...items]);
      expect(layout.controls.map((c) => c.id)).toEqual(expect.arrayContaining(items));
      expect(await axeViolations(page), button).toEqual([]);
      await page.keyboard.press('Escape');
    }
  });

  it('a load’s Cancel and progress never change the bar’s height', async () => {
    const before = (await toolbarLayout(page)).bar.height;
    await showLoadControls(page, true);
    const during = await toolbarLayout(page);
    expect(during.bar.height).toBe(before);
    expectAllOnScreen(during);
    expect(during.controls.map((c) => c.id)).toContain('cancel-button');
    await showLoadControls(page, false);
  });
});
