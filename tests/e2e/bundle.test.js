// .rigscope bundles in the browser: a bundle dropped on the viewer shows what its files show (every
// family), its view applies as a packed link's does, *Save bundle* downloads one that opens again,
// and <rigscope-viewer src> and the embed page's file= open one. A bad one ends in a message that
// names it, and what was loaded stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { FAMILY_SAMPLES, SAMPLES, chooseFiles, dropFolder, filePayload, launch, until, clickMenuItem } from './browser.js';
import { sharedViewerPage } from './shared-page.js';
import { packScene } from '../../web/src/core/pack.js';
import { bundleBytes, isBundle, readBundle } from '../../web/src/core/bundle.js';

let browser, host;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * The viewer page files and bundles are chosen or dropped on, one for the file (shared-page.js):
 * emptied as Clear does, at `viewport`, its errors new. `shown` pauses what it reads, so it draws
 * nothing between tests. Pages opened from a link (the embed page, file=) stay fresh. Its page
 * closes before the browser does (afterAll hooks run last registered first).
 */
const sharedPage = sharedViewerPage(() => browser);
const viewerPage = (viewport = { width: 640, height: 480 }) => sharedPage({ viewport });

/**
 * A page of another site that holds one <rigscope-viewer> at a time, shared by the families: a
 * page's first element makes the renderer and its shaders (seconds on SwiftShader), the next
 * ones reuse them.
 */
