// <rigscope-viewer>'s controls at small sizes (a wiki gallery's 120 × 90, a 320 px thumbnail): the
// bar shows the controls that fit, whole, and leaves the others out, play first kept; nothing is
// cut ("1284 / 1…", a clip menu reading "H…") or pushed past the bar's edge. A wide player keeps
// them all.
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { fileBrowser, samplesSrc, until } from './browser.js';

const browser = fileBrowser(['--disable-features=LocalNetworkAccessChecks']);

const SIZES = [
  [120, 90],
  [220, 165],
  [320, 240],
  [640, 480],
];

/** One element per size, controls="full", showing the spider and its 12 clips. */
async function sizesPage() {
  const base = inject('baseUrl');
  const viewers = SIZES.map(
    ([w, h]) =>
      `<rigscope-viewer id="v${w}" controls="full" style="width:${w}px;height:${h}px" src="${samplesSrc('psk')}"></rigscope-viewer>`,
  );
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Controls</title>
<script type="module" src="${base}/rigscope-viewer.js"></script></head><body>${viewers.join('\n')}</body></html>`;
  const page = await browser.newPage({ viewport: { width: 1400, height: 800 }, reducedMotion: 'reduce' });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.route(`${base}/controls.html`, (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await page.goto(`${base}/controls.html`);
  await until(
    page,
    (ids) => ids.every((id) => document.getElementById(id)?.app?.allClips?.length > 1),
    SIZES.map(([w]) => `v${w}`),
    120000,
  );
  return page;
}

/**
 * Each element's controls as laid out, at the clip's last frame (the widest frame counter): which
 * are shown, and which are cut (text that does not fit its box, or a box past the bar's edge).
 */
const controls = (page) =>
  page.evaluate(
    async (ids) => {
      const measure = document.createElement('canvas').getContext('2d');
      const out = {};
      for (const id of ids) {
        const v = document.getElementById(id);
        // The longest clip selected, at its last frame: the widest the controls get.
        const all = v.app.allClips;
        const longest = all.reduce((a, b) => (b.clip.name.length > a.clip.name.length ? b : a));
        v.app.select(longest.character, longest.clip);
        v.app.pauseAt(longest.clip.duration);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const bar = v.shadowRoot.querySelector('.bar');
        const box = bar.getBoundingClientRect();
        const shown = [];
        const cut = [];
        for (const el of bar.children) {
          if (el.localName === 'slot') continue;
          const r = el.getBoundingClientRect();
          if (getComputedStyle(el).display === 'none' || r.width === 0) continue;
          const name = el.className.split(' ')[0];
          shown.push(name);
          let needed = el.scrollWidth;
          if (el.localName === 'select') {
            const style = getComputedStyle(el);
            measure.font = `${style.fontSize} ${style.fontFamily}`;
            // The selected clip's name, beside the menu's arrow and padding (about 20 px).
            needed = measure.measureText(el.selectedOptions[0]?.textContent ?? '').width + 20;
          }
          if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || needed > el.clientWidth + 1)
            cut.push(
              `${name} (${Math.round(needed)} px in ${el.clientWidth} px, ${Math.round(r.left - box.left)}–${Math.round(r.right - box.left)} of ${Math.round(box.width)})`,
            );
        }
        out[id] = { shown, cut, label: v.shadowRoot.querySelector('.frame-label').textContent };
      }
      return out;
    },
    SIZES.map(([w]) => `v${w}`),
  );

describe('<rigscope-viewer> controls at small sizes', () => {
  it('no control is cut at 120×90, 220×165, 320×240; a wide player shows them all', async () => {
    const page = await sizesPage();
    const got = await controls(page);
    for (const [w, h] of SIZES) {
      const { shown, cut } = got[`v${w}`];
      expect(cut, `${w}×${h}: ${JSON.stringify(got[`v${w}`])}`).toEqual([]);
      expect(shown, `${w}×${h}`).toContain('play');
    }
    expect(got.v320.shown, JSON.stringify(got.v320)).toContain('scrub');
    expect(got.v640.shown, JSON.stringify(got.v640)).toEqual(expect.arrayContaining(['play', 'scrub', 'frame-label', 'clips']));
    // Made larger, a small player shows again what it left out (once its resize has been seen: a
    // busy machine may take several frames over it, so the bar is read until it shows them).
    await page.evaluate(() => {
      const v = document.getElementById('v120');
      v.style.width = '640px';
      v.style.height = '480px';
    });
    const shownControls = () =>
      [...document.getElementById('v120').shadowRoot.querySelector('.bar').children]
        .filter((el) => el.localName !== 'slot' && getComputedStyle(el).display !== 'none')
        .map((el) => el.className.split(' ')[0]);
    await until(page, `(${shownControls})().includes('clips')`).catch(() => {});
    const again = await page.evaluate(shownControls);
    expect(again).toEqual(expect.arrayContaining(['play', 'scrub', 'frame-label', 'clips']));
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
