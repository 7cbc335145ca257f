// <rigscope-viewer>'s looks: a neutral room lights the models by default (environment="none" turns
// it off, an image URL replaces it), exposure brightens or darkens, and a soft contact shadow lies
// under each character. The shadow is made when the pose changes, never for idle frames: paused
// viewers still draw nothing, through one WebGL context. The embed page passes environment= and
// exposure= on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { animationFrames as frames, FAMILY_SAMPLES, fileBrowser, png, samplesSrc as srcOf, until } from './browser.js';

const FAMILIES = FAMILY_SAMPLES;
const IDS = Object.keys(FAMILIES);

const browser = fileBrowser(['--disable-features=LocalNetworkAccessChecks']);

/** One element per family, 360 × 300, each loaded and drawn with its shadow. */
async function elementsPage() {
  const base = inject('baseUrl');
  const viewers = IDS.map((f) => `<rigscope-viewer id="${f}" style="width:360px;height:300px" src="${srcOf(f)}"></rigscope-viewer>`);
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Looks</title>
<script type="module" src="${base}/rigscope-viewer.js"></script></head><body>${viewers.join('\n')}</body></html>`;
  const page = await browser.newPage({ viewport: { width: 1500, height: 700 } });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.route(`${base}/looks.html`, (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await page.goto(`${base}/looks.html`);
  await until(page, loadedWithShadow, IDS);
  return page;
}

// One page of four viewers serves the environment and exposure tests and then the contact
// shadow's (its looks set back, the PSG viewer given the skinned box): four elements loaded once.
let looks = null;
const looksPage = async () => (looks ??= await elementsPage());
afterAll(async () => {
  await looks?.close();
});

/** Whether each of `ids` is loaded (its status empty) and drawn with its shadow made. */
const loadedWithShadow = (ids) =>
  ids.every((id) => {
    const v = document.getElementById(id);
    return v?.app?.characters.length > 0 && v.stage.shadow?.renders > 0 && v.shadowRoot.querySelector('.status').textContent === '';
  });

/**
 * Draws every viewer now (no pose change) and keeps its picture in the page as `key`; returns the
 * mean RGB over the model (the pixels that differ from the background) and their count.
 */
const modelColours = (page, key) =>
  page.evaluate(
    ([ids, name]) => {
      const out = {};
      const kept = ((window.__pictures ??= {})[name] = {});
      for (const id of ids) {
        const { stage } = document.getElementById(id);
        const { w, h } = stage.countForegroundPixels();
        const { data } = stage.context2d.getImageData(0, 0, w, h);
        const bg = stage.background.clone().convertLinearToSRGB();
        const b = [bg.r, bg.g, bg.b].map((v) => Math.round(v * 255));
        const sum = [0, 0, 0];
        const mask = new Uint8Array(w * h);
        let n = 0;
        for (let i = 0; i < w * h; i++) {
          const o = i * 4;
          if (Math.abs(data[o] - b[0]) + Math.abs(data[o + 1] - b[1]) + Math.abs(data[o + 2] - b[2]) <= 24) continue;
          mask[i] = 1;
          n++;
          for (let k = 0; k < 3; k++) sum[k] += data[o + k];
        }
        kept[id] = { data, mask };
        out[id] = { mean: sum.map((v) => v / Math.max(n, 1)), n };
      }
      return out;
    },
    [IDS, key],
  );

/** Per viewer: mean of |a − b| over RGB on the pixels that are model in both kept pictures, and their count. */
const differenceInside = (page, a, b) =>
  page.evaluate(
    ([ids, x, y]) => {
      const out = {};
      for (const id of ids) {
        const [p, q] = [window.__pictures[x][id], window.__pictures[y][id]];
        let d = 0,
          n = 0;
        for (let i = 0; i < p.mask.length; i++) {
          if (!p.mask[i] || !q.mask[i]) continue;
          n++;
          for (let k = 0; k < 3; k++) d += Math.abs(p.data[i * 4 + k] - q.data[i * 4 + k]);
        }
        out[id] = { mean: d / 3 / Math.max(n, 1), n };
      }
      return out;
    },
    [IDS, a, b],
  );

describe('environment and exposure', () => {
  let page;
  beforeAll(async () => {
    page = await looksPage();
    // The model's pixels alone: no shadow on the ground around them.
    await page.evaluate(() => document.querySelectorAll('rigscope-viewer').forEach((v) => v.setAttribute('shadow', 'false')));
  });

  it('metal with normal maps reflects the neutral room; environment="none" and an image change it', async () => {
    // The samples have neither metal nor normal maps: every material becomes polished metal with
    // a bumpy normal map (a canvas; three's Texture class taken from a texture the page has).
    await page.evaluate((ids) => {
      const size = 32;
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = size;
      const g = canvas.getContext('2d');
      const bumps = g.createImageData(size, size);
      for (let y = 0; y < size; y++)
        for (let x = 0; x < size; x++)
          bumps.data.set([128 + 90 * Math.sin(x / 1.5), 128 + 90 * Math.cos(y / 1.5), 200, 255], (y * size + x) * 4);
      g.putImageData(bumps, 0, 0);
      for (const id of ids) {
        const { stage } = document.getElementById(id);
        const Texture = Object.getPrototypeOf(stage.shadow.target.texture).constructor;
        for (const c of stage.characters)
          for (const m of c.materials) {
            if (!m.isMeshStandardMaterial) continue;
            const normalMap = new Texture(canvas);
            normalMap.needsUpdate = true;
            Object.assign(m, { metalness: 1, roughness: 0.25, normalMap, map: null });
            m.color.setRGB(1, 1, 1);
            m.needsUpdate = true;
          }
      }
    }, IDS);
    const neutral = await modelColours(page, 'neutral');
    await page.evaluate((ids) => ids.forEach((id) => document.getElementById(id).setAttribute('environment', 'none')), IDS);
    await frames(page, 2);
    const none = await modelColours(page, 'none');
    const differences = await differenceInside(page, 'neutral', 'none');
    for (const id of IDS) {
      const diff = differences[id];
      expect(diff.n, id).toBeGreaterThan(300);
      // Metal shows what it reflects: the room lights it; without it only the lights' highlights do.
      expect(diff.mean, id).toBeGreaterThan(12);
      const brightness = (c) => c.mean.reduce((a, b) => a + b, 0) / 3;
      expect(brightness(neutral[id]), id).toBeGreaterThan(brightness(none[id]) + 10);
    }

    // An equirectangular image lights them instead: a red sky makes red metal.
    const red = png(16, 8, () => [255, 40, 30, 255]);
    await page.route(`${inject('baseUrl')}/red-sky.png`, (route) => route.fulfill({ contentType: 'image/png', body: red }));
    await page.evaluate((ids) => ids.forEach((id) => document.getElementById(id).setAttribute('environment', 'red-sky.png')), IDS);
    await until(page, (ids) => ids.every((id) => document.getElementById(id).stage._environmentMap), IDS);
    const sky = await modelColours(page, 'sky');
    for (const id of IDS) {
      const [r, g, b] = sky[id].mean;
      expect(r, id).toBeGreaterThan(g + 30);
      expect(r, id).toBeGreaterThan(b + 30);
    }
    expect(page.errors).toEqual([]);
  });

  it('an environment image that cannot be loaded is said, and the neutral room stays', async () => {
    await page.evaluate(() => document.getElementById('psk').setAttribute('environment', 'missing-sky.hdr'));
    await until(page, () => document.getElementById('psk').messages.length > 0);
    const shown = await page.evaluate(() => [document.getElementById('psk').messages, document.getElementById('psk').stage.environment]);
    expect(shown[0]).toEqual([
      { file: null, text: expect.stringMatching(/^environment="missing-sky\.hdr" could not be loaded .*neutral room/) },
    ]);
    expect(shown[1]).toBe('neutral');
  });

  it('exposure brightens and darkens what is shown', async () => {
    const at = async (exposure) => {
      await page.evaluate((x) => document.querySelectorAll('rigscope-viewer').forEach((v) => v.setAttribute('exposure', x)), exposure);
      return modelColours(page, `exposure ${exposure}`);
    };
    const [dark, normal, bright] = [await at('0.4'), await at('1'), await at('2.5')];
    const brightness = (c) => c.mean.reduce((a, b) => a + b, 0) / 3;
    for (const id of IDS) {
      expect(brightness(normal[id]), id).toBeGreaterThan(brightness(dark[id]) + 10);
      expect(brightness(bright[id]), id).toBeGreaterThan(brightness(normal[id]) + 10);
    }
    const note = await page.evaluate(() => {
      const v = document.getElementById('psg');
      v.setAttribute('exposure', 'lots');
      return [v.stage.exposure, v.messages.map((m) => m.text)];
    });
    expect(note).toEqual([1, ['exposure="lots" is not a number of 0 or more: 1 is used']]);
  });
});

describe('contact shadow', () => {
  it('darkens the ground under each family’s character, and is made only when the pose changes', async () => {
    // The PSG sample is one flat quad standing edge-on to the ground: seen from below it has no
    // area, so it casts no shadow. The project's skinned box (its PSG writer's fixture) does.
    const page = await looksPage();
    // The looks of the tests before set back (the room, exposure 1, the shadow shown; their metal
    // is drawn in the shadow's depth pass as any material), and the box in the PSG viewer.
    await page.evaluate(
      (box) => {
        for (const v of document.querySelectorAll('rigscope-viewer'))
          for (const a of ['environment', 'exposure', 'shadow']) v.removeAttribute(a);
        document.getElementById('psg').setAttribute('src', box);
      },
      `${inject('baseUrl')}/fixtures/skinned_box.psg`,
    );
    await until(page, () => document.getElementById('psg').app.characters[0]?.name === 'skinned_box.psg');
    await until(page, loadedWithShadow, IDS);
    // The ground where the character stands, seen without the character: the shadow is what is left.
    const ground = await page.evaluate((ids) => {
      const out = {};
      for (const id of ids) {
        const { stage } = document.getElementById(id);
        stage.countForegroundPixels(); // the shadow of the current pose is made (if it was not yet)
        for (const c of stage.characters) c.root.visible = false;
        const { w, h } = stage.countForegroundPixels();
        const { data } = stage.context2d.getImageData(0, 0, w, h);
        const p = stage.shadow.group.getWorldPosition(stage.shadow.group.position.clone()).project(stage.camera);
        const [x, y] = [Math.round(((p.x + 1) / 2) * w), Math.round(((1 - p.y) / 2) * h)];
        const luminance = (px, py) => {
          let s = 0;
          for (let dy = -2; dy <= 2; dy++)
            for (let dx = -2; dx <= 2; dx++) {
              const o = ((py + dy) * w + px + dx) * 4;
              s += (data[o] + data[o + 1] + data[o + 2]) / 3;
            }
          return s / 25;
        };
        // The darkest 5 x 5 patch within 24 px of the point under the middle of the feet.
        let feet = Infinity;
        for (let dy = -24; dy <= 24; dy += 2) for (let dx = -24; dx <= 24; dx += 2) feet = Math.min(feet, luminance(x + dx, y + dy));
        out[id] = { feet, far: luminance(4, 4), renders: stage.shadow.renders };
        for (const c of stage.characters) c.root.visible = true;
      }
      return out;
    }, IDS);
    for (const id of IDS) {
      expect(ground[id].feet, id).toBeLessThan(ground[id].far - 8);
    }

    // Idle: no frames and no shadow passes, whatever the camera does between.
    const counts = () =>
      page.evaluate((ids) => {
        const V = customElements.get('rigscope-viewer');
        return {
          frames: V.renderer.stats.frames,
          contexts: V.renderer.stats.contexts,
          shadows: ids.map((id) => document.getElementById(id).stage.shadow.renders),
        };
      }, IDS);
    await frames(page, 5);
    const idle = await counts();
    await frames(page, 30);
    expect(await counts()).toEqual(idle);
    expect(idle.contexts).toBe(1);
    // Turning the view draws a frame but does not make the shadow again.
    await page.evaluate(() => document.getElementById('zeroad').stage.orbit(0.4, 0));
    await frames(page, 3);
    const turned = await counts();
    expect(turned.frames).toBe(idle.frames + 1);
    expect(turned.shadows).toEqual(idle.shadows);

    // Playing makes it with every frame; paused again, nothing.
    await page.evaluate(() => document.getElementById('zeroad').play());
    await frames(page, 15);
    await page.evaluate(() => document.getElementById('zeroad').pause());
    const played = await counts();
    expect(played.shadows[1] - turned.shadows[1]).toBeGreaterThan(5);
    expect(played.shadows.filter((_, i) => i !== 1)).toEqual(idle.shadows.filter((_, i) => i !== 1));
    await frames(page, 5);
    const after = await counts();
    await frames(page, 30);
    expect(await counts()).toEqual(after);
    expect(page.errors).toEqual([]);
  });
});

describe('the embed page', () => {
  it('passes environment= and exposure= to its viewer', async () => {
    const base = inject('baseUrl');
    const page = await browser.newPage({ viewport: { width: 640, height: 400 } });
    const files = FAMILIES.zeroad.map((f) => `file=${encodeURIComponent(`${base}/samples/${f}`)}`).join('&');
    await page.goto(`${base}/embed.html?${files}&environment=none&exposure=1.5`);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
    const shown = await page.evaluate(() => {
      const v = document.getElementById('player');
      return [v.getAttribute('environment'), v.getAttribute('exposure'), v.stage.environment, v.stage.exposure, v.messages];
    });
    expect(shown).toEqual(['none', '1.5', 'none', 1.5, []]);
    await page.close();
  });
});

describe('the example page (dist/rigscope-viewer-example.html)', () => {
  it('shows every attribute the element observes, and each of its viewers loads without a problem', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    await page.goto(`${inject('baseUrl')}/rigscope-viewer-example.html`);
    await until(page, () => !!customElements.get('rigscope-viewer'));
    const { shown, observed, count } = await page.evaluate(() => {
      const all = [...document.querySelectorAll('rigscope-viewer')];
      return {
        shown: [...new Set(all.flatMap((v) => v.getAttributeNames()))],
        observed: customElements.get('rigscope-viewer').observedAttributes,
        count: all.length,
      };
    });
    // packed is a scene carried in the page (a packed link's fragment): made by Save page, not written by hand.
    expect(observed.filter((a) => a !== 'packed' && !shown.includes(a))).toEqual([]);
    for (let i = 0; i < count; i++) {
      await page.evaluate((k) => document.querySelectorAll('rigscope-viewer')[k].scrollIntoView(), i);
      await until(
        page,
        (k) => {
          const v = document.querySelectorAll('rigscope-viewer')[k];
          // Loaded: the status is empty once the whole scene is in (a folder draws early while loading).
          return (
            !v.getAttribute('src') ||
            ((v.app.characters.length > 0 || v.messages.length > 0) && !v.shadowRoot.querySelector('.status').textContent)
          );
        },
        i,
      );
    }
    const problems = await page.evaluate(() =>
      [...document.querySelectorAll('rigscope-viewer')].filter((v) => v.messages.length).map((v) => [v.outerHTML, v.messages]),
    );
    expect(problems).toEqual([]);
    // One viewer per family loaded a character: PSK, 0 A.D., UE1 and PSG.
    const families = await page.evaluate(() =>
      [...document.querySelectorAll('rigscope-viewer')].slice(0, 4).map((v) => v.snapshot().characters.map((c) => c.name)),
    );
    expect(families).toEqual([['two_bone.psk'], ['arm.pmd'], [expect.stringMatching(/^flag/)], ['skinned_box.psg']]);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
