// Compressed GLBs in the page (#31): one dropped in draws, textured, and plays its clips; beside the
// game files it came from it is a character of its own; *Export GLB* with *Compressed* ticked
// writes a valid quantized, meshopt-compressed GLB with WebP textures (the browser's encoder).
import { describe, expect, inject, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validateBytes } from 'gltf-validator';
import {
  chooseFiles,
  FLAG_COLOURS,
  fileBrowser,
  filePayload,
  FIXTURES,
  frameAt,
  frameWithColours,
  maskDifference,
  SAMPLES,
  clickMenuItem,
  openMenuOf,
} from './browser.js';
import { sharedViewerPage } from './shared-page.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const FLAG = ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((n) => FIXTURES + n);

/** `rigscope convert --compress` of the files, as a file payload named `name`; made once per name. */
function compressed(files, name) {
  const key = [name, ...files].join('\n');
  if (!made.has(key)) made.set(key, compress(files, name));
  return made.get(key);
}
const made = new Map();

function compress(files, name) {
  const out = join(mkdtempSync(join(tmpdir(), 'rigscope-e2e-compressed-')), name);
  const run = spawnSync(process.execPath, [CLI, 'convert', ...files, '-o', out, '--compress'], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return filePayload(out);
}

const glbJson = (bytes) =>
  JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true))));

const browser = fileBrowser();
// The drops into the page's empty view share one page, emptied by Clear between them.
const viewerPage = sharedViewerPage(browser);

