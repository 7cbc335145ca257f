// The page's *Export all*: one zip with a GLB per character, the same files `rigscope export`
// writes for the same folders, for every family; Cancel saves nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { unzipSync } from 'fflate';
import { validateBytes } from 'gltf-validator';
import { dropFolder, launch, openPage, SAMPLES, clickMenuItem } from './browser.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const HAVE_SAMPLES = existsSync(SAMPLES);
// One folder per family, flat, as a user drops it.
const FOLDERS = [
  ['psk', 'psk'],
  ['zeroad', 'zeroad'],
  ['assimp-mar_rifle', 'vertex3d/assimp-mar_rifle'],
  ['synthetic', 'psg/synthetic'],
];
const filesOf = (dir) =>
  readdirSync(SAMPLES + dir, { withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => `${SAMPLES}${dir}/${d.name}`)
    .sort();

function filesBelow(dir, base = dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesBelow(join(dir, d.name), base) : [relative(base, join(dir, d.name))]))
    .sort();
}

/** A GLB's JSON chunk, parsed. */
const glbJson = (bytes) =>
  JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true))));

describe.skipIf(!HAVE_SAMPLES)('Export all in the page', () => {
  let browser, page;
  beforeAll(async () => {
    browser = await launch();
    page = await openPage(browser, '/?demo=0', { viewport: { width: 1280, height: 800 } });
    // Nothing here needs frames: the psk folder playing (400k triangles, some 250 ms of CPU a
    // frame in SwiftShader) would hold a core through the next drops and the exports.
    for (const [name, dir] of FOLDERS) {
      await dropFolder(page, name, filesOf(dir));
      await page.evaluate(() => window.__rigscope.pause());
    }
  }, 180000);
  afterAll(async () => {
    await browser?.close();
  });

  it('zips the same GLBs rigscope export writes for the same folders', async () => {
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120000 }), clickMenuItem(page, 'export-all-button')]);
    expect(download.suggestedFilename()).toBe('rigscope-export.zip');
    const zip = unzipSync(new Uint8Array(readFileSync(await download.path())));
    const out = mkdtempSync(join(tmpdir(), 'rigscope-export-all-'));
    const cli = spawnSync(process.execPath, [CLI, 'export', ...FOLDERS.flatMap(([, dir]) => filesOf(dir)), '-o', out, '--json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    expect(cli.status, cli.stderr).toBeLessThan(2);
    const written = filesBelow(out);
    expect(Object.keys(zip).sort()).toEqual(written);
    expect(written).toEqual(
      expect.arrayContaining([
        'psk/skSpiderLargeMesh.glb',
        'zeroad/skeleton.glb',
        'assimp-mar_rifle/mar_rifle_d.glb',
        'synthetic/skinned_quad_f32.glb',
      ]),
    );
    for (const name of written) {
      const fromPage = zip[name];
      const fromCli = new Uint8Array(readFileSync(join(out, name)));
      expect((await validateBytes(fromPage)).issues.numErrors, name).toBe(0);
      // The same nodes, skins, meshes, clips, accessors, images and materials, and the same size.
      const [a, b] = [glbJson(fromPage), glbJson(fromCli)];
      for (const key of ['nodes', 'skins', 'meshes', 'animations', 'accessors', 'images', 'materials'])
        expect(a[key], `${name} ${key}`).toEqual(b[key]);
      expect(fromPage.length, name).toBe(fromCli.length);
    }
    expect(await page.locator('#export-all-cancel').isHidden()).toBe(true);
  }, 240000);

  it('Cancel saves nothing and leaves the page as it was', async () => {
    let downloads = 0;
    page.on('download', () => downloads++);
    const clip = await page.evaluate(() => window.__rigscope.app.current?.clip?.name);
    // Cancel as soon as it shows, in the click's own task: a click from here waits for the button to
    // stand still, and its count changes with each GLB, so a fast export could end first.
    const shown = await page.evaluate(() => {
      const item = document.getElementById('export-all-button');
      item.click();
      const cancel = document.getElementById('export-all-cancel');
      // While it exports, the item is shown disabled (aria-disabled: still in the menu's arrow order).
      const shown = { cancel: !cancel.hidden, busy: item.getAttribute('aria-disabled') };
      cancel.click();
      return shown;
    });
    expect(shown).toEqual({ cancel: true, busy: 'true' });
    await page.waitForFunction(() => !document.getElementById('export-all-button').hasAttribute('aria-disabled'), null, { timeout: 60000 });
    expect(await page.locator('#status').innerText()).toMatch(/cancelled; nothing was saved/);
    expect(downloads).toBe(0);
    expect(await page.evaluate(() => window.__rigscope.app.current?.clip?.name)).toBe(clip);
  }, 120000);
});
