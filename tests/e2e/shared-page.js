// One viewer page for the tests of a file that each need an empty view, not a freshly loaded
// page: a page costs some 3 CPU-seconds to load in SwiftShader, Clear a few milliseconds. Clear
// giving back an empty view is itself tested (memory.test.js); tests about a fresh page (startup,
// the demo, links, what a page asks of WebGL once) keep opening their own.
import { afterAll } from 'vitest';
import { openPage } from './browser.js';

/**
 * A function that resolves to the file's one page at `path`, opened at the first call (openPage)
 * and closed after the file's tests; each later call closes any dialog left open, empties the
 * page as the Clear button does (unless `keep`: a page whose demo the tests look at), sets the
 * drop mode back to adding, sets `viewport` and starts its error list anew.
 * @param {object} owner a browser or context (fileBrowser's), or a function returning one (made in a beforeAll)
 */
export function sharedViewerPage(owner, path = '/?demo=0') {
  let page = null;
  afterAll(async () => {
    await page?.close();
  });
  const get = () => (typeof owner === 'function' ? owner() : owner);
  return async ({ viewport = { width: 640, height: 480 }, keep = false } = {}) => {
    if (!page) {
      page = await openPage(get(), path, { viewport });
      return page;
    }
    // A dialog a test left open (a page it closed took it along) would stand over the next test's clicks.
    await page.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
    await page.setViewportSize(viewport);
    // The view takes its new size when its container's resize is observed, a task later: a test
    // that reads the canvas (a screenshot) before that read the size the test before left.
    await page.evaluate(() => window.__rigscope.viewer.fitContainer());
    await page.selectOption('#drop-mode', 'add');
    if (!keep)
      await page.evaluate(() => {
        document.getElementById('clear-button').click();
        const { viewer } = window.__rigscope;
        viewer.grid.visible = true;
        // Clear keeps the view's direction for the next drop; a page just opened frames its first
        // drop from the default one, whatever a test before turned the camera to.
        viewer.framed = false;
      });
    page.errors.length = 0;
    return page;
  };
}