describe('compressed GLBs in the viewer', () => {
  it('a UE1 flag compressed draws textured and plays Wave', async () => {
    const page = await viewerPage();
    await chooseFiles(page, [compressed(FLAG, 'flag.glb')]);
    expect(await page.evaluate(() => window.__rigscope.app.characters.map((c) => c.models[0].family))).toEqual(['gltf']);
    expect(await page.evaluate(() => window.__rigscope.clipNames())).toEqual(['Still', 'Wave']);
    await page.locator('#clip-list li', { hasText: 'Wave' }).click();
    const a = await frameWithColours(page, 0, FLAG_COLOURS);
    expect(a.count).toBeGreaterThan(2000);
    // The WebP texture decoded: the PCX's red and blue halves both show.
    expect(a.red).toBeGreaterThan(75);
    expect(a.blue).toBeGreaterThan(75);
    const b = await frameAt(page, 4 / 12);
    expect(maskDifference(a, b)).toBeGreaterThan(40);
    expect(page.errors).toEqual([]);
  });

  it('a skinned GLB beside its game files is a character of its own, and its clip moves it', async () => {
    const page = await viewerPage();
    const game = [`${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`];
    await chooseFiles(page, [...game.map((f) => filePayload(f)), compressed(game, 'two_bone_compressed.glb')]);
    const characters = await page.evaluate(() =>
      window.__rigscope.app.characters.map((c) => ({ family: c.models[0].family, clips: c.clips.map((k) => k.name) })),
    );
    expect(characters).toHaveLength(2);
    expect(characters.map((c) => c.family).sort()).toEqual(['gltf', 'unreal']);
    expect(characters.every((c) => c.clips.includes('Bend'))).toBe(true);
    const moved = await page.evaluate(() => {
      const rs = window.__rigscope;
      const c = rs.app.characters.find((k) => k.models[0].family === 'gltf');
      const mesh = c.meshes[0];
      const at = (t) => {
        c.mixer.stopAllAction();
        const clip = c.clips.find((k) => k.name === 'Bend');
        c.mixer.clipAction(clip.build(clip.loop)).play();
        c.mixer.setTime(t);
        c.update();
        c.root.updateMatrixWorld(true);
        const v = mesh.getVertexPosition(mesh.geometry.attributes.position.count - 1, mesh.position.clone());
        return [v.x, v.y, v.z];
      };
      return [at(0), at(0.15)];
    });
    expect(Math.hypot(...moved[0].map((v, i) => v - moved[1][i]))).toBeGreaterThan(0.01);
    expect(page.errors).toEqual([]);
  });

  it('a GLB of several characters opens as several, laid out side by side, each playing its own clip', async () => {
    const page = await viewerPage();
    const files = [`${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`, `${FIXTURES}arm.pmd`, `${FIXTURES}arm_wave.psa`, ...FLAG];
    await chooseFiles(page, [compressed(files, 'three.glb')]);
    const characters = await page.evaluate(() =>
      window.__rigscope.app.characters.map((c) => ({
        name: c.name,
        family: c.models[0].family,
        clips: c.clips.map((k) => k.name),
        at: c.root.position.toArray(),
      })),
    );
    // One character per root of the GLB, named as the game files were.
    expect(characters.map((c) => c.name).sort()).toEqual(['arm.pmd', 'flag_d.3d', 'two_bone.psk']);
    expect(characters.every((c) => c.family === 'gltf')).toBe(true);
    expect(characters.find((c) => c.name === 'two_bone.psk').clips).toEqual(['Bend']);
    expect(characters.find((c) => c.name === 'arm.pmd').clips).toEqual(['arm_wave']);
    expect(characters.find((c) => c.name === 'flag_d.3d').clips).toEqual(['Still', 'Wave']);
    // Laid out as game files are: each at a place of its own.
    expect(new Set(characters.map((c) => c.at.map((x) => x.toFixed(3)).join())).size).toBe(3);
    expect(page.errors).toEqual([]);
  });

  it('Export GLB with Compressed ticked writes a valid meshopt GLB with WebP textures', async () => {
    const page = await viewerPage();
    // The UE1 marine's skin is large enough for WebP to beat PNG (the flag's tiny PCX is not: the
    // smaller one goes in).
    const marine = `${SAMPLES}vertex3d/assimp-mar_rifle`;
    const files = existsSync(marine) ? readdirSync(marine).map((n) => `${marine}/${n}`) : FLAG;
    await chooseFiles(
      page,
      files.map((f) => filePayload(f)),
    );
    // Compressed is a check box in the Export menu: ticking it leaves the menu open.
    await openMenuOf(page, 'export-compressed');
    await page.check('#export-compressed');
    expect(await page.getAttribute('#export-menu', 'aria-expanded')).toBe('true');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), clickMenuItem(page, 'export-button')]);
    const bytes = new Uint8Array(readFileSync(await download.path()));
    const report = await validateBytes(bytes);
    expect(report.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
    const json = glbJson(bytes);
    expect(json.extensionsUsed).toEqual(expect.arrayContaining(['KHR_mesh_quantization', 'EXT_meshopt_compression']));
    // KTX2 is not the page's (its encoder compiles code at run time, which the CSP refuses): it says so.
    await expect.poll(() => page.textContent('#status')).toContain('KTX2 textures: command line only');
    expect(await page.textContent('label:has(#export-compressed)')).toContain('Compressed (WebP)');
    if (files !== FLAG) {
      expect(json.extensionsUsed).toContain('EXT_texture_webp');
      expect(json.images.every((i) => i.mimeType === 'image/webp')).toBe(true);
    }
    expect(page.errors).toEqual([]);
    // The page stays open for the last test: it plays nothing while the pages between load.
    await page.evaluate(() => window.__rigscope.pause());
  });

  it('rigscope page --compress carries one compressed GLB that opens from disk, offline, and plays', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'rigscope-e2e-page-')), 'flag.html');
    const run = spawnSync(process.execPath, [CLI, 'page', ...FLAG, '-o', path, '--compress', '--clip', 'Wave'], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('1 file(s)');
    const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.fallback() : route.abort()));
    await page.goto(pathToFileURL(path).href);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
    const at = (t) =>
      page.evaluate(async (time) => {
        const { element, viewer } = window.__rigscope;
        element.pause();
        element.currentTime = time;
        for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(r));
        const { count } = viewer.countForegroundPixels();
        return { count, clip: element.currentClip, picture: [...viewer.context2d.getImageData(0, 0, viewer.width, viewer.height).data] };
      }, t);
    const [a, b] = [await at(0), await at(4 / 12)];
    expect(a.clip).toBe('Wave');
    expect(a.count).toBeGreaterThan(500);
    let changed = 0;
    for (let i = 0; i < a.picture.length; i += 4)
      if (Math.abs(a.picture[i] - b.picture[i]) + Math.abs(a.picture[i + 1] - b.picture[i + 1]) > 24) changed++;
    expect(changed).toBeGreaterThan(40);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('<rigscope-viewer> (the embed page) opens a compressed GLB by URL, with its clips', async () => {
    const glb = compressed(FLAG, 'flag.glb').buffer;
    const url = `${inject('baseUrl')}/compressed/flag.glb`;
    const page = await browser.newPage({ viewport: { width: 400, height: 300 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'model/gltf-binary', body: glb }));
    await page.goto(`${inject('baseUrl')}/embed.html?file=${encodeURIComponent(url)}&clip=Wave&autoplay=0`);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
    const state = await page.evaluate(async () => {
      const el = document.querySelector('rigscope-viewer');
      await el.loaded;
      return { clips: el.clips.map((c) => c.name), clip: el.currentClip, messages: el.messages };
    });
    expect(state.clips).toEqual(['Still', 'Wave']);
    expect(state.clip).toBe('Wave');
    expect(errors).toEqual([]);
    await page.close();
  });
});

