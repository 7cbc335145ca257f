// Shader links on software GL (no KHR_parallel_shader_compile): a program's first use waits for
// its link, holding the page. The viewer uses a new program only once a fence says the GPU
// process has run the link (three/programs.js). Checked by the order of the GL calls, not by time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseFiles, filePayload, FIXTURES, launch, openPage } from './browser.js';

let browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** Logs, in order, each program linked, each fence found done, and each first query of a program's link. */
function recordLinks() {
  const gl = window.__rigscope.viewer.renderer.getContext();
  const log = (window.__links = []);
  const ids = new Map();
  const id = (p) => (ids.has(p) ? ids.get(p) : (ids.set(p, ids.size), ids.size - 1));
  const wrap = (name, after) => {
    const real = gl[name].bind(gl);
    gl[name] = (...args) => {
      const out = real(...args);
      after(out, ...args);
      return out;
    };
  };
  wrap('linkProgram', (_, p) => log.push(['link', id(p)]));
  wrap('clientWaitSync', (status) => {
    if (status === gl.ALREADY_SIGNALED || status === gl.CONDITION_SATISFIED) log.push(['caught up']);
  });
  wrap('getProgramParameter', (_, p, what) => {
    if (what === gl.LINK_STATUS) log.push(['asked', id(p)]);
  });
}

describe('shader links on software GL', () => {
  it('uses a new character’s programs only after the GPU process has linked them, and draws it', async () => {
    const page = await openPage(browser, '/?demo=0');
    expect(await page.evaluate(() => window.__rigscope.viewer.renderer.extensions.has('KHR_parallel_shader_compile'))).toBe(false);
    await page.evaluate(recordLinks);
    await chooseFiles(page, [filePayload(`${FIXTURES}knight_body.psk`), filePayload(`${FIXTURES}knight.psa`)]);
    const log = await page.evaluate(() => window.__links);
    const linked = log.filter(([what]) => what === 'link').map(([, p]) => p);
    expect(linked.length).toBeGreaterThan(0);
    for (const p of linked) {
      const link = log.findIndex(([what, q]) => what === 'link' && q === p);
      const asked = log.findIndex(([what, q]) => what === 'asked' && q === p);
      expect(asked).toBeGreaterThan(link);
      // Between the link and the first question about it, the GPU process was seen to be done.
      expect(log.slice(link, asked).some(([what]) => what === 'caught up')).toBe(true);
    }
    const drawn = await page.evaluate(() => window.__rigscope.viewer.renderer.info.render.triangles);
    expect(drawn).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
