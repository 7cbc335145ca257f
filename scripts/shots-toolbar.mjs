// Screenshots of the viewer's toolbar for a person to look at: at 1280×800 and 390×844, with the
// demo and with a sample folder opened, and with each toolbar menu open.
//   npx vite build && node scripts/shots-toolbar.mjs [OUT_DIR] [PREFIX]
// OUT_DIR defaults to /tmp/shots-toolbar; SITE (default dist/) is the built site to serve;
// SAMPLE_DIR (default ../shared/samples/psk) is the folder opened through the folder button.
import { mkdirSync } from 'node:fs';
import { startServer } from '../tests/e2e/server.js';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, sandboxed } from '../web/cli/chromium.js';

const out = process.argv[2] ?? '/tmp/shots-toolbar';
const prefix = process.argv[3] ?? 'after';
const folder = process.env.SAMPLE_DIR ?? new URL('../../shared/samples/psk', import.meta.url).pathname;
mkdirSync(out, { recursive: true });

const { server, url } = await startServer(0, { site: process.env.SITE ?? 'dist/' });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', chromiumSandbox: sandboxed(), args: CHROMIUM_ARGS });

/** The page ready, with the sample folder opened through the folder input when `withFolder`. */
async function open(viewport, withFolder) {
  const page = await browser.newPage({ viewport });
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${url}/${withFolder ? '?demo=0' : ''}`);
  await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 120000 });
  if (withFolder) {
    const before = await page.evaluate(() => window.__rigscope.app.loads ?? 0);
    await page.setInputFiles('#folder-input', folder);
    await page.waitForFunction((n) => (window.__rigscope.app.loads ?? 0) > n, before, { timeout: 300000 });
  }
  return page;
}

/** The toolbar's menu buttons (none before the menus existed). */
const menuButtons = (page) => page.evaluate(() => [...document.querySelectorAll('.bar [aria-haspopup=menu]')].map((b) => b.id));

const shots = [];
for (const [size, viewport] of [
  ['1280', { width: 1280, height: 800 }],
  ['390', { width: 390, height: 844 }],
]) {
  for (const withFolder of [false, true]) {
    const page = await open(viewport, withFolder);
    const name = `${out}/${prefix}-${size}-${withFolder ? 'folder' : 'demo'}`;
    await page.screenshot({ path: `${name}.png` });
    shots.push(`${name}.png`);
    const scroll = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      bar: document.querySelector('.bar').scrollWidth,
    }));
    console.log(`${name}.png: page ${scroll.page} px wide, toolbar ${scroll.bar} px wide in ${viewport.width}`);
    // Each menu open, with the demo only (the menus do not change with the scene).
    if (!withFolder) {
      for (const id of await menuButtons(page)) {
        await page.click(`#${id}`);
        await page.screenshot({ path: `${name}-${id}.png` });
        shots.push(`${name}-${id}.png`);
        await page.keyboard.press('Escape');
      }
    }
    await page.close();
  }
}
// Nothing loaded: Export and the saves shown disabled, with the Share menu open.
for (const [size, viewport] of [
  ['1280', { width: 1280, height: 800 }],
  ['390', { width: 390, height: 844 }],
]) {
  const page = await browser.newPage({ viewport });
  await page.goto(`${url}/?demo=0`);
  await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 120000 });
  if (await page.$('#share-menu')) await page.click('#share-menu');
  await page.screenshot({ path: `${out}/${prefix}-${size}-empty.png` });
  shots.push(`${out}/${prefix}-${size}-empty.png`);
  await page.close();
}
console.log(shots.join('\n'));
await browser.close();
server.close();
