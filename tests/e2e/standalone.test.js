// The standalone page: one .html file with the player, the decoder and the files. It is written
// by the viewer (Save page, the download caught) and by `rigscope page`, then opened from disk
// (file://) in a page where every request that is not file: is refused: it must draw, play (two
// frames differ), and list the files' clips, for a real sample set of every family. The same file
// served from a web host works too; a bad payload in the file ends in the element's message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FIXTURES, SAMPLES, chooseFiles, filePayload, launch, clickMenuItem } from './browser.js';
import { deflateSync } from 'fflate';
import { sharedViewerPage } from './shared-page.js';
import { fromBase64Url, unpackScene } from '../../web/src/core/pack.js';
import { PACK_TAG, standalonePage } from '../../web/src/core/page.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const TEMPLATE = `${ROOT}build/standalone/rigscope-page.html`;
const SPIDER_CLIPS = [
  'Walk',
  'walk2jump',
  'Jump',
  'jump2walk',
  'webattack',
  'lungeAttackStart',
  'lungeAttack',
  'lungeAttackend',
  'flippedOver',
  'idleOnBack',
  'Idle',
  'attack',
];

// Per family: the files (as chosen in the viewer), what the CLI is given, the files the page must
// hold (the unused notes file stays out), the clips the files have (README of the samples) and
// whether the picture changes while the clip plays.
const SETS = {
  psk: {
    files: ['psk/skSpiderLargeMesh.psk', 'psk/skSpiderLargeAnims.psa'],
    held: ['skSpiderLargeMesh.psk', 'skSpiderLargeAnims.psa'],
    clips: SPIDER_CLIPS,
    moves: true,
  },
  zeroad: {
    files: ['zeroad/skeleton.pmd', 'zeroad/skeleton_idle.psa'],
    held: ['skeleton.pmd', 'skeleton_idle.psa'],
    clips: ['skeleton_idle'],
    moves: true,
  },
  // mar_rifle's 30 frames are all the same shape (every vertex equal in every frame): the clip
  // plays, the picture stays. The flag fixture (the project's own writer) is the UE1 set that moves.
  vertex3d: {
    files: ['mar_rifle_d.3d', 'mar_rifle_a.3d', 'mar_rifle.uc', 'm_rifl.bmp', 'mar_rifle.source.txt'].map(
      (n) => `vertex3d/assimp-mar_rifle/${n}`,
    ),
    cli: ['vertex3d/assimp-mar_rifle'],
    held: ['mar_rifle_d.3d', 'mar_rifle_a.3d', 'mar_rifle.uc', 'm_rifl.bmp'],
    clips: ['All'],
    moves: false,
  },
  // Its first clip, Still, holds still: the CLI asks for Wave (by --clip, in any case).
  'vertex3d flag fixture': {
    base: FIXTURES,
    files: ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'],
    held: ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'],
    clips: ['Still', 'Wave'],
    moves: true,
    cliClip: ['wave', 'Wave'],
  },
  // No public PSG carries an animation: the skinned quad draws and lists no clips.
  psg: { files: ['psg/synthetic/skinned_quad_f32.psg'], held: ['skinned_quad_f32.psg'], clips: [], moves: false },
};

