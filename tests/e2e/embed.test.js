// The iframe player (embed.html): the same parameters as the viewer, a compact clip chooser, a
// fullscreen button, labels only with labels=1, one row of controls down to 320 px, a visible
// note for an unknown clip or frame, and no frames drawn while nothing changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { animationFrames as frames, fileBrowser, openPage } from './browser.js';

const browser = fileBrowser();

const fixture = (name) => encodeURIComponent(`${inject('baseUrl')}/fixtures/${name}`);
const notes = (page) =>
  page.evaluate(() => [...document.getElementById('player').shadowRoot.querySelectorAll('.messages p')].map((p) => p.textContent));
describe('embed page', () => {
  it('shows the level of detail lod= names, and its link to the full viewer opens at that level', async () => {
    const dir = 'lod_export/ueviewer/Characters/Male/Bodies/';
    const files = [
      'SK_MaleBase_01_Body.psk',
      'SK_MaleBase_01_Body_Lod1.psk',
      'SK_MaleBase_01_Body_Lod2.psk',
      'SK_MaleBase_01_Body_Lod3.psk',
    ];
    const query = `${files.map((f) => `file=${fixture(dir + f)}`).join('&')}&lod=1`;
    const vertices = (page, of) =>
      page.evaluate((expr) => {
        const app = expr === 'element' ? document.getElementById('player').app : window.__rigscope.app;
        return app.characters.flatMap((c) => c.meshes.map((m) => m.geometry.attributes.position.count));
      }, of);
    const page = await openPage(browser, `/embed.html?${query}`, { viewport: { width: 400, height: 300 } });
    // The body's levels have 26, 14, 8 and 4 vertices (the project's LOD fixture writer).
    expect(await vertices(page, 'element')).toEqual([14]);
    expect(await page.getAttribute('#player', 'lod')).toBe('1');
    const full = await openPage(browser, await page.getAttribute('#open-full', 'href'));
    expect(await vertices(full, 'app')).toEqual([14]);
    expect(await full.inputValue('#lod')).toBe('1');
    await full.close();
    expect(page.errors).toEqual([]);
    await page.close();
  }, 120000);

  // The demo, opened once for the tests that read it or change only its view: a page's first
  // player makes the renderer and its shaders (seconds on SwiftShader).
  describe('with the demo', () => {
    let page;
    beforeAll(async () => {
      page = await openPage(browser, '/embed.html', { viewport: { width: 400, height: 300 } });
    }, 120000);
    afterAll(() => page?.close());

    it('chooses clips from its compact chooser and says so to the host page', async () => {
      const chooser = page.locator('rigscope-viewer select.clips');
      expect(await chooser.isVisible()).toBe(true);
      expect(await chooser.locator('option').allTextContents()).toEqual(['Idle', 'Walk', 'Wave']);
      const changes = page.evaluate(
        () =>
          new Promise((resolve) =>
            document.getElementById('player').addEventListener('clipchange', (e) => resolve(e.detail.clip), { once: true }),
          ),
      );
      await chooser.selectOption({ label: 'Wave' });
      expect(await changes).toBe('Wave');
      expect(await page.evaluate(() => window.__rigscope.snapshot().characters.map((c) => [c.clip, c.playing]))).toEqual([['Wave', true]]);
      expect(page.errors).toEqual([]);
    });

    it('goes fullscreen from its button and back', async () => {
      await page.locator('rigscope-viewer button.fullscreen').click();
      await page.waitForFunction(() => document.fullscreenElement?.id === 'player');
      await page.locator('rigscope-viewer button.fullscreen').click();
      await page.waitForFunction(() => document.fullscreenElement === null);
    });

    it('keeps its controls on one row down to 320 px', async () => {
      await page.setViewportSize({ width: 320, height: 240 });
      // The element lays out again once the page has drawn at the new size.
      await frames(page, 2);
      const rows = await page.evaluate(() => {
        const root = document.getElementById('player').shadowRoot;
        const parts = [...root.querySelectorAll('.bar > *:not([hidden])'), document.getElementById('open-full')];
        return parts.map((el) => {
          const r = el.getBoundingClientRect();
          return { mid: Math.round(r.top + r.height / 2), right: r.right, width: r.width };
        });
      });
      expect(rows.length).toBe(7); // play, time, frame, clip, the slot, open-in-Rigscope, fullscreen
      expect(new Set(rows.filter((r) => r.width > 0).map((r) => r.mid)).size).toBe(1);
      for (const r of rows) expect(r.right).toBeLessThanOrEqual(320);
    });
  });

  it('shows prop and socket labels only with labels=1', async () => {
    const shown = async (query) => {
      const page = await openPage(browser, `/embed.html?file=${fixture('arm.pmd')}${query}`, { viewport: { width: 400, height: 300 } });
      await frames(page, 3);
      const labels = page.locator('rigscope-viewer .label');
      const out = await labels.evaluateAll((els) =>
        els
          .filter((e) => e.style.display !== 'none')
          .map((e) => e.textContent)
          .sort(),
      );
      await page.close();
      return out;
    };
    expect(await shown('')).toEqual([]);
    expect(await shown('&labels=1')).toEqual(['prop_hand', 'prop_head']);
  });

  it('notes an unknown clip, and a frame outside the clip, where the viewer can see them', async () => {
    const page = await openPage(browser, '/embed.html?clip=doesnotexist', { viewport: { width: 400, height: 300 } });
    expect(await notes(page)).toEqual(['No clip named "doesnotexist": showing "Idle"; clips: Idle, Walk, Wave']);
    expect(await page.locator('rigscope-viewer .messages p').isVisible()).toBe(true);
    await page.close();
    const late = await openPage(browser, '/embed.html?clip=Wave&frame=999&autoplay=0', { viewport: { width: 400, height: 300 } });
    const [note] = await notes(late);
    expect(note).toMatch(/^Frame 999 is outside Wave \(frames 0–\d+\): showing frame \d+$/);
    const last = Number(/showing frame (\d+)/.exec(note)[1]);
    expect(await late.evaluate(() => window.__rigscope.snapshot().characters[0].frame)).toBe(last);
    await late.close();
  });

  it('draws no frames while paused and untouched, one per change', async () => {
    const page = await browser.newPage({ viewport: { width: 400, height: 300 } });
    await page.addInitScript(() => {
      window.__draws = 0;
      const drawImage = CanvasRenderingContext2D.prototype.drawImage;
      CanvasRenderingContext2D.prototype.drawImage = function (...args) {
        window.__draws++;
        return drawImage.apply(this, args);
      };
    });
    await page.goto(new URL('/embed.html?autoplay=0', inject('baseUrl')).href);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
    await frames(page, 5);
    const idle = await page.evaluate(() => window.__draws);
    await frames(page, 30);
    expect(await page.evaluate(() => window.__draws)).toBe(idle);
    await page.locator('rigscope-viewer input.scrub').fill('0.5');
    await frames(page, 5);
    expect(await page.evaluate(() => window.__draws)).toBe(idle + 1);
    await page.close();
  });
});
