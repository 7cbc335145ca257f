// Shader links on software GL (no KHR_parallel_shader_compile): a program's first use waits for
// its link, holding the page. The viewer uses a new program only once a fence says the GPU
// process has run the link (three/programs.js), and asks it once, whether the program linked, not
// also for its logs (each question waits for whatever the GPU process has queued); a program that
// did not link is still reported. Checked by the order of the GL calls, not by time.
import { describe, expect, inject, it } from 'vitest';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, openPage } from './browser.js';

const browser = fileBrowser();

/**
 * Logs, in order, each program linked, each fence found done, and each first query of a program's
 * link, from the page's first script on (an init script: the element renders as soon as it loads).
 */
function recordLinks() {
  const gl = WebGL2RenderingContext.prototype;
  const log = (window.__links = []);
  const ids = new Map();
  const id = (p) => (ids.has(p) ? ids.get(p) : (ids.set(p, ids.size), ids.size - 1));
  // The ids of the GL programs the characters' materials draw with.
  window.__characterPrograms = (renderer, characters) => {
    const out = new Set();
    for (const c of characters)
      c.root.traverse((o) => {
        for (const m of o.material ? [o.material].flat() : []) {
          const program = renderer.properties.get(m).currentProgram?.program;
          if (program) out.add(id(program));
        }
      });
    return [...out];
  };
  const wrap = (name, after) => {
    const real = gl[name];
    gl[name] = function (...args) {
      const out = real.apply(this, args);
      after.call(this, out, ...args);
      return out;
    };
  };
  wrap('linkProgram', (_, p) => log.push(['link', id(p)]));
  wrap('clientWaitSync', function (status) {
    if (status === this.ALREADY_SIGNALED || status === this.CONDITION_SATISFIED) log.push(['caught up']);
  });
  wrap('getProgramParameter', function (_, p, what) {
    if (what === this.LINK_STATUS) log.push(['asked', id(p)]);
  });
  wrap('getProgramInfoLog', (_, p) => log.push(['log', id(p)]));
}

/** Each of `programs` (ids) was asked about only after a fence was seen done since its link. */
function expectLinkedBeforeUse(log, programs) {
  expect(programs.length).toBeGreaterThan(0);
  for (const p of programs) {
    const link = log.findIndex(([what, q]) => what === 'link' && q === p);
    const asked = log.findIndex(([what, q]) => what === 'asked' && q === p);
    expect(link).toBeGreaterThanOrEqual(0);
    expect(asked).toBeGreaterThan(link);
    // Between the link and the first question about it, the GPU process was seen to be done.
    expect(log.slice(link, asked).some(([what]) => what === 'caught up')).toBe(true);
  }
}

describe('shader links on software GL', () => {
  it('uses a new character’s programs only after the GPU process has linked them, and draws it', async () => {
    const context = await browser.newContext();
    await context.addInitScript(recordLinks);
    const page = await openPage(context, '/?demo=0');
    expect(await page.evaluate(() => window.__rigscope.viewer.renderer.extensions.has('KHR_parallel_shader_compile'))).toBe(false);
    await chooseFiles(page, [filePayload(`${FIXTURES}knight_body.psk`), filePayload(`${FIXTURES}knight.psa`)]);
    const programs = await page.evaluate(() =>
      window.__characterPrograms(window.__rigscope.viewer.renderer, window.__rigscope.app.characters),
    );
    const log = await page.evaluate(() => window.__links);
    expectLinkedBeforeUse(log, programs);
    // One question each: whether it linked; its logs were never read.
    for (const p of programs) expect(log.filter(([what, q]) => what === 'log' && q === p)).toEqual([]);
    const drawn = await page.evaluate(() => window.__rigscope.viewer.renderer.info.render.triangles);
    expect(drawn).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);

    // A program that does not link: three reads its logs and reports it, naming the material.
    await page.evaluate(async () => {
      const { app, viewer } = window.__rigscope;
      const [character] = app.characters;
      let material = null;
      character.root.traverse((o) => (material ??= o.material ? [o.material].flat()[0] : null));
      material.name = 'broken on purpose';
      material.onBeforeCompile = (shader) => {
        shader.fragmentShader = shader.fragmentShader.replace('void main() {', 'void main() { not glsl;');
      };
      material.customProgramCacheKey = () => 'broken on purpose';
      material.needsUpdate = true;
      viewer.holds++; // no frame draws it: only the link is looked at
      await viewer.compileFor([character.root]);
    });
    expect(page.errors.some((e) => /Shader Error/.test(e) && /broken on purpose/.test(e))).toBe(true);
    await context.close();
  });

  it('the same in <rigscope-viewer>: its characters enter once their programs are linked', async () => {
    const context = await browser.newContext();
    await context.addInitScript(recordLinks);
    const page = await openPage(
      context,
      `/embed.html?file=${inject('baseUrl')}/fixtures/arm.pmd&file=${inject('baseUrl')}/fixtures/arm_wave.psa`,
    );
    await page.waitForFunction(() => document.getElementById('player').app.characters.length > 0, null, { timeout: 60000 });
    await page.waitForFunction(() => !document.getElementById('player').shadowRoot.querySelector('.status').textContent);
    const programs = await page.evaluate(() => {
      const player = document.getElementById('player');
      return window.__characterPrograms(player.constructor.renderer.renderer, player.app.characters);
    });
    const log = await page.evaluate(() => window.__links);
    expectLinkedBeforeUse(log, programs);
    for (const p of programs) expect(log.filter(([what, q]) => what === 'log' && q === p)).toEqual([]);
    expect(page.errors).toEqual([]);
    await context.close();
  });
});
