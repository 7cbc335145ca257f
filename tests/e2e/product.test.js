// The viewer as a product: zip drop, folders, multi-part characters, frame stepping, manual
// texture assignment, GLB export, share links, the embed page, sub-path hosting, CORS failures.
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { validateBytes } from 'gltf-validator';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import {
  chooseFiles,
  countColour,
  fileBrowser,
  filePayload,
  fixtureBytes,
  FIXTURES,
  frameAt,
  openPage,
  pixels,
  png,
  clickMenuItem,
  TOOLBAR_CONTROLS,
} from './browser.js';
import { SUB_PATH } from './server.js';

const browser = fileBrowser();

/** Drops files on the page the way a browser does (a DragEvent carrying a DataTransfer). */
async function dropFiles(page, files) {
  const before = await page.evaluate(() => window.__rigscope.app.reports.length);
  await page.evaluate(
    (list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    files.map(([name, bytes]) => ({ name, b64: Buffer.from(bytes).toString('base64') })),
  );
  await page.waitForFunction((n) => window.__rigscope.app.reports.length > n, before, { timeout: 60000 });
}

const fixture = fixtureBytes;

// A fresh page costs about 3 CPU-seconds before any file is dropped: tests that only drop files
// and read what they show share one empty page (Clear between them, as a person does; Clear is
// tested in memory.test.js), and tests of the demo's controls share one page showing the demo.
// Pages whose start is the subject (links, the embed page, a sub-path, CORS) stay fresh.
let emptyShared, demoShared;
afterAll(async () => {
  await emptyShared?.close();
  await demoShared?.close();
});

/** The shared '/?demo=0' page, cleared (files, scene, messages, status) and with no errors yet. */
async function emptyPage() {
  if (!emptyShared) emptyShared = await openPage(browser, '/?demo=0');
  else await emptyShared.evaluate(() => document.getElementById('clear-button').click());
  emptyShared.errors = [];
  return emptyShared;
}

/** The shared '/' page showing the demo, at `viewport`, with no errors yet. */
async function demoPage(viewport = { width: 640, height: 480 }) {
  if (!demoShared) demoShared = await openPage(browser, '/', { viewport });
  else await demoShared.setViewportSize(viewport);
  demoShared.errors = [];
  return demoShared;
}

describe('input', () => {
  it('opens a dropped zip with a mesh and its animation in a folder', async () => {
    const page = await emptyPage();
    const zip = zipSync({ 'MyMod/Meshes/two_bone.psk': fixture('two_bone.psk'), 'MyMod/Anims/two_bone.psa': fixture('two_bone.psa') });
    await dropFiles(page, [['mymod.zip', zip]]);
    expect(await page.evaluate(() => window.__rigscope.clipNames())).toEqual(['Bend']);
    expect(await page.locator('#files-report').textContent()).toContain('two_bone.psa → two_bone.psk');
    expect((await pixels(page)).count).toBeGreaterThan(100);
  });

  it('opens a whole folder from the folder button', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rigscope-'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'two_bone.psk'), fixture('two_bone.psk'));
    writeFileSync(join(dir, 'sub', 'two_bone.psa'), fixture('two_bone.psa'));
    writeFileSync(join(dir, 'notes.txt'), 'not a model');
    const page = await emptyPage();
    const before = await page.evaluate(() => window.__rigscope.app.reports.length);
    await page.setInputFiles('#folder-input', dir);
    await page.waitForFunction((n) => window.__rigscope.app.reports.length > n, before);
    expect(await page.evaluate(() => window.__rigscope.clipNames())).toEqual(['Bend']);
    expect(await page.locator('#files-report').textContent()).toMatch(/notes\.txt: not used — not a format Rigscope reads/);
  });
});

