// A crowd where one character plays: an animation frame brings up to date the matrices of what
// moves (the playing character, a gliding one) and leaves the still ones as they stand; every
// matrix in the view stays what its node's place makes it, frame after frame, through a clip's
// end, a change asked for and a glide.
import { describe, expect, it } from 'vitest';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, openPage } from './browser.js';

/** Copies of the 0 A.D. arm with its wave: each pairs with its own clip by name. */
const ARMS = 12;

const browser = fileBrowser();

/**
 * Counts three's updateMatrix calls by character over the next `frames` frames the loop draws
 * (with `ask`, a change is asked for once counting has begun, as a control does), and checks every
 * node of every character: its world matrix is its parent's times its own place. Resolves to
 * { updated: character names with updates, stale: nodes whose matrix is not current }.
 */
const watchFrames = (page, frames, ask = false) =>
  page.evaluate(
    async ([count, asked]) => {
      const { viewer, app } = window.__rigscope;
      const Object3D = Object.getPrototypeOf(Object.getPrototypeOf(viewer.content));
      const owner = new Map();
      // Labels are placed at each draw by CSS2DRenderer (three/labels.js), whatever moved: not counted.
      for (const c of app.characters) c.root.traverse((o) => o.isCSS2DObject || owner.set(o, c.name));
      const updated = new Set();
      const original = Object3D.updateMatrix;
      Object3D.updateMatrix = function () {
        if (owner.has(this)) updated.add(owner.get(this));
        return original.call(this);
      };
      const start = viewer.frames;
      if (asked) viewer.requestRender();
      await new Promise((resolve) => {
        const wait = () => (viewer.frames >= start + count ? resolve() : requestAnimationFrame(wait));
        requestAnimationFrame(wait);
      });
      Object3D.updateMatrix = original;
      return { updated: [...updated].sort(), stale: window.__staleNodes() };
    },
    [frames, ask],
  );

/** Defines window.__staleNodes(): the nodes of the characters whose world matrix is not their parent's times their own place. */
const defineStaleNodes = (page) =>
  page.evaluate(() => {
    window.__staleNodes = () => {
      const { viewer, app } = window.__rigscope;
      const stale = [];
      const local = viewer.content.matrixWorld.clone();
      for (const c of app.characters)
        c.root.traverse((o) => {
          if (!o.parent) return;
          local.compose(o.position, o.quaternion, o.scale).premultiply(o.parent.matrixWorld);
          if (local.elements.some((v, i) => Math.abs(v - o.matrixWorld.elements[i]) > 1e-5)) stale.push(`${c.name}/${o.name}`);
        });
      return stale;
    };
  });

describe('a crowd with one character playing', () => {
  it('updates what moves in a frame, and every matrix stays current', async () => {
    const page = await openPage(browser, '/?demo=0', { viewport: { width: 800, height: 600 } });
    const files = [];
    for (let i = 0; i < ARMS; i++)
      files.push(filePayload(`${FIXTURES}arm.pmd`, `arm${i}.pmd`), filePayload(`${FIXTURES}arm_wave.psa`, `arm${i}_wave.psa`));
    await chooseFiles(page, files);
    await defineStaleNodes(page);
    const playing = await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      viewer.glides.finish();
      return app.characters.filter((c) => c.mixer.stats.actions.inUse > 0).map((c) => c.name);
    });
    expect(playing).toHaveLength(1);

    // Frames of the clip: only the playing character's nodes are placed again.
    let w = await watchFrames(page, 5);
    expect(w.stale).toEqual([]);
    expect(w.updated).toEqual(playing);

    // A change asked for (as every control does): that frame brings everything up to date.
    w = await watchFrames(page, 1, true);
    expect(w.updated.length).toBe(ARMS);
    expect(w.stale).toEqual([]);

    // A still character moved behind the loop's back, then gliding: it is placed as it goes.
    w = await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      const still = app.characters.find((c) => c.mixer.stats.actions.inUse === 0);
      viewer.glides.to(still.root.position, still.root.position.clone().add(still.root.position.clone().setScalar(0.5)));
      return still.name;
    });
    const glide = await watchFrames(page, 3);
    expect(glide.updated).toEqual([w, ...playing].sort());
    expect(glide.stale).toEqual([]);

    // The clip played once to its end: its last pose is placed in the frame that reached it (the
    // loop stops after it, so no later frame could have made up for it).
    await page.uncheck('#loop');
    await page.waitForFunction(() => !window.__rigscope.app.current?.action?.isRunning(), null, { timeout: 20000 });
    await page.waitForFunction(() => !window.__rigscope.viewer.looping, null, { timeout: 20000 });
    expect(await page.evaluate(() => window.__staleNodes())).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
