import { startServer } from '../tests/e2e/server.js';
import { chromium } from 'playwright-core';
const { server, url } = await startServer(0, { site: process.env.SITE ?? 'dist/' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
page.on('console', (m) => console.log('console:', m.type(), m.text()));
page.on('pageerror', (e) => console.log('pageerror:', e.message));
const path = process.argv[2] ?? '/';
await page.goto(url + path);
await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
if (process.argv[3]) await page.evaluate(process.argv[3]);
await page.waitForTimeout(500);
await page.screenshot({ path: process.argv[4] ?? '/tmp/shot.png' });
console.log(
  await page.evaluate(() => JSON.stringify({ clips: window.__rigscope.clipNames().slice(0, 20), snapshot: window.rigscope.snapshot() })),
);
await browser.close();
server.close();