describe('layout and keyboard', () => {
  it('fits a phone screen: no sideways scrolling, the view and the timeline visible', async () => {
    const page = await demoPage({ width: 390, height: 844 });
    const m = await page.evaluate(() => {
      const box = (id) => document.getElementById(id).getBoundingClientRect();
      return { scrollW: document.documentElement.scrollWidth, stage: box('stage'), timeline: box('timeline'), side: box('side') };
    });
    expect(m.scrollW).toBeLessThanOrEqual(390);
    expect(m.stage.width).toBeGreaterThan(380);
    expect(m.stage.height).toBeGreaterThan(250);
    expect(m.timeline.bottom).toBeLessThanOrEqual(844);
    expect(m.side.top).toBeGreaterThanOrEqual(m.stage.bottom - 1);
    expect((await pixels(page)).count).toBeGreaterThan(300);
    expect(page.errors).toEqual([]);
  });

  it('reaches every control with the keyboard', async () => {
    const page = await demoPage();
    const controls = await page.evaluate(() =>
      [...document.querySelectorAll('button, select, input:not([hidden]), label.button, summary, #clip-list li[role=option]')]
        .filter((e) => e.offsetParent !== null || e.closest('details'))
        .map((e) => e.id || e.textContent.trim().slice(0, 20)),
    );
    // What has the focus after each Tab, noted in the page as it moves (one round trip per key, not two).
    await page.evaluate(() => {
      window.__reached = [];
      window.__noteFocus = () => {
        const e = document.activeElement;
        window.__reached.push(e.id || e.textContent.trim().slice(0, 20));
      };
      document.addEventListener('keyup', window.__noteFocus);
    });
    for (let i = 0; i < 160; i++) await page.keyboard.press('Tab');
    const reached = new Set(
      await page.evaluate(() => {
        document.removeEventListener('keyup', window.__noteFocus);
        return window.__reached;
      }),
    );
    // The menus' items are reached through their menu buttons (toolbar.test.js walks them).
    for (const id of [
      ...TOOLBAR_CONTROLS,
      'clip-search',
      'view-frame',
      'orthographic',
      'turn-reset',
      'show-skeleton',
      'show-wireframe',
      'base-colour-only',
      'play',
      'step-back',
      'step-forward',
      'scrub',
      'goto-frame',
      'speed',
      'loop',
    ]) {
      expect(reached, id).toContain(id);
    }
    expect(controls.length).toBeGreaterThan(20);
    // Enter on the focused Open opens its menu, End goes to "URL…", Enter opens its dialog;
    // closing the dialog gives the focus back to Open.
    await page.focus('#open-menu');
    await page.keyboard.press('Enter');
    await page.keyboard.press('End');
    expect(await page.evaluate(() => document.activeElement.id)).toBe('url-button');
    await page.keyboard.press('Enter');
    expect(await page.locator('#url-dialog').isVisible()).toBe(true);
    expect(await page.locator('#open-menu-items').isHidden()).toBe(true);
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement.id)).toBe('open-menu');
  });

  it('opens files from URLs typed into the Open URL dialog', async () => {
    const base = inject('baseUrl');
    const page = await emptyPage();
    await clickMenuItem(page, 'url-button');
    await page.fill('#url-text', `${base}/fixtures/two_bone.psk\n${base}/fixtures/two_bone.psa`);
    await page.click('#url-form button[value=open]');
    await page.waitForFunction(() => window.__rigscope.app.reports.length > 0);
    expect(await page.evaluate(() => window.__rigscope.clipNames())).toEqual(['Bend']);
  });
});

