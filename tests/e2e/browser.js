// Debian's Chromium through playwright-core, rendering WebGL with SwiftShader. No browser downloads.
import { afterAll, beforeAll, inject } from 'vitest';
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { launch, SAMPLES, samplesFolderPaths } from './chromium.js';

export { animationFrames } from './chromium.js';
export { launch, SAMPLES };
export const FIXTURES = new URL('../../build/fixtures/', import.meta.url).pathname;

/** One small sample of every family (paths under samples/): mesh, animations and companions. */
export const FAMILY_SAMPLES = {
  psk: ['psk/skSpiderLargeMesh.psk', 'psk/skSpiderLargeAnims.psa'],
  zeroad: ['zeroad/skeleton.pmd', 'zeroad/skeleton_idle.psa'],
  ue1: ['vertex3d/assimp-mar_rifle/mar_rifle_d.3d', 'vertex3d/assimp-mar_rifle/mar_rifle_a.3d', 'vertex3d/assimp-mar_rifle/mar_rifle.uc'],
  psg: ['psg/synthetic/skinned_quad_f32.psg'],
};

/**
 * Textures three keeps for a renderer once it has drawn a physically based material: its DFG LUT
 * (made at the first such draw, kept for the renderer's life). What a page with elements holds
 * with none left is the neutral room and this (the room, prefiltered in the page before, drew it).
 */
export const PBR_LUT_TEXTURES = 1;

/** A family's samples as the test site serves them, space-separated (an element's `src`). */
export const samplesSrc = (family) => FAMILY_SAMPLES[family].map((f) => `${inject('baseUrl')}/samples/${f}`).join(' ');

/** Every file of a samples folder (a path under samples/), as the test site serves them, sorted. */
export const samplesFolderSrc = (folder) => samplesFolderPaths(folder).map((path) => `${inject('baseUrl')}${path}`);

/**
 * The kinds of material samples/vertex3d's meshes draw with (UE1 polyflags: two-sided, masked,
 * translucent, flat), textured or not, as `side/alpha-tested/transparent/flat`: one program each.
 */
export const VERTEX3D_KINDS = [
  '0/false/false/false', // plain
  '0/true/false/false', // masked
  '2/false/false/false', // two-sided
  '2/false/true/true', // two-sided, translucent and flat
  '2/true/false/false', // two-sided and masked
];

/**
 * The shader programs samples/vertex3d draws with: one per look (three/shared-programs.js), where
 * three alone makes one per kind (VERTEX3D_KINDS). Its opaque materials, one-sided or two, share
 * one, and its masked ones another (a program that may discard costs software GL per fragment:
 * the folder was in place 22 % sooner than with one program for both); the two-sided translucent
 * flat one (the bottle's glass) has its own.
 */
export const VERTEX3D_PROGRAMS = 3;

/**
 * A page of another site (`name`.html, served by the test) with the element's one script tag and
 * an empty <main id="here">, its errors collected, once the element is defined. `owner` is a
 * browser or a context.
 */
export async function elementHostPage(owner, name, viewport = { width: 800, height: 600 }) {
  const base = inject('baseUrl');
  const page = await owner.newPage({ viewport });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/GPU stall|favicon|ReadPixels/.test(m.text())) page.errors.push(m.text());
  });
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title>
<script type="module" src="${base}/rigscope-viewer.js"></script></head><body><main id="here"></main></body></html>`;
  await page.route(`${base}/${name}.html`, (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await page.goto(`${base}/${name}.html`);
  await until(page, () => !!customElements.get('rigscope-viewer'));
  return page;
}

/** Polls `predicate(arg)` in the page until it holds; throws naming it after `timeout` ms. */
export async function until(page, predicate, arg, timeout = 60000) {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(predicate, arg))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${predicate}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The browser of one test file: launched before its tests and closed after them (vitest's hooks),
 * used as the Browser it stands for from the tests on.
 * @param {string[]} [extraArgs]
 * @returns {import('playwright-core').Browser}
 */
export function fileBrowser(extraArgs = []) {
  let browser = null;
  beforeAll(async () => {
    browser = await launch(extraArgs);
  });
  afterAll(async () => {
    await browser?.close();
  });
  const forward = (_, key) => {
    if (!browser) throw new Error("fileBrowser: used before the file's tests began");
    const value = browser[key];
    return typeof value === 'function' ? value.bind(browser) : value;
  };
  return /** @type {any} */ (new Proxy({}, { get: forward }));
}

/** The toolbar's controls in their order: Open, the drop mode, Clear, Export, Share and Help. */
export const TOOLBAR_CONTROLS = ['open-menu', 'drop-mode', 'clear-button', 'export-menu', 'share-menu', 'help-button'];

/** Opens a page, collecting console errors (minus SwiftShader's ReadPixels stall notes). */
export async function openPage(browser, path = '/', { viewport = { width: 640, height: 480 } } = {}) {
  const page = await browser.newPage({ viewport });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/GPU stall|favicon|ReadPixels/.test(m.text())) page.errors.push(m.text());
  });
  const base = inject('baseUrl');
  await page.goto(new URL(path, base).href);
  await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
  return page;
}

/**
 * Opens the toolbar menu that holds item `id` (Export's `export-button`, Share's `link-button`…)
 * as a person would, by clicking its menu button; an open menu stays open.
 */
export async function openMenuOf(page, id) {
  const button = await page.evaluate((item) => document.getElementById(item).closest('[role=menu]').getAttribute('aria-labelledby'), id);
  if ((await page.getAttribute(`#${button}`, 'aria-expanded')) !== 'true') await page.click(`#${button}`);
}

