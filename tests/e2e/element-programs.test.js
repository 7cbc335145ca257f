// A folder in <rigscope-viewer> draws with as few shader programs as its looks need, as on the
// viewer page (programs.test.js): software GL (SwiftShader, no KHR_parallel_shader_compile) links
// each program and prepares its first draw one at a time, so every program beyond one per kind of
// material is time the folder is not in place (issue #31). An untextured material draws the white
// texel and shares its textured kind's program; a two-sided translucent or modulated material
// draws both sides in one pass; opaque materials share one program whatever their sides and alpha
// test (issue #41). The picture is the one the materials give with programs of their own.
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  elementHostPage,
  FAMILY_SAMPLES,
  fileBrowser,
  PBR_LUT_TEXTURES,
  SAMPLES,
  samplesFolderSrc,
  until,
  VERTEX3D_KINDS,
  VERTEX3D_PROGRAMS,
} from './browser.js';

const FOLDER = join(SAMPLES, 'vertex3d');

const browser = fileBrowser(['--disable-features=LocalNetworkAccessChecks']);

/** Whether the viewer with id `v` has loaded (its status empty) and drawn. */
const drawn = () => {
  const v = document.getElementById('v');
  return v.app.characters.length > 0 && v.shadowRoot.querySelector('.status').textContent === '' && v.stage.framesDrawn > 0;
};

/** A page of another site with one <rigscope-viewer> of `src`, loaded and drawn. */
async function elementPage(src) {
  const page = await elementHostPage(browser, 'programs');
  // The neutral room is made once for the page: what the page holds before any element.
  page.empty = await page.evaluate(() => {
    const shared = customElements.get('rigscope-viewer').renderer;
    // Programs made inside a frame: each holds that frame until the GPU process links it (50-90
    // ms under SwiftShader). Every program is linked before its first frame (stage.prepare).
    window.__inFrame = [];
    const draw = shared.draw.bind(shared);
    shared.draw = (stage) => {
      const before = new Set(shared.renderer.info.programs);
      draw(stage);
      for (const p of shared.renderer.info.programs) if (!before.has(p)) window.__inFrame.push(p.name);
    };
    return shared.neutralEnvironment && shared.renderer.info.memory.textures;
  });
  page.empty += PBR_LUT_TEXTURES;
  await page.evaluate((list) => {
    const v = document.createElement('rigscope-viewer');
    v.id = 'v';
    v.style.cssText = 'display:block;width:640px;height:480px';
    v.setAttribute('src', list.join(' '));
    document.getElementById('here').append(v);
  }, src);
  // It loads once on screen.
  await until(page, drawn);
  await page.evaluate(() => document.getElementById('v').loaded);
  return page;
}