async function hostPage() {
  if (host) return host;
  const base = inject('baseUrl');
  host = await browser.newPage({ viewport: { width: 640, height: 480 } });
  const html = `<!doctype html><html><head><meta charset="utf-8"><script type="module" src="${base}/rigscope-viewer.js"></script></head><body></body></html>`;
  await host.route(`${base}/bundle-host.html`, (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await host.goto(`${base}/bundle-host.html`);
  return host;
}

const dir = mkdtempSync(join(tmpdir(), 'rigscope-bundle-e2e-'));
const paths = (family) => FAMILY_SAMPLES[family].map((f) => SAMPLES + f);
/** A bundle of a family's samples with a view state, written outside the project; its path. */
function writeBundle(family, state = {}) {
  const files = paths(family).map((p) => ({ name: basename(p), bytes: new Uint8Array(readFileSync(p)) }));
  const path = join(dir, `${family}.rigscope`);
  writeFileSync(path, bundleBytes(packScene({ files, state })));
  return path;
}

/**
 * What the viewer shows: characters (name, clip, frame, bounds), every clip, the vertices drawn.
 * The clip is paused and posed at its first frame (`first`) or where it stands, so two pages
 * compare at one pose.
 */
const shown = (page, { first = false } = {}) =>
  page.evaluate(async (toFirst) => {
    const { app } = window.__rigscope;
    const playing = app.playing;
    if (app.current) {
      app.pause();
      app.goToFileFrame(toFirst ? app.current.clip.firstFrame : Math.round(app.current.clip.firstFrame + app.frame));
    }
    for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(r));
    let vertices = 0;
    for (const c of app.characters)
      c.root.traverse((o) => {
        if (o.isMesh) vertices += o.geometry.attributes.position.count;
      });
    const snap = app.snapshot();
    return {
      characters: snap.characters.map((c) => ({ name: c.name, clip: c.clip, frame: c.frame, bounds: c.bounds })),
      clips: app.allClips.map((c) => c.clip.name),
      vertices,
      playing,
      files: [...app.files.keys()],
      messages: snap.messages,
    };
  }, first);

/** Same characters, clips and vertices; bounds within 1e-4. */
function expectSame(got, want) {
  expect(got.characters.map((c) => [c.name, c.clip, c.frame])).toEqual(want.characters.map((c) => [c.name, c.clip, c.frame]));
  expect(got.clips).toEqual(want.clips);
  expect(got.vertices).toBe(want.vertices);
  got.characters.forEach((c, i) => {
    const w = want.characters[i].bounds;
    for (const k of ['min', 'max']) c.bounds[k].forEach((v, j) => expect(Math.abs(v - w[k][j])).toBeLessThan(1e-4));
  });
}

// What each family's samples show (the files themselves, checked in the first test of each).
const EXPECTED = {
  psk: { character: 'skSpiderLargeMesh.psk', clip: 'Walk', clips: 12, vertices: 307 },
  zeroad: { character: 'skeleton.pmd', clip: 'skeleton_idle', clips: 1, vertices: 378 },
  ue1: { character: 'mar_rifle_d.3d', clip: 'All', clips: 1, vertices: 421 },
  psg: { character: 'skinned_quad_f32.psg', clip: null, clips: 0, vertices: 4 },
};

describe.each(Object.keys(FAMILY_SAMPLES))('a bundle of %s samples', (family) => {
  let want;
  beforeAll(async () => {
    const page = await viewerPage();
    await chooseFiles(
      page,
      paths(family).map((p) => filePayload(p)),
    );
    want = await shown(page, { first: true });
  }, 120000);

  it('dropped on the viewer shows what its files show, its files named as inside it', async () => {
    expect(want.characters[0].name).toBe(EXPECTED[family].character);
    expect(want.characters[0].clip).toBe(EXPECTED[family].clip);
    expect(want.clips).toHaveLength(EXPECTED[family].clips);
    expect(want.vertices).toBe(EXPECTED[family].vertices);
    const page = await viewerPage();
    await dropFolder(page, 'uploads', [writeBundle(family)]);
    const got = await shown(page, { first: true });
    expectSame(got, want);
    expect(got.files).toEqual(paths(family).map((p) => basename(p)));
    expect(page.errors).toEqual([]);
  }, 120000);

  it('in <rigscope-viewer src> and the embed page’s file=, with its view', async () => {
    const base = inject('baseUrl');
    const url = `${base}/uploads/${family}.rigscope`;
    const clip = want.clips.at(-1) ?? null;
    const bytes = readFileSync(writeBundle(family, clip ? { clip, bg: '203040' } : { bg: '203040' }));
    const serve = (page) => page.route(url, (route) => route.fulfill({ body: bytes, headers: { 'Access-Control-Allow-Origin': '*' } }));

    const page = await hostPage();
    await serve(page);
    await page.evaluate((src) => {
      const v = document.createElement('rigscope-viewer');
      v.id = 'v';
      v.setAttribute('src', src);
      v.style.cssText = 'display:block;width:400px;height:300px';
      document.body.replaceChildren(v);
    }, url);
    // Loaded: the element lists the clips its files have (a PSG arena has none: its character is enough).
    await until(
      page,
      (n) => document.getElementById('v')?.app?.characters.length > 0 && document.getElementById('v').clips.length === n,
      want.clips.length,
      120000,
    );
    const element = await page.evaluate(() => {
      const v = document.getElementById('v');
      return {
        characters: v.app.characters.map((c) => c.name),
        clips: v.clips.map((c) => c.name),
        clip: v.currentClip ?? null,
        background: v.getAttribute('background'),
      };
    });
    expect(element.characters).toEqual(want.characters.map((c) => c.name));
    expect(element.clips).toEqual(want.clips);
    expect(element.clip).toBe(clip);
    expect(element.background).toBe('203040');
    // Removed: it stops playing while the embed page loads.
    await page.evaluate(() => document.getElementById('v').remove());

    const embed = await browser.newPage({ viewport: { width: 640, height: 480 } });
    await serve(embed);
    await embed.goto(`${base}/embed.html?file=${encodeURIComponent(url)}`);
    await embed.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 120000 });
    const snap = await embed.evaluate(() => window.__rigscope.snapshot());
    expect(snap.characters.map((c) => c.name)).toEqual(want.characters.map((c) => c.name));
    expect(snap.characters[0].clip).toBe(clip);
    await embed.close();
  }, 180000);
});

