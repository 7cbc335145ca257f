// The pictures of README.md and docs/, made again from the samples: `npm run docs:pictures`.
// It builds the site (as the browser tests do), serves it with tests/e2e/server.js, opens real
// sample folders in Debian's Chromium (SwiftShader, so every machine draws the same) and writes
// docs/img/*.png, each quantized to 256 colours so it stays small. With MediaWiki installed
// (scripts/setup.sh), it also makes a throwaway wiki and takes its file page.
//   node scripts/docs-pictures.mjs [NAME...]   only the named pictures (e.g. viewer phone)
// SITE=dist/ serves a site already built instead of building one; RIGSCOPE_DOCS_WIKI=0 skips the wiki.
// Only art whose licence allows it is pictured: 0 A.D. (Wildfire Games, CC-BY-SA 3.0) and the
// UE1 marine by Elias Tsiantas ("free for any use"); see ../shared/samples/README.md.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import UPNG from 'upng-js';
import { animationFrames as frames, launch, SAMPLES, samplesFolderPaths } from '../tests/e2e/chromium.js';
import { startServer } from '../tests/e2e/server.js';

const root = new URL('..', import.meta.url).pathname;
const OUT = join(root, 'docs/img/');
/** The most bytes one picture may take (the docs' pictures together stay under 1.5 MB). */
const MAX_BYTES = 150 * 1024;

/** The viewer page opening `files` (served paths) at a clip and frame, paused: the same picture every run. */
const viewerPath = (files, query = '') => `/?demo=0&autoplay=0${query}&${files.map((f) => `file=${encodeURIComponent(f)}`).join('&')}`;

/** A screenshot as a 256-colour PNG (UPNG's quantizer), refused when over MAX_BYTES. */
function save(name, png) {
  const image = UPNG.decode(png);
  const small = Buffer.from(UPNG.encode(UPNG.toRGBA8(image), image.width, image.height, 256));
  if (small.byteLength > MAX_BYTES) throw new Error(`${name}.png: ${small.byteLength} bytes, over ${MAX_BYTES}: crop or scale it`);
  mkdirSync(OUT, { recursive: true });
  writeFileSync(`${OUT}${name}.png`, small);
  console.log(`docs/img/${name}.png: ${image.width}×${image.height}, ${small.byteLength} bytes`);
}

/** A page of the viewer, ready (files loaded, view applied), without glides (reduced motion). */
async function openViewer(browser, base, path, viewport) {
  const page = await browser.newPage({ viewport, reducedMotion: 'reduce' });
  page.on('pageerror', (e) => console.warn(`pageerror: ${e.message}`));
  await page.goto(base + path);
  await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 300000 });
  await frames(page, 5);
  return page;
}

/** Side panels open or shut by their summary's text (the rest left as the page has them). */
const panels = (page, open, shut = []) =>
  page.evaluate(
    ([o, s]) => {
      for (const d of document.querySelectorAll('#side details')) {
        const name = d.querySelector('summary')?.textContent.trim();
        if (o.includes(name)) d.open = true;
        if (s.includes(name)) d.open = false;
      }
    },
    [open, shut],
  );

const ZEROAD = () => samplesFolderPaths('zeroad');
/** The wiki page pictured: a thumbnail with a clip and a frame, and one without. */
const WIKI_PAGE = `0 A.D.'s skeleton and the UE1 marine's rifle. Click a picture to play the model in place.
{|
| [[File:Skeleton.pmd|thumb|none|300px|clip=skeleton_idle|frame=40|The skeleton at frame 40 of its idle]]
| [[File:Mar_rifle_d.3d|thumb|none|300px|The UE1 marine's rifle]]
|}`;
/** The wiki's article area, under its header (its logo is the test wiki's placeholder). */
const WIKI_CLIP = { x: 60, y: 92, width: 980 };
const MARINE = () => samplesFolderPaths('vertex3d/assimp-mar_rifle');

