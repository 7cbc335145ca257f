// Packed links: files opened from this computer travel inside the link's fragment (#pack=…), with
// the view. A real sample set of each family is opened, its link copied, and the link opened in a
// page that can reach nothing but the site itself (no samples, no fixtures, no other host): it
// must show the same scene, in the viewer and in the embed page, and in <rigscope-viewer>.
// Hostile links end in a message while the page keeps drawing and keeps what it had.
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { deflateSync } from 'fflate';
import { chooseFiles, fileBrowser, filePayload, fixtureBytes, longestTaskDuring, openPage, SAMPLES, clickMenuItem } from './browser.js';
import { sharedViewerPage } from './shared-page.js';
import { packScene, toBase64Url } from '../../web/src/core/pack.js';

const browser = fileBrowser(['--disable-features=LocalNetworkAccessChecks']);

const SETS = {
  psk: ['psk/skSpiderLargeMesh.psk', 'psk/skSpiderLargeAnims.psa'],
  zeroad: ['zeroad/skeleton.pmd', 'zeroad/skeleton_idle.psa'],
  // The folder as it is: the notes file is not used and must stay out of the link.
  vertex3d: [
    'vertex3d/assimp-mar_rifle/mar_rifle_d.3d',
    'vertex3d/assimp-mar_rifle/mar_rifle_a.3d',
    'vertex3d/assimp-mar_rifle/mar_rifle.uc',
    'vertex3d/assimp-mar_rifle/m_rifl.bmp',
    'vertex3d/assimp-mar_rifle/mar_rifle.source.txt',
  ],
  psg: ['psg/skybox_night.psg', 'psg/skybox_textures.psg'],
};
const UNUSED = { vertex3d: ['mar_rifle.source.txt'] };

const snapshot = (page) => page.evaluate(() => (window.rigscope ?? window.__rigscope).snapshot());

/** Same characters, clips and frames; bounds within 1e-4. */
function expectSameScene(got, want) {
  if (process.env.SHARE_DEBUG) console.log(JSON.stringify({ got: got.characters, want: want.characters }));
  expect(got.characters.map((c) => [c.name, c.clip, c.frame])).toEqual(want.characters.map((c) => [c.name, c.clip, c.frame]));
  got.characters.forEach((c, i) => {
    const w = want.characters[i].bounds;
    if (!w) return expect(c.bounds).toBeNull();
    for (const k of ['min', 'max'])
      c.bounds[k].forEach((v, j) => expect(Math.abs(v - w[k][j]), `${c.name} bounds.${k}[${j}]`).toBeLessThan(1e-4));
  });
}

/**
 * A page that may load only the site itself: requests to the samples and fixtures the test
 * server also serves, and to any other origin, are refused (and counted).
 */
async function isolatedPage(viewport = { width: 800, height: 600 }) {
  const base = new URL(inject('baseUrl'));
  const page = await browser.newPage({ viewport });
  page.errors = [];
  page.blocked = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/GPU stall|favicon|ReadPixels|ERR_FAILED/.test(m.text())) page.errors.push(m.text());
  });
  await page.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.origin === base.origin && !/^\/(samples|fixtures)\//.test(u.pathname)) return route.continue();
    page.blocked.push(u.href);
    return route.abort();
  });
  return page;
}

async function openLink(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 120000 });
  // The embed page is ready at its element's load event; the scene is then fully applied.
  await page.waitForFunction(() => (window.rigscope ?? window.__rigscope).snapshot().characters.length > 0, null, { timeout: 60000 });
}

/**
 * The viewer page sets are chosen in, one for the file (a fresh page costs about 3 CPU-seconds):
 * cleared first (Clear, as a person does; memory.test.js tests it), at `viewport`, its errors
 * new. Pages a link opens stay fresh: their start is the subject.
 */
const sharedPage = sharedViewerPage(browser);
const viewerPage = (viewport = { width: 640, height: 480 }) => sharedPage({ viewport });