describe('shader programs of a folder in <rigscope-viewer>', () => {
  it.skipIf(!existsSync(FOLDER))(
    'samples/vertex3d: one program per look, textured or not, one-sided or two, masked or not, the same picture',
    async () => {
      const page = await elementPage(samplesFolderSrc('vertex3d'));
      const drawn = await page.evaluate(() => {
        const v = document.getElementById('v');
        const { renderer } = customElements.get('rigscope-viewer').renderer;
        const materials = [...new Set(v.app.characters.flatMap((c) => [...c.tree()].flatMap((x) => x.materials)).filter((m) => m.visible))];
        const kinds = new Set(materials.map((m) => [m.side, m.alphaTest > 0, m.transparent, m.flatShading].join('/')));
        // Every program a material was drawn with: each pass of a two-pass material has one of its own.
        const programs = new Set(materials.flatMap((m) => [...(renderer.properties.get(m).programs?.values() ?? [])]));
        const linked = new Set(renderer.info.programs);
        return {
          kinds: [...kinds].sort(),
          programs: programs.size,
          linked: [...programs].every((p) => linked.has(p)),
          materials: materials.length,
          untextured: materials.filter((m) => m.map?.userData.untextured).length,
        };
      });
      expect(drawn.kinds).toEqual(VERTEX3D_KINDS);
      expect(drawn.programs).toBe(VERTEX3D_PROGRAMS);
      expect(drawn.linked).toBe(true);
      expect(await page.evaluate(() => window.__inFrame)).toEqual([]);
      // Some of its meshes have no texture in the folder: they share the textured programs.
      expect(drawn.untextured).toBeGreaterThan(0);
      expect(drawn.untextured).toBeLessThan(drawn.materials);

      // The same picture as with each material's own programs: copies (with no shared look: their
      // own side and alpha test in their programs), no map on the untextured ones, both sides'
      // passes apart.
      const changed = await page.evaluate(() => {
        const v = document.getElementById('v');
        v.pause();
        v.app.setTime(0);
        v.stage.grid.visible = false;
        const [w, h] = [480, 360];
        const shared = v.stage.still(w, h);
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
        for (const c of v.app.characters)
          c.root.traverse((o) => {
            if (o.material) o.material = Array.isArray(o.material) ? o.material.map(copy) : copy(o.material);
          });
        const apart = v.stage.still(w, h);
        const background = v.stage.still(w, h, { background: '#ff00ff' });
        let differ = 0;
        let model = 0;
        for (let i = 0; i < shared.length; i += 4) {
          if (Math.max(...[0, 1, 2].map((k) => Math.abs(shared[i + k] - apart[i + k]))) > 2) differ++;
          if ([0, 1, 2].every((k) => shared[i + k] === background[i + k])) model++;
        }
        return { differ, model };
      });
      // The model covers much of the picture: pixels another background colour leaves as they are.
      expect(changed.model).toBeGreaterThan(1000);
      expect(changed.differ).toBe(0);
      expect(page.errors).toEqual([]);
      await page.close();
    },
  );

  it.skipIf(!existsSync(FOLDER))('the white texel leaves the GPU when the src is replaced and when the element is removed', async () => {
    const page = await elementPage(samplesFolderSrc('vertex3d'));
    /**
     * Whether the texel is on the GPU, how many materials draw it, and the textures three counts,
     * after a frame of what is shown (a character taken out frees every texture it drew, the
     * texel too: those still shown upload it again at their next frame).
     */
    const held = () =>
      page.evaluate(() => {
        if (!window.__v.stage.released) window.__v.stage.countForegroundPixels();
        const { renderer } = customElements.get('rigscope-viewer').renderer;
        const materials = window.__v.app.characters.flatMap((c) => [...c.tree()].flatMap((x) => x.materials));
        return {
          texel: renderer.properties.has(window.__texel),
          untextured: materials.filter((m) => m.map === window.__texel).length,
          textures: renderer.info.memory.textures,
        };
      });
    /** Sets the viewer's src and resolves once it has loaded and drawn that. */
    const load = async (src) => {
      await page.evaluate((list) => {
        window.__v.setAttribute('src', list.join(' '));
        return window.__v.loaded;
      }, src);
      await until(page, drawn);
    };
    await page.evaluate(() => {
      window.__v = document.getElementById('v');
      window.__texel = window.__v.app.characters.flatMap((c) => c.materials).find((m) => m.map?.userData.untextured).map;
    });
    const folder = await held();
    expect(folder.texel).toBe(true);
    expect(folder.untextured).toBeGreaterThan(0);

    // A src whose one mesh has its texture (the rifle with its skin): the folder's textures and the texel go.
    await load([...FAMILY_SAMPLES.ue1, 'vertex3d/assimp-mar_rifle/m_rifl.bmp'].map((f) => `${inject('baseUrl')}/samples/${f}`));
    const rifle = await held();
    expect(rifle).toMatchObject({ texel: false, untextured: 0 });
    expect(rifle.textures).toBeLessThan(folder.textures);

    // The folder again, then the element removed: once torn down, the page holds what it held before it.
    await load(samplesFolderSrc('vertex3d'));
    expect((await held()).texel).toBe(true);
    await page.evaluate(() => window.__v.remove());
    await until(page, () => window.__v.stage.released);
    expect(await held()).toMatchObject({ texel: false, untextured: 0, textures: page.empty });
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
