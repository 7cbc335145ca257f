// A dropped folder's files overlap: its largest file is sent to a decoder first, and while it
// still decodes the page builds the characters of the files decoded beside it (textures on,
// shaders linked); the drop's last assembly keeps those characters instead of building them again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { SAMPLES, launch, openFolder, openPage } from './browser.js';

const HAVE_SAMPLES = existsSync(SAMPLES);
/** samples/psk's largest file (5 MB; the others are at most 0.85 MB). */
const LARGEST = 'Suzanne_x130_face3200.pskx';
/** The meshes of samples/psk an animation of the folder binds to: built again once it is decoded. */
const ANIMATED = ['skSpiderLargeMesh.psk', 'Grunt_Preview_LOD0.psk'];

let browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('a dropped folder', () => {
  it.skipIf(!HAVE_SAMPLES)('decodes its largest file first and builds the others while it decodes, each once', async () => {
    const page = await openPage(browser, '/?demo=0');
    await page.evaluate((largest) => {
      const { app } = window.__rigscope;
      const events = (window.__events = []);
      window.__early = [];
      let built;
      const firstBuilt = new Promise((resolve) => (built = resolve));
      // The largest file's answer is given to the page only once a character is built, so the
      // order below holds on a machine of any speed (a bound, not a wait, if none ever is).
      const call = app.decoder.call.bind(app.decoder);
      app.decoder.call = async (op, args) => {
        const name = op.startsWith('decode') && typeof args[1] === 'string' ? args[1] : null;
        if (name) events.push(`start ${name}`);
        const result = await call(op, args);
        if (name === largest) await Promise.race([firstBuilt, new Promise((resolve) => setTimeout(resolve, 30000))]);
        if (name) events.push(`decoded ${name}`);
        return result;
      };
      const assemble = app._assemble.bind(app);
      app._assemble = async (...args) => {
        const added = await assemble(...args);
        if (app.characters.length) {
          events.push(`built ${app.characters.map((c) => c.name).join(',')}`);
          if (!window.__early.length) window.__early = [...app.characters];
          built();
        }
        return added;
      };
    }, LARGEST);
    await openFolder(page, `${SAMPLES}psk`);
    const { events, kept, early } = await page.evaluate(() => {
      const final = new Set(window.__rigscope.app.characters);
      return {
        events: window.__events,
        early: window.__early.map((c) => c.name),
        kept: window.__early.filter((c) => final.has(c)).map((c) => c.name),
      };
    });
    const starts = events.filter((e) => e.startsWith('start ') && /\.pskx?$/.test(e));
    expect(starts[0]).toBe(`start ${LARGEST}`);
    const firstBuilt = events.findIndex((e) => e.startsWith('built '));
    expect(firstBuilt).toBeGreaterThanOrEqual(0);
    expect(firstBuilt).toBeLessThan(events.indexOf(`decoded ${LARGEST}`));
    expect(early).not.toContain(LARGEST);
    // Built early and kept by the last assembly: all but a mesh an animation of the folder binds to.
    expect(kept).toEqual(early.filter((name) => !ANIMATED.includes(name)));
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