describe('Save bundle and the view a bundle carries', () => {
  it('Save bundle downloads <character>.rigscope holding the files and the view; it opens again as it was', async () => {
    const source = await viewerPage({ width: 800, height: 600 });
    await chooseFiles(
      source,
      paths('psk').map((p) => filePayload(p)),
    );
    // Another clip, paused at a frame: the bundle carries the view as a link does.
    await source.evaluate(async () => {
      const { app } = window.__rigscope;
      const pick = app.allClips.find((c) => c.clip.name === 'webattack');
      // A frame into its crossfade from the first clip: the chosen frame shows the clip alone, as
      // the bundle, like a link, does.
      if (!app.playing) app.togglePlay();
      app.select(pick.character, pick.clip);
      await new Promise((r) => requestAnimationFrame(r));
      app.pause();
      app.goToFileFrame(pick.clip.firstFrame + 30);
    });
    const want = await shown(source);
    expect(want.characters[0]).toMatchObject({ name: 'skSpiderLargeMesh.psk', clip: 'webattack', frame: 30 });
    expect(want.playing).toBe(false);
    const [download] = await Promise.all([
      source.waitForEvent('download', { timeout: 120000 }),
      clickMenuItem(source, 'save-bundle-button'),
    ]);
    expect(download.suggestedFilename()).toBe('skSpiderLargeMesh.rigscope');
    const saved = join(dir, 'saved.rigscope');
    await download.saveAs(saved);

    const bytes = readFileSync(saved);
    expect(isBundle(bytes)).toBe(true);
    const { files, state } = await readBundle(bytes, { name: 'saved.rigscope' });
    expect(files.map((f) => [f.name, f.bytes.length])).toEqual(paths('psk').map((p) => [basename(p), readFileSync(p).length]));
    expect(state).toMatchObject({ clip: 'webattack', frame: '30', autoplay: '0' });

    const page = await viewerPage({ width: 800, height: 600 });
    await chooseFiles(page, [filePayload(saved, 'skSpiderLargeMesh.rigscope')]);
    await until(page, () => window.__rigscope.app.current?.clip.name === 'webattack');
    const got = await shown(page);
    expectSame(got, want);
    expect(got.playing).toBe(false);
    expect(page.errors).toEqual([]);
  }, 240000);

  it('the viewer’s file= opens a bundle from the web at its view, and Copy link names the bundle', async () => {
    const base = inject('baseUrl');
    const url = `${base}/uploads/spider.rigscope`;
    const bytes = readFileSync(writeBundle('psk', { clip: 'Jump', frame: '5', autoplay: '0', bg: '102030' }));
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    await page.route(url, (route) => route.fulfill({ body: bytes, headers: { 'Access-Control-Allow-Origin': '*' } }));
    await page.goto(`${base}/?file=${encodeURIComponent(url)}`);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 120000 });
    const view = await page.evaluate(() => {
      const { app, viewer } = window.__rigscope;
      return {
        characters: app.characters.map((c) => c.name),
        clip: app.current?.clip.name,
        frame: app.current ? Math.round(app.current.clip.firstFrame + app.frame) : null,
        playing: app.playing,
        background: viewer.background.getHexString(),
        files: [...app.files.keys()],
      };
    });
    expect(view).toEqual({
      characters: ['skSpiderLargeMesh.psk'],
      clip: 'Jump',
      frame: 5,
      playing: false,
      background: '102030',
      files: ['skSpiderLargeMesh.psk', 'skSpiderLargeAnims.psa'],
    });
    // The files came from the web in the bundle: a link to this view names the bundle's URL again.
    await clickMenuItem(page, 'link-button');
    await page.waitForFunction(() => document.getElementById('share-text').value !== '', null, { timeout: 60000 });
    const link = new URL(await page.evaluate(() => document.getElementById('share-text').value));
    expect(link.searchParams.getAll('file')).toEqual([url]);
    expect(link.searchParams.get('clip')).toBe('Jump');
    expect(link.hash).toBe('');
    await page.close();
  }, 120000);

  it('a bad bundle ends in a message naming it and what it found; what was loaded stays', async () => {
    const page = await viewerPage();
    await chooseFiles(
      page,
      paths('zeroad').map((p) => filePayload(p)),
    );
    const bad = join(dir, 'Grunt.rigscope');
    writeFileSync(bad, '<!DOCTYPE html><title>404</title>');
    await page.setInputFiles('#file-input', [bad]);
    await page.waitForFunction(() => document.getElementById('messages').textContent.includes('Grunt.rigscope'), null, { timeout: 60000 });
    expect(await page.evaluate(() => document.getElementById('messages').textContent)).toContain(
      'Grunt.rigscope: it is not a Rigscope bundle: its first bytes (offset 0) are 3C 21 44 4F 43 54 59 50 ("<!DOCTYP")',
    );
    expect(await page.evaluate(() => window.__rigscope.app.characters.map((c) => c.name))).toEqual(['skeleton.pmd']);
  }, 120000);
});
