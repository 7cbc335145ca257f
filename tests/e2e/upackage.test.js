// UE1 packages dropped into the viewer: a package is a folder of its meshes, laid out, its one
// animated character selected and framed, textured from the package; a texture package alone is
// the texture view. Samples: ../shared/samples/upackage/ (skipped without them).
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { inject } from 'vitest';
import {
  chooseFiles,
  countColour,
  elementHostPage,
  FIXTURES,
  fileBrowser,
  filePayload,
  frameAt,
  maskDifference,
  openPage,
  SAMPLES,
  until,
} from './browser.js';

const browser = fileBrowser();

/**
 * Holds back every read of sg_GL1st's skins' pixels from `src` (they lie from byte 2,404,050; the
 * reads beside its mesh take a kilobyte or two of each) until `release()`: a slow host.
 */
async function holdSkinPixels(page, src) {
  const held = [];
  let release;
  const released = new Promise((resolve) => (release = resolve));
  await page.route(src, async (route) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(route.request().headers().range ?? '');
    if (m && Number(m[1]) >= 2404050 && Number(m[2]) - Number(m[1]) >= 8192) {
      held.push(route.request().headers().range);
      await released;
    }
    await route.continue();
  });
  return { held, release };
}
const PKG = `${SAMPLES}upackage/`;

