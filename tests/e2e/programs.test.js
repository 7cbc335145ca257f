// A folder draws with as few shader programs as its looks need. Software GL (SwiftShader, no
// KHR_parallel_shader_compile) links each program and prepares its first draw one at a time, so
// every program a folder needs beyond its largest model's is time the folder is not in place
// (issue #31). An untextured material draws the white texel and so shares its textured kind's
// program; a two-sided translucent or modulated material draws both sides in one pass; opaque
// materials share one program whatever their sides and alpha test (issue #41).
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chooseFiles, fileBrowser, openPage, SAMPLES, VERTEX3D_KINDS, VERTEX3D_PROGRAMS, clickMenuItem } from './browser.js';

/** Every file under `dir`, each folder's entries in name order, depth first. */
const walk = (dir) =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));

const HAVE_SAMPLES = existsSync(SAMPLES);

const browser = fileBrowser();

/** A GLB's JSON chunk. */
const glbJson = (glb) => JSON.parse(glb.toString('utf8', 20, 20 + glb.readUInt32LE(12)));

/** The width and height of each image of a GLB (PNG pictures in its binary chunk). */
function imageSizes(glb) {
  const length = glb.readUInt32LE(12);
  const json = glbJson(glb);
  const bin = 20 + length + 8;
  return (json.images ?? []).map(({ bufferView }) => {
    const png = bin + (json.bufferViews[bufferView].byteOffset ?? 0);
    return [glb.readUInt32BE(png + 16), glb.readUInt32BE(png + 20)];
  });
}

