// `rigscope poster` and `export --posters`: stills drawn by the player in a headless Chromium.
// Every family's sample gives a PNG of the asked size that the model covers part of; two frames
// of a clip differ; --transparent leaves the corners clear; the command names a bad file (exit 1)
// and still writes the same bytes as a page that drew other posters before (nothing depends on
// the wall clock or the page's history);
// no Chromium is a sentence and exit 1; a bad command line is a UsageError. `export --posters` on
// the samples tree writes a PNG beside every GLB and a gallery whose images load from file://.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import UPNG from 'upng-js';
import { FAMILY_SAMPLES, FIXTURES, SAMPLES } from './browser.js';
import { PosterBrowser, poster, posterOptions } from '../../web/cli/poster.js';
import { sceneToPack } from '../../web/cli/page.js';
import { runExport } from '../../web/cli/export.js';
import { UsageError } from '../../web/cli/usage.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const CLI = `${ROOT}web/cli/rigscope.js`;
const run = promisify(execFile);
const have = existsSync(SAMPLES);
const samples = (family) => FAMILY_SAMPLES[family].map((f) => `${SAMPLES}${f}`);
const SPIDER = samples('psk');
/** The element's default background, as stored in the PNG (sRGB). */
const BACKGROUND = [0x23, 0x26, 0x2e];

/** A PNG's RGBA pixels. */
function decode(png) {
  const image = UPNG.decode(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength));
  return { width: image.width, height: image.height, rgba: new Uint8Array(UPNG.toRGBA8(image)[0]) };
}

/** Share of the pixels that are not the background (colour further than 24 from it, or not opaque). */
function coverage({ rgba }, bg = BACKGROUND) {
  let n = 0;
  for (let o = 0; o < rgba.length; o += 4) {
    const d = Math.abs(rgba[o] - bg[0]) + Math.abs(rgba[o + 1] - bg[1]) + Math.abs(rgba[o + 2] - bg[2]);
    if (d > 24 || rgba[o + 3] < 255) n++;
  }
  return n / (rgba.length / 4);
}

/** Pixels whose colour differs by more than 24 between two pictures of one size. */
function differing(a, b) {
  let n = 0;
  for (let o = 0; o < a.rgba.length; o += 4)
    if (Math.abs(a.rgba[o] - b.rgba[o]) + Math.abs(a.rgba[o + 1] - b.rgba[o + 1]) + Math.abs(a.rgba[o + 2] - b.rgba[o + 2]) > 24) n++;
  return n;
}

let browser, dir;
/** A poster of `paths` drawn in the file's one page: { png, clip, frame, ... }. */
async function draw(paths, options = {}) {
  const { clip, lod = 0, ...rest } = options;
  const packed = await sceneToPack(paths, { clip, lod });
  return browser.render(packed.files, { ...posterOptions(rest), clip: packed.state.clip, lod });
}

/**
 * Posters already drawn in the file's page, by files and options: a test that compares the command
 * line's bytes with the page's takes one an earlier test drew (drawing the same again in the page
 * gives the same bytes, which a test checks), or draws it.
 */