/** Opens a family's set in the viewer, picks a clip that is not the first, a frame and a camera. */
async function sourcePage(family) {
  const page = await viewerPage({ width: 800, height: 600 });
  await chooseFiles(
    page,
    SETS[family].map((p) => filePayload(`${SAMPLES}${p}`)),
  );
  // Another clip, a frame into its crossfade: the frame chosen below shows that clip alone, as a
  // link does.
  await page.evaluate(async () => {
    const { app } = window.__rigscope;
    const clips = app.allClips;
    if (!app.playing) app.togglePlay();
    if (clips.length > 1) app.select(clips[1].character, clips[1].clip);
    await new Promise((r) => requestAnimationFrame(r));
  });
  await page.evaluate(() => {
    const { app, viewer } = window.__rigscope;
    app.pause();
    if (app.current) app.goToFileFrame(app.current.clip.firstFrame + Math.floor(app.current.clip.frameCount / 2));
    viewer.camera.position.lerp(viewer.controls.target, -0.25);
    viewer.controls.update();
  });
  return page;
}

async function share(page, kind) {
  await clickMenuItem(page, kind === 'embed' ? 'embed-button' : 'link-button');
  await page.waitForFunction(
    () => document.getElementById('share-text').value !== '' || !document.getElementById('share-too-long').hidden,
    null,
    { timeout: 60000 },
  );
  return page.evaluate(() => ({
    text: document.getElementById('share-text').value,
    note: document.getElementById('share-note').textContent,
    files: [...document.querySelectorAll('#share-files li')].map((li) => li.textContent),
    tooLong: !document.getElementById('share-too-long').hidden,
    copyDisabled: document.getElementById('share-copy').disabled,
  }));
}

const cameraOf = (page) =>
  page.evaluate(() => {
    const { viewer } = window.__rigscope;
    return [...viewer.camera.position.toArray(), ...viewer.controls.target.toArray()];
  });

/** Each family's source scene and its link, as the tests of its set made them (later tests reuse them). */
const made = new Map();