describe('shader programs of a folder', () => {
  it.skipIf(!HAVE_SAMPLES)(
    'samples/vertex3d: one program per look, textured or not, one-sided or two, masked or not, the same picture and GLB',
    async () => {
      const page = await openPage(browser, '/?demo=0', { viewport: { width: 960, height: 640 } });
      // Programs made inside a frame: each holds that frame until the GPU process links it (50-90 ms
      // under SwiftShader). Every program is linked before its first frame (viewer.compileFor).
      await page.evaluate(() => {
        const { viewer } = window.__rigscope;
        window.__inFrame = [];
        // Every program linked during the drop: one linked early and changed before its first draw is wasted work.
        window.__links = 0;
        const gl = viewer.renderer.getContext();
        const link = gl.linkProgram.bind(gl);
        gl.linkProgram = (p) => {
          window.__links++;
          return link(p);
        };
        const render = viewer.render.bind(viewer);
        viewer.render = () => {
          const before = new Set(viewer.renderer.info.programs);
          render();
          for (const p of viewer.renderer.info.programs) if (!before.has(p)) window.__inFrame.push(p.name);
        };
      });
      // The files in the order of a walk of the folder: the first look (its first 32 files) gives
      // FlatSheet a texture that the whole folder does not. Taken away, it was drawn without a map
      // (another program, made inside a frame) until the next compile gave it the white texel.
      await chooseFiles(page, walk(`${SAMPLES}vertex3d`));
      expect(await page.evaluate(() => window.__inFrame)).toEqual([]);
      const drawn = await page.evaluate(() => {
        const { app, viewer } = window.__rigscope;
        const materials = [...new Set(app.characters.flatMap((c) => [...c.tree()].flatMap((x) => x.materials)).filter((m) => m.visible))];
        const kinds = new Set(materials.map((m) => [m.side, m.alphaTest > 0, m.transparent, m.flatShading].join('/')));
        // Every program a material was drawn with: each pass of a two-pass material has one of its own.
        const programs = new Set(materials.flatMap((m) => [...(viewer.renderer.properties.get(m).programs?.values() ?? [])]));
        const untextured = materials.filter((m) => m.map?.userData.untextured).length;
        const textures = new Set(materials.filter((m) => m.map && !m.map.userData.untextured).map((m) => m.map.source)).size;
        // What the GLB says of each material: its own sides and alpha test, not the shared look's.
        const exported = app.characters.flatMap((c) => [...c.tree()].flatMap((x) => x.materials));
        const twoSided = exported.filter((m) => m.side === 2).length;
        const masked = exported.filter((m) => m.alphaTest > 0).length;
        return { kinds: [...kinds].sort(), programs: programs.size, materials: materials.length, untextured, textures, twoSided, masked };
      });
      expect(drawn.kinds).toEqual(VERTEX3D_KINDS);
      expect(drawn.programs).toBe(VERTEX3D_PROGRAMS);
      // No program was linked beyond those it draws with (the links sent before the textures came
      // were the programs the textured materials draw with).
      expect(await page.evaluate(() => window.__links)).toBe(VERTEX3D_PROGRAMS);
      // Some of its meshes have no texture in the folder: they share the textured programs.
      expect(drawn.untextured).toBeGreaterThan(0);
      expect(drawn.untextured).toBeLessThan(drawn.materials);

      // The GLB holds the folder's pictures, never the white texel.
      const [download] = await Promise.all([page.waitForEvent('download'), clickMenuItem(page, 'export-button')]);
      const glb = readFileSync(await download.path());
      const sizes = imageSizes(glb);
      expect(sizes.filter(([w, h]) => w === 1 && h === 1)).toEqual([]);
      expect(sizes.length).toBe(drawn.textures);
      // Each material's own sides and alpha test: the shared look is the viewer's drawing alone.
      const { materials } = glbJson(glb);
      expect(drawn.twoSided).toBeGreaterThan(0);
      expect(drawn.masked).toBeGreaterThan(0);
      expect(materials.filter((m) => m.doubleSided).length).toBe(drawn.twoSided);
      expect(materials.filter((m) => m.alphaMode === 'MASK').length).toBe(drawn.masked);

      // The same pictures as with each material's own programs: copies (with no shared look: their
      // own side and alpha test in their programs), no map on the untextured ones, both sides'
      // passes apart. The folder from the front and from behind (one-sided faces culled), and each
      // character with a masked texture close up (its cut-outs).
      const changed = await page.evaluate(() => {
        const { app, viewer, pause } = window.__rigscope;
        viewer.grid.visible = false;
        pause();
        app.setTime(0);
        const masked = app.characters.filter((c) =>
          [...c.tree()].some((x) => x.materials.some((m) => m.alphaTest > 0 && !m.map?.userData.untextured)),
        );
        const views = [app.characters, ...masked.map((c) => [c])].flatMap((shown) => [
          [shown, [0.45, 0.3, 1]],
          [shown, [-0.45, 0.3, -1]],
        ]);
        const toward = viewer.camera.position.clone();
        const frames = () =>
          views.map(([shown, direction]) => {
            viewer.frameAll(viewer.visibleBounds(shown), toward.set(...direction).normalize());
            return viewer.countForegroundPixels();
          });
        const shared = frames();
        const own = new Map();
        const copy = (m) => {
          if (!own.has(m)) {
            const userData = m.userData; // links to the decoded files: not copied (Material.copy goes through JSON)
            m.userData = {};
            const c = m.clone();
            m.userData = userData;
            if (c.map?.userData.untextured) c.map = null;
            c.forceSinglePass = false;
            own.set(m, c);
          }
          return own.get(m);
        };
        for (const c of app.characters)
          c.root.traverse((o) => {
            if (o.material) o.material = Array.isArray(o.material) ? o.material.map(copy) : copy(o.material);
          });
        const apart = frames();
        return shared.map(({ pixels, count }, v) => {
          let differ = 0;
          for (let i = 0; i < pixels.length; i += 4)
            if (Math.max(...[0, 1, 2].map((k) => Math.abs(pixels[i + k] - apart[v].pixels[i + k]))) > 2) differ++;
          return { drawn: count, differ };
        });
      });
      // The folder, front and back; the hamburger's salad, the lavender and the rifle, each front and back.
      expect(changed.length).toBe(8);
      for (const view of changed) expect(view.drawn).toBeGreaterThan(1000);
      expect(changed.map((view) => view.differ)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
      expect(page.errors).toEqual([]);
      await page.close();
    },
  );
});
