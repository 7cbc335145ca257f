// <rigscope-viewer> as a wiki or blog page uses it: one script tag from the built site on a page
// of another origin, under a strict CSP. Twelve viewers share one WebGL context and one decoder
// pool, load as they scroll into view and draw nothing while paused; problems show inside them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { animationFrames as frames, launch, until } from './browser.js';

let browser;
// The test pages are served by Playwright (route.fulfill), which Chromium counts as a public
// address: without this, their requests to the loopback test servers need a permission prompt.
beforeAll(async () => {
  browser = await launch(['--disable-features=LocalNetworkAccessChecks']);
});
afterAll(async () => {
  await browser?.close();
});

/**
 * Counts WebGL contexts (and losses) and 2D drawImage calls (each is one frame of one viewer),
 * and records the elements' events (in the capture phase: they do not bubble).
 */
function instrument() {
  window.__gl = { contexts: 0, lost: 0, draws: 0 };
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
    const ctx = getContext.call(this, type, ...rest);
    if (ctx && /webgl/.test(type) && !this.__counted) {
      this.__counted = true;
      window.__gl.contexts++;
      this.addEventListener('webglcontextlost', () => window.__gl.lost++);
    }
    return ctx;
  };
  const drawImage = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function (...args) {
    window.__gl.draws++;
    return drawImage.apply(this, args);
  };
  window.__events = [];
  // On the document: a "load" event never reaches the window, whatever its target.
  for (const type of ['load', 'error', 'clipchange']) {
    document.addEventListener(
      type,
      (e) => {
        if (e.target?.localName === 'rigscope-viewer')
          window.__events.push({ type, id: e.target.id, detail: JSON.parse(JSON.stringify(e.detail)) });
      },
      true,
    );
  }
}

/** Serves `html` as a page at `url` (of either test server's origin) and opens it. */
async function openHtml(url, html, viewport = { width: 800, height: 600 }) {
  const page = await browser.newPage({ viewport });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/GPU stall|favicon|ReadPixels/.test(m.text())) page.errors.push(m.text());
  });
  await page.addInitScript(instrument);
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await page.goto(url);
  await until(page, () => !!customElements.get('rigscope-viewer'));
  return page;
}

/**
 * Polls `predicate(arg)` in the page until it is true. Playwright's waitForFunction compiles its
 * predicate with eval, which these pages' CSP forbids; page.evaluate is not subject to it.
 */
const loadedCount = (page) => page.evaluate(() => [...document.querySelectorAll('rigscope-viewer')].filter((v) => v.clips.length).length);