describe('characters and timeline', () => {
  it('plays a second mesh part on the first one’s skeleton', async () => {
    const page = await emptyPage();
    await chooseFiles(page, [
      filePayload(`${FIXTURES}two_bone.psk`),
      filePayload(`${FIXTURES}two_bone_cap.psk`),
      filePayload(`${FIXTURES}two_bone.psa`),
    ]);
    const r = await page.evaluate(() => {
      const { app } = window.__rigscope;
      const c = app.characters;
      const cap = c[0].meshes[1];
      window.__rigscope.pause();
      app.setTime(0);
      // The bones' world matrices as posed now, not as the last drawn frame left them.
      c[0].root.updateMatrixWorld(true);
      const v = new cap.position.constructor();
      const at0 = cap.getVertexPosition(2, v).clone();
      app.setTime(app.current.clip.duration * 0.5);
      c[0].root.updateMatrixWorld(true);
      const atHalf = cap.getVertexPosition(2, v).clone();
      return {
        characters: c.length,
        meshes: c[0].meshes.length,
        sameSkeleton: cap.skeleton.bones[0] === c[0].bones[1],
        moved: at0.distanceTo(atHalf),
      };
    });
    expect(r).toMatchObject({ characters: 1, meshes: 2, sameSkeleton: true });
    expect(r.moved).toBeGreaterThan(0.5);
    expect(await page.locator('#files-report').textContent()).toContain('two_bone_cap.psk → shares the skeleton of two_bone.psk');
  });

  it('steps frame by frame in the file’s own frames, with the keyboard too', async () => {
    const page = await demoPage();
    await page.evaluate(() => {
      const { app } = window.__rigscope;
      const w = app.allClips.find((c) => c.clip.name === 'Walk');
      app.select(w.character, w.clip);
      window.__rigscope.pause();
      app.setTime(0);
    });
    await page.click('#step-forward');
    await page.click('#step-forward');
    expect(await page.locator('#frame-label').innerText()).toBe('frame 2 / 29');
    await page.locator('body').focus();
    await page.keyboard.press('ArrowLeft');
    expect(await page.locator('#frame-label').innerText()).toBe('frame 1 / 29');
    await page.keyboard.press('End');
    expect(await page.locator('#frame-label').innerText()).toBe('frame 29 / 29');
    await page.keyboard.press('ArrowRight'); // looping: wraps to the first frame
    expect(await page.locator('#frame-label').innerText()).toBe('frame 0 / 29');
    await page.keyboard.press('?');
    expect(await page.locator('#help-dialog').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
  });

  it('assigns a texture by hand when nothing matched', async () => {
    const page = await emptyPage();
    // A pure red PNG whose name matches no material.
    const red = png(8, 8, () => [255, 0, 0, 255]);
    await chooseFiles(page, [filePayload(`${FIXTURES}two_bone.psk`), { name: 'unrelated.png', mimeType: 'image/png', buffer: red }]);
    await page.evaluate(() => {
      for (const d of document.querySelectorAll('#side details')) d.open = true;
    });
    const select = page.locator('#materials select').first();
    // The list is filled when the select is focused, as clicking or tabbing to it does.
    expect(await select.locator('option').count()).toBe(1);
    await select.focus();
    expect(await select.locator('option').allTextContents()).toEqual(['Assign by hand…', 'unrelated.png']);
    await select.selectOption({ label: 'unrelated.png' });
    await page.waitForFunction(() => window.__rigscope.app.characters[0].materials[0].map?.name === 'unrelated.png');
    // The strip now shows red.
    const redPixels = await page.evaluate(() => {
      const r = window.__rigscope.viewer.countForegroundPixels();
      let n = 0;
      for (let i = 0; i < r.pixels.length; i += 4) if (r.pixels[i] > 150 && r.pixels[i + 1] < 60 && r.pixels[i + 2] < 60) n++;
      return n;
    });
    expect(redPixels).toBeGreaterThan(100);
  });
});

describe('export, links, embedding, hosting', () => {
  it('exports a GLB that validates and re-imports with the same bones and clips', async () => {
    const page = await demoPage();
    const [download] = await Promise.all([page.waitForEvent('download'), clickMenuItem(page, 'export-button')]);
    const bytes = readFileSync(await download.path());
    const report = await validateBytes(new Uint8Array(bytes));
    expect(report.issues.numErrors).toBe(0);
    const gltf = await new Promise((ok, fail) =>
      new GLTFLoader().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), '', ok, fail),
    );
    let joints = 0;
    gltf.scene.traverse((o) => {
      if (o.isSkinnedMesh) joints = Math.max(joints, o.skeleton.bones.length);
    });
    expect(joints).toBe(19);
    expect(gltf.animations.map((a) => a.name).sort()).toEqual(['Idle', 'Walk', 'Wave']);
  });

  it('restores clip, frame and camera from a share link', async () => {
    const base = inject('baseUrl');
    const file = `${base}/fixtures/two_bone.psk`;
    const anim = `${base}/fixtures/two_bone.psa`;
    const page = await openPage(
      browser,
      `/?file=${encodeURIComponent(file)}&file=${encodeURIComponent(anim)}&clip=Bend&frame=1&autoplay=0&camera=10,20,30,0,5,0`,
    );
    const state = await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      return {
        clip: app.current.clip.name,
        frame: app.frame,
        playing: app.playing,
        cam: viewer.camera.position.toArray(),
        query: window.__rigscope.shareQuery(),
      };
    });
    expect(state).toMatchObject({ clip: 'Bend', frame: 1, playing: false });
    state.cam.forEach((v, i) => expect(v).toBeCloseTo([10, 20, 30][i], 6));
    // The link the page would share carries the same state back.
    const again = await openPage(browser, `/?${state.query}`);
    expect(await again.evaluate(() => [window.__rigscope.app.current.clip.name, window.__rigscope.app.frame])).toEqual(['Bend', 1]);
    await page.close();
    await again.close();
  });

  it('packs files from this computer into the link and the embed code', async () => {
    const page = await emptyPage();
    await chooseFiles(page, [filePayload(`${FIXTURES}two_bone.psk`)]);
    await clickMenuItem(page, 'link-button');
    await page.waitForFunction(() => !document.getElementById('share-copy').disabled);
    expect(await page.locator('#share-note').innerText()).toMatch(/1 file from this computer .* travel inside the link/);
    expect(await page.locator('#share-text').inputValue()).toMatch(/^http:\/\/[^#]*index\.html[^#]*#pack=[A-Za-z0-9_-]+$/);
    await page.keyboard.press('Escape');
    await clickMenuItem(page, 'embed-button');
    await page.waitForFunction(() => !document.getElementById('share-copy').disabled);
    expect(await page.locator('#share-text').inputValue()).toMatch(/^<iframe src="http:\/\/[^"#]*embed\.html[^"#]*#pack=[A-Za-z0-9_-]+"/);
    await page.keyboard.press('Escape');
  });

  it('embed page autoplays the clip its parameters name', async () => {
    const page = await openPage(browser, '/embed.html?clip=Walk&speed=2');
    const s = await page.evaluate(() => ({
      clip: window.__rigscope.app.current.clip.name,
      playing: window.__rigscope.app.playing,
      speed: window.__rigscope.viewer.timeScale,
    }));
    expect(s).toEqual({ clip: 'Walk', playing: true, speed: 2 });
    expect((await pixels(page)).count).toBeGreaterThan(500);
    expect(await page.locator('#open-full').getAttribute('href')).toContain('index.html?clip=Walk');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('works when the built site is served from a sub-path', async () => {
    const page = await openPage(browser, `${SUB_PATH}index.html`);
    expect(await page.evaluate(() => window.__rigscope.clipNames())).toContain('Walk');
    expect((await pixels(page)).count).toBeGreaterThan(500);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('explains a file on a site that does not allow cross-origin reads', async () => {
    const foreign = inject('foreignUrl');
    const page = await openPage(browser, `/?file=${encodeURIComponent(`${foreign}/fixtures/two_bone.psk`)}`);
    expect(await page.locator('#messages').innerText()).toMatch(/CORS/);
    await page.close();
  });
});

/** An uncompressed 24-bit TGA (bottom-up rows, BGR) of one colour. */
function solidTga(w, h, [r, g, b]) {
  const header = Buffer.alloc(18);
  header[2] = 2; // uncompressed true-colour
  header.writeUInt16LE(w, 12);
  header.writeUInt16LE(h, 14);
  header[16] = 24;
  const body = Buffer.alloc(w * h * 3);
  for (let i = 0; i < w * h; i++) body.set([b, g, r], i * 3);
  return Buffer.concat([header, body]);
}

/** A DXT1 DDS of one colour: every 4×4 block has both endpoints at that colour (RGB565). */
function solidDds(w, h, [r, g, b]) {
  const header = Buffer.alloc(128);
  header.write('DDS ', 0, 'latin1');
  header.writeUInt32LE(124, 4);
  header.writeUInt32LE(0x1 | 0x2 | 0x4 | 0x1000 | 0x80000, 8); // caps, height, width, pixelformat, linear size
  header.writeUInt32LE(h, 12);
  header.writeUInt32LE(w, 16);
  header.writeUInt32LE((w / 4) * (h / 4) * 8, 20);
  header.writeUInt32LE(1, 28); // mip count
  header.writeUInt32LE(32, 76); // pixel format size
  header.writeUInt32LE(0x4, 80); // FOURCC
  header.write('DXT1', 84, 'latin1');
  header.writeUInt32LE(0x1000, 108); // texture
  const c565 = ((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3);
  const block = Buffer.alloc(8);
  block.writeUInt16LE(c565, 0);
  block.writeUInt16LE(c565, 2);
  const blocks = Buffer.concat(Array.from({ length: (w / 4) * (h / 4) }, () => block));
  return Buffer.concat([header, blocks]);
}

describe('textures from every image format', () => {
  for (const [name, make, colour, test] of [
    ['skin.tga', solidTga, [230, 20, 20], (R, G, B) => R > 150 && G < 80 && B < 80],
    ['Skin.DDS', solidDds, [20, 20, 230], (R, G, B) => B > 150 && R < 80 && G < 80],
    ['SKIN.png', (w, h, c) => png(w, h, () => [...c, 255]), [20, 200, 20], (R, G, B) => G > 130 && R < 80 && B < 80],
  ]) {
    it(`matches ${name} to the material "Skin" by name and shows it`, async () => {
      const page = await emptyPage();
      await chooseFiles(page, [
        filePayload(`${FIXTURES}two_bone.psk`),
        { name, mimeType: 'application/octet-stream', buffer: make(16, 16, colour) },
      ]);
      expect(await page.evaluate(() => window.__rigscope.app.characters[0].materials[0].map?.name)).toBe(name);
      const f = await frameAt(page);
      expect(countColour(f, test)).toBeGreaterThan(50);
      expect(page.errors).toEqual([]);
    });
  }
});