/** Clicks toolbar menu item `id` (an id the item kept from when it was a button of its own), opening its menu first. */
export async function clickMenuItem(page, id) {
  await openMenuOf(page, id);
  await page.click(`#${id}`);
}

/** Files as the file button would receive them. */
export function filePayload(path, name = path.split('/').pop()) {
  return { name, mimeType: 'application/octet-stream', buffer: readFileSync(path) };
}

/** Files (payloads or paths) as the file button would receive them; resolves once the page has them in place. */
export async function chooseFiles(page, payloads, timeout = 60000) {
  const before = await page.evaluate(() => window.__rigscope.app.loads ?? 0);
  await page.setInputFiles('#file-input', payloads);
  await page.waitForFunction((n) => (window.__rigscope.app.loads ?? 0) > n, before, { timeout });
}

/** A folder as the folder button would receive it; resolves once the page has it all in place. */
export async function openFolder(page, dir, timeout = 180000) {
  const before = await page.evaluate(() => window.__rigscope.app.loads ?? 0);
  await page.setInputFiles('#folder-input', dir);
  await page.waitForFunction((n) => (window.__rigscope.app.loads ?? 0) > n, before, { timeout });
}

export const pixels = (page) =>
  page.evaluate(() => {
    window.__rigscope.viewer.grid.visible = false;
    return window.__rigscope.pixels();
  });

/**
 * The picture at `t` seconds into the current clip, paused, without grid and markers: the
 * foreground count and every 2nd pixel (each way) as RGB, for masks and colour counts in the test.
 */
export async function frameAt(page, t) {
  const f = await page.evaluate((time) => {
    const rs = window.__rigscope;
    rs.viewer.grid.visible = false;
    rs.viewer.setAttachmentsVisible(false);
    if (time !== undefined) {
      rs.pause();
      rs.app.setTime(time);
    }
    const r = rs.viewer.countForegroundPixels();
    const rgb = [];
    for (let y = 0; y < r.h; y += 2)
      for (let x = 0; x < r.w; x += 2) {
        const o = (y * r.w + x) * 4;
        rgb.push(r.pixels[o], r.pixels[o + 1], r.pixels[o + 2]);
      }
    const bg = rs.viewer.background.clone().convertLinearToSRGB();
    return { count: r.count, rgb, bg: [bg.r * 255, bg.g * 255, bg.b * 255], label: document.getElementById('frame-label')?.textContent };
  }, t);
  f.mask = [];
  for (let i = 0; i < f.rgb.length; i += 3) {
    f.mask.push(Math.abs(f.rgb[i] - f.bg[0]) + Math.abs(f.rgb[i + 1] - f.bg[1]) + Math.abs(f.rgb[i + 2] - f.bg[2]) > 24 ? 1 : 0);
  }
  return f;
}

/** How many sampled pixels changed between foreground and background. */
export const maskDifference = (a, b) => a.mask.filter((v, i) => v !== b.mask[i]).length;

/** Sampled pixels whose colour passes `test(r, g, b)`. */
export function countColour(frame, test) {
  let n = 0;
  for (let i = 0; i < frame.rgb.length; i += 3) if (test(frame.rgb[i], frame.rgb[i + 1], frame.rgb[i + 2])) n++;
  return n;
}

/**
 * Paused at `t` seconds: the frame (frameAt) with how many sampled pixels pass each of `colours`
 * (tests `(r, g, b) => boolean` by name), as properties of the same names.
 */