let browser, dir;
beforeAll(async () => {
  if (!existsSync(TEMPLATE)) execFileSync('node', [`${ROOT}scripts/build-standalone.mjs`], { cwd: ROOT });
  dir = mkdtempSync(join(tmpdir(), 'rigscope-standalone-'));
  browser = await launch();
}, 120000);
afterAll(async () => {
  await offlineTab?.close();
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The viewer page the sets are chosen in and saved from, one for the file (shared-page.js):
 * emptied as Clear does and sized for each use. The written pages it saves are what the tests are
 * about, and each opens fresh. Its page closes before the browser does (afterAll hooks run last
 * registered first).
 */
const sharedPage = sharedViewerPage(() => browser);
const viewerPage = (viewport = { width: 800, height: 600 }) => sharedPage({ viewport });

/** Clears the viewer page once its files are saved: its playing clip would draw beside the written page. */
const doneWith = (viewer) => viewer.evaluate(() => document.getElementById('clear-button').click());

/** The files a written page holds (its pack, unpacked as the page does) and the pack's state. */
async function packOf(path) {
  const html = readFileSync(path, 'utf8');
  const tag = html.match(new RegExp(`<script type="application/octet-stream" id="${PACK_TAG}">([A-Za-z0-9_-]+)</script>\\n$`));
  expect(tag, 'the pack is the last thing in the file').not.toBeNull();
  const { files, state } = await unpackScene(fromBase64Url(tag[1]));
  return { names: files.map((f) => f.name.split('/').pop()), state };
}

/** A pack as an attacker writes it: any header (core/pack.js's layout) over any body, deflated. */
function craftedPack(files, body = new Uint8Array(0)) {
  const header = new TextEncoder().encode(JSON.stringify({ v: 1, state: {}, files }));
  const out = new Uint8Array(12 + header.length + body.length);
  out.set([0x52, 0x53, 0x50, 0x4b]); // "RSPK"
  const view = new DataView(out.buffer);
  view.setUint32(4, files.length, true);
  view.setUint32(8, header.length, true);
  out.set(header, 12);
  out.set(body, 12 + header.length);
  return deflateSync(out);
}

/**
 * Opens a written page in the file's one offline tab, where every request but a file: URL is
 * refused (and counted). Each opening is a new document read from the file; the tab is kept, as a
 * new tab costs its own renderer start. Resolves once the player has loaded (or failed, with its
 * message), the tab's errors and refused requests counted from this opening on.
 */
let offlineTab;
async function openOffline(url) {
  if (!offlineTab) {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    page.on('pageerror', (e) => page.errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/GPU stall|ReadPixels/.test(m.text())) page.errors.push(m.text());
    });
    await page.route('**/*', (route) => {
      const u = route.request().url();
      if (u.startsWith('file:')) return route.fallback();
      page.blocked.push(u);
      return route.abort();
    });
    offlineTab = page;
  }
  offlineTab.errors = [];
  offlineTab.blocked = [];
  await offlineTab.goto(url);
  await offlineTab.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 120000 });
  return offlineTab;
}

/** Done with the written page: paused, so that it draws nothing while the next one is made. */
const leave = (page) => page.evaluate(() => window.__rigscope.element?.pause());

/** Draws the player at `t` seconds into the current clip (paused); keeps the picture as `key`. */
const pictureAt = (page, t, key) =>
  page.evaluate(
    async ([time, name]) => {
      const { element, viewer } = window.__rigscope;
      element.pause();
      element.currentTime = time;
      // What a person sees: the frames the page draws next (vertex animation is applied per frame).
      for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(r));
      const { count, total } = viewer.countForegroundPixels();
      (window.__pictures ??= {})[name] = viewer.context2d.getImageData(0, 0, viewer.width, viewer.height).data;
      return { count, total };
    },
    [t, key],
  );

/** Pixels whose colour changed by more than 24 (summed over R, G, B) between two kept pictures. */
const changedPixels = (page, a, b) =>
  page.evaluate(
    ([x, y]) => {
      const [p, q] = [window.__pictures[x], window.__pictures[y]];
      let n = 0;
      for (let i = 0; i < p.length; i += 4)
        if (Math.abs(p[i] - q[i]) + Math.abs(p[i + 1] - q[i + 1]) + Math.abs(p[i + 2] - q[i + 2]) > 24) n++;
      return n;
    },
    [a, b],
  );