const drawnBefore = new Map();
async function drawOnce(paths, options = {}) {
  const key = JSON.stringify([paths, options]);
  if (!drawnBefore.has(key)) drawnBefore.set(key, await draw(paths, options));
  return drawnBefore.get(key);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rigscope-poster-'));
  if (have) browser = await PosterBrowser.open({ width: 320, height: 240 });
}, 180000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!have)('rigscope poster', () => {
  if (!have) console.warn(`poster tests skipped: no samples at ${SAMPLES}`);

  // Sizes differ per family, so a size that is not honoured shows.
  const SIZES = { psk: [320, 240], zeroad: [240, 320], ue1: [400, 300], psg: [256, 256] };
  for (const family of Object.keys(FAMILY_SAMPLES)) {
    it(`${family}: a PNG of the asked size that the model covers part of`, async () => {
      const [width, height] = SIZES[family];
      const picture = decode((await drawOnce(samples(family), { width, height })).png);
      expect([picture.width, picture.height]).toEqual([width, height]);
      const covered = coverage(picture);
      expect(covered).toBeGreaterThan(0.02);
      expect(covered).toBeLessThan(0.9);
    }, 120000);
  }

  it('two frames of a clip differ (PSK, 0 A.D., and the UE1 flag, whose Wave moves)', async () => {
    const sets = [
      [SPIDER, { clip: 'Walk' }, [0, 10]],
      [samples('zeroad'), {}, [0, 40]],
      [['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((f) => `${FIXTURES}${f}`), { clip: 'Wave' }, null],
    ];
    for (const [paths, options, frames] of sets) {
      // The flag's Wave counts frames as the file does: its own first and a later one.
      const first = frames ? null : await draw(paths, options);
      const [a, b] = frames ?? [first.frame, first.frame + 4];
      const one = decode((await draw(paths, { ...options, frame: a })).png);
      const other = await draw(paths, { ...options, frame: b });
      expect(other.frame).toBe(b);
      expect(differing(one, decode(other.png))).toBeGreaterThan(50);
    }
  }, 180000);

  it('a poster of the scene shown, at another clip or frame, reads no file again and gives the bytes a fresh load gives (every family)', async () => {
    // A scene of other files in between makes the page load the next poster's files afresh.
    const other = [`${FIXTURES}static.pskx`];
    const views = {
      psk: [
        { clip: 'Walk', frame: 3 },
        { clip: 'Walk', frame: 12 },
        { clip: 'webattack', frame: 2 },
        { clip: 'Walk', frame: 9 },
      ],
      zeroad: [{ frame: 0 }, { frame: 25 }],
      ue1: [{ frame: 0 }, { frame: 17 }],
      psg: [{}, {}, { camera: '0.4,0.3,1.2,0,0,0' }],
    };
    for (const [family, [first, ...later]] of Object.entries(views)) {
      const paths = samples(family);
      const size = { width: 200, height: 150 };
      expect((await draw(paths, { ...size, ...first })).loaded, family).toBe(true);
      const again = [];
      for (const view of later) again.push(await draw(paths, { ...size, ...view }));
      // A view that changes more than the clip and the pose (psg's camera) loads again.
      const kept = later.map((view) => !view.camera);
      expect(
        again.map((d) => !d.loaded),
        family,
      ).toEqual(kept);
      for (const [i, view] of later.entries()) {
        await draw(other, size);
        const fresh = await draw(paths, { ...size, ...view });
        expect(fresh.loaded, family).toBe(true);
        expect(Buffer.compare(again[i].png, fresh.png), `${family} ${JSON.stringify(view)}`).toBe(0);
      }
    }
  }, 240000);

  it('without --camera, frames and plays the hero of a mixed folder (core/layout.js chooseHero), not the prop that sorts first', async () => {
    // The writer-made flag with 100 sequences, shrunk to a tenth of a crate named to sort first.
    const folder = mkdtempSync(join(dir, 'mixed-'));
    const seqs = Array.from({ length: 100 }, (_, i) => `#exec MESH SEQUENCE MESH=flag SEQ=Wave${i} STARTFRAME=1 NUMFRAMES=23 RATE=12`);
    const script = readFileSync(`${FIXTURES}flag.uc`, 'latin1')
      .replace(/^#exec MESH SEQUENCE.*$/gm, '')
      .replace(/^#exec MESH NOTIFY.*$/gm, '')
      .replace(/X=0\.1 Y=0\.1 Z=0\.2/, 'X=0.0012 Y=0.0012 Z=0.0024')
      .replace('#exec TEXTURE IMPORT', `${seqs.join('\r\n')}\r\n#exec TEXTURE IMPORT`);
    writeFileSync(join(folder, 'flag.uc'), script);
    for (const f of ['flag_d.3d', 'flag_a.3d', 'flag.pcx']) writeFileSync(join(folder, f), readFileSync(`${FIXTURES}${f}`));
    writeFileSync(join(folder, 'aaa_crate.pskx'), readFileSync(`${FIXTURES}static.pskx`));
    const mixed = await draw([folder]);
    expect(mixed.clip).toBe('Wave0');
    // Framed on the hero: the crate, ten times larger and behind it, fills more of the picture
    // than it does when everything is framed (the crate alone, as framed with the hero beside it).
    const crate = decode((await draw([join(folder, 'aaa_crate.pskx')])).png);
    expect(coverage(decode(mixed.png))).toBeGreaterThan(coverage(crate) + 0.1);
    if (process.env.RIGSCOPE_SHOTS) writeFileSync(`${process.env.RIGSCOPE_SHOTS}/hero-poster-mixed.png`, mixed.png);
  }, 120000);

  it('--transparent: the corners are clear, the model opaque', async () => {
    const { rgba, width, height } = decode((await draw(SPIDER, { transparent: true })).png);
    for (const [x, y] of [
      [0, 0],
      [width - 1, 0],
      [0, height - 1],
      [width - 1, height - 1],
    ])
      expect(rgba[(y * width + x) * 4 + 3]).toBe(0);
    let opaque = 0;
    for (let o = 3; o < rgba.length; o += 4) if (rgba[o] === 255) opaque++;
    expect(opaque).toBeGreaterThan(100);
  }, 60000);

  it('--background colours what the model leaves', async () => {
    const picture = decode((await draw(SPIDER, { background: 'ff0000' })).png);
    expect(Array.from(picture.rgba.subarray(0, 4))).toEqual([255, 0, 0, 255]);
  }, 60000);

  it('the command names a bad file (exit 1), still writes the poster, and gives the bytes a page that drew other posters gives', async () => {
    const out = join(dir, 'spider.png');
    const bad = join(dir, 'broken.psk');
    writeFileSync(bad, Buffer.from('ACTRHEAD but not really a PSK file at all'));
    const args = [CLI, 'poster', ...SPIDER, bad, '-o', out, '--size', '320x240', '--clip', 'walk', '--frame', '5'];
    const err = await run(process.execPath, args).catch((e) => e);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain('broken.psk');
    expect(err.stdout).toContain('clip Walk, frame 5');
    const drawn = await drawOnce(SPIDER, { width: 320, height: 240, clip: 'walk', frame: 5 });
    expect(Buffer.compare(readFileSync(out), drawn.png)).toBe(0);
    // And again in the same page.
    const again = await draw(SPIDER, { width: 320, height: 240, clip: 'walk', frame: 5 });
    expect(Buffer.compare(again.png, drawn.png)).toBe(0);
  }, 180000);

  it("--more draws other files' posters in the same run, the bytes a page gives them; a set it cannot use is named, the others written (exit 1)", async () => {
    const out = (name) => join(dir, `more-${name}.png`);
    const list = join(dir, 'more.json');
    writeFileSync(
      list,
      JSON.stringify([
        { out: out('zeroad'), files: samples('zeroad'), width: 240, height: 320 },
        { out: out('spider'), clip: 'walk', frame: 5 },
        { out: out('ue1'), files: samples('ue1'), width: 400, height: 300 },
        { out: out('missing'), files: [join(dir, 'nothing-here.pmd')] },
      ]),
    );
    const args = [CLI, 'poster', ...SPIDER, '-o', out('first'), '--size', '320x240', `--more=${list}`];
    const err = await run(process.execPath, args).catch((e) => e);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain(`${out('missing')}: ${join(dir, 'nothing-here.pmd')}: no such file`);
    expect(existsSync(out('missing'))).toBe(false);
    // Each as the page draws those files alone: the set before changes nothing in the next. (The
    // tests before drew these in the page: the same files and options.)
    const expected = {
      first: await drawOnce(SPIDER, { width: 320, height: 240 }),
      zeroad: await drawOnce(samples('zeroad'), { width: 240, height: 320 }),
      spider: await drawOnce(SPIDER, { width: 320, height: 240, clip: 'walk', frame: 5 }),
      ue1: await drawOnce(samples('ue1'), { width: 400, height: 300 }),
    };
    for (const [name, drawn] of Object.entries(expected)) expect(Buffer.compare(readFileSync(out(name)), drawn.png), name).toBe(0);
    // A list entry whose files are not a list of paths is refused before Chromium starts.
    writeFileSync(list, JSON.stringify([{ out: out('bad'), files: 'Skeleton.pmd' }]));
    const bad = await poster(SPIDER, { out: out('bad'), more: list }).catch((e) => e);
    expect(bad).toBeInstanceOf(UsageError);
    expect(bad.message).toBe(`--more ${list}: poster 0: "files" is a list of 1 to 64 paths`);
    expect(existsSync(out('bad'))).toBe(false);
  }, 300000);

  it('without a Chromium: a sentence saying what to install, exit 1', async () => {
    const missing = join(dir, 'no-chromium-here');
    const err = await run(process.execPath, [CLI, 'poster', ...SPIDER, '-o', join(dir, 'x.png')], {
      env: { ...process.env, RIGSCOPE_CHROMIUM: missing },
    }).catch((e) => e);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain(missing);
    expect(err.stderr).toMatch(/apt-get install chromium.*RIGSCOPE_CHROMIUM/);
    expect(existsSync(join(dir, 'x.png'))).toBe(false);
  }, 60000);

  it('a bad command line is a UsageError, before Chromium starts', async () => {
    const out = join(dir, 'bad.png');
    const refused = async (paths, options, words) => {
      const err = await poster(paths, { out, ...options }).catch((e) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toMatch(words);
    };
    await refused(SPIDER, { width: 10, height: 480 }, /--size 10x480/);
    await refused(SPIDER, { frame: 1, time: 0.5 }, /--frame and --time/);
    await refused(SPIDER, { background: '202830', transparent: true }, /--background and --transparent/);
    await refused(SPIDER, { out: join(dir, 'bad.jpg') }, /\.png/);
    await refused(SPIDER, { camera: '1,2,3' }, /--camera/);
    await refused(SPIDER, { up: '45,0,0' }, /--up/);
    await refused([join(dir, 'nothing-here.psk')], {}, /no such file/);
    await refused(SPIDER, { clip: 'Dance' }, /--clip Dance.*Walk, walk2jump/);
    expect(existsSync(out)).toBe(false);
    // The command line says so with its usage: exit 2.
    const err = await run(process.execPath, [CLI, 'poster', ...SPIDER, '-o', out, '--size', '10x10']).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toContain('--size 10x10');
  }, 60000);
});

describe.skipIf(!have)('rigscope export --posters', () => {
  it('writes a PNG beside every GLB and a gallery whose images load from file://', async () => {
    const out = join(dir, 'export');
    // Every family's folder but the UE1 packages' (their 70 meshes are the same work again, and
    // their exports are checked in tests/unit/upackage-cli.test.js), and of the UE1 meshes' folders
    // all but trashbag (17 more small props of the same kind as the 8 of the other three: 26
    // characters in all, each a GLB and a poster, not 43).
    const subfolders = (folder, skip) =>
      readdirSync(folder, { withFileTypes: true })
        .filter((d) => d.isDirectory() && !skip.includes(d.name))
        .map((d) => join(folder, d.name));
    const folders = [...subfolders(SAMPLES, ['upackage', 'vertex3d']), ...subfolders(join(SAMPLES, 'vertex3d'), ['trashbag'])];
    const result = await runExport(folders, { outDir: out, lod: 0, jobs: 2, posters: true, posterSize: { width: 160, height: 120 } });
    const rows = result.folders.flatMap((f) => f.characters);
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) {
      expect(row.status).toBe('written');
      expect(row.poster).toBe(row.file.replace(/\.glb$/, '.png'));
      const picture = decode(readFileSync(join(out, row.poster)));
      expect([picture.width, picture.height]).toEqual([160, 120]);
    }
    const p = result.posters;
    expect(p.drawn).toBe(rows.length);
    console.log(
      `export --posters: ${p.drawn} posters in ${(p.ms / 1000).toFixed(1)} s, ${(p.ms / p.drawn).toFixed(0)} ms each; Chromium started in ${p.startMs.toFixed(0)} ms`,
    );
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    for (const row of rows) {
      expect(html).toContain(`src="${row.poster.split('/').map(encodeURIComponent).join('/')}"`);
      expect(html).toContain(`href="${row.file.split('/').map(encodeURIComponent).join('/')}"`);
    }
    expect(html).not.toMatch(/<script/i);
    // Opened from disk: every poster loads (a page of the Chromium the file draws posters in).
    const page = await browser.browser.newPage();
    try {
      await page.goto(pathToFileURL(join(out, 'index.html')).href);
      await page.waitForFunction(() => [...document.images].every((img) => img.complete));
      const images = await page.evaluate(() => [...document.images].map((img) => img.naturalWidth));
      expect(images.length).toBe(rows.length);
      expect(images.every((w) => w === 160)).toBe(true);
    } finally {
      await page.close();
    }
  }, 600000);
});
