// <rigscope-viewer> draws a folder while it decodes, as the viewer page does: its first character
// as soon as that model is decoded, with the status still loading and no `load` event; the final
// scene keeps the characters drawn early (the same objects) and `load` fires once. A load replaced
// mid-way leaves nothing of itself on screen or on the GPU.
//
// The real vertex3d sample folder (UE1 meshes, scripts and textures) is served from the test
// server; the decode of its largest mesh (mar_rifle) is held in the page's decoder pool until the
// test releases it, so "mid-load" is a state the test controls, not a moment it races for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elementHostPage, launch, PBR_LUT_TEXTURES, png, samplesFolderSrc, samplesSrc, until } from './browser.js';
/** The mesh whose decode is held: the folder's largest, so it is decoded last. */
const HELD = 'mar_rifle_d.3d';

let browser, context;
beforeAll(async () => {
  browser = await launch(['--disable-features=LocalNetworkAccessChecks']);
  context = await browser.newContext();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * A page with the element's script, its events recorded, and the decoder pool's `decodeUe1` of
 * HELD waiting for `window.__release()`.
 */
async function heldPage() {
  const page = await elementHostPage(context, 'progressive');
  await page.evaluate((held) => {
    window.__events = [];
    for (const type of ['load', 'error'])
      document.addEventListener(type, (e) => e.target?.localName === 'rigscope-viewer' && window.__events.push(type), true);
    const pool = customElements.get('rigscope-viewer').decoderPool;
    const call = pool.call.bind(pool);
    let release;
    const gate = new Promise((resolve) => (release = resolve));
    window.__release = release;
    window.__held = 0;
    pool.call = (op, args) => {
      if (op !== 'decodeUe1' || args[1] !== held) return call(op, args);
      window.__held++;
      return gate.then(() => call(op, args));
    };
  }, HELD);
  return page;
}

/** Adds the viewer with `src` (and a poster, which gives way to the first drawing). */
const addViewer = (page, src) =>
  page.evaluate(
    ({ list, poster }) => {
      const v = document.createElement('rigscope-viewer');
      v.id = 'v';
      v.setAttribute('poster', poster);
      v.setAttribute('src', list.join(' '));
      document.getElementById('here').append(v);
    },
    { list: src, poster: `data:image/png;base64,${png(4, 4, () => [200, 40, 40, 255]).toString('base64')}` },
  );

/** What the viewer shows now: characters (marked ones named), pixels, status, poster, events. */
const state = (page) =>
  page.evaluate(() => {
    const v = document.getElementById('v');
    return {
      characters: v.app.characters.length,
      onStage: v.stage.characters.length,
      names: v.app.characters.map((c) => c.name),
      marked: v.app.characters.filter((c) => c.__early).length,
      pixels: v.stage.countForegroundPixels().count,
      status: v.shadowRoot.querySelector('.status').textContent,
      poster: v.shadowRoot.querySelector('.poster').hidden,
      clips: v.clips.length,
      events: [...window.__events],
      held: window.__held,
    };
  });

describe('a folder drawn while it decodes', () => {
  it('shows its first characters before the last file is decoded, and keeps them in the final scene', async () => {
    const page = await heldPage();
    const src = samplesFolderSrc('vertex3d');
    expect(src.length).toBeGreaterThan(90);
    await addViewer(page, src);
    // Held: every other file is decoded, and what is decoded is drawn.
    await until(page, () => window.__held > 0 && document.getElementById('v').app.characters.length > 0, null, 30000);
    await until(page, () => customElements.get('rigscope-viewer').decoderPool.pending <= 1, null, 30000);
    // The camera framed the first drawing and glides to frame each later one: every character
    // drawn so far comes into view.
    await until(
      page,
      () => {
        const v = document.getElementById('v');
        const camera = v.stage.camera;
        camera.updateMatrixWorld();
        return v.app.characters.every((c) => {
          const p = v.stage.boundsOf(c).getCenter(camera.position.clone()).project(camera);
          return Math.abs(p.x) < 1 && Math.abs(p.y) < 1 && p.z < 1;
        });
      },
      null,
      30000,
    );
    const mid = await state(page);
    expect(mid.characters).toBeGreaterThanOrEqual(1);
    expect(mid.onStage).toBe(mid.characters);
    expect(mid.names).not.toContain(HELD);
    expect(mid.pixels).toBeGreaterThan(500);
    expect(mid.status).toMatch(/^Loading…/);
    expect(mid.poster).toBe(true);
    expect(mid.events).toEqual([]);
    // Clips belong to the final scene: none is offered while loading.
    expect(mid.clips).toBe(0);
    const early = await page.evaluate(() => {
      const v = document.getElementById('v');
      for (const c of v.app.characters) c.__early = true;
      return v.app.characters.length;
    });

    // Where the early characters stand, and each glide the stage is given from there (once the
    // drawings of the 24 files decoded have passed 8 characters).
    await until(page, () => document.getElementById('v').app.characters.length >= 8, null, 30000);
    await until(page, () => !document.getElementById('v').stage.glides.active, null, 30000);
    await page.evaluate((held) => {
      const { stage } = document.getElementById('v');
      const { glides } = stage;
      window.__stood = new Map(document.getElementById('v').app.characters.map((c) => [c, c.root.position.clone()]));
      window.__glidedFrom = new Map();
      const to = glides.to.bind(glides);
      glides.to = (vector, target, now) => {
        // The first glide of each (a later drawing may glide it again, from where it is then), and
        // whether the held mesh, new in the final scene, had entered yet (its shaders linked).
        for (const c of window.__stood.keys())
          if (c.root.position === vector && !window.__glidedFrom.has(c))
            window.__glidedFrom.set(c, { from: vector.clone(), beforeNewcomer: !stage.characters.some((x) => x.name === held) });
        return to(vector, target, now);
      };
    }, HELD);

    await page.evaluate(() => window.__release());
    await page.evaluate(() => document.getElementById('v').loaded);
    // The characters drawn early that the final layout moves glide there from where they stood
    // (no jump), set off before the newcomers' shaders are linked, and end where the scene puts them.
    await until(page, () => !document.getElementById('v').stage.glides.active, null, 30000);
    const moves = await page.evaluate(() =>
      [...window.__stood]
        .filter(([c]) => document.getElementById('v').app.characters.includes(c))
        .map(([c, was]) => ({
          moved: !was.equals(c.root.position),
          glidedFrom: window.__glidedFrom.get(c)?.from.equals(was) ?? false,
          beforeNewcomer: window.__glidedFrom.get(c)?.beforeNewcomer ?? false,
          atPlace: c.root.position.toArray().every((x, i) => Math.abs(x - (c.scene.offset?.[i] ?? 0)) < 1e-9),
        })),
    );
    expect(moves.filter((m) => m.moved).length).toBeGreaterThan(0);
    for (const m of moves) expect(m).toEqual({ moved: m.moved, glidedFrom: m.moved, beforeNewcomer: m.moved, atPlace: true });
    const end = await state(page);
    expect(end.names).toContain(HELD);
    expect(end.characters).toBeGreaterThan(early);
    expect(end.onStage).toBe(end.characters);
    // Every character drawn early is still the same object (not built again).
    expect(end.marked).toBe(early);
    expect(end.status).toBe('');
    expect(end.events).toEqual(['load']);
    expect(end.clips).toBeGreaterThan(0);
    expect(end.pixels).toBeGreaterThan(500);
    console.log('progressive: mid-load', mid, 'final', { ...end, names: end.names.length });
    expect(page.errors).toEqual([]);
    await page.close();
  }, 180000);

  it('a load replaced mid-way leaves nothing of itself: not on screen, not on the GPU', async () => {
    const page = await heldPage();
    const pageWide = await page.evaluate(() => {
      const shared = customElements.get('rigscope-viewer').renderer;
      shared.neutralEnvironment;
      return { ...shared.renderer.info.memory };
    });
    pageWide.textures += PBR_LUT_TEXTURES; // three's, once an element has drawn
    await addViewer(page, samplesFolderSrc('vertex3d'));
    await until(page, () => window.__held > 0 && document.getElementById('v').stage.characters.length > 0, null, 30000);
    await until(page, () => document.getElementById('v').stage.framesDrawn > 0);
    const drawnEarly = await page.evaluate(() => {
      const v = document.getElementById('v');
      v.stage.countForegroundPixels();
      return {
        names: v.app.characters.map((c) => c.name),
        geometries: customElements.get('rigscope-viewer').renderer.renderer.info.memory.geometries,
      };
    });
    expect(drawnEarly.geometries).toBeGreaterThan(pageWide.geometries);

    // Replaced: at once nothing of the old load is shown.
    const replaced = await page.evaluate((psk) => {
      const v = document.getElementById('v');
      v.setAttribute('src', psk);
      return { characters: v.app.characters.length, onStage: v.stage.characters.length, scene: v.stage.content.children.length };
    }, samplesSrc('psk'));
    expect(replaced).toEqual({ characters: 0, onStage: 0, scene: 0 });
    await until(page, () => window.__events.includes('load'));
    // The old load's held decode ends now: its result is thrown away unseen.
    await page.evaluate(() => window.__release());
    await until(page, () => customElements.get('rigscope-viewer').decoderPool.pending === 0);
    await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
    const after = await page.evaluate(() => {
      const v = document.getElementById('v');
      return {
        names: v.app.characters.map((c) => c.name),
        onStage: v.stage.content.children.length,
        events: [...window.__events],
        pixels: v.stage.countForegroundPixels().count,
      };
    });
    expect(after.names).toEqual(['skSpiderLargeMesh.psk']);
    expect(after.onStage).toBe(1);
    expect(after.events).toEqual(['load']);
    expect(after.pixels).toBeGreaterThan(500);
    for (const name of drawnEarly.names) expect(after.names).not.toContain(name);

    // Removed: the GPU holds what the page held before any element.
    await page.evaluate(() => document.getElementById('v').remove());
    await until(
      page,
      (base) => {
        const { geometries, textures } = customElements.get('rigscope-viewer').renderer.renderer.info.memory;
        return geometries === base.geometries && textures === base.textures;
      },
      pageWide,
      20000,
    );
    expect(page.errors).toEqual([]);
    await page.close();
  }, 180000);

  it('a load that fails after drawing early shows its message and nothing of what it drew', async () => {
    const page = await heldPage();
    await addViewer(page, samplesFolderSrc('vertex3d'));
    await until(page, () => window.__held > 0 && document.getElementById('v').stage.characters.length > 0, null, 30000);
    // The assembly of the whole folder fails (as a scene that cannot be assembled would).
    await page.evaluate(() => {
      const v = document.getElementById('v');
      window.__drawnEarly = v.app.characters.length;
      v.app._draw = () => Promise.reject(new Error('assembly failed here'));
      window.__release();
    });
    await until(page, () => window.__events.includes('error'), null, 30000);
    const after = await page.evaluate(() => {
      const v = document.getElementById('v');
      return {
        drawnEarly: window.__drawnEarly,
        characters: v.app.characters.length,
        onStage: v.stage.content.children.length,
        messages: v.messages.map((m) => m.text),
        status: v.shadowRoot.querySelector('.status').textContent,
        events: [...window.__events],
      };
    });
    expect(after.drawnEarly).toBeGreaterThan(0);
    expect(after).toMatchObject({ characters: 0, onStage: 0, messages: ['assembly failed here'], status: '', events: ['error'] });
    await page.close();
  }, 180000);
});
