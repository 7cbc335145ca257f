// Debian's Chromium through playwright-core, rendering WebGL with SwiftShader. No browser downloads.
import { chromium } from 'playwright-core';
import { inject } from 'vitest';
import { readFileSync } from 'node:fs';

export const SAMPLES = new URL('../../../shared/samples/', import.meta.url).pathname;
export const FIXTURES = new URL('../../build/fixtures/', import.meta.url).pathname;

export async function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
}

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

/** Files as the file button would receive them. */
export function filePayload(path, name = path.split('/').pop()) {
  return { name, mimeType: 'application/octet-stream', buffer: readFileSync(path) };
}

export async function chooseFiles(page, payloads) {
  const before = await page.evaluate(() => window.__rigscope.app.reports.length);
  await page.setInputFiles('#file-input', payloads);
  await page.waitForFunction((n) => window.__rigscope.app.reports.length > n, before, { timeout: 60000 });
}

export const pixels = (page) => page.evaluate(() => { window.__rigscope.viewer.grid.visible = false; return window.__rigscope.pixels(); });
