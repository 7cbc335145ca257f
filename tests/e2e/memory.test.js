// Clear gives back what a drop took: after drop-and-clear cycles of every family's samples, three's
// GPU memory counts are the empty page's, no decoder worker is left (its WASM memory never
// shrinks, so it has to end), and the JS heap with its array buffers stays where the first cycle
// left it (code and caches settle in the first cycle).
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chooseFiles, FAMILY_SAMPLES, fileBrowser, filePayload, FIXTURES, openPage, SAMPLES } from './browser.js';

const CYCLES = 6;

const browser = fileBrowser(['--enable-precise-memory-info']);

/**
 * Bytes of the page's heap outside the code V8 compiles: a heap snapshot's nodes, less machine code,
 * bytecode and object shapes (V8 keeps compiling the page's hot functions and the decoders' WASM
 * for many cycles, 50-100 KB of code a cycle, which is no drop kept alive: measured with the heap's
 * used size, it made the check below fail on a busy machine).
 */
async function objectHeap(cdp) {
  for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
  const chunks = [];
  const take = (e) => chunks.push(e.chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', take);
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  cdp.off('HeapProfiler.addHeapSnapshotChunk', take);
  const { snapshot, nodes, strings } = JSON.parse(chunks.join(''));
  const fields = snapshot.meta.node_fields;
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const types = snapshot.meta.node_types[0];
  let bytes = 0;
  for (let i = 0; i < nodes.length; i += fields.length) {
    const t = types[nodes[i + type]];
    if (t === 'code' || t === 'object shape' || strings[nodes[i + name]].includes('WasmNativeModule')) continue;
    bytes += nodes[i + size];
  }
  return bytes;
}

/** What the page holds: three's GPU counts, characters, decoder workers, heap plus array buffers. */
async function held(page, cdp) {
  await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
  for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize, backingStorageSize } = await cdp.send('Runtime.getHeapUsage');
  const inPage = await page.evaluate(() => ({
    memory: { ...window.__rigscope.viewer.renderer.info.memory },
    characters: window.__rigscope.app.characters.length,
    staging: window.__rigscope.viewer.uploads.pending,
  }));
  return { ...inPage, workers: page.workers().length, heap: usedSize, buffers: backingStorageSize };
}

