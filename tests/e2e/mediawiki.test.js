// The MediaWiki extension (integrations/mediawiki/Rigscope) on a real wiki: Debian's MediaWiki 1.39
// installed on SQLite in a temporary folder, served by `php -S`, the extension folder copied in as an
// administrator would (with the built player in it), `rigscope inspect` checking uploads and
// `rigscope poster` drawing thumbnails, under a strict CSP. One wiki for the whole file.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { FAMILY_SAMPLES, SAMPLES, launch } from './browser.js';
import { EXTENSION_DIR, MEDIAWIKI, hasMediaWiki, openTestWiki } from './mediawiki/wiki.js';
import { buildMediaWiki } from '../../scripts/build-mediawiki.mjs';
import { packScene } from '../../web/src/core/pack.js';

const root = new URL('../..', import.meta.url).pathname;
const ready = hasMediaWiki() && existsSync(SAMPLES);
if (!ready) console.warn("mediawiki.test.js: skipped (needs Debian's mediawiki and php, see scripts/setup.sh, and ../shared/samples)");
/** Screenshots for a person to look at: RIGSCOPE_SHOTS=/tmp/shots. */
const SHOTS = process.env.RIGSCOPE_SHOTS;

const BUNDLE_SIGNATURE = Buffer.from([0x89, 0x52, 0x53, 0x42, 0x0d, 0x0a, 0x1a, 0x0a]);
const spider = (f) => `${SAMPLES}psk/${f}`;

// The page every browser test reads: a thumbnail with a clip, a tag and a parser function of
// several files, a bundle, and two names that are no file (one with markup in it).
const PAGE = `A spider:
[[File:SkSpiderLargeMesh.psk|thumb|320px|clip=Walk|frame=12|The spider, walking]]

<rigscope clip="Idle" height="300">SkSpiderLargeMesh.psk SkSpiderLargeAnims.psa</rigscope>

{{#rigscope:Skeleton.pmd|Skeleton_idle.psa|clip=skeleton_idle|height=300}}

[[File:Mar_rifle_d.3d|220px]] [[File:Skinned_quad_f32.psg|220px]] [[File:Spider.rigscope|220px]]

<rigscope>Nope.psk</rigscope>
{{#rigscope:Nope<b>bold</b>.psa}}
<rigscope>Nope{{SITENAME}}[[Main_Page]].psk</rigscope>
`;

// Markup an editor may write that looks like the extension's: none of it may run or fetch anything.
const HOSTILE = `<span class="rigscope-thumb" id="h1" data-rigscope-player="data:text/javascript,window.pwned=1" data-rigscope-src="http://127.0.0.2:9/evil.psk" style="display:block;width:300px;height:60px">click me</span>
<span class="rigscope-thumb" id="h2" data-mw-rigscope='{"src":["http://127.0.0.2:9/evil.psk"]}' style="display:block;width:300px;height:60px">and me</span>
{{#tag:span|and me too|class=rigscope-thumb|id=h3|style=display:block;width:300px;height:60px|data-mw-rigscope={"src":["/index.php?title=X&action=raw"]}|data-rigscope-player=/index.php?title=User:X/x.js&action=raw}}
[[File:SkSpiderLargeMesh.psk|200px]]`;