export async function frameWithColours(page, t, colours) {
  const f = await frameAt(page, t);
  for (const [name, test] of Object.entries(colours)) f[name] = countColour(f, test);
  return f;
}

/** The UE1 flag fixture's texture (flag.pcx): its red top half and its blue bottom half. */
export const FLAG_COLOURS = {
  red: (R, G, B) => R > 120 && G < 80 && B < 90,
  blue: (R, G, B) => B > 100 && R < 80 && G < 110,
};

/** A PNG of w × h RGBA pixels from `pixel(x, y)` (rows top first), so tests need no image files. */
export function png(w, h, pixel) {
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'ascii');
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const raw = Buffer.alloc(h * (1 + w * 4));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set(pixel(x, y), y * (1 + w * 4) + 1 + x * 4);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const fixtureBytes = (name) => readFileSync(`${FIXTURES}${name}`);

/** Drops files on the page as a real drag and drop of a folder does (webkitGetAsEntry directory entries). */
export async function dropFolder(page, folder, files) {
  const before = await page.evaluate(() => window.__rigscope.app.reports.length);
  // Base64 text: a JSON array of numbers took about four bytes of message a byte (3 MB for the
  // spider's 847 KB .psa), each one parsed on both sides.
  const payload = files.map((f) => ({ name: f.split('/').pop(), base64: readFileSync(f).toString('base64') }));
  await page.evaluate(
    ({ folder: name, payload: list }) => {
      const bytesOf = (base64) => {
        const text = atob(base64);
        const bytes = new Uint8Array(text.length);
        for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
        return bytes;
      };
      const fileObjects = list.map((p) => new File([bytesOf(p.base64)], p.name));
      const fileEntry = (file) => ({
        isFile: true,
        isDirectory: false,
        name: file.name,
        fullPath: `/${name}/${file.name}`,
        file: (ok) => ok(file),
      });
      const dir = {
        isFile: false,
        isDirectory: true,
        name,
        fullPath: `/${name}`,
        createReader: () => {
          let done = false;
          return {
            readEntries: (ok) => {
              ok(done ? [] : fileObjects.map(fileEntry));
              done = true;
            },
          };
        },
      };
      const item = { kind: 'file', webkitGetAsEntry: () => dir, getAsFile: () => null };
      const dt = new DataTransfer();
      Object.defineProperty(dt, 'items', { value: [item] });
      Object.defineProperty(dt, 'files', { value: [] });
      const event = new DragEvent('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(event, 'dataTransfer', { value: dt });
      document.getElementById('stage').dispatchEvent(event);
    },
    { folder, payload },
  );
  await page.waitForFunction((n) => window.__rigscope.app.reports.length > n, before, { timeout: 60000 });
}

/**
 * How long the page's main thread was held by one task while `work` runs, in ms; 0 when no task
 * passed 50 ms. A frozen page is a long task; a frame the GPU process (SwiftShader on a busy
 * machine) is slow to draw is not, so this measures the page's responsiveness, not the machine's.
 * The longest task (PerformanceObserver 'longtask') is wall-clock time, which counts the time the
 * thread waited for a core on a loaded machine; it is taken at most as the main thread's CPU time
 * over all of `work` (DevTools' TaskDuration in thread ticks), which a wait for a core adds nothing
 * to and which a task that computes for that long fills.
 */
export async function longestTaskDuring(page, work) {
  const devtools = await page.context().newCDPSession(page);
  await devtools.send('Performance.enable', { timeDomain: 'threadTicks' });
  const cpuSeconds = async () => (await devtools.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration').value;
  await page.evaluate(() => {
    const watch = { longest: 0 };
    watch.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) watch.longest = Math.max(watch.longest, e.duration);
    });
    watch.observer.observe({ type: 'longtask' });
    window.__longTasks = watch;
  });
  const cpuBefore = await cpuSeconds();
  await work();
  // Entries arrive after their task ends: let the queue deliver them before reading.
  const longest = await page.evaluate(
    () =>
      new Promise((resolve) =>
        setTimeout(() => {
          const watch = window.__longTasks;
          for (const e of watch.observer.takeRecords()) watch.longest = Math.max(watch.longest, e.duration);
          watch.observer.disconnect();
          resolve(watch.longest);
        }, 100),
      ),
  );
  const cpu = ((await cpuSeconds()) - cpuBefore) * 1000;
  await devtools.detach();
  return Math.min(longest, cpu);
}