describe.skipIf(!existsSync(SAMPLES))('Clear frees what a drop took', () => {
  it(`${CYCLES} drops of every family's samples, each cleared, leave GPU memory, workers and heap where they were`, async () => {
    const page = await openPage(browser, '/?demo=0');
    const cdp = await page.context().newCDPSession(page);
    const payload = Object.values(FAMILY_SAMPLES)
      .flat()
      .map((f) => filePayload(`${SAMPLES}${f}`));
    const clear = () => page.evaluate(() => document.getElementById('clear-button').click());
    const empty = await held(page, cdp);
    expect(empty).toMatchObject({ characters: 0, workers: 0 });

    const added = []; // heap a drop adds while loaded
    let before = empty;
    const cycle = async () => {
      await chooseFiles(page, payload);
      const loaded = await held(page, cdp);
      // Everything is drawn: every family brought a character, and three holds their buffers.
      expect(loaded.characters).toBeGreaterThanOrEqual(4);
      expect(loaded.memory.geometries).toBeGreaterThan(empty.memory.geometries + 3);
      expect(loaded.workers).toBeGreaterThan(0);
      added.push(loaded.heap - before.heap);
      await clear();
      before = await held(page, cdp);
      return before;
    };

    const first = await cycle();
    const firstObjects = await objectHeap(cdp);
    expect(first).toMatchObject({ characters: 0, workers: 0, staging: 0 });
    expect(first.memory.geometries).toBe(empty.memory.geometries);
    // The one texture that stays is three's own lookup table for standard materials (DFG), made
    // at the first draw of one and kept for the page, like compiled shaders.
    expect(first.memory.textures).toBe(empty.memory.textures + 1);
    let last = first;
    for (let i = 1; i < CYCLES; i++) {
      last = await cycle();
      expect(last).toMatchObject({ memory: first.memory, characters: 0, workers: 0, staging: 0 });
    }
    console.log('memory: empty', empty, 'after the first clear', first, `after ${CYCLES}`, last);
    // A drop kept alive would hold its decoded arrays (about 1 MB of array buffers for these
    // samples) and its three.js objects: what a drop adds to the heap. Over the cycles the heap
    // may settle (caches, code) but grows by far less than a drop a cycle.
    const perDrop = Math.min(...added.slice(1));
    const growth = ((await objectHeap(cdp)) - firstObjects) / (CYCLES - 1);
    console.log(
      `memory: a drop adds ${perDrop} bytes of heap; its objects grow ${growth.toFixed(0)} bytes a cycle (the heap ${((last.heap - first.heap) / (CYCLES - 1)).toFixed(0)}, code and all)`,
    );
    expect(last.buffers - first.buffers).toBeLessThan(64 * 1024);
    expect(growth).toBeLessThan(perDrop * 0.25);
    expect(page.errors).toEqual([]);
    await page.close();
  }, 600000);

  // Chromium keeps a closed panel's last layout, and with it rows the panel has since removed
  // (their elements and listeners): a row whose listener closed over its material or the texture
  // records kept a cleared drop's arrays alive (5.9 MB after a 200-file drop of the bench's tree).
  it('after Clear, nothing of the drop stays reachable, even from the rows of a panel opened and closed again', async () => {
    const page = await openPage(browser, '/?demo=0');
    const cdp = await page.context().newCDPSession(page);
    const files = [...Object.values(FAMILY_SAMPLES).flat(), 'vertex3d/assimp-mar_rifle/m_rifl.bmp', 'psk/Slurp_Monster_Axe_LOD0.psk'];
    await chooseFiles(
      page,
      files.map((f) => filePayload(`${SAMPLES}${f}`)),
    );
    // The Materials panel laid out with its rows, a texture list filled (focus), then closed.
    const panel = page.locator('details', { has: page.locator('#materials') });
    await panel.locator('summary').click();
    const select = page.locator('#materials select').first();
    await select.focus();
    expect(await select.locator('option').count()).toBeGreaterThan(1);
    await page.locator('#materials .texture-button').first().waitFor();
    await panel.locator('summary').click();
    expect(await panel.evaluate((d) => d.open)).toBe(false);
    // A morph slider moves its target on its mesh (the list's one listener finds it).
    await page.locator('#morphs input[aria-label="Morph axe"]').fill('0.5');
    const axe = await page.evaluate(() => {
      const mesh = window.__rigscope.app.characters.flatMap((c) => c.meshes).find((m) => m.morphTargetDictionary?.axe !== undefined);
      return mesh.morphTargetInfluences[mesh.morphTargetDictionary.axe];
    });
    expect(axe).toBe(0.5);

    // Weak references to what the drop decoded and built: its models, animations, texture
    // records, characters and three.js materials.
    const made = await page.evaluate(() => {
      const { app } = window.__rigscope;
      const things = [
        ...app.decoded.models,
        ...app.decoded.animations,
        ...app.decoded.textures,
        ...app.characters,
        ...app.characters.flatMap((c) => c.materials),
      ];
      window.__dropRefs = things.map((t) => new WeakRef(t));
      return { things: things.length, textures: app.decoded.textures.length, materials: app.characters.flatMap((c) => c.materials).length };
    });
    expect(made.textures).toBeGreaterThan(0);
    expect(made.materials).toBeGreaterThan(0);
    await page.evaluate(() => document.getElementById('clear-button').click());
    await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
    for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
    const alive = await page.evaluate(() => window.__dropRefs.filter((r) => r.deref() !== undefined).length);
    expect({ things: made.things, alive }).toEqual({ things: made.things, alive: 0 });
    expect(page.errors).toEqual([]);
    await page.close();
  }, 120000);

  // A texture dictionary of which the drop uses nothing keeps no pixels (the bench's 2,000 files
  // held 53 MB of them); they come back from the file for the texture viewer and assignment by hand.
  it('lets go of the pixels of a texture file no material uses, and decodes them again when asked', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${FIXTURES}two_bone.psk`), filePayload(`${FIXTURES}texture_shapes.psg`)]);
    const records = () =>
      page.evaluate(() =>
        window.__rigscope.app.decoded.textures.map((r) => ({ name: r.name, pixels: !!r.decoded?.mips.length, drawn: !!r.texture })),
      );
    const before = await records();
    expect(before.length).toBeGreaterThan(1);
    expect(before.every((r) => !r.pixels && !r.drawn)).toBe(true);

    // The texture viewer, from the Files panel: the picture and its facts, no error.
    await page.evaluate(() => (document.getElementById('files-report').closest('details').open = true));
    await page.locator('#files-report .texture-button').first().click();
    await page.waitForFunction(() => {
      const d = document.querySelector('dialog.texview');
      return d?.open && d.querySelector('.texview-message').textContent !== 'Decoding…';
    });
    const shown = await page.evaluate(() => {
      const d = document.querySelector('dialog.texview');
      return {
        title: d.querySelector('h2').textContent,
        facts: d.querySelector('.texview-facts').textContent,
        message: d.querySelector('.texview-message').textContent,
      };
    });
    expect(shown).toMatchObject({ title: before[0].name, message: '' });
    expect(shown.facts).toMatch(/^texture_shapes\.psg · \d+ × \d+ · /);
    await page.click('dialog.texview .texview-close');
    expect((await records()).every((r) => r.pixels)).toBe(true); // the file's textures come back together

    // Assignment by hand of a texture whose pixels were let go (a new load lets them go again).
    await chooseFiles(page, [filePayload(`${FIXTURES}two_bone.psa`)]);
    expect((await records()).some((r) => r.pixels)).toBe(false);
    await page.evaluate(() => (document.getElementById('materials').closest('details').open = true));
    const select = page.locator('#materials select').first();
    await select.focus();
    await select.selectOption({ label: before[0].name });
    // A texture of the file, not the white texel an untextured material draws.
    await page.waitForFunction(() => {
      const { map } = window.__rigscope.app.characters[0].materials[0];
      return !!map && !map.userData.untextured;
    });
    const after = await records();
    expect(after[0]).toEqual({ name: before[0].name, pixels: true, drawn: true });
    expect(page.errors).toEqual([]);
    await page.close();
  }, 120000);
});