describe('a page of twelve viewers on another origin', () => {
  let page, base;
  beforeAll(async () => {
    base = inject('baseUrl');
    const foreign = inject('foreignUrl');
    const pair = `${base}/fixtures/two_bone.psk ${base}/fixtures/two_bone.psa`;
    const viewers = Array.from(
      { length: 12 },
      (_, i) => `<p>Viewer ${i + 1}</p><rigscope-viewer id="v${i + 1}" src="${pair}"></rigscope-viewer>`,
    ).join('\n');
    // No inline script or style, scripts only from the Rigscope site: what a strict wiki allows.
    const csp = `default-src 'none'; script-src ${base} 'wasm-unsafe-eval'; worker-src blob: ${base}; connect-src ${base}; img-src ${base} data: blob:; style-src 'self'`;
    page = await openHtml(
      `${foreign}/twelve.html`,
      `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<script type="module" src="${base}/rigscope-viewer.js"></script></head><body>${viewers}</body></html>`,
    );
  });
  afterAll(async () => {
    await page?.close();
  });

  it('loads only the viewers in view, then each one as it scrolls in', async () => {
    await until(page, () => document.getElementById('v1').clips.length > 0);
    expect(await page.evaluate(() => document.getElementById('v12').clips.length)).toBe(0);
    const before = await loadedCount(page);
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(12);
    for (let i = 1; i <= 12; i++) {
      await page.evaluate((id) => document.getElementById(id).scrollIntoView({ block: 'center' }), `v${i}`);
      await until(page, (id) => window.__events.some((e) => e.type === 'load' && e.id === id), `v${i}`);
    }
    expect(await loadedCount(page)).toBe(12);
    const loads = await page.evaluate(() => window.__events.filter((e) => e.type === 'load').map((e) => e.detail.clips.map((c) => c.name)));
    expect(loads).toEqual(Array.from({ length: 12 }, () => ['Bend']));
  });

  it('all twelve draw the model through one WebGL context and one decoder pool', async () => {
    const stats = await page.evaluate(() => {
      const all = [...document.querySelectorAll('rigscope-viewer')];
      const Viewer = customElements.get('rigscope-viewer');
      return {
        pixels: all.map((v) => v.stage.countForegroundPixels().count),
        shapes: all.map((v) => v.snapshot().characters.map((c) => [c.name, c.clip, c.frame, c.playing])),
        onePool: all.every((v) => v.app.decoder === Viewer.decoderPool),
        poolWorkers: Viewer.decoderPool.workerCount,
        rendererStats: Viewer.renderer.stats,
        gl: window.__gl,
      };
    });
    for (const count of stats.pixels) expect(count).toBeGreaterThan(300);
    expect(stats.shapes).toEqual(Array.from({ length: 12 }, () => [['two_bone.psk', 'Bend', 0, false]]));
    expect(stats.onePool).toBe(true);
    expect(stats.poolWorkers).toBeGreaterThanOrEqual(1);
    expect(stats.poolWorkers).toBeLessThanOrEqual(2);
    expect(page.workers().length).toBe(stats.poolWorkers);
    expect(stats.gl.contexts).toBe(1);
    expect(stats.gl.lost).toBe(0);
    expect(stats.rendererStats).toMatchObject({ contexts: 1, lost: 0 });
    expect(page.errors).toEqual([]);
  });

  it('snapshot() says where each character is drawn: every pixel it draws lies in its screen rectangle', async () => {
    const drawn = await page.evaluate(() => {
      const v = document.getElementById('v1');
      v.stage.grid.visible = false;
      v.stage.setShadowVisible(false);
      v.stage.countForegroundPixels(); // draws the frame read below
      const { data } = v.stage.context2d.getImageData(0, 0, v.stage.width, v.stage.height);
      const bg = v.stage.background.clone().convertLinearToSRGB();
      const back = [bg.r, bg.g, bg.b].map((c) => Math.round(c * 255));
      // The drawn pixels' rectangle, in CSS pixels (the stage draws in device pixels).
      const scale = v.stage.width / v.shadowRoot.querySelector('canvas').clientWidth;
      let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
      for (let y = 0; y < v.stage.height; y++)
        for (let x = 0; x < v.stage.width; x++) {
          const o = (y * v.stage.width + x) * 4;
          if (Math.abs(data[o] - back[0]) + Math.abs(data[o + 1] - back[1]) + Math.abs(data[o + 2] - back[2]) <= 24) continue;
          [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 1), Math.max(y1, y + 1)];
        }
      const pixels = { x: x0 / scale, y: y0 / scale, right: x1 / scale, bottom: y1 / scale };
      v.stage.grid.visible = true;
      v.stage.setShadowVisible(true);
      const canvas = v.shadowRoot.querySelector('canvas');
      return { screen: v.snapshot().characters[0].screen, pixels, size: [canvas.clientWidth, canvas.clientHeight] };
    });
    const { screen, pixels, size } = drawn;
    expect(pixels.right - pixels.x).toBeGreaterThan(10);
    // The box's corners reach past the silhouette, never short of it.
    expect(pixels.x).toBeGreaterThanOrEqual(screen.x - 1);
    expect(pixels.y).toBeGreaterThanOrEqual(screen.y - 1);
    expect(pixels.right).toBeLessThanOrEqual(screen.x + screen.width + 1);
    expect(pixels.bottom).toBeLessThanOrEqual(screen.y + screen.height + 1);
    expect(screen.x + screen.width).toBeLessThanOrEqual(size[0] + 1e-6);
    expect(screen.y + screen.height).toBeLessThanOrEqual(size[1] + 1e-6);
    // This bar, seen from the side, fills its box: the rectangle hugs what is drawn.
    expect(Math.abs(screen.x - pixels.x)).toBeLessThan(3);
    expect(Math.abs(screen.y - pixels.y)).toBeLessThan(3);
    expect(Math.abs(screen.x + screen.width - pixels.right)).toBeLessThan(3);
    expect(Math.abs(screen.y + screen.height - pixels.bottom)).toBeLessThan(3);
  });

  it('paused viewers draw no frames; a change draws one; a playing viewer draws only itself', async () => {
    await frames(page, 5);
    const idle = await page.evaluate(() => window.__gl.draws);
    await frames(page, 30);
    expect(await page.evaluate(() => window.__gl.draws)).toBe(idle);

    // Scrubbing one viewer draws that viewer once.
    await page.evaluate(() => {
      document.getElementById('v12').currentTime = 0.2;
    });
    await frames(page, 10);
    expect(await page.evaluate(() => window.__gl.draws)).toBe(idle + 1);

    // Playing one viewer (in view) draws it every frame and leaves the others alone.
    const drawn = () => page.evaluate(() => [...document.querySelectorAll('rigscope-viewer')].map((v) => v.stage.framesDrawn));
    const a = await drawn();
    await page.evaluate(() => document.getElementById('v12').play());
    await frames(page, 20);
    const b = await drawn();
    expect(b[11] - a[11]).toBeGreaterThan(10);
    expect(b.slice(0, 11)).toEqual(a.slice(0, 11));
    await page.evaluate(() => document.getElementById('v12').pause());
    expect(await page.evaluate(() => window.__events.filter((e) => e.type === 'error'))).toEqual([]);
  });
});