describe.skipIf(!ready)('MediaWiki extension', () => {
  let wiki, browser, dir, thumbsBeforeJobs, models, jobsRun;
  const uploads = {};

  beforeAll(async () => {
    dir = mkdtempSync('/tmp/rigscope-wiki-');
    // The extension as an administrator installs it: the folder copied into extensions/, with the
    // built player (npm run build puts it there; here, from the site the e2e setup built).
    const extension = `${dir}/extensions/Rigscope`;
    cpSync(EXTENSION_DIR, extension, { recursive: true, filter: (src) => !src.includes('/resources/player') });
    buildMediaWiki(`${root}${inject('siteDir')}`, `${extension}/resources/player`);
    wiki = await openTestWiki('main', {
      dir,
      extensionDir: extension,
      posters: true,
      settings: `
# A test stands in a command line that is not there, for one maintenance run.
if ( getenv( 'RIGSCOPE_TEST_CLI' ) ) {
	$wgRigscopeCli = getenv( 'RIGSCOPE_TEST_CLI' );
}
# A test stands in another poster command (one that hangs) for one job run.
if ( getenv( 'RIGSCOPE_TEST_POSTER' ) ) {
	$wgRigscopePosterCommand = json_decode( getenv( 'RIGSCOPE_TEST_POSTER' ), true );
	$wgRigscopeLimits['poster']['seconds'] = 2;
}
# A strict CSP: scripts only from the wiki itself (and RL's nonce), no inline fallback.
$wgCSPHeader = [ 'useNonces' => true, 'unsafeFallback' => false, 'default-src' => [] ];
`,
    });
    // Uploads draw nothing: posters are drawn by jobs, after the pages that show them are saved.
    for (const files of Object.values(FAMILY_SAMPLES))
      for (const f of files) {
        const name = f.split('/').pop();
        uploads[name] = await wiki.api.upload(`${SAMPLES}${f}`, name);
      }
    // The animation again under the mesh's name: a thumbnail finds it as its companion.
    uploads['SkSpiderLargeMesh.psa'] = await wiki.api.upload(spider('skSpiderLargeAnims.psa'), 'SkSpiderLargeMesh.psa');
    const bundle = Buffer.concat([
      BUNDLE_SIGNATURE,
      packScene({
        files: ['skSpiderLargeMesh.psk', 'skSpiderLargeAnims.psa'].map((name) => ({ name, bytes: readFileSync(spider(name)) })),
        state: { clip: 'Walk' },
      }),
    ]);
    writeFileSync(`${dir}/Spider.rigscope`, bundle);
    uploads['Spider.rigscope'] = await wiki.api.upload(`${dir}/Spider.rigscope`);
    await wiki.api.edit('Models', PAGE);
    await wiki.api.edit(
      'Twelve',
      Array.from({ length: 12 }, (_, i) => `<rigscope height="160" width="240">Skeleton.pmd Skeleton_idle.psa</rigscope>`).join('\n'),
    );
    await wiki.api.edit('Hostile', HOSTILE);
    thumbsBeforeJobs = Number(execSync(`find ${dir}/images -name '*.png' | wc -l`, { encoding: 'utf8' }));
    // The file page's OpenGraph image is asked for at its first view; then the job runner draws
    // every poster the pages and that view asked for, and purges the pages that show them.
    await fetch(`${wiki.url}/index.php?title=File:SkSpiderLargeMesh.psa`);
    // Two runners, as a wiki may have (the extension's slots allow two posters at once), racing
    // for the views waiting: the first job's run takes every set of files it has room for (one
    // browser), a job the other runner took meanwhile draws its own.
    jobsRun = (await Promise.all([wiki.runJobs(), wiki.runJobs()])).join('\n');
    browser = await launch();
  }, 900000);

  afterAll(async () => {
    await browser?.close();
    wiki?.remove();
  });

  /**
   * Opens a wiki page, counting WebGL contexts and CSP violations, and the players' events.
   * `still`: the reader asks for reduced motion, so players hold their first pose instead of
   * playing, for checks that are not about playing (a playing player draws every frame on the
   * CPU under SwiftShader, beside the next one's load).
   */
  async function open(path, { viewport = { width: 1280, height: 800 }, still = false } = {}) {
    const page = await browser.newPage({ viewport, reducedMotion: still ? 'reduce' : 'no-preference' });
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/GPU stall|favicon|ReadPixels|Failed to load resource/.test(m.text())) page.errors.push(m.text());
    });
    // A resource that failed, named (the console's line for it names no address).
    page.on('response', (r) => r.status() >= 400 && !/favicon/.test(r.url()) && page.errors.push(`${r.status()} ${r.url()}`));
    await page.addInitScript(() => {
      window.__gl = 0;
      window.__csp = [];
      window.__events = [];
      const getContext = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
        const ctx = getContext.call(this, type, ...rest);
        if (ctx && /webgl/.test(type) && !this.__counted) {
          this.__counted = true;
          window.__gl++;
        }
        return ctx;
      };
      document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
      for (const type of ['load', 'error'])
        document.addEventListener(
          type,
          // The time shown when it loaded, before anything plays it on.
          (e) => e.target?.localName === 'rigscope-viewer' && window.__events.push({ type, t: e.target.currentTime }),
          true,
        );
    });
    // A file page's first view draws its poster (a headless browser on the server): minutes on a busy machine.
    const response = await page.goto(`${wiki.url}${path}`, { timeout: 300000 });
    page.csp = response.headers()['content-security-policy'];
    await page.waitForFunction(() => window.mw?.loader?.getState('ext.rigscope') === 'ready', null, { timeout: 30000 });
    return page;
  }

  /** Waits for the `n`th player's load event (not a fixed sleep). */
  const loaded = (page, n) =>
    page.waitForFunction((k) => window.__events.filter((e) => e.type === 'load').length >= k, n, { timeout: 120000 });

  it('accepts every family sample, typed by content, with the facts rigscope inspect found', async () => {
    for (const [name, r] of Object.entries(uploads)) expect(r.upload?.result, `${name}: ${JSON.stringify(r.error)}`).toBe('Success');
    // Uploads and saves drew no poster: the job runner did, after them.
    expect(thumbsBeforeJobs).toBe(0);
    const info = await wiki.api.request({
      action: 'query',
      titles: 'File:SkSpiderLargeAnims.psa|File:Skeleton.pmd|File:Mar_rifle_a.3d|File:Skinned_quad_f32.psg|File:Spider.rigscope',
      prop: 'imageinfo',
      iiprop: 'mime|metadata|mediatype',
    });
    const byTitle = Object.fromEntries(info.query.pages.map((p) => [p.title, p.imageinfo[0]]));
    // The API lists metadata as { name, value } pairs, nested arrays too.
    const plain = (v) =>
      Array.isArray(v) && v.every((e) => e && 'name' in e) ? Object.fromEntries(v.map((e) => [e.name, plain(e.value)])) : v;
    const meta = (t) => plain(byTitle[t].metadata);
    expect(byTitle['File:SkSpiderLargeAnims.psa'].mime).toBe('model/x-actorx-psa');
    expect(byTitle['File:Skeleton.pmd'].mime).toBe('model/x-0ad-pmd');
    expect(byTitle['File:Mar rifle a.3d'].mime).toBe('model/x-unreal-3d');
    expect(byTitle['File:Skinned quad f32.psg'].mime).toBe('model/x-renderware-psg');
    expect(byTitle['File:Spider.rigscope'].mime).toBe('application/x-rigscope');
    for (const t of Object.keys(byTitle)) expect(byTitle[t].mediatype).toBe('3D');
    // The UE1 class script is text, typed by its name.
    const script = await wiki.api.request({ action: 'query', titles: 'File:Mar_rifle.uc', prop: 'imageinfo', iiprop: 'mime|mediatype' });
    expect(script.query.pages[0].imageinfo[0]).toMatchObject({ mime: 'text/x-unrealscript', mediatype: 'TEXT' });
    // The decoders' facts, read whole on the server.
    const anims = meta('File:SkSpiderLargeAnims.psa');
    expect(anims.inspected).toBe(true);
    expect(anims.counts).toMatchObject({ bones: 71, sequences: 12 });
    expect(Object.values(anims.sequences).map((s) => s.name)).toContain('Walk');
    expect(meta('File:Skeleton.pmd').counts).toMatchObject({ vertices: 378, bones: 29 });
    expect(Object.values(meta('File:Spider.rigscope').files)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'skSpiderLargeMesh.psk' })]),
    );
  });

  it("refuses a file whose content is not what its name says, with the decoder's kind of sentence", async () => {
    // Another file's bytes named .psk: the header check names the field and the byte.
    const r = await wiki.api.upload(`${SAMPLES}zeroad/skeleton.pmd`, 'Impostor.psk');
    expect(r.error?.code).toBe('verification-error');
    expect(r.error.info).toContain('PSK Impostor.psk: file does not start with an ACTRHEAD chunk (found "PSMD');
    expect(r.error.info).toMatch(/\(at byte 0\)$/);
    // A right header on a cut file: rigscope inspect reads it whole and refuses it.
    const cut = `${dir}/Cut.psk`;
    writeFileSync(cut, readFileSync(spider('skSpiderLargeMesh.psk')).subarray(0, 2000));
    const c = await wiki.api.upload(cut, 'Cut.psk');
    expect(c.error?.code).toBe('verification-error');
    expect(c.error.info).toMatch(/^This file cannot be uploaded as a model: PSK Cut\.psk: .*at byte \d+/);
    // A bundle that is not one.
    writeFileSync(`${dir}/Fake.rigscope`, Buffer.concat([BUNDLE_SIGNATURE, Buffer.from('not deflate at all, just text')]));
    const b = await wiki.api.upload(`${dir}/Fake.rigscope`);
    expect(b.error?.info).toMatch(/Rigscope bundle Fake\.rigscope: /);
  });

  it('refuses a model file named .uc, saying what its bytes are', async () => {
    const r = await wiki.api.upload(`${SAMPLES}vertex3d/assimp-mar_rifle/mar_rifle_a.3d`, 'Packed.uc');
    expect(r.error?.code).toBe('verification-error');
    expect(r.error.info).toMatch(
      /UnrealScript Packed\.uc: a \.uc script is text, these bytes are a ue1-anim file \(found ".*"\) \(at byte 0\)$/,
    );
  });

  it('draws a new poster when a companion arrives after the model (the name of its thumbnail changes)', { timeout: 300000 }, async () => {
    const ue1 = `${SAMPLES}vertex3d/assimp-mar_rifle/`;
    // The animation half first: the mesh's upload answer draws the pair's poster (the one before).
    for (const half of ['a', 'd']) await wiki.api.upload(`${ue1}mar_rifle_${half}.3d`, `Later_${half}.3d`);
    // Asking for the thumbnail queues its poster; the job runner draws it.
    const poster = async () => {
      const ask = () =>
        wiki.api.request({ action: 'query', titles: 'File:Later_d.3d', prop: 'imageinfo', iiprop: 'url', iiurlwidth: '320' });
      await ask();
      await wiki.runJobs();
      return (await ask()).query.pages[0].imageinfo[0].thumburl;
    };
    const before = await poster();
    // The class script, its #exec lines naming the files as the wiki holds them, its MESHMAP SCALE
    // stretching one axis three times more than the decoder's guess does (a change framing keeps).
    const script = readFileSync(`${ue1}mar_rifle.uc`, 'utf8')
      .replace(/mar_rifle/gi, 'Later')
      .replace('Z=0.2', 'Z=0.6');
    expect(script).toContain('X=0.1 Y=0.1 Z=0.6');
    writeFileSync(`${dir}/Later.uc`, script);
    expect((await wiki.api.upload(`${dir}/Later.uc`)).upload?.result).toBe('Success');
    const after = await poster();
    expect(before).toMatch(/\/with-[0-9a-f]{10}-640px-Later_d\.3d\.png$/);
    expect(after).toMatch(/\/with-[0-9a-f]{10}-640px-Later_d\.3d\.png$/);
    expect(after).not.toBe(before);
    // Both drawn, and the script's stretched scale makes a different picture.
    const [a, b] = await Promise.all([before, after].map((u) => fetch(u).then((x) => x.arrayBuffer())));
    expect(a.byteLength).toBeGreaterThan(1000);
    expect(Buffer.from(b).equals(Buffer.from(a))).toBe(false);
  });

  it('costs a small script before a click, and shows thumbnails, cards and the error boxes', async () => {
    const page = await open('/index.php?title=Models');
    expect(page.csp).toMatch(/script-src[^;]*'nonce-/);
    expect(page.csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    const before = await page.evaluate(() => ({
      viewers: document.querySelectorAll('rigscope-viewer').length,
      playerScript: performance.getEntriesByType('resource').filter((e) => /rigscope-viewer\.js|\.wasm/.test(e.name)).length,
      thumbs: document.querySelectorAll('.rigscope-thumb').length,
      posters: [...document.querySelectorAll('.rigscope-thumb img')].map((i) => ({ src: i.getAttribute('src'), w: i.naturalWidth })),
      errors: [...document.querySelectorAll('.mw-parser-output .error.rigscope-error')].map((e) => e.textContent),
      bold: document.querySelectorAll('.rigscope-error b').length,
    }));
    expect(before.viewers).toBe(0);
    expect(before.playerScript).toBe(0);
    expect(before.thumbs).toBe(6);
    expect(before.errors).toHaveLength(3);
    expect(before.errors[0]).toContain('“Nope.psk”');
    // Markup in a name is shown as text, never made into elements, nor expanded as wikitext.
    expect(before.errors[1]).toContain('Nope<b>bold</b>.psa');
    expect(before.bold).toBe(0);
    expect(before.errors[2]).toContain('“Nope{{SITENAME}}[[Main_Page]].psk”');
    // Posters from `rigscope poster`, kept as thumbnails (PNG files of the wiki's thumb store).
    expect(before.posters.length, `the job runs:\n${jobsRun}\nthe extension's log:\n${wiki.rigscopeLog()}`).toBeGreaterThanOrEqual(4);
    for (const p of before.posters) expect(p.src).toMatch(/^\/images\/thumb\/.*\.png$/);
    // The parser function's poster is drawn with all its files: its clip is in Skeleton_idle.psa,
    // which is no companion of Skeleton.pmd by name (it was a card: no clip of that name).
    expect(before.posters.map((p) => p.src)).toContainEqual(
      expect.stringMatching(/\/Skeleton\.pmd\/with-[0-9a-f]{10}-clip-Skeleton_idle-\d+px-Skeleton\.pmd\.png$/),
    );
    await page.waitForFunction(() => [...document.querySelectorAll('.rigscope-thumb img')].every((i) => i.complete && i.naturalWidth > 0));
    // A tag's poster takes the tag's shape (640x300), cropped.
    const tag = await page.evaluate(() => {
      const r = document.querySelector('div.rigscope-thumb img').getBoundingClientRect();
      return [Math.round(r.width), Math.round(r.height)];
    });
    expect(tag).toEqual([640, 300]);
    // The module's script as ResourceLoader serves it, minified: what a page pays before a click.
    const js = await (await fetch(`${wiki.url}/load.php?modules=ext.rigscope&only=scripts&skin=vector-2022&lang=en`)).text();
    console.log(`mediawiki: ext.rigscope is ${js.length} bytes of JS before a click (minified, uncompressed)`);
    expect(js.length).toBeLessThan(4096);
    if (SHOTS) await shoot(page, 'wiki-vector-1280x800.png');
    // The next test clicks on this page (nothing has been clicked yet): one load of it less.
    models = page;
  });

  it('a click on a thumbnail plays the clip in place (pixels drawn, time going on), Enter on a tag opens it, and every player on the page shares one WebGL context', async () => {
    // The page the test before read, nothing clicked yet (a page of its own when that test failed).
    const page = models ?? (await open('/index.php?title=Models'));
    models = null;
    await page.click('.thumb .rigscope-thumb');
    await loaded(page, 1);
    const v = () => document.querySelector('.thumb rigscope-viewer');
    await page.waitForFunction(`(${v})().stage.countForegroundPixels().count > 300`, null, { timeout: 60000 });
    const first = await page.evaluate(
      `(() => { const v = (${v})(); return { clip: v.currentClip, t: v.currentTime, src: v.getAttribute('src') }; })()`,
    );
    expect(first.clip).toBe('Walk');
    expect(first.src).toMatch(/SkSpiderLargeMesh\.psk .*SkSpiderLargeMesh\.psa/);
    // Shown at frame 12 (of 21, at 30 fps) when it loaded, then playing.
    const atLoad = await page.evaluate(() => window.__events.find((e) => e.type === 'load').t);
    expect(atLoad).toBeCloseTo(12 / 30, 3);
    await page.waitForFunction((t0) => document.querySelector('.thumb rigscope-viewer').currentTime !== t0, first.t, { timeout: 30000 });
    expect(await page.evaluate(() => window.__csp)).toEqual([]);
    expect(page.errors).toEqual([]);

    // Of the players opened next, their clips, context and scale are checked, not their playing:
    // the reader now asks for reduced motion, so they hold still, and the spider stops.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.evaluate(() => document.querySelector('.thumb rigscope-viewer').pause());
    // The same page: Enter on the tag opens it.
    await page.focus('div.rigscope-thumb a');
    await page.keyboard.press('Enter');
    await loaded(page, 2);
    expect(await page.evaluate(() => document.querySelector('div.rigscope-player rigscope-viewer').currentClip)).toBe('Idle');
    // Open all the others.
    for (let n = await page.locator('.rigscope-thumb').count(); n > 0; n--) {
      await page.locator('.rigscope-thumb').first().scrollIntoViewIfNeeded();
      await page.locator('.rigscope-thumb').first().click();
    }
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await loaded(page, 6);
    const stats = await page.evaluate(() => ({
      viewers: document.querySelectorAll('rigscope-viewer').length,
      scripts: document.querySelectorAll('script[src*="rigscope-viewer.js"]').length,
      gl: window.__gl,
      csp: window.__csp,
      clips: [...document.querySelectorAll('rigscope-viewer')].map((v) => v.clips.length),
    }));
    expect(stats.viewers).toBe(6);
    expect(stats.scripts).toBe(1);
    expect(stats.gl).toBe(1);
    expect(stats.csp).toEqual([]);
    // The 0 A.D. pair, the UE1 pair (found by name) and the bundle have clips.
    expect(stats.clips.filter((n) => n > 0).length).toBeGreaterThanOrEqual(4);
    // The UE1 mesh came with its class script of the same name: the script's MESHMAP SCALE, not
    // the decoder's guess (ten times larger, with a warning).
    const ue1 = await page.evaluate(() => {
      const viewer = [...document.querySelectorAll('rigscope-viewer')].find((v) => /Mar_rifle_d\.3d/.test(v.getAttribute('src')));
      const shown = viewer.snapshot();
      const { min, max } = shown.characters[0].bounds;
      return {
        src: viewer.getAttribute('src'),
        size: Math.max(...max.map((m, i) => m - min[i])),
        messages: shown.messages.map((m) => m.text),
      };
    });
    expect(ue1.src).toMatch(/Mar_rifle\.uc/);
    expect(ue1.size).toBeGreaterThan(80);
    expect(ue1.size).toBeLessThan(120);
    expect(ue1.messages.join(' ')).not.toMatch(/MESHMAP SCALE/);
    if (SHOTS) await shoot(page, 'wiki-vector-players-1280x800.png');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('twelve players on a page draw through one WebGL context', async () => {
    const page = await open('/index.php?title=Twelve', { still: true });
    expect(await page.locator('.rigscope-thumb').count()).toBe(12);
    while ((await page.locator('.rigscope-thumb').count()) > 0) {
      await page.locator('.rigscope-thumb').first().scrollIntoViewIfNeeded();
      await page.locator('.rigscope-thumb').first().click();
    }
    // Each loads as it comes near the view: scroll through them all.
    for (let i = 0; i < 12; i++) {
      await page.evaluate((k) => document.querySelectorAll('rigscope-viewer')[k].scrollIntoView({ block: 'center' }), i);
      await loaded(page, i + 1);
    }
    const stats = await page.evaluate(() => ({
      gl: window.__gl,
      pixels: [...document.querySelectorAll('rigscope-viewer')].map((v) => v.stage.countForegroundPixels().count),
    }));
    expect(stats.gl).toBe(1);
    expect(stats.pixels.filter((n) => n > 100).length).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('the file page shows the player, the facts table and OpenGraph tags', { timeout: 400000 }, async () => {
    const page = await open('/index.php?title=File:SkSpiderLargeMesh.psa', { still: true });
    await loaded(page, 1);
    const facts = await page.evaluate(() => ({
      table: document.querySelector('table.rigscope-facts')?.innerText,
      ogImage: document.querySelector('meta[property="og:image"]')?.content,
      ogTitle: document.querySelector('meta[property="og:title"]')?.content,
      clips: document.querySelector('#file rigscope-viewer')?.clips.map((c) => c.name),
    }));
    expect(facts.table).toContain('Walk');
    expect(facts.table).toMatch(/21 frames at 30 fps/);
    expect(facts.table).toContain('Plays with');
    expect(facts.table).toContain('SkSpiderLargeMesh.psk');
    // Read with its mesh on the server: the bones it moves.
    expect(facts.table).toMatch(/Bound to\s+SkSpiderLargeMesh\.psk \(71 of 71 bones matched\)/);
    expect(facts.ogTitle).toBe('SkSpiderLargeMesh.psa');
    expect(facts.ogImage).toMatch(new RegExp(`^${wiki.url}/images/thumb/.*\\.png$`));
    const image = await fetch(facts.ogImage);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(facts.clips).toContain('Walk');
    if (SHOTS) await shoot(page, 'wiki-filepage-1280x800.png');
    await page.close();
  });

  it('fits a phone: thumbnails and an opened player stay inside the screen, in Vector 2022 and Minerva', async () => {
    // Inside the screen: every thumbnail, card and player ends within the viewport's width, and the
    // page's text does not scroll sideways (the skin's own header is the skin's: Vector 2022's
    // account links pass a 390 px screen by some pixels, with or without this extension).
    const overflow = (page) =>
      page.evaluate(() => ({
        scroll: Math.max(
          0,
          document.querySelector('#mw-content-text').scrollWidth - document.querySelector('#mw-content-text').clientWidth,
        ),
        wide: [...document.querySelectorAll('.rigscope-thumb, .rigscope-card, .rigscope-player, rigscope-viewer')]
          .map((e) => e.getBoundingClientRect())
          .filter((r) => r.width > 0 && (r.left < -1 || r.right > window.innerWidth + 1))
          .map((r) => `${Math.round(r.left)}..${Math.round(r.right)}`),
      }));
    for (const skin of ['vector-2022', 'minerva']) {
      const page = await open(`/index.php?title=Models&useskin=${skin}`, { viewport: { width: 390, height: 844 }, still: true });
      if (SHOTS) await shoot(page, `wiki-${skin}-390x844.png`);
      expect(await overflow(page), skin).toEqual({ scroll: 0, wide: [] });
      await page.click('.rigscope-thumb');
      await loaded(page, 1);
      if (SHOTS) await shoot(page, `wiki-${skin}-390x844-playing.png`);
      expect(await overflow(page), `${skin}, playing`).toEqual({ scroll: 0, wide: [] });
      expect(page.errors).toEqual([]);
      await page.close();
    }
    if (SHOTS) {
      const desk = await open('/index.php?title=Models&useskin=minerva');
      await shoot(desk, 'wiki-minerva-1280x800.png');
      await desk.close();
    }
  });

  it('page text that imitates a placeholder runs nothing and fetches nothing; a placeholder naming a file outside the uploads does not open', async () => {
    const page = await open('/index.php?title=Hostile');
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    // The sanitizer keeps class and data-rigscope-*, and drops data-mw-*: the extension's own mark.
    const marks = await page.evaluate(() =>
      ['h1', 'h2', 'h3'].map((id) => ({ id, mark: document.getElementById(id)?.hasAttribute('data-mw-rigscope') })),
    );
    expect(marks).toEqual([
      { id: 'h1', mark: false },
      { id: 'h2', mark: false },
      { id: 'h3', mark: false },
    ]);
    for (const id of ['h1', 'h2', 'h3']) await page.click(`#${id}`);
    // A placeholder the extension made for a wiki file, altered in the page to name other URLs
    // (what a bug elsewhere could do): the client checks every URL against the upload path.
    const own = await page.evaluate(() => JSON.parse(document.querySelector('[data-mw-rigscope]').getAttribute('data-mw-rigscope')).src);
    for (const [n, src] of [
      ['http://127.0.0.2:9/evil.psk'],
      ['/index.php?title=User:X/x.js&action=raw'],
      ['/images/../index.php'],
      ['/images/%2e%2e/index.php'],
    ].entries()) {
      await page.evaluate(
        ([k, urls]) => {
          const p = document.querySelector('[data-mw-rigscope]').cloneNode(true);
          p.id = `forged${k}`;
          // No link to follow: a click that does not open a player stays on this page.
          for (const a of p.querySelectorAll('a')) a.removeAttribute('href');
          p.setAttribute('data-mw-rigscope', JSON.stringify({ src: urls }));
          document.querySelector('#mw-content-text').append(p);
        },
        [n, src],
      );
      await page.click(`#forged${n}`);
    }
    const after = await page.evaluate(() => ({
      viewers: document.querySelectorAll('rigscope-viewer').length,
      scripts: [...document.querySelectorAll('script[type=module]')].map((s) => s.getAttribute('src')),
      pwned: window.pwned,
    }));
    expect(after).toEqual({ viewers: 0, scripts: [], pwned: undefined });
    // The extension's own placeholder still opens, with the player the wiki configured.
    await page.click('.mw-parser-output [data-mw-rigscope]:not([id^=forged])');
    await loaded(page, 1);
    const opened = await page.evaluate(() => ({
      src: document.querySelector('rigscope-viewer').getAttribute('src').split(' '),
      scripts: [...document.querySelectorAll('script[type=module]')].map((s) => new URL(s.src).pathname),
    }));
    expect(opened.src).toEqual(own);
    expect(opened.scripts).toEqual(['/extensions/Rigscope/resources/player/rigscope-viewer.js']);
    expect(requests.filter((u) => !u.startsWith(wiki.url))).toEqual([]);
    expect(requests.filter((u) => /action=raw|evil/.test(u))).toEqual([]);
    await page.close();
  });

  it(
    'a page of 22 frames saves and renders with cards and draws nothing in the parse; the job runner draws the posters under a bound',
    { timeout: 600000 },
    async () => {
      // Clips no other test poses, so every poster is new. 22 views: one more than a run draws at
      // most (its own and 20 waiting, RigscopeHandler::BATCH), so the runner needs two runs.
      const perClip = 11;
      const clips = [
        ['webattack', 72],
        ['flippedOver', 55],
      ];
      const text = clips
        .flatMap(([clip, n], c) =>
          Array.from({ length: perClip }, (_, i) =>
            c === 0
              ? `[[File:SkSpiderLargeMesh.psk|120px|clip=${clip}|frame=${i}]]`
              : `<rigscope clip="${clip}" frame="${i}" width="160" height="120">SkSpiderLargeMesh.psk</rigscope>`,
          ),
        )
        .join('\n');
      const thumbs = () => Number(execSync(`find ${dir}/images/thumb -name '*.png' | wc -l`, { encoding: 'utf8' }));
      const queued = () =>
        Number(/rigscopePoster: (\d+) queued/.exec(wiki.php([`${MEDIAWIKI}/maintenance/showJobs.php`, '--group']))?.[1] ?? 0);
      // What earlier pages asked for is drawn first: this test counts its own posters.
      await wiki.runJobs();
      const before = thumbs();
      const jobsBefore = queued();
      const t0 = Date.now();
      await wiki.api.edit('Frames', text);
      const html = await (await fetch(`${wiki.url}/index.php?title=Frames`)).text();
      const seconds = (Date.now() - t0) / 1000;
      console.log(`mediawiki: a page of 22 frames saved and first rendered in ${seconds.toFixed(1)} s`);
      // The view's jobs are queued after its answer, once its request has ended.
      await wiki.settled();
      // Nothing was drawn inside the save or the view: 22 cards, 22 poster jobs queued.
      expect(thumbs()).toBe(before);
      expect(html.match(/class="rigscope-card[ "]/g)?.length).toBe(22);
      expect(queued() - jobsBefore).toBe(22);
      // Each counts as an expensive parser function.
      const parsed = await wiki.api.request({ action: 'parse', page: 'Frames', prop: 'limitreportdata' });
      const expensive = parsed.parse.limitreportdata.find((d) => d.name === 'limitreport-expensivefunctioncount');
      expect(expensive[0]).toBe(22);
      // A thumb.php request's own parameters choose no files: with[] is dropped before the job.
      await fetch(`${wiki.url}/thumb.php?f=SkSpiderLargeMesh.psk&width=100&with[]=Skeleton.pmd&with[]=Mar_rifle_d.3d`);
      // (Only this file's jobs: an earlier page's own poster of Skeleton.pmd may still be queued.)
      const spiderJobs = wiki
        .php([`${MEDIAWIKI}/maintenance/showJobs.php`, '--list', '--type=rigscopePoster'])
        .split('\n')
        .filter((line) => line.includes('SkSpiderLargeMesh'));
      expect(spiderJobs.length).toBeGreaterThan(0);
      expect(spiderJobs.join('\n')).not.toMatch(/Skeleton|Mar_rifle/);
      // The runner draws them in batches of one browser each (its own view and up to 20 waiting: 22
      // is more than one batch), each where its card stood at the next view.
      const log = () => (existsSync(`${dir}/rigscope.log`) ? readFileSync(`${dir}/rigscope.log`, 'utf8') : '');
      const runsBefore = log().match(/drew \d+ of \d+ poster\(s\) of SkSpiderLargeMesh\.psk/g)?.length ?? 0;
      const t1 = Date.now();
      await wiki.runJobs();
      console.log(`mediawiki: the job runner drew 22 posters in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
      // Jobs are taken in any order: each run draws its own view and up to 20 waiting ones.
      const runs = log()
        .match(/drew \d+ of \d+ poster\(s\) of SkSpiderLargeMesh\.psk/g)
        .slice(runsBefore)
        .map((line) => line.match(/\d+/g).map(Number));
      expect(runs.length).toBeGreaterThanOrEqual(2);
      expect(runs.length).toBeLessThanOrEqual(3);
      for (const [drawn, asked] of runs) expect(drawn).toBe(asked);
      // The bound: no run draws more than its own view and 20 waiting.
      expect(Math.max(...runs.map(([, asked]) => asked))).toBeLessThanOrEqual(21);
      expect(runs.reduce((n, [drawn]) => n + drawn, 0)).toBe(22);
      expect(thumbs() - before).toBe(22);
      const later = await (await fetch(`${wiki.url}/index.php?title=Frames`)).text();
      expect(later.match(/clip-(webattack|flippedOver)-frame\d+-\d+px-SkSpiderLargeMesh\.psk\.png/g)).toHaveLength(22);
      expect(later).not.toMatch(/class="rigscope-card[ "]/);
    },
  );

  it("a tag's poster keeps what was drawn when one of its animations fits no mesh", { timeout: 300000 }, async () => {
    // What earlier pages asked for is drawn first: a job of theirs for the same mesh would take this
    // view into its batch and draw it with its own files, not the tag's.
    await wiki.runJobs();
    await wiki.api.edit('Partial', '<rigscope width="320" height="240">SkSpiderLargeMesh.psk Skeleton_idle.psa</rigscope>');
    await wiki.runJobs();
    const html = await (await fetch(`${wiki.url}/index.php?title=Partial`)).text();
    expect(html).toMatch(/<img[^>]+class="rigscope-poster"/);
    // Its run said what was left out: the tag's animation (its set's, not another set's of the batch).
    expect(readFileSync(`${dir}/rigscope.log`, 'utf8')).toMatch(
      /poster drawn without some files.*\/Skeleton_idle\.psa: not played on any model/,
    );
  });

  it(
    'a poster command that hangs is ended at its time limit with every process it started, holds no lock on the wiki meanwhile, and the thumbnail stays a card',
    { timeout: 120000 },
    async () => {
      // A stand-in for node leaving a browser behind: a child in a session of its own (as
      // Playwright starts Chromium), then a hang. Both are found by their unique arguments (under
      // firejail they live in a PID namespace of their own, so their own PIDs mean nothing here).
      const tag = `60${Date.now() % 100000}`;
      const hang = `${dir}/hang.sh`;
      // First, while the job runs it, a write to the wiki's database, as another job runner or a
      // page save makes: a job that held a transaction open over its poster run would lock every
      // writer out for the run's length (SQLite: "database is locked" after the busy timeout).
      const wrote = `${dir}/wrote.txt`;
      writeFileSync(
        `${dir}/write.php`,
        `<?php
$db = new PDO( 'sqlite:${dir}/data/wiki.sqlite', null, null, [ PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION ] );
$db->exec( 'PRAGMA busy_timeout = 300' );
try {
	$db->exec( 'BEGIN IMMEDIATE' );
	$db->exec( 'UPDATE page SET page_touched = page_touched' );
	$db->exec( 'COMMIT' );
	file_put_contents( '${wrote}', 'written' );
} catch ( Exception $e ) {
	file_put_contents( '${wrote}', $e->getMessage() );
}
`,
      );
      writeFileSync(hang, `#!/bin/bash\nphp ${dir}/write.php\nsetsid sleep ${tag}.1 &\nsleep ${tag}.2\n`);
      const left = () => execSync(`pgrep -f 'slee[p] ${tag}' || true`, { encoding: 'utf8' }).trim();
      await wiki.api.upload(spider('skSpiderLargeMesh.psk'), 'Hang.psk');
      const ask = () => wiki.api.request({ action: 'query', titles: 'File:Hang.psk', prop: 'imageinfo', iiprop: 'url', iiurlwidth: '300' });
      await ask();
      const t0 = Date.now();
      await wiki.runJobs({ RIGSCOPE_TEST_POSTER: JSON.stringify(['/bin/bash', hang]) });
      console.log(`mediawiki: the hanging poster command was ended after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      expect(existsSync(hang)).toBe(true);
      expect(readFileSync(wrote, 'utf8')).toBe('written');
      expect(left()).toBe('');
      expect((await ask()).query.pages[0].imageinfo[0].thumburl ?? '').not.toMatch(/\.png$/);
      const log = readFileSync(`${dir}/rigscope.log`, 'utf8');
      expect(log).toMatch(/posters not drawn \(exit 124\)/);
      expect(log).toMatch(/poster failed for Hang\.psk/);
    },
  );

  // After the tests that run the job runner: nothing draws the posters this page asks for (two
  // browser runs no assertion needs).
  it('a clip or frame the files do not have is a card that says why; frame= counts within its clip, also for UE1', async () => {
    const ue1 = `${SAMPLES}vertex3d/assimp-mar_rifle/`;
    for (const half of ['a', 'd']) await wiki.api.upload(`${ue1}mar_rifle_${half}.3d`, `Seq_${half}.3d`);
    // A script whose second sequence starts at the animation's frame 10.
    const script = readFileSync(`${ue1}mar_rifle.uc`, 'utf8').replace(/mar_rifle/gi, 'Seq');
    // (The sample's mesh is called mar in its script.)
    const seqs =
      '#exec MESH SEQUENCE MESH=mar SEQ=Still STARTFRAME=0 NUMFRAMES=10\n#exec MESH SEQUENCE MESH=mar SEQ=Run STARTFRAME=10 NUMFRAMES=10\n';
    writeFileSync(`${dir}/Seq.uc`, script.replace(/(#exec MESH SEQUENCE[^\n]*\n)+/i, '') + seqs);
    expect((await wiki.api.upload(`${dir}/Seq.uc`)).upload?.result).toBe('Success');
    await wiki.api.edit(
      'Views',
      '[[File:Seq_d.3d|200px|clip=Run|frame=5]]\n[[File:Seq_d.3d|200px|clip=Fly]]\n[[File:Seq_d.3d|200px|clip=Run|frame=12]]\n[[File:SkSpiderLargeMesh.psk|200px|clip=walk|frame=3]]',
    );
    const page = await open('/index.php?title=Views', { still: true });
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll('.mw-parser-output [data-mw-rigscope]')].map((p) => ({
        view: JSON.parse(p.getAttribute('data-mw-rigscope')),
        problem: p.querySelector('.rigscope-card-problem')?.textContent ?? null,
      })),
    );
    // Frame 5 of Run is the animation's frame 15, as the player counts.
    expect(shown[0].view).toMatchObject({ clip: 'Run', frame: 15 });
    expect(shown[0].problem).toBe(null);
    expect(shown[1].problem).toMatch(/No clip named “Fly”\..*Still, Run/);
    expect(shown[2].problem).toBe('Frame 12 is outside Run (its frames are 0 to 9).');
    // A clip's name in another case is that clip, as the player finds it.
    expect(shown[3].view).toMatchObject({ clip: 'Walk', frame: 3 });
    if (SHOTS) await shoot(page, 'wiki-views-1280x800.png');
    await page.click('.mw-parser-output [data-mw-rigscope]');
    await loaded(page, 1);
    // Shown at frame 5 of Run: 5 frames into the clip, at its rate.
    const played = await page.evaluate(() => window.__events.find((e) => e.type === 'load').t);
    expect(await page.evaluate(() => document.querySelector('rigscope-viewer').currentClip)).toBe('Run');
    expect(played).toBeGreaterThan(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('names with $ and backslashes come back whole in refusals', async () => {
    const cut = `${dir}/cut.psk`;
    writeFileSync(cut, readFileSync(spider('skSpiderLargeMesh.psk')).subarray(0, 2000));
    const r = await wiki.api.upload(cut, 'Cost$1$0.psk');
    expect(r.error?.info).toMatch(/PSK Cost\$1\$0\.psk: chunk PNTS0000 declares/);
  });

  it('Special:Version says where the command line is, or that it is missing and how to recover', async () => {
    const html = await (await fetch(`${wiki.url}/index.php?title=Special:Version`)).text();
    expect(html).toContain('Rigscope command line');
    expect(html).toContain(`${root}web/cli/rigscope.js`);
    const said = wiki.php([`${MEDIAWIKI}/maintenance/eval.php`], 'echo MediaWiki\\Extension\\Rigscope\\Inspector::cliProblem();', {
      RIGSCOPE_TEST_CLI: '/nowhere/web/cli/rigscope.js',
    });
    expect(said).toMatch(/no command line at \/nowhere\/web\/cli\/rigscope\.js: set \$wgRigscopeCli .*refreshImageMetadata\.php/);
  });

  it("a thumbnail name with a hashed clip parses back to the file's clip (thumb.php, the 404 handler)", () => {
    const code = `$h = new MediaWiki\\Extension\\Rigscope\\RigscopeHandler();
$f = MediaWiki\\MediaWikiServices::getInstance()->getRepoGroup()->findFile( 'Seq_d.3d' );
$p = $h->parseParamString( 'cliph-' . substr( md5( 'Run' ), 0, 12 ) . '-frame3-320px' );
$h->normaliseParams( $f, $p );
echo json_encode( [ $p['clip'] ?? null, $p['frame'] ?? null, $h->parseParamString( 'cliph-zz-320px' ) ] );`;
    expect(
      JSON.parse(
        wiki
          .php([`${MEDIAWIKI}/maintenance/eval.php`], code)
          .trim()
          .split('\n')
          .pop(),
      ),
    ).toEqual(['Run', 3, false]);
  });

  async function shoot(page, name) {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/${name}` });
  }
});