/** Draws, lists the clips, plays (frames differ), offers fullscreen; nothing but file: was asked for. */
async function expectPlayerWorks(page, set) {
  const state = await page.evaluate(() => {
    const { element } = window.__rigscope;
    const root = element.shadowRoot;
    return {
      characters: element.snapshot().characters.length,
      messages: element.messages.map((m) => m.text),
      clips: element.clips.map((c) => c.name),
      options: [...root.querySelectorAll('select.clips option')].map((o) => o.textContent),
      chooser: !root.querySelector('select.clips').hidden,
      timeline: !root.querySelector('input.scrub').disabled,
      fullscreen: !root.querySelector('button.fullscreen').hidden,
      playing: !element.paused,
    };
  });
  expect(state.messages).toEqual([]);
  expect(state.characters).toBe(1);
  expect(state.clips).toEqual(set.clips);
  expect(state.options).toEqual(set.clips);
  expect(state.chooser).toBe(set.clips.length > 1);
  expect(state.fullscreen).toBe(true);
  expect(state.timeline).toBe(set.clips.length > 0);
  expect(state.playing).toBe(set.clips.length > 0);
  const first = await pictureAt(page, 0, 'first');
  expect(first.count, 'the canvas is drawn').toBeGreaterThan(first.total * 0.002);
  if (set.clips.length) {
    // The current clip plays: half its length on, the frame shown (and, if it moves, the picture) changes.
    const duration = await page.evaluate(() => window.__rigscope.element.app.current.clip.duration);
    const frameLabel = () => page.evaluate(() => window.__rigscope.element.shadowRoot.querySelector('.frame-label').textContent);
    const firstLabel = await frameLabel();
    await pictureAt(page, duration / 2, 'later');
    expect(await frameLabel()).not.toBe(firstLabel);
    const changed = await changedPixels(page, 'first', 'later');
    if (set.moves) expect(changed, 'the clip moves between two frames').toBeGreaterThan(30);
    else expect(changed, 'a clip whose frames are all alike draws alike').toBe(0);
    if (set.clips.length > 1) {
      // Choosing another clip in the list shows it.
      const { from, to } = await page.evaluate(() => {
        const { element } = window.__rigscope;
        const select = element.shadowRoot.querySelector('select.clips');
        const was = element.currentClip;
        select.value = select.value === '0' ? '1' : '0';
        select.dispatchEvent(new Event('change'));
        return { from: was, to: element.currentClip };
      });
      expect(to).not.toBe(from);
      expect(set.clips).toContain(to);
    }
  }
  expect(page.blocked).toEqual([]);
  expect(page.errors).toEqual([]);
}

describe.each(Object.keys(SETS))('a standalone page of %s samples', (family) => {
  const set = SETS[family];

  it('written by the viewer (Save page) opens from disk with no network: draws, plays, lists the clips', async () => {
    const viewer = await viewerPage();
    await chooseFiles(
      viewer,
      set.files.map((p) => filePayload(`${set.base ?? SAMPLES}${p}`)),
    );
    const [download] = await Promise.all([viewer.waitForEvent('download', { timeout: 120000 }), clickMenuItem(viewer, 'save-page-button')]);
    const path = join(dir, `viewer-${family}.html`);
    await download.saveAs(path);
    expect(download.suggestedFilename()).toMatch(/\.html$/);
    const shown = await viewer.evaluate(() => ({
      clips: window.__rigscope.app.allClips.map((c) => c.clip.name),
      clip: window.__rigscope.app.current?.clip.name,
    }));
    await doneWith(viewer);
    expect(shown.clips).toEqual(set.clips);
    const { names, state } = await packOf(path);
    expect(names).toEqual(set.held);
    expect(state.clip).toBe(shown.clip);
    const page = await openOffline(pathToFileURL(path).href);
    await expectPlayerWorks(page, set);
    await leave(page);
  }, 240000);

  it('written by `rigscope page` opens from disk with no network: draws, plays, lists the clips', async () => {
    const path = join(dir, `cli-${family}.html`);
    const out = execFileSync(
      'node',
      [
        `${ROOT}web/cli/rigscope.js`,
        'page',
        ...(set.cli ?? set.files).map((p) => `${set.base ?? SAMPLES}${p}`),
        '-o',
        path,
        ...(set.cliClip ? ['--clip', set.cliClip[0]] : []),
      ],
      { encoding: 'utf8' },
    );
    expect(out).toContain(`${set.held.length} file(s)`);
    const { names, state } = await packOf(path);
    expect(names.sort()).toEqual([...set.held].sort());
    expect(state.clip).toBe(set.cliClip?.[1]);
    const page = await openOffline(pathToFileURL(path).href);
    if (set.cliClip) expect(await page.evaluate(() => window.__rigscope.element.currentClip)).toBe(set.cliClip[1]);
    await expectPlayerWorks(page, set);
    await leave(page);
  }, 240000);
});

