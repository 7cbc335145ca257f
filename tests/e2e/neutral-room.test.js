// <rigscope-viewer>'s neutral room comes prefiltered with the element (scripts/neutral-room.mjs
// keeps three's RoomEnvironment as its PMREMGenerator prefilters it): a page prefilters nothing,
// where PMREMGenerator's 256-pixel cube faces and 256 GGX samples took 1.7 s of every page
// without a GPU. The levels kept are still what the installed three.js makes.
import { describe, expect, it } from 'vitest';
import { inflateSync } from 'fflate';
import { DataUtils, REVISION } from 'three';
import { elementHostPage, fileBrowser, samplesSrc, until } from './browser.js';
import { litSpheres, pmremLevels, servePmremPage } from '../../scripts/neutral-room-page.mjs';
import { NEUTRAL_ROOM } from '../../web/src/element/neutral-room.js';
import { KEPT_LEVELS, neutralRoomLevels } from '../../web/src/element/neutral-room-data.js';

const root = new URL('../../', import.meta.url).pathname;

const browser = fileBrowser();

// The element's page for the last two tests, opened by the first of them that runs: the room is
// made once in it, then lost with the context and made again.
let hostPage = null;
const elementPage = async () => (hostPage ??= await elementHostPage(browser, 'neutral-room'));

describe('the neutral room', () => {
  it('is what the installed three.js prefilters, level by level, to RGBE precision', async () => {
    expect(NEUTRAL_ROOM.three, 'made with another three.js: run node scripts/neutral-room.mjs').toBe(REVISION);
    const { url, close } = await servePmremPage(root);
    try {
      const page = await browser.newPage();
      await page.goto(url);
      const made = await pmremLevels(page, KEPT_LEVELS);
      const kept = neutralRoomLevels(NEUTRAL_ROOM, inflateSync, DataUtils.toHalfFloat);
      expect([made.size, made.levels]).toEqual([NEUTRAL_ROOM.size, NEUTRAL_ROOM.levels]);
      let worst = 0;
      for (const level of KEPT_LEVELS)
        for (let f = 0; f < 6; f++) {
          const want = made.faces[level][f];
          const got = kept[level][f];
          expect(got.length).toBe(want.length);
          for (let i = 0; i < want.length; i += 4) {
            const brightest = Math.max(want[i], want[i + 1], want[i + 2]);
            for (let c = 0; c < 3; c++)
              worst = Math.max(worst, Math.abs(DataUtils.fromHalfFloat(got[i + c]) - want[i + c]) / Math.max(brightest, 1e-3));
          }
        }
      // RGBE holds a channel to 1/256 of the texel's brightest, half floats to 1/1024.
      expect(worst).toBeLessThan(1 / 128);
      expect(worst).toBeGreaterThan(0); // the comparison saw the texels
      // The sharper levels repeat level 3's texels (nearest): a level-0 texel is its 8x8 block's.
      const side = NEUTRAL_ROOM.size;
      const level3 = kept[3][0];
      expect(kept[0][0].length).toBe(side * side * 4);
      expect(Array.from(kept[0][0].subarray((9 * side + 17) * 4, (9 * side + 17) * 4 + 4))).toEqual(
        Array.from(level3.subarray((1 * (side >> 3) + 2) * 4, (1 * (side >> 3) + 2) * 4 + 4)),
      );
      // Lit by it as the element draws, rough metal looks as lit by the room made in the page (to
      // 2 colour levels: the levels it samples are kept). Smooth metal (roughness 0.2; the models'
      // own materials are 0.75) shows level 3 in place of the sharper ones: the room blurred, and
      // 9 % brighter on the whole sphere.
      const spheres = await litSpheres(page, [0.75, 0.2]);
      const compare = ([a, b]) => {
        let worst = 0;
        let sumA = 0;
        let sumB = 0;
        for (let i = 0; i < a.length; i += 4)
          for (let c = 0; c < 3; c++) {
            worst = Math.max(worst, Math.abs(a[i + c] - b[i + c]));
            sumA += a[i + c];
            sumB += b[i + c];
          }
        return { worst, brightness: sumB / sumA };
      };
      const rough = compare(spheres[0.75]);
      expect(rough.worst).toBeLessThanOrEqual(2);
      const smooth = compare(spheres[0.2]);
      expect(smooth.brightness).toBeGreaterThan(1);
      expect(smooth.brightness).toBeLessThan(1.15);
      console.log('neutral room: rough metal', rough, 'smooth metal', smooth);
    } finally {
      close();
    }
  });

  it('a page makes it without drawing: uploaded as it comes, one cube of six levels', async () => {
    const page = await elementPage();
    const made = await page.evaluate(() => {
      const shared = customElements.get('rigscope-viewer').renderer;
      const three = shared.renderer;
      let targets = 0;
      const setRenderTarget = three.setRenderTarget.bind(three);
      three.setRenderTarget = (target, ...rest) => {
        if (target) targets++;
        return setRenderTarget(target, ...rest);
      };
      const room = shared.neutralEnvironment;
      return {
        targets,
        pmrem: room.isPMREMTexture && room.isCubeTexture,
        size: room.image[0].width,
        levels: room.image.map((face) => face.mipmaps.length),
        textures: three.info.memory.textures,
        again: shared.neutralEnvironment === room,
      };
    });
    expect(made).toEqual({ targets: 0, pmrem: true, size: 256, levels: [6, 6, 6, 6, 6, 6], textures: 1, again: true });
    expect(page.errors).toEqual([]);
  });

  it('is made again after a lost WebGL context, and the viewer draws lit by it', async () => {
    const page = await elementPage();
    await page.evaluate((src) => {
      const v = document.createElement('rigscope-viewer');
      v.id = 'v';
      v.style.cssText = 'display:block;width:320px;height:240px';
      v.setAttribute('src', src);
      document.getElementById('here').append(v);
    }, samplesSrc('zeroad'));
    await until(page, () => document.getElementById('v').app?.characters.length > 0 && document.getElementById('v').stage.framesDrawn > 0);
    await page.evaluate(() => document.getElementById('v').loaded);
    const lit = () => page.evaluate(() => document.getElementById('v').stage.countForegroundPixels().count);
    const before = await lit();
    await page.evaluate(() => {
      const shared = customElements.get('rigscope-viewer').renderer;
      window.__room = shared.neutralEnvironment;
      window.__lose = shared.renderer.getContext().getExtension('WEBGL_lose_context');
      window.__lose.loseContext();
    });
    await until(page, () => customElements.get('rigscope-viewer').renderer.stats.lost === 1);
    await page.evaluate(() => window.__lose.restoreContext());
    await until(page, () => {
      const shared = customElements.get('rigscope-viewer').renderer;
      return shared._neutral !== null && shared._neutral !== window.__room;
    });
    expect(await lit()).toBeGreaterThan(before * 0.9);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
