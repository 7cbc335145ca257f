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
 * Counts three's updateMatrix calls by character over the next `frames` frames the loop draws of
 * the clip alone, and checks every node of every character: its world matrix is its parent's times
 * its own place. A frame drawn for a change asked for (a control, a placement, the end of a drop's
 * settling drawn late on a busy machine) brings everything up to date by design: it is not one
 * of the `frames`, and its updates are not counted. With `ask`, a change is asked for once
 * counting has begun (as a control does), and the frame that draws it is the one counted.
 * `onStart` names a function of the page's window called right after a frame of the clip, before
 * the first counted one. Resolves to { updated: character names with updates, stale: nodes whose matrix is
 * not current }.
 */
const watchFrames = (page, frames, { ask = false, onStart = null } = {}) =>
  page.evaluate(
    async ([count, asked, start]) => {
      const { viewer, app } = window.__rigscope;
      const Object3D = Object.getPrototypeOf(Object.getPrototypeOf(viewer.content));
      const owner = new Map();
      // Labels are placed at each draw by CSS2DRenderer (three/labels.js), whatever moved: not counted.
      for (const c of app.characters) c.root.traverse((o) => o.isCSS2DObject || owner.set(o, c.name));
      const updated = new Set();
      let counting = null; // the set the frame being drawn counts into, if it is counted
      const original = Object3D.updateMatrix;
      Object3D.updateMatrix = function () {
        if (counting && owner.has(this)) counting.add(owner.get(this));
        return original.call(this);
      };
      // The view's render(moves): moves null is a frame of a change asked for (viewer.js tick).
      const render = viewer.render;
      let counted = 0;
      let begun = false;
      await new Promise((resolve) => {
        viewer.render = function (moves) {
          const counts = begun && (asked ? moves === null : !!moves);
          counting = counts ? updated : null;
          try {
            return render.call(this, moves);
          } finally {
            counting = null;
            if (counts && ++counted === count) resolve();
            else if (!begun && moves) {
              // A frame of the clip has been drawn: what was asked for before it is drawn.
              begun = true;
              if (start) window[start]();
              if (asked) viewer.requestRender();
            }
          }
        };
      });
      viewer.render = render;
      Object3D.updateMatrix = original;
      return { updated: [...updated].sort(), stale: window.__staleNodes() };
    },
    [frames, ask, onStart],
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
    w = await watchFrames(page, 1, { ask: true });
    expect(w.updated.length).toBe(ARMS);
    expect(w.stale).toEqual([]);

    // A still character moved behind the loop's back, then gliding: it is placed as it goes.
    w = await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      const still = app.characters.find((c) => c.mixer.stats.actions.inUse === 0);
      const p = still.root.position;
      window.__glide = () => viewer.glides.to(p, p.clone().add(p.clone().setScalar(0.5)));
      return still.name;
    });
    const glide = await watchFrames(page, 3, { onStart: '__glide' });
    expect(glide.updated).toEqual([w, ...playing].sort());
    expect(glide.stale).toEqual([]);

    // The clip played once to its end: its last pose is placed in the frame that reached it (the
    // loop stops after it, so no later frame could have made up for it).
    await page.uncheck('#loop');
    await page.waitForFunction(() => !window.__rigscope.app.current?.action?.isRunning(), null, { timeout: 60000 });
    await page.waitForFunction(() => !window.__rigscope.viewer.looping, null, { timeout: 60000 });
    expect(await page.evaluate(() => window.__staleNodes())).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
