// A dropped folder's files overlap: its largest file is sent to a decoder first, and while it
// still decodes the page builds the characters of the files decoded beside it (textures on,
// shaders linked); the drop's last assembly keeps those characters instead of building them again,
// and starts them for their new places before it readies the newcomers' textures and shaders.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { fileBrowser, openFolder, openPage, SAMPLES } from './browser.js';

const HAVE_SAMPLES = existsSync(SAMPLES);
/** samples/psk's largest file (5 MB; the others are at most 0.85 MB). */
const LARGEST = 'Suzanne_x130_face3200.pskx';
/** The meshes of samples/psk an animation of the folder binds to: built again once it is decoded. */
const ANIMATED = ['skSpiderLargeMesh.psk', 'Grunt_Preview_LOD0.psk'];

const browser = fileBrowser();

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

  it.skipIf(!HAVE_SAMPLES)("moves what it drew early toward its new place while the newcomers' shaders link", async () => {
    const page = await openPage(browser, '/?demo=0');
    await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      const events = (window.__events = []);
      let built;
      const firstBuilt = new Promise((resolve) => (built = resolve));
      // The dome's answer waits for the first look, so the assembly that brings it in has both
      // kinds: what was drawn early (kept) and the dome (new).
      const call = app.decoder.call.bind(app.decoder);
      app.decoder.call = async (op, args) => {
        const result = await call(op, args);
        if (args[1] === 'skybox_night.psg') await Promise.race([firstBuilt, new Promise((resolve) => setTimeout(resolve, 30000))]);
        return result;
      };
      const assemble = app._assemble.bind(app);
      app._assemble = async (...args) => {
        events.push('assemble');
        const added = await assemble(...args);
        if (app.characters.length) built();
        return added;
      };
      const compileFor = viewer.compileFor.bind(viewer);
      viewer.compileFor = async (roots) => {
        await compileFor(roots);
        events.push('linked');
      };
      const place = viewer.place.bind(viewer);
      viewer.place = (c, options) => {
        if (options?.glide) events.push(`glide ${c.name}`);
        place(c, options);
      };
      const add = viewer.add.bind(viewer);
      viewer.add = (c) => {
        events.push(`add ${c.name}`);
        add(c);
      };
    });
    await openFolder(page, `${SAMPLES}psg`);
    const events = await page.evaluate(() => window.__events);
    // The assembly that brings the dome in (the last, or an early drawing once the dome is decoded).
    const entered = events.indexOf('add skybox_night.psg');
    expect(entered).toBeGreaterThan(0);
    const begun = events.lastIndexOf('assemble', entered);
    const assembly = events.slice(begun, entered + 1);
    const glides = assembly.filter((e) => e.startsWith('glide '));
    expect(events.indexOf('assemble')).toBeLessThan(begun); // a first look came before it
    expect(glides.length).toBeGreaterThan(0); // what was drawn early, kept
    // Every kept character was sent on its way before the shaders were linked and the dome entered.
    for (const g of glides) expect(assembly.indexOf(g), g).toBeLessThan(assembly.indexOf('linked'));
    expect(assembly.indexOf('linked')).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