describe.each(Object.keys(SETS))('a packed link of %s samples', (family) => {
  let source, want, link, embed;
  beforeAll(async () => {
    source = await sourcePage(family);
    want = await snapshot(source);
    link = await share(source, 'link');
    made.set(family, { want, link });
    await source.keyboard.press('Escape');
    embed = await share(source, 'embed');
    await source.keyboard.press('Escape');
  }, 180000);

  it('says how long it is and what it holds, leaving out what the scene does not use', () => {
    expect(want.characters.length).toBeGreaterThan(0);
    expect(link.tooLong).toBe(false);
    expect(link.text).toMatch(/\/index\.html#pack=[A-Za-z0-9_-]+$/);
    const used = SETS[family].map((p) => p.split('/').pop()).filter((n) => !UNUSED[family]?.includes(n));
    expect(link.files.filter((f) => !/left out/.test(f)).map((f) => f.split(' — ')[0])).toEqual(used);
    for (const n of UNUSED[family] ?? []) expect(link.files).toContain(`${n} — left out (the scene does not use it)`);
    expect(link.note).toContain(`${link.text.length.toLocaleString('en')} characters: ${used.length} files from this computer`);
    expect(embed.text).toMatch(/^<iframe src="[^"]+\/embed\.html#pack=[A-Za-z0-9_-]+" /);
  });

  it('opens in the viewer with nothing but the site: the same scene, clip, frame and camera', async () => {
    const page = await isolatedPage();
    await openLink(page, link.text);
    expectSameScene(await snapshot(page), want);
    const [got, had] = [await cameraOf(page), await cameraOf(source)];
    got.forEach((v, i) => expect(Math.abs(v - had[i])).toBeLessThan(1e-3));
    expect(page.blocked).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.close();
  }, 180000);

  it('opens in the embed page with nothing but the site: the same scene', async () => {
    const page = await isolatedPage();
    await openLink(page, embed.text.match(/src="([^"]+)"/)[1]);
    expectSameScene(await snapshot(page), want);
    expect(page.blocked).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.close();
  }, 180000);
});

describe('<rigscope-viewer> with a packed scene', () => {
  it('takes src="#pack=…" and packed="…" on a wiki page of another origin, and shows the same scene', async () => {
    // The zeroad set's link as its own tests made it (made again when only this test runs).
    const madeBefore = async () => {
      const source = await sourcePage('zeroad');
      const got = { want: await snapshot(source), link: await share(source, 'link') };
      await source.keyboard.press('Escape');
      return got;
    };
    const { want, link } = made.get('zeroad') ?? (await madeBefore());
    const fragment = link.text.slice(link.text.indexOf('#'));
    const base = inject('baseUrl');
    const page = await isolatedPage();
    const url = `${inject('foreignUrl')}/wiki.html`;
    const csp = `default-src 'none'; script-src ${base} 'wasm-unsafe-eval'; worker-src blob: ${base}; connect-src ${base}; img-src ${base} data: blob:; style-src 'self'`;
    await page.route(url, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<script type="module" src="${base}/rigscope-viewer.js"></script></head><body>
<rigscope-viewer id="a" src="${fragment}" style="width:400px;height:300px"></rigscope-viewer>
<rigscope-viewer id="b" packed="${fragment.slice('#pack='.length)}" style="width:400px;height:300px"></rigscope-viewer></body></html>`,
      }),
    );
    await page.goto(url);
    for (const id of ['a', 'b']) {
      const end = Date.now() + 120000;
      while (
        !(await page.evaluate(
          (i) => document.getElementById(i)?.snapshot?.().characters.length > 0 && document.getElementById(i).currentClip !== null,
          id,
        ))
      ) {
        if (Date.now() > end) throw new Error(`viewer ${id} did not load`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expectSameScene(await page.evaluate((i) => document.getElementById(i).snapshot(), id), want);
      expect(await page.evaluate((i) => document.getElementById(i).messages, id)).toEqual([]);
    }
    expect(page.blocked.filter((u) => !u.startsWith(url))).toEqual([]);
    await page.close();
  }, 240000);
});

describe('links that do not fit', () => {
  it('says so plainly, copies nothing and offers the standalone page', async () => {
    const page = await viewerPage({ width: 1280, height: 800 });
    const files = ['psk/Suzanne_x130_face3200.pskx', 'psk/Grunt_Preview_LOD0.psk', 'psk/grunt_hh_grabplayer_crouch_SEQ0.psa', ...SETS.psk];
    await chooseFiles(
      page,
      files.map((p) => filePayload(`${SAMPLES}${p}`)),
    );
    // Paused: the dialog is checked, not the clip, which would draw every frame while the files are packed.
    await page.evaluate(() => window.__rigscope.pause());
    const result = await share(page, 'link');
    expect(result.tooLong).toBe(true);
    expect(result.text).toBe('');
    expect(result.copyDisabled).toBe(true);
    expect(result.note).toMatch(
      /^These 5 files \(6\.\d MiB\) do not fit in a link: packed, they pass the 2,097,152 characters the longest link Chromium opens may have/,
    );
    // Save page where that button exists; the README's section where it does not.
    const offer = await page.evaluate(() => ({
      button: !document.getElementById('share-save-page').hidden,
      readme: !document.getElementById('share-save-readme').hidden,
      exists: !!document.getElementById('save-page-button'),
    }));
    expect(offer.button).toBe(offer.exists);
    expect(offer.readme).toBe(!offer.exists);
    await page.screenshot({ path: 'build/share-too-long-desktop.png' });
    await page.keyboard.press('Escape');
  }, 180000);

  it('a link longer than Firefox opens says where it opens', async () => {
    const page = await viewerPage({ width: 390, height: 844 });
    await chooseFiles(page, [filePayload(`${SAMPLES}psk/Suzanne_x130_face3200.pskx`)]);
    await page.evaluate(() => window.__rigscope.pause());
    const result = await share(page, 'link');
    expect(result.tooLong).toBe(false);
    expect(result.text.length).toBeGreaterThan(1024 * 1024);
    expect(result.text.length).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(result.note).toContain("longer than Firefox's 1,048,576 characters");
    await page.screenshot({ path: 'build/share-phone.png' });
    await page.keyboard.press('Escape');
    // Cleared: the 400k-triangle model would weigh on every frame of the tests after.
    await page.evaluate(() => document.getElementById('clear-button').click());
  }, 180000);
});

// ---- hostile links ------------------------------------------------------------------------------

/** A container written by hand (core/pack.js's layout), so it can lie. */
function container(header, body = new Uint8Array(0)) {
  const h = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(12 + h.length + body.length);
  out.set(new TextEncoder().encode('RSPK'), 0);
  new DataView(out.buffer).setUint32(4, header.files.length, true);
  new DataView(out.buffer).setUint32(8, h.length, true);
  out.set(h, 12);
  out.set(body, 12 + h.length);
  return toBase64Url(deflateSync(out));
}

const good = toBase64Url(packScene({ files: [{ name: 'two_bone.psk', bytes: fixtureBytes('two_bone.psk') }], state: {} }));
const HOSTILE = [
  ['bad base64', 'abc*def', 'character "*" at position 3'],
  ['a truncated payload', good.slice(0, Math.floor(good.length / 2)), 'cut off'],
  [
    'a payload that inflates past its header',
    container({ v: 1, files: [{ name: 'a.psk', size: 10 }] }, new Uint8Array(20_000_000)),
    'inflates past the 10 bytes its header declares',
  ],
  ['a header past the byte cap', container({ v: 1, files: [{ name: 'a.psk', size: 2 ** 31 + 1 }] }), 'over the 2 GiB limit'],
  // Refused from the count before any name is read (the unit tests cover distinct names too).
  [
    'more files than the zip budget',
    container({ v: 1, files: Array.from({ length: 20001 }, () => ({ name: 'a.psk', size: 0 })) }),
    'holds 20,001 files, over the limit of 20,000',
  ],
  [
    'a name with a path',
    container({ v: 1, files: [{ name: '../../etc/passwd', size: 1 }] }, new Uint8Array(1)),
    'has an empty, "." or ".." folder in its path',
  ],
  [
    'a name with a control character',
    container({ v: 1, files: [{ name: 'a\u0007.psk', size: 1 }] }, new Uint8Array(1)),
    'has the control character U+0007 at position 1',
  ],
];

const messagesText = (page) => page.evaluate(() => document.getElementById('messages').textContent);
const characterNames = (page) => page.evaluate(() => window.__rigscope.app.characters.map((c) => c.name));

describe('hostile packed links', () => {
  // Heartbeat tests measure the page against wall-clock time: a busy machine can stall any page
  // once, so a stall must repeat to fail. Each has a fresh page: on the page the sets above were
  // opened in (its heap holding what they left), the main thread's time went past the budgets.
  it.each(HOSTILE)(
    '%s: one message, the page keeps drawing, what was loaded stays',
    { retry: 2 },
    async (_, text, message) => {
      const page = await openPage(browser, '/?demo=0');
      await chooseFiles(page, [{ name: 'two_bone.psk', mimeType: 'application/octet-stream', buffer: fixtureBytes('two_bone.psk') }]);
      await page.evaluate(() => window.__rigscope.pause());
      const blocked = await longestTaskDuring(page, async () => {
        await page.evaluate((t) => {
          location.hash = `pack=${t}`;
        }, text);
        await page.waitForFunction((m) => document.getElementById('messages').textContent.includes(m), message, { timeout: 60000 });
      });
      expect(await messagesText(page)).toContain('Nothing was opened from this link; what was loaded stays.');
      expect(blocked).toBeLessThan(200);
      expect(await characterNames(page)).toEqual(['two_bone.psk']);
      expect(page.errors).toEqual([]);
      await page.close();
    },
    120000,
  );

  it(
    'a thousand tiny files open within the budget without freezing the page',
    { retry: 2 },
    async () => {
      const page = await openPage(browser, '/?demo=0');
      await chooseFiles(page, [{ name: 'two_bone.psk', mimeType: 'application/octet-stream', buffer: fixtureBytes('two_bone.psk') }]);
      await page.evaluate(() => window.__rigscope.pause());
      const tiny = toBase64Url(
        packScene({
          files: Array.from({ length: 1000 }, (_, i) => ({ name: `tiny/${i}.psk`, bytes: Uint8Array.of(i & 255, 1, 2) })),
          state: {},
        }),
      );
      const blocked = await longestTaskDuring(page, async () => {
        await page.evaluate((t) => {
          location.hash = `pack=${t}`;
        }, tiny);
        await page.waitForFunction(() => /^1000 files read/.test(document.getElementById('status').textContent), null, { timeout: 120000 });
      });
      expect(blocked).toBeLessThan(500);
      expect(await characterNames(page)).toEqual(['two_bone.psk']);
      expect(page.errors).toEqual([]);
      await page.close();
    },
    180000,
  );

  it('a bad link in the embed page shows its message inside the player', async () => {
    const page = await isolatedPage();
    await openLinkAllowingFailure(page, `${inject('baseUrl')}/embed.html#pack=abc*def`);
    const notes = await page.evaluate(() =>
      [...document.getElementById('player').shadowRoot.querySelectorAll('.messages p')].map((p) => p.textContent),
    );
    expect(notes.join(' ')).toContain('Packed scene: the packed data is not base64url: character "*" at position 3');
    await page.close();
  });
});

async function openLinkAllowingFailure(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
}