describe('the standalone page', () => {
  it('is what the share dialog offers for a set too long for a link, and it carries that set', async () => {
    const files = [
      'psk/Suzanne_x130_face3200.pskx',
      'psk/Grunt_Preview_LOD0.psk',
      'psk/grunt_hh_grabplayer_crouch_SEQ0.psa',
      ...SETS.psk.files,
    ];
    const viewer = await viewerPage({ width: 1280, height: 800 });
    await chooseFiles(
      viewer,
      files.map((p) => filePayload(`${SAMPLES}${p}`)),
    );
    // Paused: the set is checked, not the clip, which would draw every frame while the files are packed.
    await viewer.evaluate(() => window.__rigscope.pause());
    await clickMenuItem(viewer, 'link-button');
    await viewer.waitForSelector('#share-save-page', { state: 'visible', timeout: 120000 });
    const [download] = await Promise.all([viewer.waitForEvent('download', { timeout: 120000 }), viewer.click('#share-save-page')]);
    const path = join(dir, 'too-long.html');
    await download.saveAs(path);
    const want = await viewer.evaluate(() => window.rigscope.snapshot().characters.map((c) => c.name));
    expect(await viewer.evaluate(() => document.getElementById('share-dialog').open)).toBe(false);
    await doneWith(viewer);
    expect((await packOf(path)).names).toEqual(files.map((p) => p.split('/').pop()));
    const page = await openOffline(pathToFileURL(path).href);
    const got = await page.evaluate(() => ({
      names: window.__rigscope.element.snapshot().characters.map((c) => c.name),
      messages: window.__rigscope.element.messages,
    }));
    expect(got.messages).toEqual([]);
    expect(got.names).toEqual(want);
    expect((await pictureAt(page, 0, 'big')).count).toBeGreaterThan(1000);
    expect(page.blocked).toEqual([]);
    await leave(page);
  }, 300000);

  it('works from a web host too (the same file, served over http)', async () => {
    const path = join(dir, 'cli-psk.html');
    const url = 'http://rigscope-page.test/wiki/uploads/spider.html';
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    page.errors = [];
    page.blocked = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    await page.route('**/*', (route) => {
      if (route.request().url() === url) return route.fulfill({ status: 200, contentType: 'text/html', body: readFileSync(path) });
      page.blocked.push(route.request().url());
      return route.abort();
    });
    await page.goto(url);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 120000 });
    await expectPlayerWorks(page, SETS.psk);
    await page.close();
  }, 240000);

  it('with a bad payload ends in a clear message and stays responsive', async () => {
    const template = readFileSync(TEMPLATE, 'utf8');
    const cases = {
      // Not deflate at all.
      garbage: [standalonePage(template, new Uint8Array(64).fill(7)), /^Packed scene: /],
      // A character base64url never uses, written into the tag by hand.
      base64: [
        `${template}<script type="application/octet-stream" id="${PACK_TAG}">AAAA*AAA</script>\n`,
        /not base64url: character "\*" at position 4/,
      ],
      // Sizes a bomb would declare, a name with a path, a file cut short.
      bomb: [
        standalonePage(template, craftedPack([{ name: 'a.psk', size: 2 ** 40 }])),
        /Packed scene: its files declare 1,099,511,627,776 bytes, over the .+ limit/,
      ],
      path: [
        standalonePage(template, craftedPack([{ name: '../x.psk', size: 4 }], new Uint8Array(4))),
        /Packed scene: file 1's name "\.\.\/x\.psk" has an empty, "\." or "\.\." folder/,
      ],
      cut: [
        standalonePage(template, craftedPack([{ name: 'a.psk', size: 100 }], new Uint8Array(10))),
        /Packed scene: it is cut off: a\.psk has 10 bytes of its 100 bytes/,
      ],
      // The template alone: no scene in it.
      empty: [template, /carries no scene/],
    };
    for (const [name, [html, message]] of Object.entries(cases)) {
      const path = join(dir, `bad-${name}.html`);
      writeFileSync(path, html);
      const page = await openOffline(pathToFileURL(path).href);
      const shown = await page.evaluate(() => [
        ...window.__rigscope.element.messages.map((m) => m.text),
        ...[...document.querySelectorAll('#errors p')].map((p) => p.textContent),
      ]);
      expect(shown.join('\n'), name).toMatch(message);
      // Still answering: a task runs and the player's controls respond.
      expect(
        await page.evaluate(() => new Promise((ok) => setTimeout(() => ok(window.__rigscope.element.snapshot().characters.length), 0))),
      ).toBe(0);
      expect(page.blocked).toEqual([]);
      await leave(page);
    }
  }, 240000);
});
