// <rigscope-viewer> for readers who do not see it or use a mouse: an accessible name (alt, else
// one made from the model and clip), keyboard orbit, zoom and play, a visible focus ring, no
// autoplay when the reader asked for reduced motion, and axe-core finding nothing on the viewer
// page, the embed page and a page of elements of every family.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { readFileSync } from 'node:fs';
import { SAMPLES, chooseFiles, filePayload, launch, FAMILY_SAMPLES, samplesSrc as srcOf, until } from './browser.js';

const AXE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

let browser, context;
beforeAll(async () => {
  browser = await launch(['--disable-features=LocalNetworkAccessChecks']);
  // The site's pages have a CSP without inline scripts: axe is added by the test, not the page.
  context = await browser.newContext({ bypassCSP: true });
});
afterAll(async () => {
  await browser?.close();
});

const FAMILIES = FAMILY_SAMPLES;

/** A page of one element per family with `attributes` (by family), waited for until every one loaded. */
async function elementsPage(attributes = {}, { viewport = { width: 900, height: 700 }, reducedMotion = 'no-preference' } = {}) {
  const base = inject('baseUrl');
  const viewers = Object.keys(FAMILIES)
    .map((f) => `<rigscope-viewer id="${f}" src="${srcOf(f)}" ${attributes[f] ?? ''}></rigscope-viewer>`)
    .join('\n');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Characters</title>
<script type="module" src="${base}/rigscope-viewer.js"></script></head>
<body><main><h1>Characters</h1>${viewers}</main></body></html>`;
  const page = await context.newPage({ viewport });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.emulateMedia({ reducedMotion });
  await page.route(`${base}/elements.html`, (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await page.goto(`${base}/elements.html`);
  try {
    await until(
      page,
      (ids) =>
        ids.every((id) => {
          const v = document.getElementById(id);
          return v?.app?.characters.length > 0 && v.shadowRoot.querySelector('.status').textContent === '';
        }),
      Object.keys(FAMILIES),
    );
  } catch (err) {
    // Say which viewer did not load and what it showed.
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll('rigscope-viewer')].map((v) => [v.id, v.app?.characters.length, v.messages]),
    );
    throw new Error(`${err.message}: ${JSON.stringify(shown)} ${page.errors.join('; ')}`, { cause: err });
  }
  return page;
}

/** axe-core over the whole page (shadow roots included): the violations, rule and nodes. */
async function axeViolations(page) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document);
    return r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return result;
}

const canvasOf = (page, id) => page.locator(`#${id} canvas`);

describe('names, keyboard and focus', () => {
  let page;
  beforeAll(async () => {
    page = await elementsPage({ psk: 'alt="A spider <b>walking</b> &amp; waiting"' });
  });
  afterAll(async () => {
    await page?.close();
  });

  it('alt is the accessible name, as text; without it the model and clip name the view', async () => {
    const names = await page.evaluate(() =>
      [...document.querySelectorAll('rigscope-viewer')].map((v) => {
        const c = v.shadowRoot.querySelector('canvas');
        return [v.id, c.getAttribute('role'), c.tabIndex, c.getAttribute('aria-label'), v.currentClip];
      }),
    );
    expect(names[0]).toEqual(['psk', 'img', 0, 'A spider <b>walking</b> & waiting', expect.any(String)]);
    for (const [id, role, tab, label, clip] of names.slice(1)) {
      expect([id, role, tab]).toEqual([id, 'img', 0]);
      const model = { zeroad: 'skeleton.pmd', ue1: 'mar_rifle', psg: 'skinned_quad_f32.psg' }[id];
      expect(label).toContain(`3D model ${model}`);
      if (clip) expect(label).toContain(`clip ${clip}`);
    }
    // The alt text stayed text: no element was made from it.
    expect(await page.evaluate(() => document.querySelector('#psk').shadowRoot.querySelectorAll('b').length)).toBe(0);
    // Removing alt falls back to the made-up name; choosing another clip renames the view.
    const after = await page.evaluate(() => {
      const v = document.getElementById('psk');
      v.removeAttribute('alt');
      const next = v.clips.find((c) => c.name !== v.currentClip).name;
      v.setAttribute('clip', next);
      return [v.shadowRoot.querySelector('canvas').getAttribute('aria-label'), next];
    });
    expect(after[0]).toBe(`3D model skSpiderLargeMesh.psk, clip ${after[1]}`);
  });

  it('arrow keys orbit, + and - zoom, Space plays and pauses, and focus shows a ring', async () => {
    const view = () =>
      page.evaluate(() => {
        const { camera, controls } = document.getElementById('zeroad').stage;
        return { eye: camera.position.toArray(), distance: camera.position.distanceTo(controls.target) };
      });
    // Tab from the page's start reaches the first viewer's canvas: keyboard focus, so the ring shows.
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => {
      const c = document.getElementById('psk').shadowRoot.activeElement;
      return c?.localName === 'canvas' ? getComputedStyle(c).outlineStyle + ' ' + getComputedStyle(c).outlineWidth : null;
    });
    expect(ring).toBe('solid 2px');

    await canvasOf(page, 'zeroad').focus();
    const a = await view();
    await page.keyboard.press('ArrowLeft');
    const b = await view();
    expect(b.distance).toBeCloseTo(a.distance, 4);
    expect(Math.hypot(...b.eye.map((v, i) => v - a.eye[i]))).toBeGreaterThan(a.distance * 0.2);
    await page.keyboard.press('ArrowUp');
    const c = await view();
    expect(c.eye[1]).toBeGreaterThan(b.eye[1]);
    await page.keyboard.press('+');
    expect((await view()).distance).toBeCloseTo(c.distance / 1.25, 4);
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    expect((await view()).distance).toBeCloseTo(c.distance * 1.25, 4);

    const paused = () => page.evaluate(() => document.getElementById('zeroad').paused);
    expect(await paused()).toBe(true);
    await page.keyboard.press('Space');
    expect(await paused()).toBe(false);
    await page.keyboard.press('Space');
    expect(await paused()).toBe(true);
    // The page did not scroll under the keys the view took.
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(page.errors).toEqual([]);
  });

  it('axe-core finds no violations on a page of elements of every family', async () => {
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe('reduced motion', () => {
  it('autoplay plays unless the reader asked for reduced motion', async () => {
    const all = { psk: 'autoplay', zeroad: 'autoplay', ue1: 'autoplay', psg: 'autoplay' };
    const playing = async (page) =>
      page.evaluate(() => [...document.querySelectorAll('rigscope-viewer')].filter((v) => v.currentClip).map((v) => [v.id, v.paused]));
    const normal = await elementsPage(all);
    const shown = await playing(normal);
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(shown.filter(([, paused]) => paused)).toEqual([]);
    await normal.close();

    const page = await elementsPage(all, { reducedMotion: 'reduce' });
    const still = await playing(page);
    expect(still.map(([id]) => id)).toEqual(shown.map(([id]) => id));
    for (const [, paused] of still) expect(paused).toBe(true);
    // Play is still one key or click away.
    await page.evaluate(() => document.getElementById('psk').play());
    expect(await page.evaluate(() => document.getElementById('psk').paused)).toBe(false);
    await page.close();
  });
});

describe('axe-core on the site pages', () => {
  it('the embed page has no violations', async () => {
    const page = await context.newPage({ viewport: { width: 640, height: 400 } });
    await page.goto(`${inject('baseUrl')}/embed.html`);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('the viewer page with a sample loaded has no violations', async () => {
    const page = await context.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${inject('baseUrl')}/`);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
    await chooseFiles(page, [filePayload(`${SAMPLES}zeroad/skeleton.pmd`), filePayload(`${SAMPLES}zeroad/skeleton_idle.psa`)]);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });
});