describe.skipIf(!existsSync(PKG))('UE1 packages in the viewer', () => {
  it('SiegeIV_0032beta9.u: 17 meshes laid out, sg_GL1st selected, framed, textured and playing', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${PKG}SiegeIV_0032beta9.u`)], 120000);
    const state = await page.evaluate(() => {
      const { app } = window.__rigscope;
      return {
        names: app.characters.map((c) => c.name),
        selected: app.selected?.name,
        clips: app.selected?.clips.map((k) => k.name),
        maps: app.selected?.materials.map((m) => m.map?.name ?? null),
        rows: [...document.querySelectorAll('#outliner li.model small')].map((s) => s.textContent),
        offsets: app.characters.map((c) => c.scene.offset?.join(',') ?? ''),
      };
    });
    expect(state.names).toHaveLength(17);
    expect(state.names).toContain('sg_GL1st');
    expect(state.selected).toBe('sg_GL1st');
    expect(state.clips).toEqual(['All', 'DISPENSE', 'Down', 'Fire', 'Reload', 'Select', 'Still', 'Sway']);
    // Its skins come from the package (slot 3 is empty there).
    expect(state.maps.filter((n) => n && n !== 'untextured')).toHaveLength(3);
    // Laid out: the meshes do not all stand at one place.
    expect(new Set(state.offsets).size).toBeGreaterThan(10);
    // The outliner says where each lives.
    expect(state.rows.every((r) => r.includes('SiegeIV_0032beta9'))).toBe(true);
    // Framed: it fills a good part of the view, in the colours of its skin (not one flat colour).
    const a = await frameAt(page, 0);
    expect(a.count).toBeGreaterThan(3000);
    const colours = new Set();
    for (let i = 0; i < a.rgb.length; i += 3) if (a.mask[i / 3]) colours.add(`${a.rgb[i] >> 4},${a.rgb[i + 1] >> 4},${a.rgb[i + 2] >> 4}`);
    expect(colours.size).toBeGreaterThan(20);
    // Reload moves it.
    await page.locator('#clip-list li', { hasText: 'Reload' }).click();
    const b = await frameAt(page, 0);
    const c = await frameAt(page, 0.5);
    expect(maskDifference(b, c)).toBeGreaterThan(40);
    // The package is held by the decoder workers (sent once, decoder/held.js); Clear lets go of it.
    const held = () =>
      page.evaluate(async () => {
        const pool = window.__rigscope.app.decoder;
        return { bytes: pool.heldBytes, ids: (await pool.heldByWorkers()).flat() };
      });
    const before = await held();
    expect(before.bytes).toBeGreaterThanOrEqual(4114609);
    expect(before.ids.length).toBeGreaterThan(0);
    await page.locator('#clear-button').click();
    expect(await held()).toEqual({ bytes: 0, ids: [] });
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('a texture package alone opens as the texture view', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${PKG}HPDemoAd.utx`)]);
    const state = await page.evaluate(() => {
      const { app } = window.__rigscope;
      return { boards: app.characters.filter((c) => c.textureBoard).length, others: app.characters.filter((c) => !c.textureBoard).length };
    });
    expect(state).toEqual({ boards: 1, others: 0 });
    const f = await frameAt(page);
    expect(f.count).toBeGreaterThan(2000);
    expect(countColour(f, (R, G, B) => Math.max(R, G, B) - Math.min(R, G, B) > 40)).toBeGreaterThan(100);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('a link with mesh= opens one mesh of a package, and Copy link keeps it', async () => {
    const file = `${inject('baseUrl')}/samples/upackage/SiegeIV_0032beta9.u`;
    const page = await openPage(browser, `/?file=${encodeURIComponent(file)}&mesh=sg_GL3rd`);
    await until(page, () => window.__rigscope?.app.characters.length > 0 && window.__rigscope.app.loads > 0, undefined, 120000);
    const state = await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      return {
        names: app.characters.map((c) => c.name),
        clips: app.selected?.clips.map((k) => k.name),
        objects: app.objects,
        triangles: viewer.renderer.info.render.triangles,
      };
    });
    expect(state.names).toEqual(['sg_GL3rd']);
    expect(state.clips).toEqual(['All', 'Fire', 'Still']);
    // Read in parts (the test site answers ranges): a fifth of its 4,114,609 bytes.
    const read = await page.evaluate(
      (url) =>
        performance
          .getEntriesByType('resource')
          .filter((e) => e.name === url)
          .reduce((n, e) => n + e.encodedBodySize, 0),
      file,
    );
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(4114609 / 5);
    // What Copy link writes (params.js currentState: mesh is app.objects[0]).
    expect(state.objects).toEqual(['sg_GL3rd']);
    expect(state.triangles).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('the viewer page draws a package mesh from a link while its skins are still on the way, and puts them on when the drop is done', async () => {
    const file = `${inject('baseUrl')}/samples/upackage/SiegeIV_0032beta9.u`;
    // Opened as openPage does, without waiting for the page to be ready: it is ready once the
    // link is loaded, skins and all.
    const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    const hold = await holdSkinPixels(page, file);
    await page.goto(new URL(`/?file=${encodeURIComponent(file)}&mesh=sg_GL1st`, inject('baseUrl')).href);
    await until(page, () => window.__rigscope?.app.characters.length > 0 && window.__rigscope.viewer.renderer.info.render.frame > 0);
    // The two skins' pixels and palettes, which lie side by side: one read, held.
    await expect.poll(() => hold.held.length).toBe(1);
    const state = () =>
      page.evaluate(() => {
        const { app } = window.__rigscope;
        return { loads: app.loads ?? 0, maps: [...new Set(app.characters[0].materials.map((m) => m.map?.name ?? null))].sort() };
      });
    const early = await state();
    expect(early.loads).toBe(0);
    expect(early.maps).toContain('Jsg_GL1st2');
    expect(early.maps).not.toContain('Jsg_GL1st1');
    hold.release();
    await until(page, () => window.__rigscope.app.loads > 0);
    expect((await state()).maps).toEqual(['Jsg_GL1st1', 'Jsg_GL1st2', 'Jsg_GL1st4', 'untextured']);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('<rigscope-viewer> draws a package mesh read in parts while its skins are still on the way, and puts them on by its load', async () => {
    const page = await elementHostPage(browser, 'upackage');
    const src = `${inject('baseUrl')}/samples/upackage/SiegeIV_0032beta9.u`;
    const { held, release } = await holdSkinPixels(page, src);
    await page.evaluate((src) => {
      const v = document.createElement('rigscope-viewer');
      v.id = 'm';
      v.style.cssText = 'display:block;width:640px;height:480px';
      v.setAttribute('mesh', 'sg_GL1st');
      v.setAttribute('src', src);
      v.addEventListener('load', () => (v.dataset.loaded = 'yes'));
      document.getElementById('here').append(v);
    }, src);
    await until(page, () => {
      const v = document.getElementById('m');
      return v.app.characters.length > 0 && v.stage.framesDrawn > 0;
    });
    await expect.poll(() => held.length).toBe(1);
    const state = () =>
      page.evaluate(() => {
        const v = document.getElementById('m');
        return {
          loaded: v.dataset.loaded ?? 'no',
          maps: [...new Set(v.app.characters[0].materials.map((m) => m.map?.name ?? null))].sort(),
          pixels: v.stage.countForegroundPixels().count,
        };
      });
    // On screen, with the skin that came with the mesh (Jsg_GL1st2: 3.6 KB, within what was read
    // beside it); the other two still on the way, so the load is not done.
    const early = await state();
    expect(early.loaded).toBe('no');
    expect(early.pixels).toBeGreaterThan(2000);
    expect(early.maps).toContain('Jsg_GL1st2');
    expect(early.maps).not.toContain('Jsg_GL1st1');
    release();
    await until(page, () => document.getElementById('m').dataset.loaded === 'yes');
    const done = await state();
    expect(done.loaded).toBe('yes');
    // Its three skins; its third slot names no texture (drawn untextured in the whole file too).
    expect(done.maps).toEqual(['Jsg_GL1st1', 'Jsg_GL1st2', 'Jsg_GL1st4', 'untextured']);
    expect(done.pixels).toBeGreaterThan(2000);
  });

  it('<rigscope-viewer mesh="…">: one mesh of a package, read in parts, drawn as from the whole file', async () => {
    const page = await elementHostPage(browser, 'upackage');
    const src = `${inject('baseUrl')}/samples/upackage/SiegeIV_0032beta9.u`;
    // `parts`: the test site answers ranges; `whole`: the same file from a host that ignores them.
    await page.evaluate(
      ([src]) => {
        for (const [id, url] of [
          ['parts', src],
          ['whole', `${src}?whole`],
        ]) {
          const v = document.createElement('rigscope-viewer');
          v.id = id;
          v.style.cssText = 'display:block;width:640px;height:480px';
          v.setAttribute('mesh', 'SiegeIV_0032beta9.sg_GL3rd');
          v.setAttribute('src', url);
          document.getElementById('here').append(v);
        }
      },
      [src],
    );
    await until(
      page,
      () =>
        ['parts', 'whole'].every((id) => {
          const v = document.getElementById(id);
          return v.app.characters.length > 0 && v.shadowRoot.querySelector('.status').textContent === '' && v.stage.framesDrawn > 0;
        }),
      undefined,
      120000,
    );
    const shown = await page.evaluate(async (src) => {
      const one = async (id) => {
        const v = document.getElementById(id);
        await v.loaded;
        return {
          names: v.app.characters.map((c) => c.name),
          clips: v.clips.map((c) => c.name),
          maps: v.app.characters[0].materials.map((m) => m.map?.name ?? null),
          pixels: v.stage.countForegroundPixels().count,
        };
      };
      // What crossed the network for each (resource timing: the page and the files are one site).
      const read = (url) =>
        performance
          .getEntriesByType('resource')
          .filter((e) => e.name === url)
          .map((e) => e.encodedBodySize);
      return { parts: await one('parts'), whole: await one('whole'), partsRead: read(src), wholeRead: read(`${src}?whole`) };
    }, src);
    expect(shown.parts.names).toEqual(['sg_GL3rd']);
    expect(shown.parts.clips).toEqual(['All', 'Fire', 'Still']);
    expect(shown.parts.pixels).toBeGreaterThan(2000);
    expect(shown.parts).toEqual(shown.whole);
    // In parts: its head and tail, then the mesh, its skins and their palettes, a fifth of its
    // 4,114,609 bytes; whole: the file once (the tail's request ended when the head's answer
    // showed the host ignores ranges).
    expect(shown.partsRead.length).toBeGreaterThanOrEqual(3);
    expect(shown.partsRead.reduce((a, b) => a + b, 0)).toBeLessThan(4114609 / 5);
    expect(shown.wholeRead.filter((n) => n === 4114609)).toHaveLength(1);
    // The whole package is held by a worker of the page's pool (parts are sent with each call);
    // the elements gone (another stays, so the workers do not end), the worker holds it no more.
    const held = () =>
      page.evaluate(async () => {
        const pool = customElements.get('rigscope-viewer').decoderPool;
        return { bytes: pool.heldBytes, ids: (await pool.heldByWorkers()).flat(), workers: pool.workerCount };
      });
    const before = await held();
    expect(before.bytes).toBe(4114609);
    expect(before.ids).toHaveLength(1);
    await page.evaluate(
      async (src) => {
        const other = document.createElement('rigscope-viewer');
        other.style.cssText = 'display:block;width:64px;height:64px';
        other.setAttribute('src', src);
        document.getElementById('here').append(other);
        await other.loaded;
        document.getElementById('parts').remove();
        document.getElementById('whole').remove();
      },
      `${inject('baseUrl')}/samples/upackage/sources/C4.psk`,
    );
    await until(page, async () => {
      const pool = customElements.get('rigscope-viewer').decoderPool;
      return pool.heldBytes === 0;
    });
    const after = await held();
    expect(after.ids).toEqual([]);
    expect(after.workers).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

// A Deus Ex character as a mod ships it, made by the writer (dx_character.u: a LodMesh of 8-byte
// vertices with 72 sequences beside a static prop three times its size): no samples needed.
describe('a Deus Ex character package in the viewer', () => {
  it('is selected over the larger prop, framed alone, textured, and plays its first sequence', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${FIXTURES}dx_character.u`)]);
    // The clip list is built in slices after the load (panels/slices.js): read once it is whole.
    await until(page, () => !document.querySelector('#clip-list[aria-busy]'));
    const state = await page.evaluate(() => {
      const { app } = window.__rigscope;
      return {
        names: app.characters.map((c) => c.name).sort(),
        selected: app.selected?.name,
        clip: app.current?.clip.name,
        clips: app.selected?.clips.length,
        listed: document.querySelectorAll('#clip-list li[role=option]').length,
        maps: app.selected?.materials.map((m) => m.map?.name ?? null),
      };
    });
    // The list holds every sequence, and Crate's one pose.
    expect(state).toMatchObject({ names: ['Crate', 'Trooper'], selected: 'Trooper', clip: 'Seq00', clips: 72, listed: 73 });
    expect(state.maps.filter((n) => n && n !== 'untextured')).toHaveLength(2);
    // Framed alone: the quad fills a good part of the view. Seq00 swings its apex out.
    const a = await frameAt(page, 0);
    expect(a.count).toBeGreaterThan(3000);
    const b = await frameAt(page, 0.3);
    expect(maskDifference(a, b)).toBeGreaterThan(40);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