/** The box diagonal of points. */
const diagonal = (points) =>
  Math.hypot(...[0, 1, 2].map((k) => Math.max(...points.map((p) => p[k])) - Math.min(...points.map((p) => p[k]))));

describe('a compressed UE1 mesh of many frames in the viewer', () => {
  it('1,498 frames (frames kept, clips sparse, lattice positions) pose as its game files do at sampled frames', async () => {
    const { writeUe1Wave } = await import('../unit/helpers.js');
    const game = writeUe1Wave(mkdtempSync(join(tmpdir(), 'rigscope-e2e-wave-')), 20, 1498);
    const page = await viewerPage();
    await chooseFiles(page, [...game.map((f) => filePayload(f)), compressed(game, 'wave.glb')]);
    const poses = await page.evaluate(() => {
      const { app } = window.__rigscope;
      /** The mesh's vertices at `time` of the character's one clip, in its root's space. */
      const at = (c, time) => {
        c.mixer.stopAllAction();
        const clip = c.clips[0];
        c.mixer.clipAction(clip.build(clip.loop)).play();
        c.mixer.setTime(time);
        c.update();
        c.root.updateMatrixWorld(true);
        const mesh = c.meshes[0];
        const toRoot = c.root.matrixWorld.clone().invert().multiply(mesh.matrixWorld);
        const v = mesh.position.clone();
        return Array.from({ length: mesh.geometry.attributes.position.count }, (_, i) =>
          mesh.getVertexPosition(i, v).applyMatrix4(toRoot).toArray(),
        );
      };
      return app.characters.map((c) => ({
        family: c.models[0].family,
        clips: c.clips.map((k) => k.name),
        frames: [0, 1, 748, 1497].map((f) => at(c, f / 30)),
      }));
    });
    expect(poses.map((p) => p.family).sort()).toEqual(['gltf', 'ue1']);
    const [glb, files] = poses[0].family === 'gltf' ? poses : [poses[1], poses[0]];
    expect(glb.clips).toEqual(files.clips);
    for (let k = 0; k < files.frames.length; k++) {
      // Every vertex of the compressed mesh is where a vertex of the game files' mesh is (the order differs).
      let worst = 0;
      for (const p of glb.frames[k])
        worst = Math.max(worst, Math.min(...files.frames[k].map((q) => Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]))));
      // float32 rounding of the lattice's integers times its unit, on a mesh some 1,300 units across.
      expect(worst / diagonal(files.frames[k])).toBeLessThan(1e-5);
    }
    expect(page.errors).toEqual([]);
  }, 180_000);
});