describe('problems are shown inside the element and sent as error events', () => {
  it('a bad file, a site without CORS and an unknown clip each get a clear message', async () => {
    const base = inject('baseUrl');
    const foreign = inject('foreignUrl');
    const html = `<!doctype html><html><head><meta charset="utf-8"><script type="module" src="${base}/rigscope-viewer.js"></script></head><body>
<rigscope-viewer id="bad" src="${base}/fixtures/truncated.psk"></rigscope-viewer>
<rigscope-viewer id="cors" src="${foreign}/fixtures/two_bone.psk"></rigscope-viewer>
<rigscope-viewer id="clip" clip="Nope" src="${base}/fixtures/two_bone.psk ${base}/fixtures/two_bone.psa"></rigscope-viewer>
</body></html>`;
    const page = await openHtml(`${base}/problems.html`, html, { width: 1000, height: 800 });
    await until(page, () => ['bad', 'cors', 'clip'].every((id) => window.__events.some((e) => e.id === id && e.type === 'error')));
    const shown = await page.evaluate(() =>
      Object.fromEntries(
        ['bad', 'cors', 'clip'].map((id) => {
          const el = document.getElementById(id);
          return [
            id,
            {
              text: [...el.shadowRoot.querySelectorAll('.messages p')].map((p) => p.textContent),
              records: window.__events.find((e) => e.id === id && e.type === 'error').detail.records,
            },
          ];
        }),
      ),
    );
    expect(shown.bad.text).toEqual([
      expect.stringMatching(/^truncated\.psk: PSK truncated\.psk: chunk FACE0000 declares 4 records .*at byte \d+/),
    ]);
    expect(shown.bad.records).toEqual([expect.objectContaining({ kind: 'refused', files: ['truncated.psk'] })]);
    expect(shown.cors.text).toEqual([
      expect.stringMatching(/Could not fetch .*two_bone\.psk: the server did not allow this page to read it \(CORS\)/),
    ]);
    expect(shown.cors.records).toEqual([expect.objectContaining({ kind: 'refused', files: [`${foreign}/fixtures/two_bone.psk`] })]);
    expect(shown.clip.text).toEqual(['No clip named "Nope": showing "Bend"; clips: Bend']);
    expect(shown.clip.records).toEqual([expect.objectContaining({ kind: 'missing', needs: 'a clip named "Nope"' })]);
    // The clip viewer still plays what it has.
    expect(await page.evaluate(() => document.getElementById('clip').snapshot().characters[0].clip)).toBe('Bend');
    // File text is text: nothing in the messages became markup.
    expect(
      await page.evaluate(() =>
        [...document.querySelectorAll('rigscope-viewer')].reduce(
          (n, v) => n + v.shadowRoot.querySelectorAll('.messages *:not(p)').length,
          0,
        ),
      ),
    ).toBe(0);
    await page.close();
  });
});

describe('attributes', () => {
  it('background, skeleton, speed, up, camera, controls, poster and a new src each take effect', async () => {
    const base = inject('baseUrl');
    const pair = `${base}/fixtures/two_bone.psk ${base}/fixtures/two_bone.psa`;
    const html = `<!doctype html><html><head><meta charset="utf-8"><script type="module" src="${base}/rigscope-viewer.js"></script></head><body>
<rigscope-viewer id="a" src="${pair}" background="ff0000" skeleton speed="2" controls="none" poster="${base}/screenshot.png"></rigscope-viewer>
<rigscope-viewer id="b" src="${pair}" up="z" camera="0,0,10,0,0,0"></rigscope-viewer>
</body></html>`;
    const page = await openHtml(`${base}/attributes.html`, html, { width: 800, height: 400 });
    await until(page, () => window.__events.filter((e) => e.type === 'load').length === 2);
    const a = await page.evaluate(() => {
      const el = document.getElementById('a');
      el.stage.countForegroundPixels();
      const [r, g, b] = el.stage.context2d.getImageData(1, 1, 1, 1).data;
      return {
        corner: [r, g, b],
        speed: el.stage.timeScale,
        skeleton: el.stage.helpers.map((h) => h.visible),
        bar: el.shadowRoot.querySelector('.bar').hidden,
        poster: el.shadowRoot.querySelector('.poster').hidden,
      };
    });
    expect(a).toEqual({ corner: [255, 0, 0], speed: 2, skeleton: [true], bar: true, poster: true });

    // up="z" stands a Z-up model up: its long axis (Y in the file) lies along −Z in the view.
    const size = (id) =>
      page.evaluate((x) => {
        const { min, max } = document.getElementById(x).snapshot().characters[0].bounds;
        return max.map((v, i) => v - min[i]);
      }, id);
    const [ya, yb] = [(await size('a'))[1], (await size('b'))[2]];
    expect(yb).toBeCloseTo(ya, 4);
    expect((await size('b'))[1]).toBeLessThan(ya / 2);
    const eye = await page.evaluate(() => document.getElementById('b').stage.camera.position.toArray());
    [0, 0, 10].forEach((v, i) => expect(eye[i]).toBeCloseTo(v, 6));

    // A new src replaces what is shown and loads again.
    await page.evaluate((src) => {
      document.getElementById('b').src = src;
    }, `${base}/fixtures/arm.pmd`);
    await until(page, () => window.__events.filter((e) => e.type === 'load').length === 3);
    expect(
      await page.evaluate(() =>
        document
          .getElementById('b')
          .snapshot()
          .characters.map((c) => c.name),
      ),
    ).toEqual(['arm.pmd']);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