/** Each picture: its name and how it is taken. */
const PICTURES = {
  /** The front page's: a 0 A.D. folder with the outliner, the clips and the timeline. */
  async viewer({ browser, base }) {
    const page = await openViewer(browser, base, viewerPath(ZEROAD(), '&clip=skeleton_idle&frame=40'), { width: 1200, height: 720 });
    await panels(page, ['Scene', 'Clips'], ['View', 'Display', 'Info']);
    await frames(page, 3);
    save('viewer', await page.screenshot());
    await page.close();
  },
  /** A phone: the UE1 marine, textured, its one clip. */
  async phone({ browser, base }) {
    const page = await openViewer(browser, base, viewerPath(MARINE(), '&frame=12'), { width: 390, height: 844 });
    save('phone', await page.screenshot());
    await page.close();
  },
  /** The texture view: the marine's BMP, opened from the Materials panel. */
  async texture({ browser, base }) {
    const page = await openViewer(browser, base, viewerPath(MARINE()), { width: 1000, height: 680 });
    await panels(page, ['Materials']);
    await page.locator('#materials .texture-button').first().click();
    await page.waitForFunction(() => {
      const d = document.querySelector('dialog.texview');
      return d?.open && d.querySelector('.texview-message').textContent !== 'Decoding…';
    });
    await frames(page, 3);
    save('texture-view', await page.screenshot());
    await page.close();
  },
  /** The embed page: one <rigscope-viewer> with its full controls, as an <iframe> or the element shows it. */
  async embed({ browser, base }) {
    const files = ZEROAD().filter((f) => /\/skeleton/.test(f));
    const query = `autoplay=0&clip=skeleton_idle&frame=40&controls=full&${files.map((f) => `file=${encodeURIComponent(f)}`).join('&')}`;
    const page = await openViewer(browser, base, `/embed.html?${query}`, { width: 640, height: 400 });
    save('embed', await page.screenshot());
    await page.close();
  },
  /** The toolbar over the 0 A.D. folder, with its Share menu open when the toolbar has menus. */
  async toolbar({ browser, base }) {
    const page = await openViewer(browser, base, viewerPath(ZEROAD(), '&clip=skeleton_idle&frame=40'), { width: 1000, height: 560 });
    const share = page.locator('#share-menu');
    if (await share.count()) {
      await share.click();
      await frames(page, 3);
    } else console.log('toolbar: no Share menu in this toolbar; taken without one');
    save('toolbar', await page.screenshot({ clip: { x: 0, y: 0, width: 1000, height: 340 } }));
    await page.close();
  },
  /** The wiki's file page of the 0 A.D. skeleton: its player and the facts table. */
  async wiki({ browser, site }) {
    const { hasMediaWiki, openTestWiki, EXTENSION_DIR } = await import('../tests/e2e/mediawiki/wiki.js');
    if (process.env.RIGSCOPE_DOCS_WIKI === '0' || !hasMediaWiki()) {
      console.log('wiki: MediaWiki is not installed (scripts/setup.sh) or RIGSCOPE_DOCS_WIKI=0; picture not taken');
      return;
    }
    const { buildMediaWiki } = await import('./build-mediawiki.mjs');
    const dir = mkdtempSync('/tmp/rigscope-docs-wiki-');
    let wiki = null;
    try {
      const extension = `${dir}/extensions/Rigscope`;
      cpSync(EXTENSION_DIR, extension, { recursive: true, filter: (src) => !src.includes('/resources/player') });
      buildMediaWiki(join(root, site), `${extension}/resources/player`);
      wiki = await openTestWiki('docs', { dir, extensionDir: extension, posters: true });
      for (const f of [...ZEROAD().filter((f) => /\/skeleton/.test(f)), ...MARINE().filter((f) => !f.endsWith('.txt'))])
        await wiki.api.upload(join(SAMPLES, decodeURIComponent(f.slice('/samples/'.length))), decodeURIComponent(f.split('/').pop()));
      await wiki.api.edit('Models', WIKI_PAGE);
      const page = await browser.newPage({ viewport: { width: 1100, height: 760 }, reducedMotion: 'reduce' });
      // The first view queues the posters; the job runner draws them; the next view shows them.
      await page.goto(`${wiki.url}/index.php?title=Models`);
      await wiki.runJobs();
      await page.goto(`${wiki.url}/index.php?title=Models`);
      await page.waitForFunction(() =>
        [...document.querySelectorAll('.rigscope-thumb img')].every((i) => i.complete && i.naturalWidth > 0),
      );
      save('wiki-page', await page.screenshot({ clip: { ...WIKI_CLIP, width: 680, height: 410 } }));
      await page.goto(`${wiki.url}/index.php?title=File:Skeleton.pmd`);
      await page.waitForFunction(() => document.querySelector('#file rigscope-viewer')?.clips?.length > 0, null, { timeout: 300000 });
      await frames(page, 10);
      save('wiki-file-page', await page.screenshot({ clip: { ...WIKI_CLIP, height: 660 } }));
      await page.close();
    } finally {
      wiki?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

async function main(names) {
  for (const n of names) if (!PICTURES[n]) throw new Error(`no picture ${n}: ${Object.keys(PICTURES).join(', ')}`);
  if (!existsSync(SAMPLES)) throw new Error(`the samples are not at ${SAMPLES}`);
  // The site, built the way tests/e2e/global-setup.js builds it (its own folder per run).
  const site = process.env.SITE ?? `build/docs-site-${process.pid}/`;
  if (!process.env.SITE)
    execFileSync('npx', ['vite', 'build', '--logLevel', 'error', '--outDir', join(root, site)], { cwd: root, stdio: 'inherit' });
  const { server, url: base } = await startServer(0, { site });
  const browser = await launch();
  try {
    for (const name of names.length ? names : Object.keys(PICTURES)) await PICTURES[name]({ browser, base, site });
  } finally {
    await browser.close();
    server.close();
    if (!process.env.SITE) rmSync(join(root, site), { recursive: true, force: true });
  }
}

await main(process.argv.slice(2));
